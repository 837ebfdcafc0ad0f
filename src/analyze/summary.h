// The handoff's first screen: what the next engineer reads before anything else. The goal and each
// target with its latest measured value; what blocks (critical findings and blocking next steps,
// each with the one command that fixes or verifies it); the next three steps; what is known not
// to help, with its evidence in a few words; and which machines' facts are stale. Built from the
// view and its analysis only (no I/O); the Markdown, JSON and HTML renderers print it first.
#pragma once

#include <string>
#include <vector>

#include "analyze/analysis.h"

namespace dossier {

struct SummaryLine {
  std::string text;     // the step or the finding's title
  std::string command;  // the command that fixes or verifies it ("" when none is known)
  std::string machine;  // where it is done
  std::string from;     // "finding iommu.groups-changed", "notes.toml:31"
  template <class V>
  void visit(V& v) {
    v("text", text);
    v("command", command);
    v("machine", machine);
    v("from", from);
  }
};

struct NotHelping {
  std::string what;      // "ACS"
  std::string evidence;  // "each GPU is alone under its root complex (pve-host)"
  std::string from;      // "finding p2p.separate-root-complexes"
  template <class V>
  void visit(V& v) {
    v("what", what);
    v("evidence", evidence);
    v("from", from);
  }
};

struct HandoffSummary {
  std::string goal;
  std::vector<SummaryLine> blocked_by;  // critical findings, then blocking steps not among them
  std::vector<SummaryLine> now;         // the next three steps that do not block
  std::vector<NotHelping> not_helping;  // at most kSummaryNotHelping
  std::vector<std::string> stale;       // one line per machine whose record is stale
  template <class V>
  void visit(V& v) {
    v("goal", goal);
    v("blocked_by", blocked_by);
    v("now", now);
    v("known_not_to_help", not_helping);
    v("stale", stale);
  }
};

inline constexpr size_t kSummaryNow = 3;
inline constexpr size_t kSummaryNotHelping = 4;

HandoffSummary Summarize(const View& view, const Analysis& analysis);

// "Disabling ACS in the host BIOS: ACS acts only on …" -> {"Disabling ACS in the host BIOS",
// "ACS acts only on …"}; a line without ": " is all `what`.
std::pair<std::string, std::string> SplitNotHelping(const std::string& line);

}  // namespace dossier
