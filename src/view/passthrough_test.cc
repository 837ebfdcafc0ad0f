#include "view/passthrough.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace dossier
