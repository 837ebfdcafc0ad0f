#include "analyze/roles.h"

#include <set>

#include "analyze/pci_walk.h"

namespace dossier {

bool IsGuest(const Machine& m) {
  return m.virtualization.guest.known() && *m.virtualization.guest;
}
bool IsNotGuest(const Machine& m) {
  if (m.virtualization.guest.known()) return !*m.virtualization.guest;
  // Not read (a host known from pastes: no paste says whether it is itself a VM): a machine
  // whose pasted facts show it runs VMs (`qm config`, a PCI mapping) is taken as their host.
  return m.hypervisor.kind.known() &&
         (!m.hypervisor.vms.empty() || !m.hypervisor.pci_mappings.empty());
}
bool BoundToVfio(const PciDevice& d) {
  return d.driver.known() && *d.driver == "vfio-pci";
}

const MachineView* HostOf(const RuleContext& ctx) {
  const std::string& me = ctx.m().name;
  if (const NoteMachine* nm = ctx.notes.FindMachine(me); nm && !nm->guest_of.empty()) {
    for (const auto& mv : ctx.view.machines)
      if (mv.machine.name == nm->guest_of) return &mv;
  }
  // Without a name in the notes: a machine the notes call a host, else the one machine that
  // passes NVIDIA GPUs to guests. Two candidates are ambiguous: no host then.
  const MachineView* found = nullptr;
  int candidates = 0;
  for (const auto& mv : ctx.view.machines) {
    if (&mv == &ctx.mv || mv.machine.name == me || IsGuest(mv.machine)) continue;
    const NoteMachine* nm = ctx.notes.FindMachine(mv.machine.name);
    bool host = nm && nm->role == "host";
    for (const PciDevice* g : GpuDevices(mv.machine)) host = host || BoundToVfio(*g);
    if (host) {
      found = &mv;
      ++candidates;
    }
  }
  return candidates == 1 ? found : nullptr;
}

bool GpusOnSeparateRootComplexes(const Machine& m) {
  auto gpus = GpuDevices(m);
  if (gpus.size() < 2) return false;
  std::set<std::string> seen;
  for (const PciDevice* g : gpus) {
    std::string rc = RootComplexOf(m, *g);
    if (rc.empty() || !seen.insert(rc).second) return false;
  }
  return true;
}

std::string JoinList(const std::vector<std::string>& items, size_t max_items) {
  std::string out;
  size_t n = std::min(items.size(), max_items);
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += (i + 1 == n && n == items.size()) ? " and " : ", ";
    out += items[i];
  }
  if (items.size() > n) out += " and " + std::to_string(items.size() - n) + " more";
  return out;
}

}  // namespace dossier
