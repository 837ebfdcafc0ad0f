#include "view/passthrough.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace dossier {
namespace {

// The host side of a passed-through GPU read from a Proxmox resource mapping: the first entry of
// this node with a path; an entry without node= or path= (a damaged mapping) is passed over, not
// taken as "no device".
TEST(MapPassthrough, AMappingEntryWithoutNodeOrPathIsPassedOver) {
  Machine guest;
  guest.gpus.emplace_back().address = "0000:01:00.0";
  PciDevice port;
  port.address = "0000:00:10.0";
  port.port_number.Set(1, "/sys/bus/pci/devices/0000:00:10.0/config");
  PciDevice gpu;
  gpu.address = "0000:01:00.0";
  gpu.parent.Set("0000:00:10.0", "/sys");
  guest.pci.devices = {port, gpu};
  Vm vm;
  vm.id = "100";
  VmHostPci slot;
  slot.slot = "hostpci0";
  slot.mapping.Set("gpus", "/etc/pve/qemu-server/100.conf:7");
  vm.hostpci = {slot};
  auto entry = [](const char* node, const char* path) {
    PciMappingEntry e;
    if (node) e.node.Set(node, "/etc/pve/mapping/pci.cfg:2");
    if (path) e.path.Set(path, "/etc/pve/mapping/pci.cfg:2");
    return e;
  };
  for (bool node_known : {true, false}) {
    SCOPED_TRACE(node_known);
    Machine host;
    host.name = "pve1";
    host.hypervisor.kind.Set("proxmox", "/etc/pve");
    if (node_known) host.hypervisor.node.Set("pve1", "/etc/hostname");
    PciMapping m;
    m.name = "gpus";
    m.entries = {entry(nullptr, "0000:41:00.0"), entry("pve1", nullptr),
                 entry("pve1", "0000:81:00.0;0000:82:00.0"), entry("pve1", "0000:c1:00.0")};
    host.hypervisor.pci_mappings = {m};
    auto out = MapPassthrough(guest, host, vm);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].slot, "hostpci0");
    EXPECT_EQ(out[0].host_address, "0000:81:00.0") << out[0].why;
    EXPECT_EQ(out[0].source, "mapping-order");
  }
}

// A guest root port whose port number cannot be read is placed by Proxmox's Q35 layout: every
// port of it gives its hostpci slot (port N carries hostpci(N-1)), any other address none.
TEST(MapPassthrough, EveryProxmoxQ35PortGivesItsSlotAndNoOtherAddressDoes) {
  std::vector<std::pair<std::string, int>> layout;
  for (int f = 0; f < 4; ++f) layout.push_back({"0000:00:1c." + std::to_string(f), 1 + f});
  for (int f = 0; f < 8; ++f) layout.push_back({"0000:00:10." + std::to_string(f), 5 + f});
  for (int f = 0; f < 4; ++f) layout.push_back({"0000:00:11." + std::to_string(f), 13 + f});
  for (const char* a : {"0000:00:1c.4", "0000:00:11.4", "0000:00:12.0", "0000:00:1b.0",
                        "0000:01:1c.0", "0001:00:1c.0", "0000:00:1c.00"})
    layout.push_back({a, -1});
  Vm vm;
  vm.id = "100";
  for (int i = 0; i < 16; ++i) {
    VmHostPci h;
    h.slot = "hostpci" + std::to_string(i);
    h.host.Set("0000:" + fmt::format("{:02x}", 0x40 + i) + ":00.0", "100.conf");
    vm.hostpci.push_back(h);
  }
  Machine host;
  host.hypervisor.kind.Set("proxmox", "/etc/pve");
  for (const auto& [address, n] : layout) {
    SCOPED_TRACE(address);
    Machine guest;
    guest.gpus.emplace_back().address = "0000:0a:00.0";
    PciDevice port;
    port.address = address;
    port.port_number.Unknown("needs root", "/sys");
    PciDevice gpu;
    gpu.address = "0000:0a:00.0";
    gpu.parent.Set(address, "/sys");
    guest.pci.devices = {port, gpu};
    auto out = MapPassthrough(guest, host, vm);
    ASSERT_EQ(out.size(), 1u);
    if (n < 0) {
      EXPECT_EQ(out[0].slot, "");
      EXPECT_NE(out[0].why.find("not in Proxmox's Q35 layout"), std::string::npos) << out[0].why;
      continue;
    }
    EXPECT_EQ(out[0].slot, "hostpci" + std::to_string(n - 1)) << out[0].why;
    EXPECT_EQ(out[0].host_address, "0000:" + fmt::format("{:02x}", 0x40 + n - 1) + ":00.0");
    EXPECT_EQ(out[0].source, "vm-config");
    EXPECT_NE(out[0].why.find("ich9-pcie-port-" + std::to_string(n)), std::string::npos)
        << out[0].why;
  }
}

// hostpci2 names the mapping "gpus" instead of an address; its one entry is for `node`.
void UseMapping(Vm* vm, Machine* host, const char* node) {
  vm->hostpci[2].host = {};
  vm->hostpci[2].mapping.Set("gpus", "100.conf");
  PciMapping m;
  m.name = "gpus";
  PciMappingEntry e;
  e.node.Set(node, "pci.cfg:2");
  e.path.Set("0000:42:00.0", "pci.cfg:2");
  m.entries = {e};
  host->hypervisor.pci_mappings = {m};
}

// Each route from a guest GPU to its host GPU, with what the report says about it. The base case:
// a guest GPU behind root port 00:10.2 (port number 3 read), VM 100 with hostpci0-3, the host
// knowing the device hostpci2 names. Each case changes one thing.
TEST(MapPassthrough, EachRouteSaysHowItFoundTheSlotAndTheHostGpu) {
  struct Case {
    const char* what;
    std::function<void(Machine& guest, Machine& host, Vm& vm)> change;
    const char* slot;
    const char* host_address;
    const char* source;
    const char* why;
  };
  const std::vector<Case> cases = {
      {"port number read", [](Machine&, Machine&, Vm&) {}, "hostpci2", "0000:42:00.0", "vm-config",
       "port number 3 (cfg) -> ich9-pcie-port-3 carries hostpci2"},
      {"port number 0: Proxmox's layout instead",
       [](Machine& g, Machine&, Vm&) { g.pci.devices[0].port_number.Set(0, "cfg"); }, "hostpci6",
       "0000:46:00.0", "vm-config",
       "root port 0000:00:10.2 is ich9-pcie-port-7 in Proxmox's Q35 layout (port number not "
       "readable) -> ich9-pcie-port-7 carries hostpci6"},
      {"the running command line names the bus",
       [](Machine&, Machine&, Vm& vm) {
         vm.hostpci[0].guest_bus.Set("ich9-pcie-port-3", "/proc/1/cmdline");
         vm.hostpci[0].running_host_address.Set("0000:40:00.0", "/proc/1/cmdline");
       },
       "hostpci0", "0000:40:00.0", "qemu-cmdline",
       "port number 3 (cfg) -> ich9-pcie-port-3 carries hostpci0"},
      {"no slot of that number", [](Machine&, Machine&, Vm& vm) { vm.hostpci.resize(2); }, "", "",
       "", "port number 3 (cfg) -> ich9-pcie-port-3 carries no hostpci"},
      {"a port outside the layout without a number",
       [](Machine& g, Machine&, Vm&) {
         g.pci.devices[0].port_number.Unknown("", "cfg");
         g.pci.devices[0].address = "0000:00:12.0";
         g.pci.devices[1].parent.Set("0000:00:12.0", "/sys");
       },
       "", "", "",
       "root port 0000:00:12.0 has no readable port number and is not in Proxmox's Q35 layout"},
      {"no root port (i440FX)", [](Machine& g, Machine&, Vm&) { g.pci.devices[1].parent = {}; }, "",
       "", "",
       "the guest GPU is not behind a root port (i440FX or a flat bus): its slot cannot be told"},
      {"a mapping instead of an address",
       [](Machine&, Machine& h, Vm& vm) { UseMapping(&vm, &h, "pve1"); }, "hostpci2",
       "0000:42:00.0", "mapping-order", "port number 3 (cfg) -> ich9-pcie-port-3 carries hostpci2"},
      {"a mapping without this node's entry",
       [](Machine&, Machine& h, Vm& vm) {
         h.hypervisor.node.Set("pve1", "hostname");
         UseMapping(&vm, &h, "pve2");
       },
       "hostpci2", "", "",
       "port number 3 (cfg) -> ich9-pcie-port-3 carries hostpci2; mapping 'gpus' has no entry "
       "for this node"},
      {"libvirt: by guest address",
       [](Machine&, Machine& h, Vm& vm) {
         h.hypervisor.kind.Set("libvirt", "virsh");
         vm.hostpci[1].guest_bus.Set("0000:05:00.0", "domain.xml");
       },
       "hostpci1", "0000:41:00.0", "vm-config",
       "libvirt <hostdev> with guest address 0000:05:00.0"},
      {"libvirt: no hostdev at the guest address",
       [](Machine&, Machine& h, Vm&) { h.hypervisor.kind.Set("libvirt", "virsh"); }, "", "", "",
       "no libvirt <hostdev> has guest address 0000:05:00.0"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Machine guest, host;
    guest.gpus.emplace_back().address = "0000:05:00.0";
    PciDevice port, gpu;
    port.address = "0000:00:10.2";
    port.port_number.Set(3, "cfg");
    gpu.address = "0000:05:00.0";
    gpu.parent.Set("0000:00:10.2", "/sys");
    guest.pci.devices = {port, gpu};
    host.name = "pve1";
    host.hypervisor.kind.Set("proxmox", "/etc/pve");
    Vm vm;
    vm.id = "100";
    for (int i = 0; i < 8; ++i) {
      VmHostPci h;
      h.slot = "hostpci" + std::to_string(i);
      h.host.Set("0000:4" + std::to_string(i) + ":00", "100.conf");
      vm.hostpci.push_back(h);
    }
    c.change(guest, host, vm);
    auto out = MapPassthrough(guest, host, vm);
    ASSERT_EQ(out.size(), 1u);
    const PassthroughGpu& p = out[0];
    EXPECT_EQ(p.guest_address, "0000:05:00.0");
    EXPECT_EQ(p.slot, c.slot);
    EXPECT_EQ(p.host_address, c.host_address);
    EXPECT_EQ(p.source, c.source);
    EXPECT_EQ(p.why, c.why);
  }
}

// The port number: read (kept with its source), else Proxmox's layout said as an assumption with
// why it was not read; the host GPU's facts copied when the host has the device, else unknown
// with the host named.
TEST(MapPassthrough, PortNumberAndHostFactsSayWhereTheyCameFrom) {
  Machine guest, host;
  guest.gpus.emplace_back().address = "0000:05:00.0";
  guest.gpus.emplace_back().address = "0000:06:00.0";
  PciDevice p1, p2, g1, g2;
  p1.address = "0000:00:10.0";
  p1.port_number.Set(5, "cfg1");
  p2.address = "0000:00:1c.1";
  p2.port_number.Unknown("config space unreadable", "cfg2");
  g1.address = "0000:05:00.0";
  g1.parent.Set("0000:00:10.0", "/sys");
  g2.address = "0000:06:00.0";
  g2.parent.Set("0000:00:1c.1", "/sys");
  guest.pci.devices = {p1, p2, g1, g2};
  host.name = "pve1";
  host.hypervisor.kind.Set("proxmox", "/etc/pve");
  PciDevice hd;
  hd.address = "0000:44:00.0";
  hd.numa_node.Set(0, "/sys/numa_node");
  hd.root_complex.Set("pci0000:40", "/sys");
  hd.iommu_group.Set(0, "/sys/iommu_group");
  hd.link.current.width.Set(16, "/sys/current_link_width");
  host.pci.devices = {hd};
  Vm vm;
  for (int i = 0; i < 5; ++i) {
    VmHostPci h;
    h.slot = "hostpci" + std::to_string(i);
    h.host.Set("0000:4" + std::to_string(i) + ":00.0", "100.conf");
    vm.hostpci.push_back(h);
  }
  auto out = MapPassthrough(guest, host, vm);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].guest_port, "0000:00:10.0");
  EXPECT_EQ(out[0].port_number.value_or(-1), 5);
  EXPECT_EQ(out[0].port_number.source, "cfg1");
  EXPECT_EQ(out[0].host_address, "0000:44:00.0");
  EXPECT_EQ(out[0].host_numa_node.value_or(-1), 0);  // node 0 and group 0 are values
  EXPECT_EQ(out[0].host_iommu_group.value_or(-1), 0);
  EXPECT_EQ(out[0].host_root_complex.value_or(""), "pci0000:40");
  EXPECT_EQ(out[0].host_link.current.width.value_or(0), 16);
  EXPECT_FALSE(out[1].port_number.known());
  EXPECT_EQ(out[1].port_number.unknown,
            "Link Capabilities not readable (config space unreadable); port 2 by Proxmox's Q35 "
            "layout");
  EXPECT_EQ(out[1].port_number.source, "0000:00:1c.1");
  EXPECT_EQ(out[1].host_address, "0000:41:00.0");
  for (const auto* f : {&out[1].host_numa_node, &out[1].host_iommu_group}) {
    EXPECT_FALSE(f->known());
    EXPECT_EQ(f->unknown, "no device 0000:41:00.0 on the host");
    EXPECT_EQ(f->source, "pve1");
  }
  EXPECT_EQ(out[1].host_root_complex.unknown, "no device 0000:41:00.0 on the host");
}

}  // namespace
}  // namespace dossier
