#include "measure/p2p/host_nodes.h"

namespace dossier::p2p {
namespace {

// The GPU's node from the PCI walk, the GPU list, or NVML, in that order; -1 is no answer.
Fact<int64_t> GpuNode(const Machine& m, const std::string& address) {
  if (const PciDevice* d = m.FindPci(address); d && d->numa_node.known() && *d->numa_node >= 0)
    return d->numa_node;
  for (const auto& g : m.gpus)
    if (g.address == address && g.numa_node.known() && *g.numa_node >= 0) return g.numa_node;
  for (const auto& g : m.nvml.gpus)
    if (g.pci_bus_id.known() && *g.pci_bus_id == address && g.numa_node.known() &&
        *g.numa_node >= 0)
      return g.numa_node;
  Fact<int64_t> f;
  f.Unknown("the GPU's NUMA node is unknown (-1 or unread: usual in a virtual machine)", address);
  return f;
}

}  // namespace

HostNodes HostNodesFor(const Machine& m, const std::string& address) {
  HostNodes h;
  h.local = GpuNode(m, address);
  if (!h.local.known()) {
    h.far.Unknown(h.local.unknown, h.local.source);
    return h;
  }
  const NumaNode* local = nullptr;
  for (const auto& n : m.numa.nodes)
    if (n.id == *h.local) local = &n;
  if (!local || !local->distances.known()) {
    h.far.Unknown("no distance table for NUMA node " + std::to_string(*h.local),
                  "/sys/devices/system/node");
    return h;
  }
  const auto& dist = *local->distances;  // to every node, in the order of m.numa.nodes
  int64_t best = -1, best_dist = -1;
  for (size_t i = 0; i < m.numa.nodes.size() && i < dist.size(); ++i) {
    const NumaNode& n = m.numa.nodes[i];
    if (n.id == *h.local) continue;
    if (n.memory_bytes.known() && *n.memory_bytes == 0) continue;  // no memory to place there
    if (dist[i] > best_dist) {
      best = n.id;
      best_dist = dist[i];
    }
  }
  if (best < 0)
    h.far.Unknown("one NUMA node with memory: no far node", "/sys/devices/system/node");
  else
    h.far.Set(best, "/sys/devices/system/node/node" + std::to_string(*h.local) + "/distance");
  return h;
}

}  // namespace dossier::p2p
