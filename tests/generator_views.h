// A built view of a guest linked to its host, every string a generator copies into its artifact
// given by the caller: the adversarial tests put hostile values there (a newline and a [Service]
// in a machine name, an XML-closing device alias), the generators' fuzz entry fuzzed ones. The
// host routes P2P between all four GPUs (driver status OK), so qemu-args has one clique; GPUs 0-1
// are on host NUMA node 0, 2-3 on node 1, and the guest has two nodes, so numa-affinity and
// nccl-topo have something to write.
#pragma once

#include <string>
#include <vector>

#include "view/host_p2p.h"
#include "view/view.h"

namespace dossier::testing {

struct GeneratorFields {
  std::string guest = "gpu-vm", host = "pve", vm_id = "100";
  std::vector<std::string> slots = {"hostpci0", "hostpci1", "hostpci2", "hostpci3"};
  std::vector<std::string> guest_addresses = {"0000:01:00.0", "0000:02:00.0", "0000:03:00.0",
                                              "0000:04:00.0"};
  std::string class_id = "0x030200", vendor_id = "0x10de", cpu_vendor = "AuthenticAMD";
  std::string vm_config = "/etc/pve/qemu-server/100.conf";
  std::string source = "qemu-cmdline";
  bool libvirt = false;
  bool json_devices = true;  // libvirt: the running QEMU got -device as JSON
};

inline View GeneratorView(const GeneratorFields& f) {
  const char* host_addrs[] = {"0000:01:00.0", "0000:11:00.0", "0000:81:00.0", "0000:82:00.0"};
  View v;
  MachineView host, guest;
  host.machine.name = f.host;
  host.machine.hypervisor.kind.Set(f.libvirt ? "libvirt" : "proxmox", "test");
  std::vector<std::vector<std::string>> levels(4, std::vector<std::string>(4, "SYS")),
      ok(4, std::vector<std::string>(4, "OK"));
  for (int i = 0; i < 4; ++i) {
    levels[size_t(i)][size_t(i)] = ok[size_t(i)][size_t(i)] = "X";
    Gpu g;
    g.index = i;
    g.address = host_addrs[i];
    host.machine.gpus.push_back(g);
    PciDevice d;
    d.address = host_addrs[i];
    d.class_id.Set(f.class_id, "test");
    d.vendor_id.Set(f.vendor_id, "test");
    d.numa_node.Set(i / 2, "test");
    host.machine.pci.devices.push_back(d);
  }
  host.machine.topology.gpu_levels = levels;
  host.machine.topology.p2p_status.read = ok;
  host.machine.topology.p2p_status.write = ok;
  host.machine.cpu.vendor.Set(f.cpu_vendor, "test");
  Vm vm;
  vm.id = f.vm_id;
  vm.config.Set(f.vm_config, "test");
  if (f.libvirt) vm.qemu_json_devices.Set(f.json_devices, "test");
  for (size_t i = 0; i < 4 && i < f.slots.size(); ++i) {
    VmHostPci h;
    h.slot = f.slots[i];
    h.host.Set(host_addrs[i], f.vm_config);
    vm.hostpci.push_back(h);
  }
  host.machine.hypervisor.vms.push_back(vm);

  guest.machine.name = f.guest;
  guest.machine.virtualization.guest.Set(true, "test");
  for (int n = 0; n < 2; ++n) {
    NumaNode node;
    node.id = n;
    node.cpus.Set(n ? "4-7" : "0-3", "test");
    guest.machine.numa.nodes.push_back(node);
  }
  MachineLink l;
  l.guest = f.guest;
  l.host = f.host;
  l.vm_id = f.vm_id;
  l.how = "smbios-uuid";
  for (size_t i = 0; i < 4; ++i) {
    PassthroughGpu p;
    p.guest_address = i < f.guest_addresses.size() ? f.guest_addresses[i] : "";
    p.slot = i < f.slots.size() ? f.slots[i] : "";
    p.host_address = host_addrs[i];
    p.source = f.source;
    p.host_numa_node.Set(static_cast<int64_t>(i / 2), "test");
    l.gpus.push_back(p);
  }
  v.machines = {host, guest};
  for (size_t i = 0; i < l.gpus.size(); ++i)
    for (size_t j = i + 1; j < l.gpus.size(); ++j) {
      HostP2p h =
          HostP2pBetween(v.machines[0].machine, l.gpus[i].host_address, l.gpus[j].host_address);
      l.pairs.push_back({i, j, h.level, h.can, h.decided, h.why});
    }
  v.links = {l};
  return v;
}

}  // namespace dossier::testing
