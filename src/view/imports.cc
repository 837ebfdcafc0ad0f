#include "view/imports.h"

#include <algorithm>
#include <map>
#include <set>
#include <typeinfo>

#include "hypervisor/mapping_check.h"
#include "model/fact_paths.h"

namespace dossier {
namespace {

template <class T>
void MarkStale(T* obj, const std::string& why) {
  if (why.empty()) return;
  WalkPaths(*obj, [&](const std::string&, auto& leaf) {
    if constexpr (IsFactType<std::remove_reference_t<decltype(leaf)>>::value) {
      if (leaf.known() && leaf.stale.empty()) leaf.stale = why;
    }
  });
}

// Elements of `from` whose key `base` lacks are appended (stale when the import is older).
template <class T, class Key>
void AppendMissing(std::vector<T>* base, const std::vector<T>& from, Key key,
                   const std::string& why) {
  for (const T& e : from) {
    bool have = false;
    for (const T& b : *base)
      if (key(b) == key(e)) have = true;
    if (have) continue;
    base->push_back(e);
    MarkStale(&base->back(), why);
  }
}

using Matrix = std::vector<std::vector<std::string>>;
void TakeMatrix(Matrix* base, const Matrix& from, bool newer) {
  if (from.empty()) return;
  if (base->empty() || newer) *base = from;
}

}  // namespace

// The mapping entries of a machine whose pci.cfg came from a paste: checked like the probe
// checks them. The node is the machine's Proxmox node, else the only node its entries name (a
// paste rarely shows the hostname). A device whose IOMMU group was not pasted is left unknown
// rather than called stale.
void CheckImportedMappings(Machine* m) {
  auto& h = m->hypervisor;
  if (h.pci_mappings.empty() || m->pci.devices.empty()) return;
  std::string node = h.node.value_or("");
  if (node.empty()) {
    std::set<std::string> nodes;
    for (const auto& mp : h.pci_mappings)
      for (const auto& e : mp.entries)
        if (e.node.known()) nodes.insert(*e.node);
    if (nodes.size() == 1) node = *nodes.begin();
  }
  for (auto& d : m->pci.devices) {  // groups from an IOMMU group listing
    if (d.iommu_group.known()) continue;
    for (const auto& g : m->iommu.groups)
      if (std::find(g.devices.begin(), g.devices.end(), d.address) != g.devices.end())
        d.iommu_group.Set(g.id, "IOMMU group listing");
  }
  hypervisor::CheckPciMappings(node, m->pci, "imported PCI devices", &h.pci_mappings);
  for (auto& mp : h.pci_mappings)
    for (auto& e : mp.entries) {
      if (!e.status.known() || *e.status != "stale" || e.iommu_group_now.known()) continue;
      if (!e.problem.known() || e.problem->find(';') != std::string::npos ||
          e.problem->rfind("'iommugroup'", 0) != 0)
        continue;
      e.status.Unknown("the IOMMU group of " + e.path.value_or("?") +
                           " is not in the pasted outputs (paste: for d in "
                           "/sys/kernel/iommu_groups/*/devices/*; do echo $d; done)",
                       e.path.source);
      e.problem.Unknown("see status", e.path.source);
    }
}

void OverlayImport(Machine* base, const Machine& imported, const std::string& base_label,
                   const OverlaySide& side, const std::string& why_stale,
                   std::vector<FactDisagreement>* out) {
  // 1. Where both know a fact and disagree: recorded, then the newer value stands.
  auto before = Flatten(*base);
  auto theirs = Flatten(imported);
  for (const auto& [path, f] : theirs) {
    if (!f.known || f.value.empty()) continue;
    auto it = before.find(path);
    if (it == before.end() || !it->second.known || it->second.value.empty()) continue;
    if (it->second.value == f.value) continue;
    // The name, and whether this record's run loaded the driver's library (a collect on a vfio
    // host did not, a pasted nvidia-smi -q did): states of the records, not facts that disagree.
    if (path == "/name" || path == "/nvml/loaded") continue;
    FactDisagreement d;
    d.path = path;
    if (side.newer) {
      d.kept = f.value, d.kept_source = f.source, d.kept_record = side.label;
      d.other = it->second.value, d.other_source = it->second.source, d.other_record = base_label;
    } else {
      d.kept = it->second.value, d.kept_source = it->second.source, d.kept_record = base_label;
      d.other = f.value, d.other_source = f.source, d.other_record = side.label;
    }
    out->push_back(std::move(d));
  }
  // 2. Facts: by path, same type only.
  struct Src {
    const void* fact;
    const std::type_info* type;
  };
  std::map<std::string, Src> known;
  WalkPaths(const_cast<Machine&>(imported), [&](const std::string& p, auto& leaf) {
    using L = std::remove_reference_t<decltype(leaf)>;
    if constexpr (IsFactType<L>::value) {
      if (leaf.known()) known[p] = {&leaf, &typeid(L)};
    }
  });
  WalkPaths(*base, [&](const std::string& p, auto& leaf) {
    using L = std::remove_reference_t<decltype(leaf)>;
    if constexpr (IsFactType<L>::value) {
      auto it = known.find(p);
      if (it == known.end() || *it->second.type != typeid(L)) return;
      const L& src = *static_cast<const L*>(it->second.fact);
      if (leaf.known() && !side.newer) return;
      leaf.value = src.value;
      leaf.source = src.source;
      leaf.unknown.clear();
      leaf.stale = side.newer ? std::string() : why_stale;
    }
  });
  // 3. What the machine so far has no element for: devices, groups, GPUs, matrices.
  std::string why = side.newer ? std::string() : why_stale;
  AppendMissing(
      &base->pci.devices, imported.pci.devices, [](const PciDevice& d) { return d.address; }, why);
  AppendMissing(
      &base->pci.acs_lines, imported.pci.acs_lines, [](const PciAcsLine& l) { return l.line; },
      why);
  // IOMMU groups: a newer listing (often a grep of a few devices) moves the devices it names
  // into its groups; the groups it does not mention stay as they were.
  if (side.newer) {
    for (const auto& ig : imported.iommu.groups) {
      for (auto& g : base->iommu.groups) {
        if (g.id == ig.id) continue;
        std::erase_if(g.devices, [&](const std::string& a) {
          return std::find(ig.devices.begin(), ig.devices.end(), a) != ig.devices.end();
        });
      }
    }
    std::erase_if(base->iommu.groups, [](const IommuGroup& g) { return g.devices.empty(); });
  }
  AppendMissing(
      &base->iommu.groups, imported.iommu.groups, [](const IommuGroup& g) { return g.id; }, why);
  AppendMissing(
      &base->gpus, imported.gpus, [](const Gpu& g) { return g.index; }, why);
  AppendMissing(
      &base->nvml.gpus, imported.nvml.gpus, [](const NvmlGpu& g) { return g.index; }, why);
  AppendMissing(
      &base->kernel_log.pci_problems, imported.kernel_log.pci_problems,
      [](const PciProblem& p) { return p.message; }, why);
  // NUMA nodes (numactl -H after an lscpu or lspci paste), CUDA toolkits, Python environments,
  // server processes and VM start errors pasted in a later import: appended by their key, so a
  // second `dossier import` of the same machine adds them as the first did.
  AppendMissing(
      &base->numa.nodes, imported.numa.nodes, [](const NumaNode& n) { return n.id; }, why);
  std::stable_sort(base->numa.nodes.begin(), base->numa.nodes.end(),
                   [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
  AppendMissing(
      &base->software.cuda_toolkits, imported.software.cuda_toolkits,
      [](const CudaToolkit& t) { return t.path; }, why);
  AppendMissing(
      &base->software.python_envs, imported.software.python_envs,
      [](const PythonEnv& e) { return e.fs_root + "\n" + e.path; }, why);
  AppendMissing(
      &base->servers, imported.servers, [](const Server& s) { return s.pid; }, why);
  AppendMissing(
      &base->hypervisor.start_errors, imported.hypervisor.start_errors,
      [](const VmStartError& e) { return e.vmid.value_or("") + "\n" + e.message.value_or(""); },
      why);
  // The DIMMs of one dmidecode paste describe the machine's slots together: taken whole.
  if (!imported.dmi.memory_devices.empty() && (base->dmi.memory_devices.empty() || side.newer)) {
    base->dmi.memory_devices = imported.dmi.memory_devices;
    for (auto& d : base->dmi.memory_devices) MarkStale(&d, why);
  }
  for (const auto& [k, v] : imported.software.env)
    if (side.newer || !base->software.env.count(k)) base->software.env[k] = v;
  for (const auto& e : imported.nvml.pair_errors)
    if (std::find(base->nvml.pair_errors.begin(), base->nvml.pair_errors.end(), e) ==
        base->nvml.pair_errors.end())
      base->nvml.pair_errors.push_back(e);
  for (auto& g : base->iommu.groups)
    for (const auto& ig : imported.iommu.groups)
      if (g.id == ig.id && (g.devices.empty() || side.newer) && !ig.devices.empty())
        g.devices = ig.devices;
  auto& t = base->topology;
  const auto& it = imported.topology;
  // The pair levels a collect derives from its own PCI walk stand; an NCCL topology dump's levels
  // fill a machine that has none.
  TakeMatrix(&t.gpu_levels, it.gpu_levels, false);
  TakeMatrix(&t.nvml_levels, it.nvml_levels, side.newer);
  TakeMatrix(&t.gpu_nic_levels, it.gpu_nic_levels, side.newer);
  TakeMatrix(&t.nic_levels, it.nic_levels, side.newer);
  if (!it.nics.empty() && (t.nics.empty() || side.newer)) t.nics = it.nics;
  TakeMatrix(&t.p2p_status.read, it.p2p_status.read, side.newer);
  TakeMatrix(&t.p2p_status.write, it.p2p_status.write, side.newer);
  TakeMatrix(&t.p2p_status.nvlink, it.p2p_status.nvlink, side.newer);
  TakeMatrix(&t.p2p_status.atomics, it.p2p_status.atomics, side.newer);
  TakeMatrix(&t.p2p_status.pci, it.p2p_status.pci, side.newer);
  TakeMatrix(&t.p2p_status.unstated, it.p2p_status.unstated, side.newer);
  // NCCL's view of a run: a newer log replaces the older one's ranks and connections.
  auto& n = base->nccl;
  const auto& in = imported.nccl;
  if (!in.ranks.empty() && (n.ranks.empty() || side.newer)) n.ranks = in.ranks;
  if (!in.connections.empty() && (n.connections.empty() || side.newer))
    n.connections = in.connections;
  if (!in.p2p_refused.empty() && (n.p2p_refused.empty() || side.newer))
    n.p2p_refused = in.p2p_refused;
  // Proxmox: VMs and PCI mappings pasted from the host; the mappings are then checked against
  // the devices and IOMMU groups the machine now has, as Proxmox checks them at VM start.
  AppendMissing(
      &base->hypervisor.vms, imported.hypervisor.vms, [](const Vm& v) { return v.id; }, why);
  AppendMissing(
      &base->hypervisor.pci_mappings, imported.hypervisor.pci_mappings,
      [](const PciMapping& m) { return m.name; }, why);
  for (const auto& p : imported.hypervisor.problems)
    if (std::find(base->hypervisor.problems.begin(), base->hypervisor.problems.end(), p) ==
        base->hypervisor.problems.end())
      base->hypervisor.problems.push_back(p);
  // A serving engine's memory figures: a newer log replaces what an older one said.
  if (!imported.server_logs.empty() && (base->server_logs.empty() || side.newer))
    base->server_logs = imported.server_logs;
  if (imported.nvml.loaded && !base->nvml.loaded) {
    base->nvml.loaded = true;
    base->nvml.library = imported.nvml.library;
    base->nvml.error.clear();
  }
}

}  // namespace dossier
