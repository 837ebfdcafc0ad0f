#include "render/markdown.h"

#include "render/md_util.h"
#include "render/render.h"

namespace dossier {

const std::vector<MdSection>& MdMachineSections() {
  static const std::vector<MdSection> kSections = {
      {"Machine", MdIdentity},
      {"CPU and NUMA", MdCpuNuma},
      {"PCIe tree and links", MdPciTree},
      {"IOMMU and ACS", MdIommuAcs},
      {"Virtualization", MdVirtualization},
      {"GPUs and topology", MdGpus},
      {"GPUs as the driver sees them (NVML)", MdNvml},
      {"Kernel", MdKernel},
      {"Software", MdSoftware},
      {"Servers and model", MdServers},
  };
  return kSections;
}

std::string RenderMarkdown(const View& view) {
  std::string out = "# Dossier\n\n";
  out += "Generated " + view.generated_at;
  if (!view.dossier_path.empty()) out += " from the dossier in `" + view.dossier_path + "`";
  out +=
      ". Unknown values say why; sources are machine paths (under the collected root), "
      "library calls, or records.\n\n";
  for (const auto& w : view.warnings) out += "> warning: " + md::Escape(w) + "\n";
  if (!view.warnings.empty()) out += "\n";
  if (view.machines.empty()) out += "No machine has been collected yet.\n";
  for (const auto& mv : view.machines) {
    out += "## Machine `" + mv.machine.name + "`\n\n";
    if (!mv.record.file.empty()) {
      out += "Record `" + mv.record.file + "` (" + mv.record.kind + ", " + mv.record.time + ", " +
             mv.record.tool + ").\n\n";
    }
    for (const auto& s : MdMachineSections()) {
      out += std::string("### ") + s.title + "\n\n";
      s.render(mv, &out);
      out += "\n";
    }
  }
  return out;
}

}  // namespace dossier
