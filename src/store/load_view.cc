#include "store/load_view.h"

#include <map>

#include "analyze/analyze.h"
#include "measure/p2p/record.h"
#include "measure/serve/serve_records.h"
#include "model/json_io.h"
#include "store/history.h"
#include "store/notes_file.h"

namespace dossier {

View ViewFromRecords(const std::vector<Record>& records, std::vector<std::string> warnings) {
  View view;
  view.generated_at = NowIso8601();
  std::vector<std::string> order;
  std::map<std::string, const Record*> latest;
  for (const auto& r : records) {
    if (r.kind != "collect") continue;
    auto m = r.doc.find("machine");
    if (m == r.doc.end() || !m->is_object()) {
      warnings.push_back(r.file + ": collect record without a machine object; skipped");
      continue;
    }
    if (!latest.count(r.machine)) order.push_back(r.machine);
    latest[r.machine] = &r;  // records are in write order: the last one wins
  }
  auto serve = serve::ServeMeasurementsByMachine(records, &warnings);
  for (const auto& name : order) {
    const Record& r = *latest[name];
    MachineView mv;
    std::vector<std::string> w;
    mv.machine = MachineFromJson(r.doc["machine"], &w);
    for (auto& s : w) warnings.push_back(r.file + ": " + s);
    mv.record = {r.file, r.kind, r.time, r.doc.value("tool", "")};
    mv.p2p = p2p::P2pFromRecords(records, name, &warnings);
    if (auto it = serve.find(name); it != serve.end()) mv.serve = it->second;
    view.machines.push_back(std::move(mv));
  }
  view.warnings = std::move(warnings);
  return view;
}

Result<View> LoadView(const DossierDir& dir) {
  std::vector<std::string> warnings;
  auto records = dir.Load(&warnings);
  if (!records) return records.error();
  View v = ViewFromRecords(*records, std::move(warnings));
  v.dossier_path = dir.path();
  // A broken notes file does not stop the report: it is named with its line, and left as it is.
  if (auto notes = ReadNotes(dir.notes_path()); notes) {
    v.notes = std::move(*notes);
  } else {
    v.warnings.push_back(notes.error().message);
  }
  AttachHistory(*records, &v);
  Analyze(&v);
  return v;
}

}  // namespace dossier
