#include "view/links.h"

#include "view/host_p2p.h"
#include "view/passthrough.h"

namespace dossier {
namespace {

struct VmOn {
  const MachineView* host = nullptr;
  const Vm* vm = nullptr;
};

VmOn ByUuid(const View& view, const MachineView& guest) {
  const std::string& uuid = *guest.machine.dmi.product_uuid;
  for (const auto& mv : view.machines) {
    if (&mv == &guest) continue;
    for (const auto& vm : mv.machine.hypervisor.vms)
      if (vm.smbios_uuid.known() && *vm.smbios_uuid == uuid) return {&mv, &vm};
  }
  return {};
}

}  // namespace

void LinkMachines(View* view) {
  for (const auto& g : view->machines) {
    if (!g.machine.virtualization.guest.value_or(false)) continue;
    MachineLink link;
    link.guest = g.machine.name;
    VmOn on;
    const Fact<std::string>& uuid = g.machine.dmi.product_uuid;
    if (uuid.known()) {
      on = ByUuid(*view, g);
      if (on.vm) {
        link.how = "smbios-uuid";
        link.evidence = "the guest's SMBIOS UUID " + *uuid + " (" + uuid.source + ") is the " +
                        (on.host->machine.hypervisor.kind.value_or("") == "libvirt"
                             ? std::string("<uuid>")
                             : std::string("smbios1 uuid")) +
                        " of VM " + on.vm->id + " on '" + on.host->machine.name + "' (" +
                        on.vm->smbios_uuid.source + ")";
      }
    }
    if (!on.vm) {
      for (const auto& n : view->notes.machines) {
        if (n.name != g.machine.name || n.guest_of.empty()) continue;
        const MachineView* host = view->Find(n.guest_of);
        std::string at = "notes.toml:" + std::to_string(n.line);
        if (!host) {
          view->warnings.push_back(at + ": guest '" + n.name + "' is noted as on host '" +
                                   n.guest_of + "', which is not in the dossier: not linked");
          break;
        }
        const Vm* vm = nullptr;
        for (const auto& v : host->machine.hypervisor.vms)
          if (!n.vm.empty() && v.id == n.vm) vm = &v;
        if (!vm) {
          view->warnings.push_back(
              at + ": guest '" + n.name + "' on host '" + n.guest_of + "': " +
              (n.vm.empty() ? std::string("no VM id (dossier note machine ") + n.name + " --vm ID)"
                            : "the host's facts list no VM " + n.vm) +
              ": not linked");
        } else {
          on = {host, vm};
          link.how = "note";
          link.evidence = "the notes say so (" + at + ")" +
                          (uuid.known() ? "; the guest's SMBIOS UUID " + *uuid + " matched no VM"
                                        : "; the guest's SMBIOS UUID is unknown (" +
                                              (uuid.unknown.empty() ? std::string("not collected")
                                                                    : uuid.unknown) +
                                              ")");
        }
        break;
      }
    }
    if (!on.vm) continue;
    link.host = on.host->machine.name;
    link.vm_id = on.vm->id;
    link.gpus = MapPassthrough(g.machine, on.host->machine, *on.vm);
    for (size_t i = 0; i < link.gpus.size(); ++i) {
      for (size_t j = i + 1; j < link.gpus.size(); ++j) {
        const std::string &ha = link.gpus[i].host_address, &hb = link.gpus[j].host_address;
        if (ha.empty() || hb.empty()) continue;
        HostP2p v = HostP2pBetween(on.host->machine, ha, hb);
        link.pairs.push_back({i, j, v.level, v.can, v.decided, v.why});
      }
    }
    view->links.push_back(std::move(link));
  }
}

}  // namespace dossier
