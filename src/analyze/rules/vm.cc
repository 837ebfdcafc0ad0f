// Virtual-machine rules: the legacy i440FX machine type.
#include "analyze/evidence.h"
#include "analyze/pci_walk.h"
#include "analyze/roles.h"
#include "analyze/rule.h"
#include "util/text.h"

namespace dossier {

std::optional<Finding> RuleVmLegacyChipset(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  if (!IsGuest(m) || !m.virtualization.chipset.known() ||
      ToLower(*m.virtualization.chipset) != "i440fx")
    return std::nullopt;
  Finding f;
  auto gpus = GpuDevices(m);
  f.title =
      "i440FX virtual machine: passed-through GPUs sit on a conventional PCI bus without "
      "PCIe capabilities; move to Q35";
  f.evidence.push_back(Ev("QEMU machine type", m.virtualization.chipset));
  f.evidence.push_back(Ev("DMI product", m.dmi.product_name));
  if (!gpus.empty())
    f.evidence.push_back(Ev("GPUs passed through", std::to_string(gpus.size()), "PCI walk"));
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
      "Guest kernel options (pci=realloc, pcie_ports=…): they cannot add a PCIe hierarchy the "
      "machine type does not emulate."};
  return f;
}

}  // namespace dossier
