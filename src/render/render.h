// Renderers: turn a View and its Analysis into text. They read those only. The table in render.cc
// lists them for --format.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyze/analysis.h"
#include "view/view.h"

namespace dossier {

std::string RenderMarkdown(const View& view, const Analysis& analysis);
std::string RenderJson(const View& view, const Analysis& analysis);

struct RendererEntry {
  const char* format;  // --format value
  const char* what;
  std::string (*render)(const View&, const Analysis&);
};
const std::vector<RendererEntry>& RendererTable();
const RendererEntry* FindRenderer(std::string_view format);

}  // namespace dossier
