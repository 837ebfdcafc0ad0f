// A VM start that failed, as a Proxmox host prints it (`qm start 100`, the task log in the web
// UI) or QEMU/libvirt does:
//   kvm: -device vfio-pci,host=0000:f1:00.0,id=hostpci0,bus=ich9-pcie-port-1,addr=0x0: vfio
//     0000:f1:00.0: failed to setup container for group 43: Failed to set iommu for container:
//     Operation not permitted
//   kvm: -device vfio-pci,host=…: vfio 0000:01:00.0: no iommu_group found: Invalid argument
//   kvm: -device vfio-pci,host=…: vfio 0000:01:00.0: group 12 is not viable
//   'iommugroup' does not match for 'gpu0' (25 != 30)      (Proxmox's PCI mapping check)
//   start failed: QEMU exited with code 1 / TASK ERROR: …
// Facts: hypervisor.start_errors[] with the device, IOMMU group and mapping each line names, and
// the VM id from the pasted `qm start VMID`. vm.mapping-stale shows them as its evidence.
#include <algorithm>
#include <regex>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

const std::regex& VfioError() {
  static const std::regex r(
      R"(vfio[ -]pci|vfio \S+: |no iommu_group|IOMMU group|iommu group|'iommugroup' does not match|'(id|subsystem-id)' does not match|is not viable)",
      std::regex::icase);
  return r;
}

bool StartErrorLine(std::string_view line) {
  std::string t = StripMarkup(line);
  if (t.size() > 4000) return false;
  bool failed = t.find("failed") != std::string::npos || t.find("error") != std::string::npos ||
                t.find("does not match") != std::string::npos ||
                t.find("not viable") != std::string::npos ||
                t.find("no iommu_group") != std::string::npos ||
                t.find("No such") != std::string::npos || t.find("no such") != std::string::npos;
  return failed && std::regex_search(t, VfioError());
}

// Where an error message begins: QEMU's "kvm:" / "qemu-system-x86_64:" prefix, Proxmox's task
// lines, or a quoted mail's "> " before them. Other lines continue the message before them (a
// terminal or a mail wrapped it).
bool MessageStart(std::string_view t) {
  while (t.starts_with(">") || t.starts_with(" ")) t.remove_prefix(1);
  return t.starts_with("kvm:") || t.starts_with("qemu-system-") || t.starts_with("qemu:") ||
         t.starts_with("TASK ") || t.starts_with("start failed") || t.starts_with("vfio ") ||
         t.starts_with("vfio:") || t.starts_with("'iommugroup'") || t.starts_with("'id'") ||
         t.starts_with("'subsystem-id'") || t.starts_with("error ") || t.starts_with("Error");
}

// The messages of the part, wrapped lines joined, with the line each began on.
std::vector<std::pair<std::string, size_t>> Messages(const Lines& lines, size_t from, size_t to) {
  std::vector<std::pair<std::string, size_t>> out;
  bool open = false;
  for (size_t i = from; i < to; ++i) {
    std::string t = StripMarkup(lines[i].text);
    while (t.starts_with(">")) t = std::string(Trim(std::string_view(t).substr(1)));
    if (t.empty()) {
      open = false;
      continue;
    }
    if (open && !MessageStart(t))
      out.back().first += " " + t;
    else
      out.push_back({t, lines[i].number});
    open = true;
  }
  return out;
}

bool StartStarts(const Lines& lines, size_t i) {
  if (!MessageStart(StripMarkup(lines[i].text))) return false;
  if (i > 0 && !Trim(lines[i - 1].text).empty() && MessageStart(StripMarkup(lines[i - 1].text)))
    return false;
  auto msgs = Messages(lines, i, std::min(lines.size(), i + 4));
  return !msgs.empty() && StartErrorLine(msgs.front().first);
}

int StartDetect(const Lines& lines) {
  for (const auto& [t, line] : Messages(lines, 0, lines.size()))
    if (StartErrorLine(t)) return 85;
  return 0;
}

Status StartParse(const Lines& lines, const ImportSource& src, Imported* out) {
  static const std::regex kHost(
      R"(host=([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]|[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]))");
  static const std::regex kVfio(R"(vfio ([0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7]))");
  static const std::regex kGroup(R"((?:group|iommu_group|IOMMU group)\s+(\d+))");
  static const std::regex kMap(R"('iommugroup' does not match for '([^']+)' \((\d+) != (\d+)\))");
  static const std::regex kOther(R"('(id|subsystem-id)' does not match for '([^']+)')");
  static const std::regex kQm(R"(qm\s+start\s+(\d+))");
  std::smatch m;
  std::string vmid;
  if (std::regex_search(src.command, m, kQm)) vmid = m[1].str();
  for (const auto& l : lines)
    if (std::regex_search(l.text, m, kQm)) vmid = m[1].str();
  auto joined = Messages(lines, 0, lines.size());
  size_t n = 0;
  for (const auto& [t, line] : joined) {
    if (!StartErrorLine(t)) continue;
    VmStartError e;
    std::string at = src.At(line);
    e.message.Set(t.size() > 400 ? t.substr(0, 400) + "…" : t, at);
    if (!vmid.empty()) e.vmid.Set(vmid, src.command.empty() ? at : src.At(lines.front().number));
    if (std::regex_search(t, m, kVfio) || std::regex_search(t, m, kHost)) {
      if (auto a = NormalizePciAddress(m[1].str())) e.device.Set(*a, at);
    }
    if (std::regex_search(t, m, kMap)) {
      e.mapping.Set(m[1].str(), at);
      e.configured_group.Set(std::stoll(m[2].str()), at);
      e.iommu_group.Set(std::stoll(m[3].str()), at);
    } else if (std::regex_search(t, m, kOther)) {
      e.mapping.Set(m[2].str(), at);
    } else if (std::regex_search(t, m, kGroup)) {
      e.iommu_group.Set(std::stoll(m[1].str()), at);
    }
    out->machine.hypervisor.start_errors.push_back(std::move(e));
    ++n;
  }
  if (n == 0) return Error::Invalid("no VFIO or PCI mapping error line");
  out->facts += n;
  return OkStatus();
}

}  // namespace

Importer VmStartErrorImporter() {
  return {"vm-start-error",
          "qm start / QEMU errors (vfio-pci container or IOMMU group failures, Proxmox "
          "'iommugroup' does not match): start errors naming device and group",
          {"qm start"},
          StartStarts,
          StartDetect,
          StartParse};
}

}  // namespace dossier::import
