// The machine below the PCI bus: identity, kernel, OS, firmware, CPUs, memory, NUMA, and whether
// it is a virtual machine. Filled by probe/system_*.cc; each struct lists its fields once in
// visit(), which serialization, reading back and diffing all walk.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/fact.h"

namespace dossier {

struct KernelInfo {
  Fact<std::string> release;  // uname -r, from /proc/sys/kernel/osrelease
  Fact<std::string> cmdline;  // /proc/cmdline, secrets redacted
  template <class V>
  void visit(V& v) {
    v("release", release);
    v("cmdline", cmdline);
  }
};

struct OsInfo {
  Fact<std::string> pretty_name, id, version_id;
  template <class V>
  void visit(V& v) {
    v("pretty_name", pretty_name);
    v("id", id);
    v("version_id", version_id);
  }
};

// One SMBIOS memory device (type 17) with a module in it, as dmidecode prints it; read only from
// pasted dmidecode output (reading it needs root and the raw table).
struct DimmInfo {
  Fact<std::string> locator;  // "DIMM_A1" (with the bank locator when it adds one: "P0 CHANNEL A")
  Fact<uint64_t> size_bytes;
  Fact<std::string> type;  // "DDR5"
  Fact<int64_t> speed_mts, configured_speed_mts;
  Fact<std::string> manufacturer, part_number;
  template <class V>
  void visit(V& v) {
    v("locator", locator);
    v("size_bytes", size_bytes);
    v("type", type);
    v("speed_mts", speed_mts);
    v("configured_speed_mts", configured_speed_mts);
    v("manufacturer", manufacturer);
    v("part_number", part_number);
  }
};

struct DmiInfo {
  Fact<std::string> sys_vendor, product_name, board_vendor, board_name, bios_vendor, bios_version,
      bios_date;
  // From the SMBIOS processor structure (type 4), which needs root to read.
  Fact<std::string> processor_manufacturer, processor_version;
  // SMBIOS system UUID (root only). In a VM it is the hypervisor's smbios1 uuid / libvirt <uuid>:
  // what links a guest to its VM on the host.
  Fact<std::string> product_uuid;
  std::vector<DimmInfo> memory_devices;  // populated slots (pasted dmidecode only)
  template <class V>
  void visit(V& v) {
    v("sys_vendor", sys_vendor);
    v("product_name", product_name);
    v("board_vendor", board_vendor);
    v("board_name", board_name);
    v("bios_vendor", bios_vendor);
    v("bios_version", bios_version);
    v("bios_date", bios_date);
    v("processor_manufacturer", processor_manufacturer);
    v("processor_version", processor_version);
    v("product_uuid", product_uuid);
    v("memory_devices", memory_devices);
  }
};

// Counts from the kernel's sysfs topology where it has one (cores are distinct core_cpus_list
// sets, so AMD's per-die core ids and IA-64's colliding ids do not merge cores), /proc/cpuinfo
// otherwise. `threads` counts online CPUs; `present` and `offline` say what else the kernel knows.
struct CpuInfo {
  Fact<std::string> model, vendor;
  Fact<int64_t> sockets, cores, threads;
  Fact<int64_t> dies;            // distinct (package, die_id); unknown where no die_id file
  Fact<int64_t> books, drawers;  // s390 only: distinct book_id / drawer_id
  Fact<std::string> online;      // cpulist of online CPUs
  Fact<std::string> present;     // cpulist of present CPUs (online or not)
  Fact<std::string> offline;     // cpulist of present CPUs that are offline; "" when none
  Fact<bool> hypervisor_flag;    // the "hypervisor" cpu flag: set by every mainstream hypervisor
  template <class V>
  void visit(V& v) {
    v("model", model);
    v("vendor", vendor);
    v("sockets", sockets);
    v("cores", cores);
    v("threads", threads);
    v("dies", dies);
    v("books", books);
    v("drawers", drawers);
    v("online", online);
    v("present", present);
    v("offline", offline);
    v("hypervisor_flag", hypervisor_flag);
  }
};

struct MemoryInfo {
  Fact<uint64_t> total_bytes;
  template <class V>
  void visit(V& v) {
    v("total_bytes", total_bytes);
  }
};

struct NumaNode {
  int64_t id = 0;
  Fact<std::string> cpus;                // cpulist form, "0-31,64-95" (from cpulist or cpumap)
  Fact<uint64_t> memory_bytes;           // MemTotal of the node
  Fact<uint64_t> memory_free_bytes;      // free when read (pasted numactl -H only)
  Fact<std::vector<int64_t>> distances;  // to every node, in id order
  // "cpu+memory", "cpu-only" (memoryless: its CPUs allocate from another node) or "memory-only"
  // (GPU memory on POWER9/Grace Hopper, CXL memory, or a node whose CPUs are all offline).
  Fact<std::string> kind;
  // For a memory-only node: the PCI address and name of the GPU sysfs ties to it (the GPU's
  // numa_node); unknown when sysfs names none.
  Fact<std::string> gpu;
  template <class V>
  void visit(V& v) {
    v("id", id);
    v("cpus", cpus);
    v("memory_bytes", memory_bytes);
    v("memory_free_bytes", memory_free_bytes);
    v("distances", distances);
    v("kind", kind);
    v("gpu", gpu);
  }
};

struct NumaInfo {
  std::vector<NumaNode> nodes;
  template <class V>
  void visit(V& v) {
    v("nodes", nodes);
  }
};

struct VirtualizationInfo {
  Fact<bool> guest;
  Fact<std::string> hypervisor;  // "kvm", "vmware", "hyper-v", "xen"…; null on bare metal
  Fact<std::string> chipset;     // "q35", "i440fx"; null when not a QEMU machine type
  // "microvm": a KVM guest with no DMI and virtio-mmio devices or no QEMU PCI host bridge
  // (Firecracker, Cloud Hypervisor); null otherwise, with the reason.
  Fact<std::string> platform;
  template <class V>
  void visit(V& v) {
    v("guest", guest);
    v("hypervisor", hypervisor);
    v("chipset", chipset);
    v("platform", platform);
  }
};

}  // namespace dossier
