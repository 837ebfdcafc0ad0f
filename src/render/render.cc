#include "render/render.h"

namespace dossier {

const std::vector<RendererEntry>& RendererTable() {
  static const std::vector<RendererEntry> kTable = {
      {"md", "Markdown handoff document", RenderMarkdown},
      {"json", "JSON, schema dossier/1 (docs/json.md)", RenderJson},
      {"html", "one self-contained HTML file: the Markdown document with pictures (offline)",
       RenderHtml},
  };
  return kTable;
}

const RendererEntry* FindRenderer(std::string_view format) {
  for (const auto& r : RendererTable())
    if (format == r.format) return &r;
  return nullptr;
}

}  // namespace dossier
