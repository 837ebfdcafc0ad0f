// The number check of import_checks.h: every integer and real fact an importer set, against its
// key's domain (model/number_domain.h). An importer reads "Current : -5" as a number because it is
// one; whether a link generation can be -5 is the model's to say, in one table, for every format.
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

#include "import/import_checks.h"
#include "model/fact_paths.h"
#include "model/number_domain.h"

namespace dossier::import {
namespace {

std::string LastKey(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

template <class T>
std::string AsText(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", static_cast<double>(v));
    return buf;
  } else {
    return std::to_string(v);
  }
}

struct DomainChecker {
  std::vector<std::string>* notes;
  template <class T>
  void operator()(const std::string& path, T& leaf) {
    if constexpr (IsFactType<T>::value) {
      using V = std::remove_reference_t<decltype(*leaf.value)>;
      if constexpr (std::is_arithmetic_v<V> && !std::is_same_v<V, bool>) {
        if (!leaf.value) return;
        auto why = OutsideDomain(LastKey(path), static_cast<double>(*leaf.value));
        if (!why) return;
        std::string text = AsText(*leaf.value);
        notes->push_back(leaf.source + ": " + path + " = " + text + " is " + *why +
                         "; not kept (unknown)");
        leaf.Unknown("the paste says " + text + ", which is " + *why, leaf.source);
      }
    }
  }
};

}  // namespace

void CheckNumberDomains(Imported* imported, std::vector<std::string>* notes) {
  DomainChecker c{notes};
  WalkPaths(imported->machine, c);
  for (auto& m : imported->p2p) WalkPaths(m, c);
  for (auto& m : imported->serve) WalkPaths(m, c);
}

}  // namespace dossier::import
