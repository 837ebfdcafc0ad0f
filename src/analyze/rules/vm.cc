// Virtual-machine rules: the legacy i440FX machine type, a problem only for passed-through
// devices that need PCIe capabilities (GPUs, and any device that shows a PCIe capability).
#include <algorithm>

#include "analyze/evidence.h"
#include "analyze/pci_walk.h"
#include "analyze/roles.h"
#include "analyze/rule.h"
#include "util/text.h"

namespace dossier {
namespace {

// Passed-through devices that need a PCIe hierarchy: the GPUs, and devices whose config space
// shows a PCIe endpoint (QEMU's own devices on i440FX have none).
std::vector<const PciDevice*> NeedingPcie(const Machine& m) {
  std::vector<const PciDevice*> out = GpuDevices(m);
  for (const auto& d : m.pci.devices) {
    bool endpoint =
        d.port_type.known() && (*d.port_type == "endpoint" || *d.port_type == "legacy_endpoint");
    if (endpoint && std::find(out.begin(), out.end(), &d) == out.end()) out.push_back(&d);
  }
  return out;
}

}  // namespace

std::optional<Finding> RuleVmLegacyChipset(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  if (!IsGuest(m) || !m.virtualization.chipset.known() ||
      ToLower(*m.virtualization.chipset) != "i440fx")
    return std::nullopt;
  Finding f;
  auto gpus = GpuDevices(m);
  auto needing = NeedingPcie(m);
  f.evidence.push_back(Ev("QEMU machine type", m.virtualization.chipset));
  f.evidence.push_back(Ev("DMI product", m.dmi.product_name));
  if (needing.empty()) {
    // Nothing passed through needs PCIe: a note for later, not a problem now.
    f.severity = kInfo;
    f.title =
        "i440FX virtual machine: no passed-through device needs PCIe capabilities now; use Q35 "
        "before passing GPUs through";
    f.evidence.push_back(Ev("PCIe devices passed through", "none", "PCI walk"));
    f.explanation =
        "QEMU's i440FX machine type has no PCIe root ports and no extended configuration space. "
        "That is harmless for the emulated devices this guest has, but a GPU passed through "
        "later would lose its PCIe capabilities (link, Resizable BAR, ACS) and P2P.";
    f.actions.push_back(
        {"When GPUs are to be passed through, create the VM as Q35 "
         "(qm set VMID --machine q35)",
         "cat /sys/class/dmi/id/product_name", "host"});
    return f;
  }
  f.title = (gpus.empty() ? "i440FX virtual machine: passed-through PCIe devices"
                          : "i440FX virtual machine: passed-through GPUs") +
            std::string(" sit on a conventional PCI bus without PCIe capabilities; move to Q35");
  if (!gpus.empty())
    f.evidence.push_back(Ev("GPUs passed through", std::to_string(gpus.size()), "PCI walk"));
  for (const PciDevice* d : needing) {
    if (f.evidence.size() >= 8) break;
    f.evidence.push_back(Ev(d->address + " port type", d->port_type));
  }
  f.explanation =
      "QEMU's i440FX machine type emulates a 1990s PCI host bridge: devices hang off a "
      "conventional PCI bus, with no PCIe root ports and no extended configuration space. The "
      "guest's NVIDIA driver cannot read the GPUs' PCIe capabilities (link, Resizable BAR, ACS), "
      "large 64-bit BARs are harder to place, and P2P between GPUs is out of reach. Q35 emulates "
      "a PCIe root complex with root ports.";
  f.actions.push_back(
      {"Switch the VM to Q35 and pass each GPU as PCIe: Proxmox `qm set VMID --machine q35` and "
       "pcie=1 on each hostpciN (libvirt: <type machine='q35'>). The guest OS may re-detect "
       "network and disk devices.",
       "cat /sys/class/dmi/id/product_name   # 'Standard PC (Q35 + ICH9, 2009)'; then: "
       "dossier collect",
       ""});
  f.not_helping = {
      "Guest kernel options for PCIe capabilities (pcie_ports=…): they cannot add a PCIe "
      "hierarchy the machine type does not emulate (pci=realloc places BARs; it does not add "
      "one either)."};
  return f;
}

}  // namespace dossier
