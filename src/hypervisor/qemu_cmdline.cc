#include "hypervisor/qemu_cmdline.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "hypervisor/options.h"
#include "util/text.h"

namespace dossier::hypervisor {
namespace {

// Device models the passthrough analysis does not need, known so that they are not reported;
// anything else is named as a problem (once per model).
bool KnownDeviceModel(const std::string& m) {
  static const char* const kPrefixes[] = {"virtio-",
                                          "vhost-",
                                          "usb-",
                                          "ide-",
                                          "scsi-",
                                          "ich9-",
                                          "nec-usb",
                                          "qemu-xhci",
                                          "piix",
                                          "pcie-pci-bridge",
                                          "pci-bridge",
                                          "VGA",
                                          "vga",
                                          "qxl",
                                          "bochs",
                                          "ramfb",
                                          "cirrus",
                                          "vmware",
                                          "e1000",
                                          "rtl8139",
                                          "vmxnet3",
                                          "intel-hda",
                                          "hda-",
                                          "AC97",
                                          "ES1370",
                                          "i6300esb",
                                          "ib700",
                                          "isa-",
                                          "pvpanic",
                                          "vmgenid",
                                          "tpm-",
                                          "nvme",
                                          "megasas",
                                          "lsi",
                                          "am53c974",
                                          "dc390",
                                          "pvscsi",
                                          "vfio-pci-nohotplug",
                                          "ivshmem",
                                          "intel-iommu",
                                          "amd-iommu",
                                          "virtconsole",
                                          "virtserialport",
                                          "chardev",
                                          "usb_",
                                          "sga",
                                          "edu",
                                          "pxb",
                                          "ahci",
                                          "floppy",
                                          "i8042",
                                          "pcie-root-port",
                                          "x3130-upstream",
                                          "xio3130-downstream",
                                          "vfio-pci",
                                          "cxl-",
                                          "ne2k",
                                          "pcnet",
                                          "sdhci",
                                          "sd-card",
                                          "qemu-vdagent",
                                          "vmcoreinfo",
                                          "ich9-usb",
                                          "loader"};
  for (const char* p : kPrefixes)
    if (m.rfind(p, 0) == 0) return true;
  return false;
}

// QEMU >= 6.2 takes -device and -object as JSON too, and libvirt passes them that way
// ({"driver":"vfio-pci","host":"0000:43:00.0","id":"hostdev1","bus":"pci.5","addr":"0x0"}). The
// members as options: strings as they are, numbers in decimal, booleans as on/off, arrays of
// numbers (host-nodes) joined by commas. Nested objects are not needed here and are left out.
// `ok` is false when the text is not a JSON object.
std::vector<Option> JsonOptions(const std::string& value, bool* ok) {
  std::vector<Option> opts;
  nlohmann::json j = nlohmann::json::parse(value, nullptr, false);
  *ok = j.is_object();
  if (!*ok) return opts;
  auto scalar = [](const nlohmann::json& v, std::string* s) {
    if (v.is_string())
      *s = v.get<std::string>();
    else if (v.is_boolean())
      *s = v.get<bool>() ? "on" : "off";
    else if (v.is_number_integer() || v.is_number_unsigned())
      *s = v.dump();
    else
      return false;
    return true;
  };
  for (const auto& [k, v] : j.items()) {
    std::string s;
    if (v.is_array()) {
      for (const auto& e : v) {
        std::string one;
        if (!scalar(e, &one)) continue;
        s += (s.empty() ? "" : ",") + one;
      }
    } else if (!scalar(v, &s)) {
      continue;
    }
    opts.push_back({k, s});
  }
  return opts;
}

// Options of a -device or -object value in either syntax; a JSON value sets `json`.
std::vector<Option> DeviceOptions(const std::string& value, bool* json, std::string* error) {
  if (!value.empty() && value[0] == '{') {
    bool ok = false;
    auto opts = JsonOptions(value, &ok);
    if (ok) {
      *json = true;
      return opts;
    }
    *error = "starts with '{' but is not a JSON object";
  }
  return SplitOptions(value);
}

void Device(const std::string& value, int64_t arg, const std::string& name, QemuCmdline* out,
            std::vector<std::string>* unknown_models) {
  std::string error;
  auto opts = DeviceOptions(value, &out->json_devices, &error);
  if (!error.empty())
    out->problems.push_back(name + ": argument " + std::to_string(arg) + ": -device " + error);
  std::string model = opts.empty() ? "" : opts[0].key.empty() ? opts[0].value : "";
  if (const std::string* d = FindOption(opts, "driver")) model = *d;
  std::string where = name + ": argument " + std::to_string(arg);
  if (model == "vfio-pci" || model == "vfio-pci-nohotplug") {
    QemuVfioDevice v;
    v.arg = arg;
    if (const std::string* h = FindOption(opts, "host")) {
      v.host = FullPciAddress(*h);
      if (v.host.empty())
        out->problems.push_back(where + ": vfio-pci host='" + *h + "' is not a PCI address");
    } else if (!FindOption(opts, "sysfsdev")) {
      out->problems.push_back(where + ": vfio-pci without host= or sysfsdev=");
    }
    if (const std::string* s = FindOption(opts, "id")) v.id = *s;
    if (const std::string* s = FindOption(opts, "bus")) v.bus = *s;
    if (const std::string* s = FindOption(opts, "addr")) v.addr = *s;
    if (const std::string* s = FindOption(opts, "x-nv-gpudirect-clique")) v.clique = *s;
    out->vfio.push_back(std::move(v));
    return;
  }
  if (model == "pcie-root-port" || model == "ioh3420") {
    QemuRootPort p;
    if (const std::string* s = FindOption(opts, "id")) p.id = *s;
    if (const std::string* s = FindOption(opts, "addr")) p.addr = *s;
    if (const std::string* s = FindOption(opts, "chassis")) p.chassis = *s;
    if (const std::string* s = FindOption(opts, "port")) {
      if (auto n = ParseInt(*s, 0))
        p.port = *n;
      else
        out->problems.push_back(where + ": root port port='" + *s + "' is not a number");
    }
    out->root_ports.push_back(std::move(p));
    return;
  }
  if (model.empty()) {
    out->problems.push_back(where + ": -device without a model (ignored)");
  } else if (!KnownDeviceModel(model) && std::find(unknown_models->begin(), unknown_models->end(),
                                                   model) == unknown_models->end()) {
    unknown_models->push_back(model);
    out->problems.push_back(where + ": device model '" + model +
                            "' not known to dossier (ignored; passthrough facts unaffected "
                            "unless it is a PCI passthrough device)");
  }
}

// The Proxmox pve-q35 config defines ich9-pcie-port-1..4 (00:1c.0-3) with port=1..4; they are not
// on the command line but in -readconfig /usr/share/qemu-server/pve-q35-4.0.cfg.
void AddPveQ35Ports(QemuCmdline* out) {
  for (int n = 1; n <= 4; ++n) {
    std::string id = "ich9-pcie-port-" + std::to_string(n);
    bool have = false;
    for (const auto& p : out->root_ports) have = have || p.id == id;
    if (!have) out->root_ports.push_back({id, n, "1c." + std::to_string(n - 1), std::to_string(n)});
  }
}

}  // namespace

bool LooksLikeQemu(const std::vector<std::string>& argv) {
  if (argv.empty()) return false;
  std::string base = argv[0].substr(argv[0].rfind('/') + 1);
  return base.rfind("qemu-system-", 0) == 0 || base == "kvm" || base == "qemu-kvm";
}

QemuCmdline ParseQemuArgv(const std::vector<std::string>& argv, const std::string& name) {
  QemuCmdline out;
  std::vector<std::string> unknown_models;
  std::map<std::string, std::pair<std::string, std::string>> memdev_nodes;  // id -> nodes, policy
  bool pve_q35 = false;
  for (size_t i = 0; i < argv.size(); ++i) {
    std::string opt = argv[i];
    if (opt.size() > 2 && opt[0] == '-' && opt[1] == '-') opt = opt.substr(1);  // --device
    bool has_value = i + 1 < argv.size();
    const std::string value = has_value ? argv[i + 1] : "";
    int64_t arg = static_cast<int64_t>(i);
    if (opt == "-device" && has_value) {
      Device(value, arg + 1, name, &out, &unknown_models);
      ++i;
    } else if (opt == "-id" && has_value) {
      out.vmid = value;
      ++i;
    } else if (opt == "-name" && has_value) {
      auto o = SplitOptions(value);
      out.name = o.empty() ? value : o[0].value;
      ++i;
    } else if (opt == "-uuid" && has_value) {
      // The SMBIOS system UUID too, unless -smbios type=1,uuid= says otherwise (libvirt uses it).
      if (out.smbios_uuid.empty()) out.smbios_uuid = ToLower(value);
      ++i;
    } else if (opt == "-smbios" && has_value) {
      auto o = SplitOptions(value);
      const std::string* t = FindOption(o, "type");
      const std::string* u = FindOption(o, "uuid");
      if (t && *t == "1" && u) out.smbios_uuid = ToLower(*u);
      ++i;
    } else if ((opt == "-machine" || opt == "-M") && has_value) {
      auto o = SplitOptions(value);
      const std::string* t = FindOption(o, "type");
      out.machine = t ? *t : o.empty() ? value : o[0].value;
      ++i;
    } else if (opt == "-pidfile" && has_value) {
      out.pidfile = value;
      ++i;
    } else if (opt == "-readconfig" && has_value) {
      pve_q35 = pve_q35 || value.find("pve-q35") != std::string::npos;
      ++i;
    } else if (opt == "-object" && has_value) {
      bool json = false;
      std::string error;
      auto o = DeviceOptions(value, &json, &error);
      const std::string* id = FindOption(o, "id");
      const std::string* nodes = FindOption(o, "host-nodes");
      const std::string* policy = FindOption(o, "policy");
      if (id) memdev_nodes[*id] = {nodes ? *nodes : "", policy ? *policy : ""};
      ++i;
    } else if (opt == "-numa" && has_value) {
      auto o = SplitOptions(value);
      if (!o.empty() && o[0].value == "node" && o[0].key.empty()) {
        QemuNumaNode n;
        if (const std::string* s = FindOption(o, "nodeid")) n.id = ParseInt(*s).value_or(0);
        if (const std::string* s = FindOption(o, "memdev")) n.memdev = *s;
        std::string cpus;
        for (const auto& x : o)
          if (x.key == "cpus") cpus += (cpus.empty() ? "" : ",") + x.value;
        n.cpus = cpus;
        out.numa.push_back(std::move(n));
      }
      ++i;
    } else if (opt == "-set" && has_value) {
      // -set device.hostpci0.x-nv-gpudirect-clique=0
      std::string s = value;
      size_t eq = s.find('=');
      if (s.rfind("device.", 0) == 0 && eq != std::string::npos) {
        std::string path = s.substr(7, eq - 7), v = s.substr(eq + 1);
        size_t dot = path.rfind('.');
        if (dot != std::string::npos && path.substr(dot + 1) == "x-nv-gpudirect-clique") {
          std::string id = path.substr(0, dot);
          bool found = false;
          for (auto& d : out.vfio)
            if (d.id == id) {
              d.clique = v;
              found = true;
            }
          if (!found)
            out.problems.push_back(name + ": argument " + std::to_string(arg + 1) + ": -set " + s +
                                   " names no vfio-pci device given before it");
        }
      }
      ++i;
    }
  }
  for (auto& n : out.numa) {
    auto it = memdev_nodes.find(n.memdev);
    if (it != memdev_nodes.end()) {
      n.hostnodes = it->second.first;
      n.policy = it->second.second;
    }
  }
  if (pve_q35) AddPveQ35Ports(&out);
  return out;
}

std::vector<std::string> SplitShellWords(std::string_view text, std::string* error) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quote == '\'') {
      if (c == '\'')
        quote = 0;
      else
        cur += c;
      continue;
    }
    if (quote == '"') {
      if (c == '"') {
        quote = 0;
      } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
        ++i;  // POSIX: a backslash-newline in double quotes joins the lines
      } else if (c == '\\' && i + 1 < text.size() &&
                 (text[i + 1] == '"' || text[i + 1] == '\\' || text[i + 1] == '$' ||
                  text[i + 1] == '`')) {
        cur += text[++i];  // the four characters a backslash escapes in double quotes
      } else {
        cur += c;
      }
      continue;
    }
    if (c == '\\' && i + 1 < text.size()) {
      if (text[i + 1] == '\n') {
        ++i;
        continue;
      }
      cur += text[++i];
      in_word = true;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (in_word) out.push_back(std::move(cur));
      cur.clear();
      in_word = false;
      continue;
    }
    cur += c;
    in_word = true;
  }
  if (quote && error) *error = std::string("unbalanced ") + quote + " quote";
  if (in_word) out.push_back(std::move(cur));
  return out;
}

QemuCmdline ParseQemuShellText(std::string_view text, const std::string& name) {
  std::string error;
  // `qm showcmd` output may be preceded by a '#' comment header when pasted from a notes file.
  std::string body;
  for (auto line : SplitLines(text)) {
    if (!Trim(line).empty() && Trim(line)[0] == '#') continue;
    body.append(line);
    body += '\n';
  }
  QemuCmdline out = ParseQemuArgv(SplitShellWords(body, &error), name);
  if (!error.empty()) out.problems.push_back(name + ": " + error + " (the rest was read as-is)");
  return out;
}

}  // namespace dossier::hypervisor
