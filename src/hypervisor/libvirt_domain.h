// A libvirt domain: /etc/libvirt/qemu/NAME.xml (defined), /run/libvirt/qemu/NAME.xml (running:
// <domstatus state=… pid=…> around the domain), or `virsh dumpxml NAME` pasted. What passthrough
// needs: name, <uuid> (the guest's SMBIOS UUID), machine type, NUMA cells and their host binding
// (<numatune><memnode>), each <hostdev type='pci'>: host source address and guest <address>, and
// x-nv-gpudirect-clique in <qemu:commandline>. Pure (pugixml); bad XML is a problem, not a crash.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/hypervisor.h"

namespace dossier::hypervisor {

struct DomainParse {
  bool ok = false;  // false: not a domain at all (problems say why)
  Vm vm;            // id = domain name; hostpci slots "hostdev0"…; guest_bus = guest address
  std::vector<std::string> problems;
};

DomainParse ParseLibvirtDomain(std::string_view xml, const std::string& name);

}  // namespace dossier::hypervisor
