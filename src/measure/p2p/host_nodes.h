// Which NUMA nodes to place host memory on for a GPU's host<->device copies: the GPU's own node,
// and the node farthest from it by the kernel's distance table. Read from the collected model.
#pragma once

#include <string>

#include "model/fact.h"
#include "model/machine.h"

namespace dossier::p2p {

struct HostNodes {
  Fact<int64_t> local;  // unknown when no source gives the GPU's node (-1 in most guests)
  Fact<int64_t> far;    // unknown with one node, or when local is unknown
};

HostNodes HostNodesFor(const Machine& m, const std::string& gpu_address);

}  // namespace dossier::p2p
