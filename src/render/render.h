// Renderers: turn a View into text. They read the model only. The table in render.cc lists them
// for --format.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/view.h"

namespace dossier {

std::string RenderMarkdown(const View& view);
std::string RenderJson(const View& view);

struct RendererEntry {
  const char* format;  // --format value
  const char* what;
  std::string (*render)(const View&);
};
const std::vector<RendererEntry>& RendererTable();
const RendererEntry* FindRenderer(std::string_view format);

}  // namespace dossier
