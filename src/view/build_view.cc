#include "view/build_view.h"

#include <map>
#include <set>

#include "measure/p2p/record.h"
#include "measure/serve/serve_records.h"
#include "model/fact_paths.h"
#include "model/json_io.h"
#include "store/notes_file.h"
#include "view/coverage.h"
#include "view/history.h"
#include "view/imports.h"
#include "view/links.h"
#include "view/pasted_gpus.h"

namespace dossier {
namespace {

// The latest collect of every machine, with its measurements, in the order machines appeared;
// imports of the machine folded in (view/imports.h). A machine known only from imports is built
// from them alone.
void MachinesFromRecords(const std::vector<Record>& records, View* view) {
  std::vector<std::string> order;
  std::map<std::string, const Record*> latest;
  std::map<std::string, std::vector<const Record*>> imports;
  for (const auto& r : records) {
    if (r.kind != "collect" && r.kind != "import") continue;
    if (!r.machine_object) {
      view->warnings.push_back(r.file + ": " + r.kind +
                               " record without a machine object; skipped");
      continue;
    }
    if (!latest.count(r.machine) && !imports.count(r.machine)) order.push_back(r.machine);
    if (r.kind == "collect") {
      latest[r.machine] = &r;  // records are in write order: the last one wins
    } else {
      imports[r.machine].push_back(&r);
    }
  }
  auto serve = serve::ServeMeasurementsByMachine(records, &view->warnings);
  for (const auto& name : order) {
    MachineView mv;
    const Record* c = latest.count(name) ? latest[name] : nullptr;
    std::string base_label;
    if (c) {
      // Parsed here, one record at a time, and released once it is a Machine.
      std::vector<std::string> w;
      nlohmann::json scratch;
      if (const nlohmann::json* doc = RecordDoc(*c, &scratch, &view->warnings))
        mv.machine = MachineFromJson((*doc)["machine"], &w);
      for (auto& s : w) view->warnings.push_back(c->file + ": " + s);
      mv.record = {c->file, c->kind, c->time, c->tool};
      base_label = "collect " + c->time;
    } else {
      mv.coverage.collected = false;  // known from what was pasted, as far as it goes
    }
    for (const Record* r : imports[name]) {
      std::vector<std::string> w;
      Machine im;
      std::string pasted_file = r->file;  // the pasted file the record read, when it names one
      {
        nlohmann::json scratch;
        if (const nlohmann::json* doc = RecordDoc(*r, &scratch, &view->warnings)) {
          im = MachineFromJson((*doc)["machine"], &w);
          auto files = doc->find("files");
          if (files != doc->end() && files->is_array() && !files->empty() &&
              (*files)[0].is_object() && (*files)[0].value("file", nlohmann::json()).is_string())
            pasted_file = (*files)[0]["file"].get<std::string>();
        }
      }
      AddImportCoverage(im, pasted_file, &mv.coverage);
      for (auto& s : w) view->warnings.push_back(r->file + ": " + s);
      RecordInfo info{r->file, r->kind, r->time, r->tool};
      OverlaySide side{"import " + r->time, !c || r > c};
      std::string why = "imported " + r->time + ", before the collect of " +
                        (c ? c->time : std::string()) + ", which did not see it";
      if (base_label.empty()) base_label = side.label;
      if (!c && mv.imports.empty()) {
        mv.machine = std::move(im);  // the first import of a machine known only from imports
        // Named as its records are, even when the body lacks the name or no longer reads.
        mv.machine.name = name;
      } else {
        OverlayImport(&mv.machine, im, base_label, side, why, &mv.disagreements);
      }
      if (side.newer) base_label = side.label;
      if (!c) mv.record = info;  // a machine known only from imports: its newest one
      mv.imports.push_back(std::move(info));
    }
    if (!mv.imports.empty()) CheckImportedMappings(&mv.machine);
    if (!c) {
      // Known only from pasted outputs: the GPUs every paste names, and their pair levels from
      // the pasted tree, as a collect derives them; what the pastes did not say was never
      // captured.
      GpusFromPastes(&mv.machine);
      if (!mv.machine.gpus.empty() && !mv.coverage.pasted.count(Family::kGpus)) {
        const Gpu& g = mv.machine.gpus.front();
        const PciDevice* d = mv.machine.FindPci(g.address);
        std::string src = d && d->vendor_id.known() ? d->vendor_id.source : g.name.source;
        if (src.rfind("imported: ", 0) == 0) src = src.substr(10);
        mv.coverage.pasted[Family::kGpus].push_back(src.empty() ? mv.record.file : src);
      }
      WalkPaths(mv.machine, [](const std::string&, auto& leaf) {
        if constexpr (IsFactType<std::remove_reference_t<decltype(leaf)>>::value) {
          if (!leaf.known() && leaf.unknown.empty()) leaf.unknown = kNotPasted;
        }
      });
    }
    mv.machine.name = name;
    mv.p2p = p2p::P2pFromRecords(records, name, &view->warnings);
    if (auto it = serve.find(name); it != serve.end()) mv.serve = it->second;
    view->machines.push_back(std::move(mv));
  }
  // A machine with measurements and nothing else (serve-bench run from a client, a figure typed
  // in with `note measurement`): kept as a machine of which nothing was captured, so its
  // measurements are shown, not dropped.
  std::set<std::string> known(order.begin(), order.end());
  std::vector<std::string> measured_only;
  std::map<std::string, const Record*> newest;
  for (const auto& r : records) {
    if ((r.kind != "p2p" && r.kind != "serve-bench") || r.machine.empty() || known.count(r.machine))
      continue;
    if (!newest.count(r.machine)) measured_only.push_back(r.machine);
    newest[r.machine] = &r;  // records are in write order
  }
  for (const auto& name : measured_only) {
    MachineView mv;
    mv.machine.name = name;
    mv.coverage.collected = false;
    mv.measured_only = true;
    WalkPaths(mv.machine, [](const std::string&, auto& leaf) {
      if constexpr (IsFactType<std::remove_reference_t<decltype(leaf)>>::value) {
        if (!leaf.known() && leaf.unknown.empty()) leaf.unknown = kOnlyMeasured;
      }
    });
    mv.p2p = p2p::P2pFromRecords(records, name, &view->warnings);
    if (auto it = serve.find(name); it != serve.end()) mv.serve = it->second;
    const Record& r = *newest[name];  // its newest measurement stands for its record
    mv.record = {r.file, r.kind, r.time, r.tool};
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
  return DossierView(dir, *records, std::move(warnings));
}

View DossierView(const DossierDir& dir, const std::vector<Record>& records,
                 std::vector<std::string> warnings) {
  // A broken notes file does not stop the report: it is named with its line (after what the
  // records said), and left as it is.
  Notes notes;
  std::string notes_error;
  if (auto n = ReadNotes(dir.notes_path()); n) {
    notes = std::move(*n);
  } else {
    notes_error = n.error().message;
  }
  View v = BuildView(records, std::move(notes), std::move(warnings));
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
  FillHeaderFromDoc(&r);
  std::vector<Record> records;
  records.push_back(std::move(r));  // not BuildView({r}): that copies the whole document
  View v = BuildView(records, Notes{}, {});
  for (auto& mv : v.machines) mv.record.time = v.generated_at;
  return v;
}

}  // namespace dossier
