#include "view/build_view.h"

#include <map>

#include "measure/p2p/record.h"
#include "measure/serve/serve_records.h"
#include "model/json_io.h"
#include "store/notes_file.h"
#include "view/history.h"
#include "view/links.h"

namespace dossier {
namespace {

// The latest collect of every machine, with its measurements, in the order machines appeared.
void MachinesFromRecords(const std::vector<Record>& records, View* view) {
  std::vector<std::string> order;
  std::map<std::string, const Record*> latest;
  for (const auto& r : records) {
    if (r.kind != "collect") continue;
    auto m = r.doc.find("machine");
    if (m == r.doc.end() || !m->is_object()) {
      view->warnings.push_back(r.file + ": collect record without a machine object; skipped");
      continue;
    }
    if (!latest.count(r.machine)) order.push_back(r.machine);
    latest[r.machine] = &r;  // records are in write order: the last one wins
  }
  auto serve = serve::ServeMeasurementsByMachine(records, &view->warnings);
  for (const auto& name : order) {
    const Record& r = *latest[name];
    MachineView mv;
    std::vector<std::string> w;
    mv.machine = MachineFromJson(r.doc["machine"], &w);
    for (auto& s : w) view->warnings.push_back(r.file + ": " + s);
    mv.record = {r.file, r.kind, r.time, r.doc.value("tool", "")};
    mv.p2p = p2p::P2pFromRecords(records, name, &view->warnings);
    if (auto it = serve.find(name); it != serve.end()) mv.serve = it->second;
    view->machines.push_back(std::move(mv));
  }
}

}  // namespace

View BuildView(const std::vector<Record>& records, Notes notes, std::vector<std::string> warnings) {
  View view;
  view.generated_at = NowIso8601();
  view.warnings = std::move(warnings);
  view.notes = std::move(notes);
  MachinesFromRecords(records, &view);
  AttachHistory(records, &view);
  LinkMachines(&view);  // machines first, then the links between them
  return view;
}

Result<View> LoadView(const DossierDir& dir) {
  std::vector<std::string> warnings;
  auto records = dir.Load(&warnings);
  if (!records) return records.error();
  // A broken notes file does not stop the report: it is named with its line (after what the
  // records said), and left as it is.
  Notes notes;
  std::string notes_error;
  if (auto n = ReadNotes(dir.notes_path()); n) {
    notes = std::move(*n);
  } else {
    notes_error = n.error().message;
  }
  View v = BuildView(*records, std::move(notes), std::move(warnings));
  if (!notes_error.empty()) v.warnings.push_back(std::move(notes_error));
  v.dossier_path = dir.path();
  return v;
}

View OneShotView(const Machine& m) {
  Record r;
  r.kind = "collect";
  r.time = NowIso8601();
  r.machine = m.name;
  r.doc = {{"kind", "collect"}, {"tool", std::string("dossier ") + DOSSIER_VERSION}};
  r.doc["machine"] = MachineToJson(m);
  View v = BuildView({r}, Notes{}, {});
  for (auto& mv : v.machines) mv.record.time = v.generated_at;
  return v;
}

}  // namespace dossier
