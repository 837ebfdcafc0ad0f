#include "view/stale.h"

#include <map>
#include <typeinfo>

#include "model/fact_paths.h"

namespace dossier {

void MarkAllStale(Machine* m, const std::string& why) {
  WalkPaths(*m, [&](const std::string&, auto& leaf) {
    if constexpr (IsFactType<std::remove_reference_t<decltype(leaf)>>::value) {
      if (leaf.stale.empty()) leaf.stale = why;
    }
  });
}

int FillFromOlder(Machine* latest, const Machine& older, const std::string& why) {
  // The older record's known facts by path, with their type so a value is only copied into a
  // fact of the same type (a field whose type changed between versions is left alone).
  struct Src {
    const void* fact;
    const std::type_info* type;
  };
  std::map<std::string, Src> known;
  WalkPaths(const_cast<Machine&>(older), [&](const std::string& p, auto& leaf) {
    using L = std::remove_reference_t<decltype(leaf)>;
    if constexpr (IsFactType<L>::value) {
      if (leaf.known()) known[p] = {&leaf, &typeid(L)};
    }
  });
  int filled = 0;
  WalkPaths(*latest, [&](const std::string& p, auto& leaf) {
    using L = std::remove_reference_t<decltype(leaf)>;
    if constexpr (IsFactType<L>::value) {
      if (leaf.known()) return;
      auto it = known.find(p);
      if (it == known.end() || *it->second.type != typeid(L)) return;
      const L& src = *static_cast<const L*>(it->second.fact);
      std::string reason = leaf.unknown.empty() ? "" : " (" + leaf.unknown + ")";
      leaf.value = src.value;
      leaf.source = src.source;
      leaf.stale = why + reason;
      leaf.unknown.clear();
      ++filled;
    }
  });
  return filled;
}

}  // namespace dossier
