#include "view/passthrough.h"

#include "hypervisor/options.h"
#include "util/text.h"

namespace dossier {
namespace {

// Proxmox's Q35 root ports (qemu-server PVE/QemuServer/PCI.pm, pve-q35-4.0.cfg): ports 1-4 at
// 00:1c.0-3, ports 5-12 at 00:10.0-7, 13-16 at 00:11.0-3. -1 for another address.
int64_t ProxmoxPortAt(const std::string& address) {
  if (address.size() != 12 || address.rfind("0000:00:", 0) != 0) return -1;
  int dev = static_cast<int>(ParseUint(address.substr(8, 2), 16).value_or(0));
  int fn = address[11] - '0';
  if (dev == 0x1c && fn <= 3) return 1 + fn;
  if (dev == 0x10) return 5 + fn;
  if (dev == 0x11 && fn <= 3) return 13 + fn;
  return -1;
}

const VmHostPci* SlotNamed(const Vm& vm, const std::string& slot) {
  for (const auto& h : vm.hostpci)
    if (h.slot == slot) return &h;
  return nullptr;
}

// The host node's entry of a mapping, first path.
std::string MappingPath(const Machine& host, const std::string& mapping, std::string* src) {
  for (const auto& m : host.hypervisor.pci_mappings) {
    if (m.name != mapping) continue;
    for (const auto& e : m.entries) {
      if (!e.node.known() || !e.path.known()) continue;
      if (host.hypervisor.node.known() && *e.node != *host.hypervisor.node) continue;
      *src = e.path.source;
      return hypervisor::FullPciAddress(Split(*e.path, ';')[0]);
    }
  }
  return "";
}

}  // namespace

std::vector<PassthroughGpu> MapPassthrough(const Machine& guest, const Machine& host,
                                           const Vm& vm) {
  std::vector<PassthroughGpu> out;
  const bool libvirt = host.hypervisor.kind.value_or("") == "libvirt";
  for (const auto& gpu : guest.gpus) {
    PassthroughGpu p;
    p.guest_address = gpu.address;
    const PciDevice* dev = guest.FindPci(gpu.address);
    const PciDevice* port = dev && dev->parent.known() ? guest.FindPci(*dev->parent) : nullptr;
    if (port) p.guest_port = port->address;
    const VmHostPci* slot = nullptr;
    if (libvirt) {
      for (const auto& h : vm.hostpci)
        if (h.guest_bus.known() && *h.guest_bus == gpu.address) slot = &h;
      p.why = slot ? "libvirt <hostdev> with guest address " + gpu.address
                   : "no libvirt <hostdev> has guest address " + gpu.address;
    } else if (!port) {
      p.why =
          "the guest GPU is not behind a root port (i440FX or a flat bus): its slot cannot "
          "be told";
    } else {
      int64_t n = -1;
      std::string how;
      if (port->port_number.known() && *port->port_number > 0) {
        p.port_number = port->port_number;
        n = *port->port_number;
        how = "port number " + std::to_string(n) + " (" + port->port_number.source + ")";
      } else if (int64_t a = ProxmoxPortAt(port->address); a > 0) {
        n = a;
        p.port_number.Unknown("Link Capabilities not readable (" +
                                  (port->port_number.unknown.empty() ? std::string("needs root")
                                                                     : port->port_number.unknown) +
                                  "); port " + std::to_string(a) + " by Proxmox's Q35 layout",
                              port->address);
        how = "root port " + port->address + " is ich9-pcie-port-" + std::to_string(a) +
              " in Proxmox's Q35 layout (port number not readable)";
      }
      if (n > 0) {
        std::string bus = "ich9-pcie-port-" + std::to_string(n);
        // The running command line says which device is on that bus; else hostpci(N-1).
        for (const auto& h : vm.hostpci)
          if (h.guest_bus.known() && *h.guest_bus == bus) slot = &h;
        if (!slot) slot = SlotNamed(vm, "hostpci" + std::to_string(n - 1));
        p.why = how + " -> " + bus + (slot ? " carries " + slot->slot : " carries no hostpci");
      } else {
        p.why = "root port " + port->address +
                " has no readable port number and is not in "
                "Proxmox's Q35 layout";
      }
    }
    if (slot) {
      p.slot = slot->slot;
      std::string src;
      if (slot->running_host_address.known()) {
        p.host_address = *slot->running_host_address;
        p.source = "qemu-cmdline";
      } else if (slot->host.known() &&
                 !hypervisor::FullPciAddress(Split(*slot->host, ';')[0]).empty()) {
        p.host_address = hypervisor::FullPciAddress(Split(*slot->host, ';')[0]);
        p.source = "vm-config";
      } else if (slot->mapping.known()) {
        p.host_address = MappingPath(host, *slot->mapping, &src);
        if (!p.host_address.empty())
          p.source = "mapping-order";
        else
          p.why += "; mapping '" + *slot->mapping + "' has no entry for this node";
      }
    }
    if (const PciDevice* hd = p.host_address.empty() ? nullptr : host.FindPci(p.host_address)) {
      p.host_numa_node = hd->numa_node;
      p.host_root_complex = hd->root_complex;
      p.host_iommu_group = hd->iommu_group;
      p.host_link = hd->link;
    } else if (!p.host_address.empty()) {
      p.host_numa_node.Unknown("no device " + p.host_address + " on the host", host.name);
      p.host_root_complex.Unknown("no device " + p.host_address + " on the host", host.name);
      p.host_iommu_group.Unknown("no device " + p.host_address + " on the host", host.name);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace dossier
