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

struct DmiInfo {
  Fact<std::string> sys_vendor, product_name, board_vendor, board_name, bios_vendor, bios_version,
      bios_date;
  // SMBIOS system UUID (root only). In a VM it is the hypervisor's smbios1 uuid / libvirt <uuid>:
  // what links a guest to its VM on the host.
  Fact<std::string> product_uuid;
  template <class V>
  void visit(V& v) {
    v("sys_vendor", sys_vendor);
    v("product_name", product_name);
    v("board_vendor", board_vendor);
    v("board_name", board_name);
    v("bios_vendor", bios_vendor);
    v("bios_version", bios_version);
    v("bios_date", bios_date);
    v("product_uuid", product_uuid);
  }
};

struct CpuInfo {
  Fact<std::string> model, vendor;
  Fact<int64_t> sockets, cores, threads;
  Fact<bool> hypervisor_flag;  // the "hypervisor" cpu flag: set by every mainstream hypervisor
  template <class V>
  void visit(V& v) {
    v("model", model);
    v("vendor", vendor);
    v("sockets", sockets);
    v("cores", cores);
    v("threads", threads);
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
  Fact<std::string> cpus;                // cpulist form, "0-31,64-95"
  Fact<uint64_t> memory_bytes;           // MemTotal of the node
  Fact<std::vector<int64_t>> distances;  // to every node, in id order
  template <class V>
  void visit(V& v) {
    v("id", id);
    v("cpus", cpus);
    v("memory_bytes", memory_bytes);
    v("distances", distances);
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
  template <class V>
  void visit(V& v) {
    v("guest", guest);
    v("hypervisor", hypervisor);
    v("chipset", chipset);
  }
};

}  // namespace dossier
