// Finding: what a rule concluded about a machine, and why. Each has a stable id from the rule table
// (analyze/rule_table.cc), a severity, a one-line title, the facts it used as evidence with where
// each came from, an explanation, what will not help and why, and actions, each with the command
// that verifies it. Plain data: renderers print it, the diff compares ids.
#pragma once

#include <string>
#include <vector>

namespace dossier {

// "critical": broken or blocking (bytes arrive corrupted); "warning": costs performance or will
// break something; "info": worth knowing, often normal.
inline constexpr const char* kCritical = "critical";
inline constexpr const char* kWarning = "warning";
inline constexpr const char* kInfo = "info";

// 0 for critical, 1 for warning, 2 for info (sorting order).
inline int SeverityRank(const std::string& s) {
  return s == kCritical ? 0 : s == kWarning ? 1 : 2;
}

struct Evidence {
  std::string fact;    // "0000:00:01.1 ACS control"
  std::string value;   // "SV RR CR UF"
  std::string source;  // "/sys/bus/pci/devices/0000:00:01.1/config", "notes.toml:12", a record
  std::string stale;   // the fact's staleness (analyze/stale.h); empty when current
  template <class V>
  void visit(V& v) {
    v("fact", fact);
    v("value", value);
    v("source", source);
    v("stale", stale);
  }
};

struct Action {
  std::string step;    // what to do ("do" in JSON)
  std::string verify;  // the command that shows it took effect
  // Where the step is done, relative to the machine of the finding: "" there, "host" on a guest's
  // host (a VM's configuration), "guest" in a guest of this host. The plan turns it into a name.
  std::string where;
  template <class V>
  void visit(V& v) {
    v("do", step);
    v("verify", verify);
    v("where", where);
  }
};

struct Finding {
  std::string id;        // "pcie.acs-redirect"
  std::string severity;  // kCritical, kWarning, kInfo
  std::string title;
  std::vector<Evidence> evidence;
  std::string explanation;
  std::vector<std::string> not_helping;  // "X: why it will not help"
  std::vector<Action> actions;
  std::string stale;  // why it may no longer hold (built on a measurement of an earlier boot)
  template <class V>
  void visit(V& v) {
    v("id", id);
    v("severity", severity);
    v("title", title);
    v("evidence", evidence);
    v("explanation", explanation);
    v("not_helping", not_helping);
    v("actions", actions);
    v("stale", stale);
  }
};

}  // namespace dossier
