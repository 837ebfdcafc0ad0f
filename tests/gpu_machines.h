// Machines built in code for the GPU and topology tests: PCI devices with just the facts the gpus
// probe and the topology walk read (vendor, class, device id, parent, root complex, port type,
// NUMA node, driver).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/machine.h"

namespace dossier::testing {

inline constexpr const char* kSysfs = "/sys/bus/pci/devices/";

struct PciSpec {
  std::string address;
  std::string root_complex;     // "pci0000:00"
  std::string parent;           // empty: on the root complex's bus
  std::string port_type;        // "root_port", "upstream", "downstream", "endpoint"; empty: unknown
  std::optional<int64_t> numa;  // nullopt: unknown fact
  std::string vendor = "0x1022";
  std::string class_id = "0x060400";
  std::string device = "0x1483";
  std::string driver = "pcieport";
  std::string name;  // pci.ids name; empty: unknown
};

inline PciSpec Spec(std::string address, std::string rc, std::string parent, std::string port_type,
                    std::optional<int64_t> numa) {
  PciSpec s;
  s.address = std::move(address);
  s.root_complex = std::move(rc);
  s.parent = std::move(parent);
  s.port_type = std::move(port_type);
  s.numa = numa;
  return s;
}

inline PciDevice MakePci(const PciSpec& s) {
  PciDevice d;
  d.address = s.address;
  std::string dir = kSysfs + s.address;
  d.vendor_id.Set(s.vendor, dir + "/vendor");
  d.device_id.Set(s.device, dir + "/device");
  d.class_id.Set(s.class_id, dir + "/class");
  d.root_complex.Set(s.root_complex, dir);
  if (s.parent.empty())
    d.parent.Unknown("on the root complex's bus", dir);
  else
    d.parent.Set(s.parent, dir);
  if (s.port_type.empty())
    d.port_type.Unknown("no PCIe capability", dir);
  else
    d.port_type.Set(s.port_type, dir);
  if (s.numa)
    d.numa_node.Set(*s.numa, dir + "/numa_node");
  else
    d.numa_node.Unknown("file absent", dir + "/numa_node");
  d.driver.Set(s.driver, dir + "/driver");
  if (!s.name.empty())
    d.name.Set(s.name, "pci.ids");
  else
    d.name.Unknown("not in pci.ids", "pci.ids");
  return d;
}

inline void AddBridge(Machine* m, const std::string& address, const std::string& rc,
                      const std::string& parent, const std::string& port_type,
                      std::optional<int64_t> numa = std::nullopt) {
  m->pci.devices.push_back(MakePci(Spec(address, rc, parent, port_type, numa)));
}

// An NVIDIA 3D controller (RTX PRO 6000 Blackwell Server Edition unless told otherwise).
inline void AddGpu(Machine* m, const std::string& address, const std::string& rc,
                   const std::string& parent, std::optional<int64_t> numa,
                   const std::string& device = "0x2bb5", const std::string& class_id = "0x030200") {
  PciSpec s = Spec(address, rc, parent, "endpoint", numa);
  s.vendor = "0x10de";
  s.class_id = class_id;
  s.device = device;
  s.driver = "nvidia";
  m->pci.devices.push_back(MakePci(s));
}

// Lists the NVIDIA GPUs among the PCI devices as Machine::gpus, in the order given, without the
// probe (the topology tests do not depend on it).
inline void SetGpus(Machine* m, const std::vector<std::string>& addresses) {
  m->gpus.clear();
  for (const auto& a : addresses) {
    Gpu g;
    g.index = static_cast<int64_t>(m->gpus.size());
    g.address = a;
    if (const PciDevice* d = m->FindPci(a)) g.numa_node = d->numa_node;
    m->gpus.push_back(std::move(g));
  }
}

inline void SetNumaNodes(Machine* m, int count) {
  m->numa.nodes.clear();
  for (int i = 0; i < count; ++i) {
    NumaNode n;
    n.id = i;
    m->numa.nodes.push_back(n);
  }
}

}  // namespace dossier::testing
