// View: what the renderers read. The latest record of every machine in a dossier (or the one
// machine of a one-shot collect), with where each record came from. Renderers read this and
// nothing else: they never probe and never open files.
#pragma once

#include <string>
#include <vector>

#include "analyze/diff_types.h"
#include "analyze/finding.h"
#include "analyze/plan_types.h"
#include "model/machine.h"
#include "model/measurement.h"
#include "model/notes.h"

namespace dossier {

struct RecordInfo {
  std::string file;  // record file; empty for a one-shot collect
  std::string kind;  // "collect"
  std::string time;  // ISO 8601 UTC
  std::string tool;  // "dossier 0.1.0"
};

struct MachineView {
  Machine machine;
  RecordInfo record;
  std::vector<P2pMeasurement> p2p;      // oldest first
  std::vector<ServeMeasurement> serve;  // oldest first
  // Filled by the analysis (analyze/analyze.h) where the view is built:
  std::string stale;              // why the whole record may no longer hold (a newer boot seen)
  std::vector<Finding> findings;  // rule table order
  MachineDiff changes;            // since the previous boot; changes.from.file empty when none
};

struct View {
  std::string generated_at;
  std::string dossier_path;  // empty for one-shot output
  std::vector<MachineView> machines;
  std::vector<std::string> warnings;  // records skipped, fields unreadable
  Notes notes;                        // notes.toml; empty when there is none (or it is broken)
  Plan plan;                          // targets with measured values, next steps, accomplished
};

}  // namespace dossier
