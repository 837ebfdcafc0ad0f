#include "hypervisor/libvirt_domain.h"

#include <cstdio>
#include <map>
#include <pugixml.hpp>

#include "util/line_index.h"
#include "util/text.h"

namespace dossier::hypervisor {
namespace {

// <address domain='0x0000' bus='0x01' slot='0x00' function='0x0'/> in full form, or "".
std::string Address(const pugi::xml_node& a) {
  auto num = [&](const char* attr, uint64_t max, uint64_t* out) {
    pugi::xml_attribute at = a.attribute(attr);
    if (!at) return std::string(attr) == "domain" ? (*out = 0, true) : false;
    auto v = ParseUint(std::string(at.value()).rfind("0x", 0) == 0 ? at.value() + 2 : at.value(),
                       std::string(at.value()).rfind("0x", 0) == 0 ? 16 : 10);
    if (!v || *v > max) return false;
    *out = *v;
    return true;
  };
  uint64_t d, b, s, f = 0;
  if (!num("domain", 0xffff, &d) || !num("bus", 0xff, &b) || !num("slot", 0x1f, &s)) return "";
  if (a.attribute("function") && !num("function", 7, &f)) return "";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", static_cast<unsigned>(d),
                static_cast<unsigned>(b), static_cast<unsigned>(s), static_cast<unsigned>(f));
  return buf;
}

}  // namespace

DomainParse ParseLibvirtDomain(std::string_view xml, const std::string& name) {
  DomainParse out;
  pugi::xml_document doc;
  pugi::xml_parse_result r = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default);
  const LineIndex lines(xml);
  if (!r) {
    size_t line = lines.LineOf(r.offset);
    out.problems.push_back(name + ":" + std::to_string(line) + ": not valid XML (" +
                           r.description() + ")");
    return out;
  }
  pugi::xml_node dom = doc.child("domain");
  pugi::xml_node status = doc.child("domstatus");
  if (!dom && status) dom = status.child("domain");
  if (!dom) {
    out.problems.push_back(name + ": no <domain> element (not a libvirt domain)");
    return out;
  }
  out.ok = true;
  Vm& vm = out.vm;
  auto src = [&](const pugi::xml_node& n) {
    return name + ":" + std::to_string(lines.LineOf(n.offset_debug()));
  };
  vm.config = Known(name, name);
  if (auto n = dom.child("name")) {
    vm.id = n.child_value();
    vm.name = Known(std::string(n.child_value()), src(n));
  }
  if (auto u = dom.child("uuid"))
    vm.smbios_uuid = Known(ToLower(Trim(u.child_value())), src(u));
  else
    vm.smbios_uuid.Unknown("no <uuid>", name);
  if (auto t = dom.child("os").child("type"); t && t.attribute("machine"))
    vm.machine = Known(std::string(t.attribute("machine").value()), src(t));
  if (auto l = dom.child("os").child("loader")) vm.bios = Known(std::string("ovmf"), src(l));
  if (status) {
    std::string state = status.attribute("state").value();
    vm.running = Known(state == "running" || state == "paused", src(status));
    if (auto pid = ParseInt(status.attribute("pid").value()); pid && *pid > 0)
      vm.pid = Known(*pid, src(status));
  }
  if (auto m = dom.child("memory")) {
    auto v = ParseUint(Trim(m.child_value()));
    std::string unit = m.attribute("unit") ? m.attribute("unit").value() : "KiB";
    if (v) {
      uint64_t mib = unit == "KiB" || unit == "k"   ? *v / 1024
                     : unit == "MiB" || unit == "M" ? *v
                     : unit == "GiB" || unit == "G" ? *v * 1024
                                                    : 0;
      if (mib) vm.memory_mib = Known(static_cast<int64_t>(mib), src(m));
    }
  }
  if (auto topo = dom.child("cpu").child("topology")) {
    if (auto s = ParseInt(topo.attribute("sockets").value())) vm.sockets = Known(*s, src(topo));
    if (auto c = ParseInt(topo.attribute("cores").value())) vm.cores = Known(*c, src(topo));
  }
  // NUMA cells, and their host binding from <numatune><memnode cellid mode nodeset>.
  // <memnode>s by cellid, the last one winning as before (a lookup per cell made it n²).
  std::map<int64_t, pugi::xml_node> memnodes;
  for (auto mn : dom.child("numatune").children("memnode"))
    memnodes[ParseInt(mn.attribute("cellid").value()).value_or(-1)] = mn;
  for (auto cell : dom.child("cpu").child("numa").children("cell")) {
    VmNumaNode n;
    n.id = ParseInt(cell.attribute("id").value()).value_or(0);
    n.cpus = Known(std::string(cell.attribute("cpus").value()), src(cell));
    n.memory = Known(std::string(cell.attribute("memory").value()) + " " +
                         (cell.attribute("unit") ? cell.attribute("unit").value() : "KiB"),
                     src(cell));
    if (auto it = memnodes.find(n.id); it != memnodes.end()) {
      const pugi::xml_node& mn = it->second;
      n.hostnodes = Known(std::string(mn.attribute("nodeset").value()), src(mn));
      n.policy = Known(std::string(mn.attribute("mode").value()), src(mn));
    }
    if (!n.hostnodes.known())
      n.hostnodes.Unknown("no <numatune><memnode> for this cell", src(cell));
    vm.numa_nodes.push_back(std::move(n));
  }
  vm.numa = Known(!vm.numa_nodes.empty(), name + " (<cpu><numa>)");
  // The slot is the QEMU device id libvirt gives the device (what -set and <qemu:override> name):
  // the running state's <alias>, else libvirt's own numbering, hostdevN over every <hostdev>
  // (USB and SCSI ones too) in document order.
  int index = 0;
  for (auto hd : dom.child("devices").children("hostdev")) {
    const int n = index++;
    if (std::string(hd.attribute("type").value()) != "pci") continue;
    VmHostPci h;
    const char* alias = hd.child("alias").attribute("name").value();
    h.slot = *alias ? std::string(alias) : "hostdev" + std::to_string(n);
    std::string host = Address(hd.child("source").child("address"));
    if (host.empty())
      out.problems.push_back(src(hd) + ": <hostdev> without a usable <source><address> (ignored)");
    else
      h.host = Known(host, src(hd.child("source")));
    if (auto a = hd.child("address"); a && std::string(a.attribute("type").value()) == "pci") {
      std::string guest = Address(a);
      if (!guest.empty()) h.guest_bus = Known(guest, src(a));
    }
    h.pcie.Unknown("libvirt places it by the guest address", src(hd));
    // Proxmox options with no libvirt counterpart in <hostdev>: said, not left blank.
    h.mapping.Unknown("libvirt has no Proxmox resource mappings", src(hd));
    h.x_vga.Unknown("a Proxmox option; libvirt has no x-vga on <hostdev>", src(hd));
    if (auto rom = hd.child("rom"); rom && rom.attribute("bar"))
      h.rombar = Known(
          std::string(rom.attribute("bar").value()) == "off" ? std::string("0") : std::string("1"),
          src(rom));
    else
      h.rombar.Unknown("no <rom bar=…> (libvirt's default: the ROM BAR is shown)", src(hd));
    if (auto alias = hd.child("alias"); alias && vm.running.value_or(false))
      h.running_host_address = Known(host, src(alias));
    vm.hostpci.push_back(std::move(h));
  }
  // <qemu:commandline><qemu:arg value='…'/>: kept as the VM's extra arguments.
  std::string args;
  for (auto cl : dom.children()) {
    if (std::string(cl.name()) != "qemu:commandline") continue;
    for (auto a : cl.children())
      if (std::string(a.name()) == "qemu:arg")
        args += (args.empty() ? "" : " ") + std::string(a.attribute("value").value());
  }
  if (!args.empty())
    vm.args = Known(args, name);
  else
    vm.args.Unknown("no <qemu:commandline>", name);
  return out;
}

}  // namespace dossier::hypervisor
