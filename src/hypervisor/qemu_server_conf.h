// A Proxmox VE VM configuration (/etc/pve/qemu-server/VMID.conf, or `qm config VMID` pasted):
// "key: value" lines, '#' comment lines (the VM's notes), and sections ([snapshot], [PENDING])
// after the current configuration, which are not read. Pure: text in, facts out, every fact's
// source "NAME:LINE". An unknown key or a value that does not parse is a problem with its line,
// never fatal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/hypervisor.h"

namespace dossier::hypervisor {

struct VmConfigParse {
  Vm vm;                              // id from `vmid`, name, hostpci…, numa…
  std::vector<std::string> problems;  // "NAME:LINE: …"
};

// `name` names the input in sources ("/etc/pve/qemu-server/100.conf", "qm config 100");
// `vmid` is the VM id when the name carries it ("" to leave it empty).
VmConfigParse ParseQemuServerConf(std::string_view text, const std::string& name,
                                  const std::string& vmid);

}  // namespace dossier::hypervisor
