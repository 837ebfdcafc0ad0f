// A machine with every list holding one element and every leaf a value, built by the model's own
// visit(): a list or field added to the model later is filled without a test changing, so code
// that forgets one (an overlay, a reader) fails a test that walks this machine.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "model/fact_paths.h"
#include "model/machine.h"
#include "model/visit.h"

namespace dossier::testing {

struct Filler {
  int n = 0;
  template <class T>
  static constexpr bool kIsMap = requires {
    typename T::mapped_type;
  };

  template <class V>
  void Plain(V* v) {
    ++n;
    if constexpr (std::is_same_v<V, std::string>) {
      *v = "v" + std::to_string(n);
    } else if constexpr (std::is_same_v<V, bool>) {
      *v = true;
    } else if constexpr (std::is_arithmetic_v<V>) {
      *v = static_cast<V>(n);
    } else if constexpr (std::is_same_v<V, std::vector<std::string>>) {
      *v = {"e" + std::to_string(n)};
    } else if constexpr (std::is_same_v<V, std::vector<int64_t>>) {
      *v = {n};
    } else if constexpr (std::is_same_v<V, std::vector<std::vector<std::string>>>) {
      *v = {{"X", "c" + std::to_string(n)}, {"c" + std::to_string(n), "X"}};
    } else if constexpr (kIsMap<V>) {
      typename V::mapped_type m{};
      if constexpr (std::is_same_v<typename V::mapped_type, std::string>)
        m = "m" + std::to_string(n);
      (*v)["k" + std::to_string(n)] = m;
    }
  }
  template <class T>
  void operator()(const char*, T& v) {
    if constexpr (IsFactType<T>::value) {
      std::remove_reference_t<decltype(*v.value)> x{};
      Plain(&x);
      v.Set(std::move(x), "imported: f.txt:" + std::to_string(n) + " (test)");
    } else if constexpr (Visitable<T>) {
      v.visit(*this);
    } else if constexpr (VisitableVector<T>) {
      if (v.empty()) v.emplace_back();
      for (auto& e : v) e.visit(*this);
    } else {
      Plain(&v);
    }
  }
};

inline Machine FilledMachine() {
  Machine m;
  Filler f;
  m.visit(f);
  m.name = "filled";
  return m;
}

}  // namespace dossier::testing
