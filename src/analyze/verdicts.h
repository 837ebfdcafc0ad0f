// Verdicts: the questions several findings touch, each decided once per machine (and per guest/host
// pair) before any rule runs, with its evidence: does ACS stand in the way of P2P here, would a P2P
// clique (x-nv-gpudirect-clique) work, is the IOMMU on, is the GPUs' NUMA affinity known, and per
// GPU pair whether it can do P2P and why not. Rules, the summary, the plan and the generators read
// these answers; none decides them again.
//
// Advice is tied to the verdicts through advice topics (one table, AdviceTopics()): every action
// and every "will not help" line names the topics it is about (by the words it uses), and
// EnforceVerdicts() settles each topic once per machine: a topic a verdict (or a tried entry of
// the notes) makes moot is never advised, and is listed as not helping with one line; a topic a
// verdict advises, or leaves open, is never listed as not helping. So two findings cannot
// contradict each other whatever their rules write. Pure: reads the view, never does I/O.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "analyze/finding.h"
#include "view/view.h"

namespace dossier {

enum class Answer { kYes, kNo, kUnknown };
const char* AnswerWord(Answer a);  // "yes", "no", "unknown"

struct Verdict {
  std::string question;  // "ACS stands in the way of P2P between the GPUs"
  Answer answer = Answer::kUnknown;
  std::string why;  // for a person; for kUnknown, what is missing
  std::vector<Evidence> evidence;
};

// Can two GPUs of the machine do P2P (on a guest: can the host route P2P between the host GPUs
// behind them), and why (view/host_p2p.h decides it for every reader).
struct PairVerdict {
  std::string a, b;   // GPU addresses on the machine
  std::string level;  // PIX … SYS; "" when not known
  Answer can = Answer::kUnknown;
  std::string why;
};

// What the dossier has settled about one advice topic on a machine.
struct TopicState {
  enum Kind { kOpen, kAdvised, kMoot };
  Kind kind = kOpen;
  std::string line;     // for kMoot: the one "will not help" line ("what: why")
  std::string done;     // a tried entry of the notes on it: "what → result (notes.toml:N)"
  bool failed = false;  // that tried entry's result says it did not work
};

struct MachineVerdicts {
  std::string machine;
  Verdict acs;     // does ACS stand in the way of P2P (on a guest: on its host)
  Verdict clique;  // would an x-nv-gpudirect-clique work (guest/host pair)
  Verdict iommu;   // is the IOMMU on
  Verdict numa;    // is each GPU's NUMA node known
  std::vector<PairVerdict> pairs;
  std::map<std::string, TopicState> topics;  // by AdviceTopic::id; absent = open
  const TopicState* Topic(const std::string& id) const {
    auto it = topics.find(id);
    return it == topics.end() ? nullptr : &it->second;
  }
};

struct VerdictTable {
  std::vector<MachineVerdicts> machines;  // in the view's order
  const MachineVerdicts& Of(const std::string& machine) const;
};

VerdictTable DecideVerdicts(const View& view);

// Each GPU's NUMA node as the NUMA verdict reads it: the GPU's own fact where known, else its PCI
// device's. The verdict decides from this list; rules that name the GPUs read the same list.
struct GpuNumaNode {
  std::string address;
  const Fact<int64_t>* node;
};
std::vector<GpuNumaNode> GpuNumaNodes(const Machine& m);

// Advice topics: what an action or a "will not help" line acts on.
struct AdviceTopic {
  const char* id;        // "acs-bios"
  const char* question;  // the verdict that settles it: "acs", "clique"; "" for the notes only
  // The text names the topic when every word of one group appears in it (case-insensitive; a
  // word of letters only must stand alone: "acs" is not in "ACSCtl").
  std::vector<std::vector<const char*>> words;
};
const std::vector<AdviceTopic>& AdviceTopics();
std::set<std::string> TopicsOf(const std::string& text);

// A tried entry's result says it failed or had no effect ("NaN crashes", "no longer starts",
// "no change"): it is not shown as accomplished.
bool TriedFailed(const std::string& result);

// Makes the finding agree with the machine's verdicts and the notes (see the top of this file).
void EnforceVerdicts(const MachineVerdicts& v, Finding* f);

}  // namespace dossier
