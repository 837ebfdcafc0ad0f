// The plan part of the report (analyze/plan.h builds it): each target from the notes with the
// latest measured value beside it, what has been accomplished, and the next steps from the notes
// and from the findings' actions side by side, blocking first. Plain data for the renderers.
#pragma once

#include <string>
#include <vector>

#include "model/notes.h"

namespace dossier {

struct TargetStatus {
  NoteTarget target;
  std::string text;  // "total_tokens_per_s >= 1000 at concurrency 64"
  bool measured = false;
  double value = 0;     // the latest measured value, when measured
  std::string machine;  // where it was measured
  std::string time;     // when
  std::string stale;    // measured in an earlier boot of that machine
  std::string verdict;  // "met", "not met", "not measured", "run failed"
  std::string failed;   // the newest matching run completed no request: why ("3 http-500")
  template <class V>
  void visit(V& v) {
    v("target", target);
    v("text", text);
    v("measured", measured);
    v("value", value);
    v("machine", machine);
    v("time", time);
    v("stale", stale);
    v("verdict", verdict);
    v("failed", failed);
  }
};

struct NextStep {
  std::string step;
  std::string verify;
  std::string machine;
  bool blocking = false;
  std::string from;      // "notes.toml:31" or "finding pcie.acs-redirect"
  std::string severity;  // of the finding; "" for a note
  template <class V>
  void visit(V& v) {
    v("do", step);
    v("verify", verify);
    v("machine", machine);
    v("blocking", blocking);
    v("from", from);
    v("severity", severity);
  }
};

struct DoneItem {
  std::string what;
  std::string result;
  std::string machine;
  std::string when;
  std::string from;  // "notes.toml:40"
  // The result says it failed or had no effect ("NaN crashes"; analyze/verdicts.h TriedFailed):
  // tried, not accomplished.
  bool failed = false;
  template <class V>
  void visit(V& v) {
    v("what", what);
    v("result", result);
    v("machine", machine);
    v("when", when);
    v("from", from);
    v("failed", failed);
  }
};

struct Plan {
  std::vector<TargetStatus> targets;
  std::vector<DoneItem> accomplished;
  std::vector<NextStep> next_steps;  // blocking first
  template <class V>
  void visit(V& v) {
    v("targets", targets);
    v("accomplished", accomplished);
    v("next_steps", next_steps);
  }
};

}  // namespace dossier
