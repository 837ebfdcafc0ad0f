// dmesg / journalctl -k: the kernel's complaints about PCI resources and the NVIDIA driver's
// (probe/pci_problems.h reads them, as it does for a collect), and the IOMMU's own lines (AMD-Vi,
// DMAR) which say it is on. Facts: kernel_log.pci_problems, iommu.enabled.
#include "import/import_text.h"
#include "probe/pci_problems.h"
#include "util/text.h"

namespace dossier::import {
namespace {

// "[    0.123456] …" or "Dec 03 10:00:00 host kernel: …"
bool LogLine(std::string_view line) {
  std::string_view t = Trim(line);
  if (t.starts_with("[") && t.find("] ") != std::string_view::npos) {
    size_t close = t.find(']');
    std::string_view ts = Trim(t.substr(1, close - 1));
    return !ts.empty() && ts.find_first_not_of("0123456789.") == std::string_view::npos;
  }
  return t.find(" kernel: ") != std::string_view::npos;
}

bool KlogStarts(const Lines& lines, size_t i) {
  return LogLine(lines[i].text) && (i == 0 || !LogLine(lines[i - 1].text));
}

int KlogDetect(const Lines& lines) {
  size_t log = 0, total = 0;
  for (size_t i = 0; i < lines.size() && i < 200; ++i) {
    if (Trim(lines[i].text).empty()) continue;
    ++total;
    if (LogLine(lines[i].text)) ++log;
  }
  return total > 0 && log * 2 >= total ? 70 : 0;
}

Status KlogParse(const Lines& lines, const ImportSource& src, Imported* out) {
  PciProblemScanner scan;
  size_t n = 0;
  for (const auto& l : lines) {
    if (!LogLine(l.text)) continue;
    ++n;
    size_t before = scan.problems().size();
    scan.Add(l.text);
    if (scan.problems().size() > before) {
      PciProblem p = scan.problems().back();
      if (p.address.known()) p.address.source = src.At(l.number);
      p.message += " (" + src.At(l.number) + ")";
      out->machine.kernel_log.pci_problems.push_back(std::move(p));
      ++out->facts;
    }
    std::string_view msg = StripLogPrefix(l.text);
    if ((msg.starts_with("AMD-Vi:") || msg.starts_with("DMAR:")) &&
        (msg.find("enabled") != std::string_view::npos ||
         msg.find("Interrupt remapping enabled") != std::string_view::npos ||
         msg.find("IOMMU enabled") != std::string_view::npos)) {
      out->machine.iommu.enabled.Set(true, src.At(l.number));
      ++out->facts;
    }
  }
  if (n == 0) return Error::Invalid("no kernel log line ('[ 1.234] …' or '… kernel: …')");
  out->machine.kernel_log.source.Set("imported " + src.file, src.At(lines.front().number));
  return OkStatus();
}

}  // namespace

Importer KernelLogImporter() {
  return {"kernel-log",
          "dmesg / journalctl -k: PCI resource problems, NVRM, AMD-Vi/DMAR",
          {"dmesg", "journalctl -k", "journalctl --dmesg"},
          KlogStarts,
          KlogDetect,
          KlogParse};
}

}  // namespace dossier::import
