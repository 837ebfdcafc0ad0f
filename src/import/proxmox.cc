// What a person pastes from a Proxmox VE host: `cat /etc/pve/mapping/pci.cfg` (the PCI resource
// mappings) and `qm config VMID` / `cat /etc/pve/qemu-server/VMID.conf` (a VM's configuration).
// The parsing is hypervisor/pci_cfg.cc and hypervisor/qemu_server_conf.cc, the same pure parsers
// the host probe uses; here their facts get the pasted lines as provenance. Whether a mapping
// entry still matches is decided in the view (view/imports.cc), once the host's devices and IOMMU
// groups (an lspci and an IOMMU group listing of the same paste) are there too.
#include <regex>

#include "hypervisor/pci_cfg.h"
#include "hypervisor/qemu_server_conf.h"
#include "import/import_text.h"
#include "import/part_text.h"
#include "model/fact_paths.h"
#include "util/text.h"

namespace dossier::import {
namespace {

// --- pci.cfg ------------------------------------------------------------------------------------

bool MapLine(std::string_view line) {
  if (line.empty() || (line[0] != ' ' && line[0] != '\t')) return false;
  std::string_view t = Trim(line);
  return t.starts_with("map ") && t.find("path=") != std::string_view::npos &&
         t.find("node=") != std::string_view::npos;
}

// A mapping name (an unindented word) followed by its indented map lines.
bool PciCfgStarts(const Lines& lines, size_t i) {
  const std::string& t = lines[i].text;
  if (t.empty() || t[0] == ' ' || t[0] == '\t' || t[0] == '#') return false;
  if (Trim(t).find(' ') != std::string_view::npos) return false;
  for (size_t j = i + 1; j < lines.size() && j < i + 4; ++j)
    if (MapLine(lines[j].text)) return true;
  return false;
}

int PciCfgDetect(const Lines& lines) {
  size_t maps = 0;
  for (const auto& l : lines) maps += MapLine(l.text);
  return maps == 0 ? 0 : maps >= 2 ? 95 : 80;
}

Status PciCfgParse(const Lines& lines, const ImportSource& src, Imported* out) {
  const std::string name = "\x01pci.cfg";  // a name no pasted text holds
  std::string text = JoinPartLines(lines);
  hypervisor::PciCfgParse p = hypervisor::ParsePciCfg(text, name);
  if (p.mappings.empty()) return Error::Invalid("no mapping with a map line");
  for (auto& m : p.mappings) RemapPartSources(&m, name, lines, src);
  auto& h = out->machine.hypervisor;
  h.kind.Set("proxmox", src.At(lines.front().number));
  for (auto& m : p.mappings) {
    out->facts += m.entries.size();
    h.pci_mappings.push_back(std::move(m));
  }
  // For `dossier generate pve-mapping`, which rewrites only the group values (the paste has lost
  // trailing blanks and CRs, nothing else).
  h.pci_cfg.Set(text, src.At(lines.front().number));
  for (const auto& problem : p.problems) {
    std::string t = RemapPartProblem(problem, name, lines, src);
    out->notes.push_back(t);
    h.problems.push_back(t);
  }
  return OkStatus();
}

// --- qm config / qemu-server/VMID.conf ----------------------------------------------------------

bool ConfKeyLine(std::string_view line, bool strong) {
  static const std::regex kStrong(R"(^(hostpci\d+|smbios1|vmgenid|machine|scsihw|numa\d*|bios): )");
  static const std::regex kAny(
      R"(^(agent|boot|cores|cpu|efidisk0|memory|name|net\d+|onboot|ostype|sockets|scsi\d+|sata\d+|virtio\d+|ide\d+|args|balloon|hookscript|tags|vga|meta): )");
  std::string s(line);
  return std::regex_search(s, kStrong) || (!strong && std::regex_search(s, kAny));
}

int QemuConfDetect(const Lines& lines) {
  size_t strong = 0, any = 0, other = 0;
  for (const auto& l : lines) {
    std::string_view t = l.text;
    if (Trim(t).empty() || t.starts_with("#")) continue;
    if (ConfKeyLine(t, true))
      ++strong, ++any;
    else if (ConfKeyLine(t, false))
      ++any;
    else
      ++other;
  }
  if (strong == 0 || any < 3) return 0;
  return other == 0 ? 90 : other * 4 < any ? 60 : 20;
}

bool QemuConfStarts(const Lines& lines, size_t i) {
  // The first key line of a block of at least three, one of them a VM-only key.
  if (!ConfKeyLine(lines[i].text, false)) return false;
  if (i > 0 && ConfKeyLine(lines[i - 1].text, false)) return false;
  size_t keys = 0, strong = 0;
  for (size_t j = i; j < lines.size() && ConfKeyLine(lines[j].text, false); ++j)
    ++keys, strong += ConfKeyLine(lines[j].text, true);
  return keys >= 3 && strong > 0;
}

// The VM id from the pasted command ("qm config 100", "cat /etc/pve/qemu-server/100.conf").
std::string VmIdOf(const std::string& command) {
  static const std::regex kQm(R"(qm\s+config\s+(\d+))"), kFile(R"(qemu-server/(\d+)\.conf)");
  std::smatch m;
  if (std::regex_search(command, m, kQm) || std::regex_search(command, m, kFile)) return m[1];
  return "";
}

Status QemuConfParse(const Lines& lines, const ImportSource& src, Imported* out) {
  std::string vmid = VmIdOf(src.command);
  const std::string name = "\x01vm.conf";
  // `qm config` prints the current config; a snapshot section ("[snap1]") ends it.
  Lines cur;
  for (const auto& l : lines) {
    if (Trim(l.text).starts_with("[")) break;
    cur.push_back(l);
  }
  auto p = hypervisor::ParseQemuServerConf(JoinPartLines(cur), name, vmid.empty() ? "?" : vmid);
  if (p.vm.hostpci.empty() && !p.vm.machine.known() && !p.vm.smbios_uuid.known())
    return Error::Invalid("no VM configuration keys (hostpciN:, machine:, smbios1:)");
  RemapPartSources(&p.vm, name, cur, src);
  if (vmid.empty()) {
    p.vm.id = "?";
    out->notes.push_back(src.file + ":" + std::to_string(lines.front().number) +
                         ": the VM id is not in the paste (show the command: qm config VMID)");
  }
  p.vm.config.Set("qm config " + p.vm.id, src.At(lines.front().number));
  p.vm.running.Unknown("not in a pasted configuration (qm status VMID says it)",
                       src.At(lines.front().number));
  p.vm.pid.Unknown("not in a pasted configuration", src.At(lines.front().number));
  for (const auto& problem : p.problems) {
    out->notes.push_back(RemapPartProblem(problem, name, cur, src));
  }
  out->machine.hypervisor.kind.Set("proxmox", src.At(lines.front().number));
  out->machine.hypervisor.vms.push_back(std::move(p.vm));
  out->facts += 1;
  return OkStatus();
}

}  // namespace

Importer PciCfgImporter() {
  return {"pci-cfg",
          "Proxmox /etc/pve/mapping/pci.cfg: PCI resource mappings (iommugroup, path, node)",
          {hypervisor::kPciCfgPath, "pvesh get /cluster/mapping/pci"},
          PciCfgStarts,
          PciCfgDetect,
          PciCfgParse};
}

Importer QemuServerConfImporter() {
  return {"qemu-server-conf",
          "Proxmox qm config VMID or /etc/pve/qemu-server/VMID.conf: hostpciN, machine, NUMA, "
          "smbios1",
          {"qm config", "/etc/pve/qemu-server/"},
          QemuConfStarts,
          QemuConfDetect,
          QemuConfParse};
}

}  // namespace dossier::import
