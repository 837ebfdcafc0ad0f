// The JSON rendering: {"schema": "dossier/1", "machines": [...]}, each machine as
// model/json_io.h writes it, with the record it came from.
#include <nlohmann/json.hpp>

#include "model/json_io.h"
#include "render/render.h"

namespace dossier {

std::string RenderJson(const View& view) {
  nlohmann::json doc = nlohmann::json::object();
  doc["schema"] = kSchema;
  doc["generated_at"] = view.generated_at;
  if (!view.dossier_path.empty()) doc["dossier"] = view.dossier_path;
  doc["machines"] = nlohmann::json::array();
  for (const auto& mv : view.machines) {
    nlohmann::json m = MachineToJson(mv.machine);
    m["record"] = {{"file", mv.record.file},
                   {"kind", mv.record.kind},
                   {"time", mv.record.time},
                   {"tool", mv.record.tool}};
    doc["machines"].push_back(std::move(m));
  }
  doc["warnings"] = view.warnings;
  return doc.dump(2) + "\n";
}

}  // namespace dossier
