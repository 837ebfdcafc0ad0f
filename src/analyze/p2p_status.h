// NVML's P2P status matrices (nvidia-smi topo -p2p r / w) as the rules read them. The model field
// `topology.p2p_status` is added by the NVML work; until it exists this header still compiles and
// P2pStatusOf() finds nothing, so gpu.p2p-not-ok does not fire. The accessor accepts the shapes
// that field may take: a map keyed "read"/"write" or a struct with read/write members, each a
// matrix of codes ("OK", "NS", "CNS", "GNS", "TNS", "DR", "U"; "X" on the diagonal).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "analyze/finding.h"
#include "model/machine.h"

namespace dossier {

using CodeMatrix = std::vector<std::vector<std::string>>;

struct P2pStatusView {
  const CodeMatrix* read = nullptr;
  const CodeMatrix* write = nullptr;
  std::string source = "nvml:nvmlDeviceGetP2PStatus";
  // One pasted capability alone (`nvidia-smi topo -p2p r`): its name ("read", "prop", …) and
  // `read` holds it; `write` is null, since what was not pasted is not known.
  std::string only = {};
};

namespace p2p_status_detail {

template <class M>
const CodeMatrix* Pick(const M& s, const char* key) {
  if constexpr (requires {
                  s.find(std::string(key));
                  s.end();
                }) {
    auto it = s.find(key);
    if (it == s.end()) return nullptr;
    if constexpr (std::is_convertible_v<decltype(&it->second), const CodeMatrix*>) {
      return &it->second;
    } else if constexpr (requires { it->second.value; }) {
      return it->second.value ? &*it->second.value : nullptr;  // a Fact<CodeMatrix>
    } else {
      return nullptr;
    }
  } else {
    return nullptr;
  }
}

template <class T>
P2pStatusView From(const T& topo) {
  P2pStatusView v;
  if constexpr (requires { topo.p2p_status; }) {
    const auto& s = topo.p2p_status;
    if constexpr (requires {
                    s.read;
                    s.write;
                  }) {
      if constexpr (std::is_convertible_v<decltype(&s.read), const CodeMatrix*>) {
        v.read = &s.read;
        v.write = &s.write;
      }
    } else {
      v.read = Pick(s, "read");
      v.write = Pick(s, "write");
    }
  }
  return v;
}

}  // namespace p2p_status_detail

inline P2pStatusView P2pStatusOf(const Machine& m) {
  return p2p_status_detail::From(m.topology);
}

// The body of gpu.p2p-not-ok, on matrices given directly (tests; and the rule once the field
// exists).
// `bad`, when given, receives the pairs (row, column: NVML indices) whose status is not OK.
std::optional<Finding> P2pNotOkFrom(const Machine& m, const P2pStatusView& st,
                                    std::vector<std::pair<size_t, size_t>>* bad = nullptr);

}  // namespace dossier
