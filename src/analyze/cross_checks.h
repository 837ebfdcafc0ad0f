// Cross-checks: a file or statement that describes the machine, compared with what the probes
// read. A disagreement is a finding (rule table); an agreement is said in the report's Findings
// section under "Cross-checks", so the next engineer knows it was checked and need not redo it.
// Pure: reads the machine only.
#pragma once

#include <string>
#include <vector>

#include "model/machine.h"

namespace dossier {

struct CrossCheck {
  std::string what;  // "NCCL_TOPO_FILE of sglang (pid 2417)"
  bool agrees = false;
  std::string detail;  // what was compared, and the result
  std::string source;  // the file compared
  template <class V>
  void visit(V& v) {
    v("what", what);
    v("agrees", agrees);
    v("detail", detail);
    v("source", source);
  }
};

// An NCCL topology file against the machine: every GPU it places is a GPU of the machine, once,
// under a NUMA id the machine has (and the one the GPU's numa_node says, where that is known),
// and every GPU of the machine is in it. Each problem names the GPU or id, with file:line.
struct NcclTopoCheck {
  std::vector<std::string> problems;
  std::vector<std::string> sources;  // file:line of each problem
  std::string agreed;                // what holds, when there is no problem
};
NcclTopoCheck CheckNcclTopoFile(const Machine& m, const NcclTopoFile& f);

// The servers whose NCCL_TOPO_FILE was read, each file once (workers share their launcher's).
std::vector<const Server*> ServersWithTopoFile(const Machine& m);

// When a server already names an NCCL topology file that was read: "NCCL_TOPO_FILE of sglang (pid
// 2417) is /root/nccl_topo.xml, which agrees with this machine's GPUs and NUMA nodes" (or "which
// disagrees…: see nccl.topo-file-mismatch"). "" when none was read: rules that would advise
// writing one check this first, and say this instead.
std::string TopoFileAlreadySet(const Machine& m);

// Every cross-check of the machine, agreeing or not, in a stable order.
std::vector<CrossCheck> CrossChecks(const Machine& m);

}  // namespace dossier
