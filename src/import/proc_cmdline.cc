// /proc/cmdline: one line of kernel parameters ("BOOT_IMAGE=… root=… ro quiet iommu=pt …").
// Fact: kernel.cmdline, secrets redacted as the probe does.
#include "import/import_text.h"
#include "util/redact.h"
#include "util/text.h"

namespace dossier::import {
namespace {

bool CmdlineLine(std::string_view line) {
  std::string_view t = Trim(line);
  if (t.starts_with("BOOT_IMAGE=")) return true;
  // Without BOOT_IMAGE (EFI stub): root= and at least one other parameter, nothing else.
  auto tok = Tokens(t);
  if (tok.size() < 2) return false;
  bool root = false;
  for (auto x : tok) {
    if (x.starts_with("root=")) root = true;
    if (x.find(':') != std::string_view::npos && !x.starts_with("root=")) return false;
  }
  return root;
}

bool CmdlineStarts(const Lines& lines, size_t i) {
  return CmdlineLine(lines[i].text);
}

int CmdlineDetect(const Lines& lines) {
  size_t n = 0;
  for (const auto& l : lines)
    if (!Trim(l.text).empty()) ++n;
  for (const auto& l : lines)
    if (CmdlineLine(l.text)) return n == 1 ? 95 : 30;
  return 0;
}

Status CmdlineParse(const Lines& lines, const ImportSource& src, Imported* out) {
  for (const auto& l : lines) {
    if (!CmdlineLine(l.text)) continue;
    out->machine.kernel.cmdline.Set(RedactCommandLine(Trim(l.text)), src.At(l.number));
    ++out->facts;
    for (const auto& o : lines)
      if (&o != &l && !Trim(o.text).empty())
        out->notes.push_back(src.file + ":" + std::to_string(o.number) +
                             ": not part of /proc/cmdline: '" + Printable(o.text, 60) + "'");
    return OkStatus();
  }
  return Error::Invalid("no kernel command line (BOOT_IMAGE=… or root=…)");
}

}  // namespace

Importer ProcCmdlineImporter() {
  return {"cmdline",         "/proc/cmdline: the kernel parameters (iommu=, pcie_acs_override=, …)",
          {"/proc/cmdline"}, CmdlineStarts,
          CmdlineDetect,     CmdlineParse};
}

}  // namespace dossier::import
