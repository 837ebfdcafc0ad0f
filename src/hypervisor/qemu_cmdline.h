// A QEMU command line: the argv of a running QEMU (/proc/PID/cmdline, NUL-separated) or the text
// `qm showcmd VMID [--pretty]` prints (shell words, quotes, backslash-newlines). What it says
// about passthrough: each vfio-pci device (host address, id — Proxmox's hostpciN or hostpciN.F —,
// guest bus and address, x-nv-gpudirect-clique), the PCIe root ports (id, port number), the
// SMBIOS UUID, machine type, NUMA nodes and `-set device.ID.PROP=V`. Pure; a device or option it
// does not understand is a problem, never fatal.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dossier::hypervisor {

struct QemuVfioDevice {
  std::string host;    // "0000:f1:00.0" (empty when given by sysfsdev=)
  std::string id;      // "hostpci0", "hostpci0.1"
  std::string bus;     // "ich9-pcie-port-1", "pci.0"
  std::string addr;    // "0x0", "0x0.1"
  std::string clique;  // x-nv-gpudirect-clique, from the device or a -set
  int64_t arg = 0;     // index of its -device argument
};

struct QemuRootPort {
  std::string id;     // "ich9-pcie-port-5"
  int64_t port = -1;  // port=N: the Port Number in Link Capabilities
  std::string addr;   // "10.0"
  std::string chassis;
};

struct QemuNumaNode {
  int64_t id = 0;
  std::string cpus;       // "0-31"
  std::string memdev;     // "ram-node0"
  std::string hostnodes;  // from the memdev's host-nodes= (a memory-backend object)
  std::string policy;
};

struct QemuCmdline {
  std::string vmid;         // -id (Proxmox)
  std::string name;         // -name, without its options
  std::string smbios_uuid;  // -smbios type=1,uuid=
  std::string machine;      // -machine type=
  std::string pidfile;
  std::vector<QemuVfioDevice> vfio;
  std::vector<QemuRootPort> root_ports;
  std::vector<QemuNumaNode> numa;
  std::vector<std::string> problems;  // "NAME: argument N: …"
  // A -device was given as JSON (QEMU >= 6.2; libvirt >= 8.1 does so): `-set device.ID.PROP=V`
  // does not apply to such devices, libvirt's <qemu:override> does.
  bool json_devices = false;
};

// argv from /proc/PID/cmdline.
QemuCmdline ParseQemuArgv(const std::vector<std::string>& argv, const std::string& name);
// Shell text as `qm showcmd` prints it; unbalanced quotes are a problem.
QemuCmdline ParseQemuShellText(std::string_view text, const std::string& name);
// Splits shell words (single and double quotes, backslash escapes, backslash-newline).
std::vector<std::string> SplitShellWords(std::string_view text, std::string* error);

// True when argv[0]'s base name is a QEMU system emulator (qemu-system-*, kvm, qemu-kvm).
bool LooksLikeQemu(const std::vector<std::string>& argv);

}  // namespace dossier::hypervisor
