#include "measure/p2p/record.h"

#include <nlohmann/json.hpp>

#include "model/json_io.h"

namespace dossier::p2p {

nlohmann::json P2pRecord(const P2pMeasurement& m, const std::string& machine) {
  nlohmann::json doc = {{"kind", kRecordKind}, {"machine", machine}};
  doc["p2p"] = P2pToJson(m);
  return doc;
}

std::vector<P2pMeasurement> P2pFromRecords(const std::vector<Record>& records,
                                           const std::string& machine,
                                           std::vector<std::string>* warnings) {
  std::vector<P2pMeasurement> out;
  for (const auto& r : records) {
    if (r.kind != kRecordKind || (!machine.empty() && r.machine != machine)) continue;
    nlohmann::json scratch;  // one record parsed at a time, released once it is a measurement
    const nlohmann::json* doc = RecordDoc(r, &scratch, warnings);
    if (!doc) continue;
    auto it = doc->find("p2p");
    if (it == doc->end() || !it->is_object()) {
      warnings->push_back(r.file + ": p2p record without a p2p object; skipped");
      continue;
    }
    std::vector<std::string> w;
    out.push_back(P2pFromJson(*it, &w));
    for (auto& s : w) warnings->push_back(r.file + ": " + s);
  }
  return out;
}

}  // namespace dossier::p2p
