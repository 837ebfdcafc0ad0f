// NUMA rules: GPUs whose NUMA node the kernel does not know on a machine that has several;
// nodes whose CPU lists overlap.
#include <algorithm>
#include <map>
#include <set>

#include "analyze/cross_checks.h"
#include "analyze/evidence.h"
#include "analyze/pci_walk.h"
#include "analyze/roles.h"
#include "analyze/rule.h"
#include "util/text.h"

namespace dossier {
namespace {

const Fact<int64_t>& NodeOf(const Machine& m, const PciDevice& d) {
  for (const auto& g : m.gpus)
    if (g.address == d.address && g.numa_node.known()) return g.numa_node;
  return d.numa_node;
}

}  // namespace

std::optional<Finding> RuleNumaGpuAffinityUnknown(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  // The machine's one answer to "is each GPU's NUMA node known" (analyze/verdicts.h); on one
  // node, -1 is harmless.
  if (m.numa.nodes.size() < 2 || ctx.V().numa.answer != Answer::kNo) return std::nullopt;
  std::vector<const PciDevice*> unknown;
  for (const PciDevice* g : GpuDevices(m)) {
    const Fact<int64_t>& n = NodeOf(m, *g);
    if (n.known() && *n < 0) unknown.push_back(g);
  }
  if (unknown.empty()) return std::nullopt;
  bool guest = IsGuest(m);
  Finding f;
  // A topology file the server already names was read and checked: no advice to write one.
  const std::string topo = TopoFileAlreadySet(m);
  f.title = std::to_string(m.numa.nodes.size()) + " NUMA nodes, but " +
            std::to_string(unknown.size()) +
            " GPU(s) at numa_node -1: threads and memory cannot be placed near them";
  f.evidence.push_back(
      Ev("NUMA nodes", std::to_string(m.numa.nodes.size()), "/sys/devices/system/node"));
  for (const PciDevice* g : unknown)
    f.evidence.push_back(Ev("GPU " + g->address + " numa_node", NodeOf(m, *g)));
  bool bound = false;
  if (const MachineLink* l = ctx.view.HostLinkOf(m.name)) {
    // The passthrough map says which node each GPU should have (view/passthrough.h).
    for (const auto& p : l->gpus)
      f.evidence.push_back(
          Ev("GPU " + p.guest_address + " should be on the node of host " +
                 (p.host_address.empty() ? std::string("GPU (unknown)") : p.host_address) +
                 (p.slot.empty() ? "" : " (" + p.slot + ")"),
             p.host_numa_node));
    const MachineView* hm = ctx.view.Find(l->host);
    const Vm* vm = nullptr;
    if (hm)
      for (const auto& v : hm->machine.hypervisor.vms)
        if (v.id == l->vm_id) vm = &v;
    if (vm) {
      bound = !vm->numa_nodes.empty();
      for (const auto& n : vm->numa_nodes) {
        bound = bound && n.hostnodes.known();
        f.evidence.push_back(
            Ev("VM " + vm->id + " guest node " + std::to_string(n.id) + " bound to host nodes",
               n.hostnodes));
      }
      if (vm->numa_nodes.empty())
        f.evidence.push_back(
            Ev("VM " + vm->id + " guest NUMA nodes bound to host nodes",
               "none: no numaN: lines (" +
                   (vm->numa.value_or(false) ? std::string("numa: 1") : "numa: 0") + ")",
               vm->config.value_or("")));
    }
  } else if (const MachineView* host = HostOf(ctx)) {
    std::vector<std::string> where;
    for (const PciDevice* g : GpuDevices(host->machine)) {
      const Fact<int64_t>& n = NodeOf(host->machine, *g);
      where.push_back(g->address + " node " + FactText(n));
    }
    f.evidence.push_back(Ev("host " + host->machine.name + " GPU NUMA nodes", JoinList(where, 16),
                            host->record.file.empty() ? "host record" : host->record.file));
  }
  f.explanation =
      "Linux knows several NUMA nodes but not which one each GPU hangs off (numa_node -1). " +
      std::string(guest ? "This is typical of a guest: the hypervisor describes no PCI-to-node "
                          "locality (no _PXM for the virtual root ports). "
                        : "The firmware gives no PCI locality (_PXM) for these devices. ") +
      "NCCL, the CUDA runtime and the serving engine then cannot pin CPU threads and pinned host "
      "buffers next to each GPU: host-staged copies and CPU work may cross the inter-socket link.";
  if (guest && ctx.view.HostLinkOf(m.name)) {
    f.actions.push_back(
        {"Write each GPU's node at boot: `dossier generate numa-affinity --machine " + m.name +
             "` prints a systemd unit (and the same as a script) with one line per GPU, from the "
             "host's topology",
         "cat /sys/bus/pci/devices/" + unknown.front()->address +
             "/numa_node; nvidia-smi topo -m   # NUMA Affinity column",
         ""});
    if (!bound)
      f.actions.push_back(
          {"Bind the VM's guest NUMA nodes to host nodes so memory is placed too (numa: 1, "
           "numaN: cpus=…,hostnodes=…,policy=bind in the VM config; the numa-affinity unit's "
           "comments give the lines): writing numa_node fixes what the kernel reports, not where "
           "memory lives",
           "numastat -m on the host while the VM runs", "host"});
    if (topo.empty())
      f.actions.push_back(
          {"Give NCCL the host's real tree: `dossier generate nccl-topo --machine " + m.name +
               "` and NCCL_TOPO_FILE in the server's environment",
           "NCCL_DEBUG=INFO <server command> 2>&1 | grep -i topo", ""});
  } else if (guest) {
    f.actions.push_back(
        {"At boot, as root, write each GPU's node (taken from the host's topology) into sysfs: "
         "`echo N > /sys/bus/pci/devices/ADDR/numa_node` per GPU, from a boot-time unit (a "
         "systemd oneshot, or /etc/rc.local) that runs before the server starts",
         "cat /sys/bus/pci/devices/" + unknown.front()->address +
             "/numa_node; nvidia-smi topo -m   # NUMA Affinity column",
         ""});
    if (topo.empty())
      f.actions.push_back(
          {"Describe the guest's NUMA layout to NCCL with a topology file (a <cpu numaid=…> per "
           "node with its GPUs' <pci busid=…> inside) named by NCCL_TOPO_FILE in the server's "
           "environment",
           "NCCL_DEBUG=INFO <server command> 2>&1 | grep -i topo", ""});
  } else {
    f.actions.push_back(
        {"Update the BIOS, and check its NUMA settings (nodes per socket, ACPI SRAT) so the "
         "firmware reports PCI locality",
         "cat /sys/bus/pci/devices/" + unknown.front()->address + "/numa_node", ""});
  }
  f.not_helping = {
      "numactl --cpunodebind on the whole server: without knowing each GPU's node it pins "
      "every rank to the same node, right for some GPUs and wrong for the others."};
  if (!topo.empty())
    f.not_helping.push_back("Another NCCL topology file: " + topo +
                            ". It tells NCCL the layout; the kernel and other libraries still "
                            "read numa_node -1.");
  return f;
}

std::optional<Finding> RuleNumaOverlappingNodes(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  // CPU -> the nodes that list it.
  std::map<int64_t, std::vector<int64_t>> owners;
  for (const auto& n : m.numa.nodes) {
    if (!n.cpus.known()) continue;
    auto cpus = ParseCpuList(*n.cpus);
    if (!cpus) continue;
    for (int64_t c : *cpus) owners[c].push_back(n.id);
  }
  std::vector<int64_t> shared;
  std::set<std::vector<int64_t>> groups;
  for (const auto& [cpu, nodes] : owners) {
    if (nodes.size() < 2) continue;
    shared.push_back(cpu);
    groups.insert(nodes);
  }
  if (shared.empty()) return std::nullopt;
  Finding f;
  f.title = std::to_string(shared.size()) + " CPU(s) listed by more than one NUMA node (" +
            FormatCpuList(shared) + "): the node CPU lists overlap";
  for (const auto& n : m.numa.nodes) {
    for (const auto& g : groups) {
      if (std::find(g.begin(), g.end(), n.id) == g.end()) continue;
      f.evidence.push_back(Ev("node " + std::to_string(n.id) + " CPUs", n.cpus));
      break;
    }
  }
  f.explanation =
      "Each CPU belongs to exactly one NUMA node on a healthy kernel. Lists that overlap come "
      "from a broken firmware table (SRAT), a hypervisor that describes the guest's nodes "
      "inconsistently, or a capture stitched from several boots. Which node these CPUs' "
      "allocations go to cannot be told from the lists, so per-node CPU counts and the GPU "
      "affinity derived from them are not reliable.";
  f.actions.push_back(
      {"Compare with what the kernel used at boot; on a guest, check the VM's "
       "NUMA description (QEMU -numa node,cpus=…)",
       "dmesg | grep -i -E 'SRAT|NUMA'; lscpu -e=CPU,NODE", ""});
  f.not_helping = {"numactl bindings: they trust the same lists."};
  return f;
}

}  // namespace dossier
