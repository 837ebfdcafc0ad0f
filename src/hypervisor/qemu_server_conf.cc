#include "hypervisor/qemu_server_conf.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "hypervisor/options.h"
#include "util/text.h"

namespace dossier::hypervisor {
namespace {

// Keys of qemu-server's configuration schema (PVE/QemuServer.pm, `qm config`); numbered keys are
// listed by their stem. A key outside this list is reported, not rejected: newer Proxmox releases
// add keys.
constexpr std::array kPlainKeys = {
    "acpi",          "affinity",     "agent",          "amd-sev",
    "arch",          "args",         "audio0",         "autostart",
    "balloon",       "bios",         "boot",           "bootdisk",
    "cdrom",         "cicustom",     "cipassword",     "citype",
    "ciupgrade",     "ciuser",       "cores",          "cpu",
    "cpulimit",      "cpuunits",     "description",    "digest",
    "efidisk0",      "freeze",       "hookscript",     "hotplug",
    "hugepages",     "intel-tdx",    "ivshmem",        "keephugepages",
    "keyboard",      "kvm",          "localtime",      "lock",
    "machine",       "memory",       "meta",           "migrate_downtime",
    "migrate_speed", "name",         "nameserver",     "numa",
    "onboot",        "ostype",       "parent",         "protection",
    "reboot",        "rng0",         "runningcpu",     "runningmachine",
    "scsihw",        "searchdomain", "shares",         "smbios1",
    "smp",           "snaptime",     "sockets",        "spice_enhancements",
    "sshkeys",       "startdate",    "startup",        "tablet",
    "tags",          "tdf",          "template",       "tpmstate0",
    "vcpus",         "vga",          "virtiofs",       "vmgenid",
    "vmid",          "vmstate",      "vmstatestorage", "watchdog"};
constexpr std::array kNumberedStems = {"hostpci",  "ide",    "ipconfig", "net",    "numa",
                                       "parallel", "sata",   "scsi",     "serial", "unused",
                                       "usb",      "virtio", "virtiofs"};

bool KnownKey(const std::string& key) {
  for (const char* k : kPlainKeys)
    if (key == k) return true;
  size_t d = key.size();
  while (d > 0 && std::isdigit(static_cast<unsigned char>(key[d - 1]))) --d;
  if (d == key.size() || d == 0) return false;
  std::string stem = key.substr(0, d);
  for (const char* s : kNumberedStems)
    if (stem == s) return true;
  return false;
}

template <class T>
Fact<T> At(T v, const std::string& src) {
  return Known(std::move(v), src);
}

std::optional<bool> Flag(const std::string& v) {
  if (v == "1" || v == "on" || v == "yes" || v == "true") return true;
  if (v == "0" || v == "off" || v == "no" || v == "false") return false;
  return std::nullopt;
}

// "0-3;8-11" (Proxmox writes lists with ';') as a cpulist "0-3,8-11".
std::string CpuList(const std::string& v) {
  std::string s = v;
  std::replace(s.begin(), s.end(), ';', ',');
  return s;
}

void ParseHostPci(const std::string& key, const std::string& value, const std::string& src,
                  VmConfigParse* out) {
  VmHostPci h;
  h.slot = key;
  for (const auto& o : SplitOptions(value)) {
    if (o.key.empty() || o.key == "host") {
      h.host = At(o.value, src);
      for (auto a : Split(o.value, ';'))
        if (FullPciAddress(a).empty())
          out->problems.push_back(src + ": " + key + ": '" + std::string(a) +
                                  "' is not a PCI address");
    } else if (o.key == "mapping") {
      h.mapping = At(o.value, src);
    } else if (o.key == "pcie" || o.key == "x-vga") {
      auto f = Flag(o.value);
      if (!f) {
        out->problems.push_back(src + ": " + key + ": " + o.key + "=" + o.value + " is not 0 or 1");
        continue;
      }
      (o.key == "pcie" ? h.pcie : h.x_vga) = At(*f, src);
    } else if (o.key == "rombar") {
      h.rombar = At(o.value, src);
    } else if (o.key != "romfile" && o.key != "device-id" && o.key != "vendor-id" &&
               o.key != "sub-device-id" && o.key != "sub-vendor-id" && o.key != "mdev" &&
               o.key != "legacy-igd") {
      out->problems.push_back(src + ": " + key + ": unknown option '" + o.key + "' (ignored)");
    }
  }
  if (!h.host.known() && !h.mapping.known())
    out->problems.push_back(src + ": " + key + " names neither a host address nor a mapping");
  if (!h.pcie.known()) h.pcie = At(false, src + " (pcie not set: conventional PCI slot)");
  // Options left out take Proxmox's defaults (qemu-server's PCI.pm): no x-vga, the ROM BAR on.
  if (!h.x_vga.known()) h.x_vga = At(false, src + " (x-vga not set)");
  if (!h.rombar.known()) h.rombar = At(std::string("1"), src + " (rombar not set: on)");
  if (!h.host.known() && h.mapping.known())
    h.host.Unknown("given by the mapping '" + *h.mapping + "' (/etc/pve/mapping/pci.cfg)", src);
  out->vm.hostpci.push_back(std::move(h));
}

void ParseNumaNode(int64_t id, const std::string& value, const std::string& src,
                   VmConfigParse* out) {
  VmNumaNode n;
  n.id = id;
  for (const auto& o : SplitOptions(value)) {
    if (o.key == "cpus") {
      n.cpus = At(CpuList(o.value), src);
    } else if (o.key == "hostnodes") {
      n.hostnodes = At(CpuList(o.value), src);
    } else if (o.key == "policy") {
      n.policy = At(o.value, src);
    } else if (o.key == "memory") {
      n.memory = At(o.value, src);
    } else {
      out->problems.push_back(src + ": numa" + std::to_string(id) + ": unknown option '" +
                              (o.key.empty() ? o.value : o.key) + "' (ignored)");
    }
  }
  if (!n.hostnodes.known()) n.hostnodes.Unknown("not bound to a host node (no hostnodes=)", src);
  out->vm.numa_nodes.push_back(std::move(n));
}

void SetConfInt(const std::string& key, const std::string& value, const std::string& src,
                Fact<int64_t>* f, VmConfigParse* out) {
  if (auto v = ParseInt(value)) {
    *f = At(*v, src);
  } else {
    f->Unknown("not an integer: '" + value + "'", src);
    out->problems.push_back(src + ": " + key + ": '" + value + "' is not an integer");
  }
}

}  // namespace

VmConfigParse ParseQemuServerConf(std::string_view text, const std::string& name,
                                  const std::string& vmid) {
  VmConfigParse out;
  out.vm.id = vmid;
  out.vm.config = Known(name, name);
  int64_t line_no = 0;
  for (auto raw : SplitLines(text)) {
    ++line_no;
    std::string src = name + ":" + std::to_string(line_no);
    std::string_view line = Trim(raw);
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') break;  // a snapshot or pending section: not the current configuration
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      out.problems.push_back(src + ": not a 'key: value' line (ignored)");
      continue;
    }
    std::string key(Trim(line.substr(0, colon)));
    std::string value(Trim(line.substr(colon + 1)));
    if (!KnownKey(key)) {
      out.problems.push_back(src + ": unknown key '" + key + "' (ignored)");
      continue;
    }
    if (key.rfind("hostpci", 0) == 0) {
      ParseHostPci(key, value, src, &out);
    } else if (key.rfind("numa", 0) == 0 && key.size() > 4) {
      ParseNumaNode(*ParseInt(key.substr(4)), value, src, &out);
    } else if (key == "numa") {
      if (auto f = Flag(value)) out.vm.numa = At(*f, src);
    } else if (key == "name") {
      out.vm.name = At(value, src);
    } else if (key == "vmid") {
      out.vm.id = value;
    } else if (key == "machine") {
      // "q35", "pc-q35-9.2+pve1", or "type=q35,viommu=…"
      auto opts = SplitOptions(value);
      const std::string* t = FindOption(opts, "type");
      out.vm.machine = At(t ? *t : opts.empty() ? value : opts[0].value, src);
    } else if (key == "bios") {
      out.vm.bios = At(value, src);
    } else if (key == "sockets") {
      SetConfInt(key, value, src, &out.vm.sockets, &out);
    } else if (key == "cores") {
      SetConfInt(key, value, src, &out.vm.cores, &out);
    } else if (key == "memory") {
      auto opts = SplitOptions(value);  // "491520" or "current=491520"
      const std::string* cur = FindOption(opts, "current");
      SetConfInt(key, cur ? *cur : value, src, &out.vm.memory_mib, &out);
    } else if (key == "smbios1") {
      auto opts = SplitOptions(value);  // kept: FindOption points into it
      if (const std::string* u = FindOption(opts, "uuid"))
        out.vm.smbios_uuid = At(ToLower(*u), src);
    } else if (key == "args") {
      out.vm.args = At(value, src);
    }
  }
  if (!out.vm.machine.known())
    out.vm.machine.Unknown("not set: Proxmox's default, i440FX (pc)", name);
  if (!out.vm.numa.known()) out.vm.numa = Known(false, name + " (numa not set)");
  if (!out.vm.smbios_uuid.known()) out.vm.smbios_uuid.Unknown("no smbios1: uuid=", name);
  if (!out.vm.args.known()) out.vm.args = Known(std::string(), name + " (args not set)");
  std::sort(out.vm.numa_nodes.begin(), out.vm.numa_nodes.end(),
            [](const VmNumaNode& a, const VmNumaNode& b) { return a.id < b.id; });
  return out;
}

}  // namespace dossier::hypervisor
