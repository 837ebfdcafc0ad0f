// Machines built in code for rule, diff and report tests: the seed story's KVM guest (8 GPUs each
// behind its own virtual root port) and Proxmox host (8 GPUs each alone on a root complex, bound
// to vfio-pci), and a bare-metal box with two GPUs and a NIC behind one PCIe switch.
#pragma once

#include <string>
#include <vector>

#include "model/machine.h"
#include "view/view.h"

namespace dossier::testing {

inline PciDevice Dev(const std::string& addr, const std::string& vendor, const std::string& device,
                     const std::string& cls, const std::string& parent, const std::string& rc,
                     const std::string& port_type) {
  PciDevice d;
  std::string src = "/sys/bus/pci/devices/" + addr;
  d.address = addr;
  d.vendor_id = Known(vendor, src + "/vendor");
  d.device_id = Known(device, src + "/device");
  d.class_id = Known(cls, src + "/class");
  if (parent.empty()) {
    d.parent.Unknown("at a root complex", src);
  } else {
    d.parent = Known(parent, src);
  }
  d.root_complex = Known(rc, src);
  d.port_type = Known(port_type, src + "/config");
  return d;
}

inline void SetLink(PciDevice* d, int64_t gen, int64_t width, int64_t max_gen, int64_t max_width) {
  std::string src = "/sys/bus/pci/devices/" + d->address + "/current_link_speed";
  d->link.current.gen = Known(gen, src);
  d->link.current.width = Known(width, src);
  d->link.max.gen = Known(max_gen, src);
  d->link.max.width = Known(max_width, src);
}

inline void SetAcs(PciDevice* d, std::vector<std::string> control) {
  std::string src = "/sys/bus/pci/devices/" + d->address + "/config";
  d->acs.present = Known(true, src);
  d->acs.capability =
      Known(std::vector<std::string>{"SV", "TB", "RR", "CR", "UF", "EC", "DT"}, src);
  d->acs.control = Known(std::move(control), src);
}

inline PciDevice GpuDev(const std::string& addr, const std::string& parent, const std::string& rc,
                        const std::string& driver) {
  PciDevice g = Dev(addr, "0x10de", "0x2bb1", "0x030200", parent, rc, "endpoint");
  g.driver = Known(driver, "/sys/bus/pci/devices/" + addr + "/driver");
  g.name = Known(std::string("NVIDIA RTX PRO 6000 Blackwell"), "pci.ids");
  SetLink(&g, 5, 16, 5, 16);
  return g;
}

inline Gpu GpuOf(const PciDevice& d, int64_t index, int64_t numa) {
  Gpu g;
  g.index = index;
  g.address = d.address;
  g.name = d.name;
  g.architecture = Known(std::string("Blackwell"), "device-id table");
  g.compute_capability = Known(std::string("12.0"), "device-id table");
  g.numa_node = Known(numa, "/sys/bus/pci/devices/" + d.address + "/numa_node");
  g.driver = d.driver;
  return g;
}

inline void TwoNumaNodes(Machine* m) {
  for (int64_t i = 0; i < 2; ++i) {
    NumaNode n;
    n.id = i;
    n.cpus = Known(std::string(i == 0 ? "0-31" : "32-63"), "/sys/devices/system/node");
    m->numa.nodes.push_back(n);
  }
}

inline Machine SeedGuest(int n = 8) {
  Machine m;
  m.name = "glm-guest";
  m.boot_id = Known(std::string("11111111-guest-boot"), "/proc/sys/kernel/random/boot_id");
  m.virtualization.guest = Known(true, "/proc/cpuinfo (flags)");
  m.virtualization.hypervisor = Known(std::string("kvm"), "/sys/class/dmi/id/sys_vendor");
  m.virtualization.chipset = Known(std::string("q35"), "/sys/class/dmi/id/product_name");
  m.dmi.product_name = Known(std::string("Standard PC (Q35 + ICH9, 2009)"), "/sys/class/dmi/id");
  TwoNumaNodes(&m);
  for (int i = 0; i < n; ++i) {
    char port[32], gpu[32];
    std::snprintf(port, sizeof port, "0000:00:1c.%d", i);
    std::snprintf(gpu, sizeof gpu, "0000:%02x:00.0", i + 1);
    PciDevice rp = Dev(port, "0x1b36", "0x000c", "0x060400", "", "pci0000:00", "root_port");
    SetAcs(&rp, {"SV", "RR", "CR", "UF"});  // the guest kernel enables these on virtual ports
    m.pci.devices.push_back(rp);
    PciDevice g = GpuDev(gpu, port, "pci0000:00", "nvidia");
    g.numa_node = Known(int64_t{-1}, std::string("/sys/bus/pci/devices/") + gpu + "/numa_node");
    m.pci.devices.push_back(g);
    m.gpus.push_back(GpuOf(g, i, -1));
  }
  Server s;
  s.pid = 4242;
  s.engine = "sglang";
  s.flags = {{"--tp-size", "8"}};
  s.env = {{"TORCH_CUDA_ARCH_LIST", "10.0"}};
  m.servers.push_back(s);
  return m;
}

// The seed story's Proxmox host: GPU i on root complex pci0000:XX through root port XX:01.1,
// bound to vfio-pci, its audio function beside it, IOMMU group first_group + i for both.
inline Machine SeedHost(int64_t first_group = 20) {
  static const char* const kBus[] = {"00", "10", "60", "70", "80", "90", "e0", "f0"};
  Machine m;
  m.name = "pve-host";
  m.boot_id = Known(std::string("22222222-host-boot-a"), "/proc/sys/kernel/random/boot_id");
  m.virtualization.guest = Known(false, "/proc/cpuinfo (flags)");
  m.cpu.model = Known(std::string("AMD EPYC 9335 32-Core Processor"), "/proc/cpuinfo:5");
  m.kernel.cmdline =
      Known(std::string("BOOT_IMAGE=/vmlinuz quiet amd_iommu=on iommu=pt"), "/proc/cmdline");
  m.iommu.enabled = Known(true, "/sys/class/iommu");
  TwoNumaNodes(&m);
  for (int i = 0; i < 8; ++i) {
    std::string bus = kBus[i];
    int gbus = std::stoi(bus, nullptr, 16) + 1;
    char port[32], gpu[32], audio[32];
    std::snprintf(port, sizeof port, "0000:%s:01.1", bus.c_str());
    std::snprintf(gpu, sizeof gpu, "0000:%02x:00.0", gbus);
    std::snprintf(audio, sizeof audio, "0000:%02x:00.1", gbus);
    std::string rc = "pci0000:" + bus;
    PciDevice rp = Dev(port, "0x1022", "0x14ab", "0x060400", "", rc, "root_port");
    SetAcs(&rp, {"SV", "RR", "CR", "UF"});
    SetLink(&rp, 5, 16, 5, 16);
    m.pci.devices.push_back(rp);
    PciDevice g = GpuDev(gpu, port, rc, "vfio-pci");
    g.numa_node =
        Known(int64_t{i < 4 ? 0 : 1}, std::string("/sys/bus/pci/devices/") + gpu + "/numa_node");
    g.iommu_group =
        Known(first_group + i, std::string("/sys/bus/pci/devices/") + gpu + "/iommu_group");
    m.pci.devices.push_back(g);
    PciDevice a = Dev(audio, "0x10de", "0x22e8", "0x040300", port, rc, "endpoint");
    a.driver = Known(std::string("vfio-pci"), "/sys/bus/pci/devices/x/driver");
    a.iommu_group =
        Known(first_group + i, std::string("/sys/bus/pci/devices/") + audio + "/iommu_group");
    m.pci.devices.push_back(a);
    m.gpus.push_back(GpuOf(g, i, i < 4 ? 0 : 1));
    IommuGroup grp;
    grp.id = first_group + i;
    grp.type = Known(std::string("DMA"), "/sys/kernel/iommu_groups/x/type");
    grp.devices = {gpu, audio};
    m.iommu.groups.push_back(grp);
  }
  return m;
}

// Bare metal: root port 00:01.0 -> switch upstream 01:00.0 -> downstream 02:00.0/02:01.0/02:02.0
// -> GPUs 03:00.0 and 04:00.0, NIC 05:00.0. ACS redirect on the downstream ports.
inline Machine SwitchBox() {
  Machine m;
  m.name = "switchbox";
  m.boot_id = Known(std::string("33333333-switch-boot"), "/proc/sys/kernel/random/boot_id");
  m.virtualization.guest = Known(false, "/proc/cpuinfo (flags)");
  m.kernel.cmdline = Known(std::string("BOOT_IMAGE=/vmlinuz quiet"), "/proc/cmdline");
  const std::string rc = "pci0000:00";
  PciDevice rp = Dev("0000:00:01.0", "0x8086", "0x1234", "0x060400", "", rc, "root_port");
  SetLink(&rp, 4, 16, 4, 16);
  m.pci.devices.push_back(rp);
  PciDevice up =
      Dev("0000:01:00.0", "0x1000", "0xc030", "0x060400", "0000:00:01.0", rc, "upstream");
  SetLink(&up, 4, 16, 4, 16);
  m.pci.devices.push_back(up);
  const char* const kDown[] = {"0000:02:00.0", "0000:02:01.0", "0000:02:02.0"};
  for (const char* d : kDown) {
    PciDevice dp = Dev(d, "0x1000", "0xc030", "0x060400", "0000:01:00.0", rc, "downstream");
    SetAcs(&dp, {"SV", "RR", "CR", "UF"});
    SetLink(&dp, 4, 16, 4, 16);
    m.pci.devices.push_back(dp);
  }
  PciDevice g0 = GpuDev("0000:03:00.0", "0000:02:00.0", rc, "nvidia");
  PciDevice g1 = GpuDev("0000:04:00.0", "0000:02:01.0", rc, "nvidia");
  SetLink(&g0, 4, 16, 4, 16);
  SetLink(&g1, 4, 16, 4, 16);
  g0.iommu_group = Known(int64_t{5}, "/sys/bus/pci/devices/0000:03:00.0/iommu_group");
  g1.iommu_group = Known(int64_t{6}, "/sys/bus/pci/devices/0000:04:00.0/iommu_group");
  PciDevice nic =
      Dev("0000:05:00.0", "0x15b3", "0x1021", "0x020000", "0000:02:02.0", rc, "endpoint");
  nic.driver = Known(std::string("mlx5_core"), "/sys/bus/pci/devices/0000:05:00.0/driver");
  m.pci.devices.insert(m.pci.devices.end(), {g0, g1, nic});
  m.gpus.push_back(GpuOf(g0, 0, 0));
  m.gpus.push_back(GpuOf(g1, 1, 0));
  m.iommu.enabled = Known(true, "/sys/class/iommu");
  for (int64_t id : {5, 6}) {
    IommuGroup grp;
    grp.id = id;
    grp.type = Known(std::string("DMA-FQ"), "/sys/kernel/iommu_groups/x/type");
    grp.devices = {id == 5 ? "0000:03:00.0" : "0000:04:00.0"};
    m.iommu.groups.push_back(grp);
  }
  return m;
}

// A view holding one machine (and optionally others), for running rules.
inline View ViewOf(std::vector<Machine> ms) {
  View v;
  for (auto& m : ms) {
    MachineView mv;
    mv.machine = std::move(m);
    v.machines.push_back(std::move(mv));
  }
  return v;
}

}  // namespace dossier::testing
