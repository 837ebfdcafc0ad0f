// The virtualization host's view of its guests (probe/hypervisor.cc, and `dossier import` of the
// same files): which hypervisor manages VMs here, each VM's configuration (Proxmox qemu-server conf
// or libvirt domain XML) with its passed-through PCI devices, what the running QEMU process was
// actually given, and the Proxmox PCI resource mappings checked against the machine as Proxmox
// checks them at VM start. Sources are file paths with line numbers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/fact.h"

namespace dossier {

// A guest NUMA node of a VM (Proxmox numaN:, libvirt <numa><cell>, QEMU -numa node).
struct VmNumaNode {
  int64_t id = 0;
  Fact<std::string> cpus;       // guest cpus, "0-31"
  Fact<std::string> hostnodes;  // host nodes its memory is bound to, "0"; null when not bound
  Fact<std::string> policy;     // "bind", "preferred", "interleave"
  Fact<std::string> memory;     // as configured (MiB for Proxmox)
  template <class V>
  void visit(V& v) {
    v("id", id);
    v("cpus", cpus);
    v("hostnodes", hostnodes);
    v("policy", policy);
    v("memory", memory);
  }
};

// One passed-through PCI device of a VM: Proxmox hostpciN (or a libvirt <hostdev>).
struct VmHostPci {
  std::string slot;           // "hostpci0" (libvirt: "hostdev0")
  Fact<std::string> host;     // as configured: "0000:01:00", "01:00.0", "0000:01:00.0;0000:02:00.0"
  Fact<std::string> mapping;  // Proxmox resource mapping name (mapping=gpu0)
  Fact<bool> pcie;            // pcie=1: on a PCIe root port (Q35)
  Fact<bool> x_vga;
  Fact<std::string> rombar;  // "0" / "1" as configured
  // The host address QEMU was given (first function), from the running command line.
  Fact<std::string> running_host_address;
  // The guest bus QEMU put it on: "ich9-pcie-port-3" (libvirt: "0000:05:00.0", the guest address).
  Fact<std::string> guest_bus;
  // x-nv-gpudirect-clique QEMU was (or, for `qm showcmd`, will be) given for this device: the
  // guest driver's P2P clique id, "0".."15"; null when no command line was read.
  Fact<std::string> gpudirect_clique;
  template <class V>
  void visit(V& v) {
    v("slot", slot);
    v("host", host);
    v("mapping", mapping);
    v("pcie", pcie);
    v("x_vga", x_vga);
    v("rombar", rombar);
    v("running_host_address", running_host_address);
    v("guest_bus", guest_bus);
    v("gpudirect_clique", gpudirect_clique);
  }
};

struct Vm {
  std::string id;  // "100" (libvirt: the domain name)
  Fact<std::string> name;
  Fact<std::string> config;  // the file it was read from
  Fact<bool> running;
  Fact<int64_t> pid;
  Fact<std::string> machine;  // "q35", "pc-q35-9.2+pve1", "pc-i440fx-8.1"
  Fact<std::string> bios;     // "ovmf", "seabios"
  Fact<bool> numa;            // numa: 1
  std::vector<VmNumaNode> numa_nodes;
  Fact<int64_t> sockets, cores;
  Fact<int64_t> memory_mib;
  Fact<std::string> smbios_uuid;  // smbios1: uuid= / libvirt <uuid>: the guest's product_uuid
  Fact<std::string> args;         // Proxmox args: (extra QEMU arguments), as configured
  std::vector<VmHostPci> hostpci;
  // The running QEMU got its -device arguments as JSON (QEMU >= 6.2; libvirt >= 8.1 passes them
  // so): `-set device.ID.PROP=V` no longer reaches such devices, libvirt's <qemu:override> does.
  // Unknown when the VM is not running.
  Fact<bool> qemu_json_devices;
  template <class V>
  void visit(V& v) {
    v("id", id);
    v("name", name);
    v("config", config);
    v("running", running);
    v("pid", pid);
    v("machine", machine);
    v("bios", bios);
    v("numa", numa);
    v("numa_nodes", numa_nodes);
    v("sockets", sockets);
    v("cores", cores);
    v("memory_mib", memory_mib);
    v("smbios_uuid", smbios_uuid);
    v("args", args);
    v("hostpci", hostpci);
    v("qemu_json_devices", qemu_json_devices);
  }
};

// One node entry of a Proxmox PCI resource mapping (a `map` line of /etc/pve/mapping/pci.cfg).
struct PciMappingEntry {
  Fact<std::string> path;          // "0000:f1:00.0", or several joined by ';' (first available)
  Fact<std::string> id;            // vendor:device, "10de:2bb1"
  Fact<std::string> subsystem_id;  // "10de:204b"
  Fact<std::string> node;          // Proxmox node name
  Fact<int64_t> iommugroup;        // as configured
  Fact<int64_t> iommu_group_now;   // the first path's group on this machine now
  // "ok"; "stale" (group, id or subsystem id no longer match: the VM will not start);
  // "missing" (no device at the path); "other-node" (another node's entry: not checked here).
  Fact<std::string> status;
  Fact<std::string> problem;  // what does not match, in Proxmox's words when Proxmox says it
  template <class V>
  void visit(V& v) {
    v("path", path);
    v("id", id);
    v("subsystem_id", subsystem_id);
    v("node", node);
    v("iommugroup", iommugroup);
    v("iommu_group_now", iommu_group_now);
    v("status", status);
    v("problem", problem);
  }
};

struct PciMapping {
  std::string name;
  std::vector<PciMappingEntry> entries;
  template <class V>
  void visit(V& v) {
    v("name", name);
    v("entries", entries);
  }
};

// A VM that would not start, as `qm start` / the Proxmox task log / QEMU printed it: QEMU's
// "kvm: -device vfio-pci,host=ADDR…: vfio ADDR: failed to setup container for group N", "no
// iommu_group found", "group N is not viable", or Proxmox's mapping check "'iommugroup' does not
// match for 'NAME' (CONFIGURED != ACTUAL)". Kept (imported only) as evidence for vm.mapping-stale.
struct VmStartError {
  Fact<std::string> vmid;          // from the pasted `qm start VMID`, when shown
  Fact<std::string> device;        // the host PCI address the error names
  Fact<int64_t> iommu_group;       // the group it names (the actual group for a mapping mismatch)
  Fact<std::string> mapping;       // the PCI resource mapping a mismatch names
  Fact<int64_t> configured_group;  // the group the mapping has (stale)
  Fact<std::string> message;       // the error line, as printed
  template <class V>
  void visit(V& v) {
    v("vmid", vmid);
    v("device", device);
    v("iommu_group", iommu_group);
    v("mapping", mapping);
    v("configured_group", configured_group);
    v("message", message);
  }
};

struct HypervisorInfo {
  Fact<std::string> kind;  // "proxmox", "libvirt", "qemu"; null when this machine runs no VMs
  Fact<std::string> node;  // Proxmox node name (the hostname), for mapping entries
  std::vector<Vm> vms;
  std::vector<PciMapping> pci_mappings;
  // The text of /etc/pve/mapping/pci.cfg as read (comments and all): what `dossier generate
  // pve-mapping` corrects without changing anything else.
  Fact<std::string> pci_cfg;
  // Input we could not understand (an unknown key, a malformed mapping line, a QEMU device we
  // do not know), each with file and line: reported, never fatal.
  std::vector<std::string> problems;
  std::vector<VmStartError> start_errors;  // pasted VM start failures (dossier import)
  template <class V>
  void visit(V& v) {
    v("kind", kind);
    v("node", node);
    v("vms", vms);
    v("pci_mappings", pci_mappings);
    v("pci_cfg", pci_cfg);
    v("problems", problems);
    v("start_errors", start_errors);
  }
};

}  // namespace dossier
