// The PCI tree, the IOMMU and the kernel's complaints about PCI resources. Filled by
// probe/pci_*.cc, probe/iommu.cc and probe/kernel_log.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/fact.h"

namespace dossier {

struct PciLinkState {
  Fact<int64_t> gen;    // PCIe generation: 2.5 GT/s = 1 … 64 GT/s = 6
  Fact<int64_t> width;  // lanes
  template <class V>
  void visit(V& v) {
    v("gen", gen);
    v("width", width);
  }
};

struct PciLink {
  PciLinkState current, max;
  template <class V>
  void visit(V& v) {
    v("current", current);
    v("max", max);
  }
};

// Access Control Services, from the extended capability (needs root to read).
// Bit names as lspci prints them: SV TB RR CR UF EC DT.
struct PciAcs {
  Fact<bool> present;
  Fact<std::vector<std::string>> capability;
  Fact<std::vector<std::string>> control;
  template <class V>
  void visit(V& v) {
    v("present", present);
    v("capability", capability);
    v("control", control);
  }
};

struct PciBar {
  int64_t index = 0;
  uint64_t size_bytes = 0;
  bool prefetchable = false;
  bool is64 = false;
  template <class V>
  void visit(V& v) {
    v("index", index);
    v("size_bytes", size_bytes);
    v("prefetchable", prefetchable);
    v("is64", is64);
  }
};

struct PciResizableBar {
  int64_t bar = 0;
  uint64_t current_bytes = 0;
  std::vector<uint64_t> supported_bytes;
  template <class V>
  void visit(V& v) {
    v("bar", bar);
    v("current_bytes", current_bytes);
    v("supported_bytes", supported_bytes);
  }
};

// The Resizable BAR extended capability (needs root to read).
struct PciRebar {
  Fact<bool> present;
  std::vector<PciResizableBar> bars;
  template <class V>
  void visit(V& v) {
    v("present", present);
    v("bars", bars);
  }
};

struct PciDevice {
  std::string address;                                                               // DDDD:BB:DD.F
  Fact<std::string> vendor_id, device_id, subsystem_vendor_id, subsystem_device_id;  // "0x10de"
  Fact<std::string> class_id;                                                        // "0x030200"
  Fact<std::string> name;  // "NVIDIA Corporation GB202GL [RTX PRO 6000 …]"
  Fact<std::string> driver;
  Fact<int64_t> numa_node;  // -1 is a real value: the kernel does not know
  Fact<std::string> local_cpus;
  Fact<int64_t> iommu_group;
  Fact<std::string> parent;        // address of the upstream bridge; null at a root complex
  Fact<std::string> root_complex;  // "pci0000:00"
  Fact<std::string> port_type;     // "root_port", "upstream", "downstream", "endpoint", …
  // Root and downstream ports: the Port Number of Link Capabilities. QEMU writes a root port's
  // port= there, so a guest can tell which hypervisor slot is behind each port.
  Fact<int64_t> port_number;
  PciLink link;
  PciAcs acs;
  std::vector<PciBar> bars;
  // How many BARs `resource` lists as implemented; unknown when the file could not be read, so
  // an empty `bars` with a known count of 0 is "no BARs", and with an unknown count "not read".
  Fact<int64_t> bar_count;
  PciRebar rebar;
  template <class V>
  void visit(V& v) {
    v("address", address);
    v("vendor_id", vendor_id);
    v("device_id", device_id);
    v("subsystem_vendor_id", subsystem_vendor_id);
    v("subsystem_device_id", subsystem_device_id);
    v("class", class_id);
    v("name", name);
    v("driver", driver);
    v("numa_node", numa_node);
    v("local_cpus", local_cpus);
    v("iommu_group", iommu_group);
    v("parent", parent);
    v("root_complex", root_complex);
    v("port_type", port_type);
    v("port_number", port_number);
    v("link", link);
    v("acs", acs);
    v("bars", bars);
    v("bar_count", bar_count);
    v("rebar", rebar);
  }
};

// An ACS control line that names no device: a pasted `lspci -vvv | grep ACSCtl` keeps only the
// lines. It still counts for the ACS verdict; `line` says where it was.
struct PciAcsLine {
  std::string line;  // "imported: FILE:LINE (lspci)"
  Fact<std::vector<std::string>> control;
  template <class V>
  void visit(V& v) {
    v("line", line);
    v("control", control);
  }
};

struct PciInfo {
  std::vector<PciDevice> devices;
  // How many functions /sys/bus/pci/devices listed; unknown when the directory was not read
  // (a capture without it), so an empty `devices` is not mistaken for "no PCI devices".
  Fact<int64_t> count;
  std::vector<PciAcsLine> acs_lines;  // imported only
  template <class V>
  void visit(V& v) {
    v("devices", devices);
    v("count", count);
    v("acs_lines", acs_lines);
  }
};

struct IommuGroup {
  int64_t id = 0;
  Fact<std::string> type;  // "DMA", "DMA-FQ", "identity", "blocked"
  std::vector<std::string> devices;
  template <class V>
  void visit(V& v) {
    v("id", id);
    v("type", type);
    v("devices", devices);
  }
};

struct IommuInfo {
  Fact<bool> enabled;
  Fact<std::vector<std::string>> hardware;  // /sys/class/iommu entries (dmar0, ivhd0…)
  std::vector<IommuGroup> groups;
  template <class V>
  void visit(V& v) {
    v("enabled", enabled);
    v("hardware", hardware);
    v("groups", groups);
  }
};

struct PciProblem {
  Fact<std::string> address;  // unknown when the message names no device
  std::string message;
  // A later line of the same log that shows the same resource assigned after all (the kernel
  // retried, e.g. with pci=realloc): the problem is resolved. "" when nothing resolved it.
  std::string resolved;
  template <class V>
  void visit(V& v) {
    v("address", address);
    v("message", message);
    v("resolved", resolved);
  }
};

struct KernelLogInfo {
  Fact<std::string> source;  // which log was read
  std::vector<PciProblem> pci_problems;
  template <class V>
  void visit(V& v) {
    v("source", source);
    v("pci_problems", pci_problems);
  }
};

}  // namespace dossier
