#include "measure/serve/serve_records.h"

#include "model/json_io.h"

namespace dossier::serve {

std::map<std::string, std::vector<ServeMeasurement>> ServeMeasurementsByMachine(
    const std::vector<Record>& records, std::vector<std::string>* warnings) {
  std::map<std::string, std::vector<ServeMeasurement>> out;
  for (const Record& r : records) {  // Load returns records in write order
    if (r.kind != "serve-bench") continue;
    // Parsed one at a time and released once summarised: a dossier of a thousand multi-MB runs
    // never holds more than one.
    nlohmann::json scratch;
    const nlohmann::json* doc = RecordDoc(r, &scratch, warnings);
    if (!doc) continue;
    auto it = doc->find("serve");
    if (it == doc->end() || !it->is_object()) {
      warnings->push_back(r.file + ": serve-bench record without a \"serve\" object; skipped");
      continue;
    }
    std::vector<std::string> w;
    ServeMeasurement m = ServeFromJson(*it, &w);
    for (auto& s : w) warnings->push_back(r.file + ": " + s);
    if (m.time.empty()) m.time = r.time;
    out[r.machine].push_back(std::move(m));
  }
  return out;
}

}  // namespace dossier::serve
