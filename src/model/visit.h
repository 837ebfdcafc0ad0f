// Helpers for walkers of the model: a type is Visitable when it lists its fields in visit().
#pragma once

#include <concepts>
#include <vector>

namespace dossier {

struct NullVisitor {
  template <class T>
  void operator()(const char*, T&) {}
};

template <class T>
concept Visitable = requires(T& t, NullVisitor& v) {
  t.visit(v);
};

// visit() is written once, non-const; walkers that only read call it through this.
template <class T, class V>
void VisitConst(const T& t, V& v) {
  const_cast<T&>(t).visit(v);
}

}  // namespace dossier

namespace dossier {

// A std::vector of Visitable structs (pci devices, gpus…).
template <class T>
concept VisitableVector = requires {
  typename T::value_type;
}
&&std::same_as<T, std::vector<typename T::value_type>>&& Visitable<typename T::value_type>;

}  // namespace dossier
