#include "analyze/summary.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace dossier {
namespace {

// "notes.toml:76": the file's name only, the summary is read on one screen.
std::string SummaryNotesAt(const Notes& n, int64_t line) {
  std::string name = n.path.empty() ? std::string("notes.toml") : n.path;
  if (size_t slash = name.rfind('/'); slash != std::string::npos) name = name.substr(slash + 1);
  return name + ":" + std::to_string(line);
}

// The first sentence of s, cut at a word near `max` characters.
std::string SummaryFirstSentence(const std::string& s, size_t max = 150) {
  size_t end = s.find(". ");
  std::string out = end == std::string::npos ? s : s.substr(0, end);
  if (!out.empty() && out.back() == '.') out.pop_back();
  if (out.size() > max) {
    size_t cut = out.rfind(' ', max);
    out = out.substr(0, cut == std::string::npos ? max : cut) + " …";
  }
  return out;
}

// What a "will not help" line is about, for merging the same advice from several findings: its
// first acronym ("ACS", "IOMMU", "NCCL_P2P_LEVEL"), else the whole text in lower case.
std::string SummaryNotHelpingKey(const std::string& what) {
  std::string word;
  auto acronym = [](const std::string& w) {
    int upper = 0;
    for (char c : w) {
      if (std::isupper(static_cast<unsigned char>(c))) ++upper;
      if (std::islower(static_cast<unsigned char>(c))) return false;
    }
    return upper >= 2;
  };
  // Only a name among the first three words is the subject ("Disabling ACS…", "Turning the
  // IOMMU…"); one further on is a detail of a longer subject ("Rebooting the host or the VM
  // again").
  int words = 0;
  for (size_t i = 0; i <= what.size() && words < 3; ++i) {
    char c = i < what.size() ? what[i] : ' ';
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      word += c;
      continue;
    }
    if (acronym(word) || word.find('_') != std::string::npos)
      return word;  // ACS, pcie_acs_override
    if (!word.empty()) ++words;
    word.clear();
  }
  std::string lower;
  for (char c : what) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

std::string SummaryLower(const std::string& s) {
  std::string lower;
  for (char c : s) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

// The subject a verdict's question is said by in the summary.
std::string SummaryTopicSubject(const std::string& question) {
  return question == "acs" ? "ACS" : question == "clique" ? "x-nv-gpudirect-clique" : question;
}

}  // namespace

std::pair<std::string, std::string> SplitNotHelping(const std::string& line) {
  size_t at = line.find(": ");
  if (at == std::string::npos) return {line, ""};
  return {line.substr(0, at), line.substr(at + 2)};
}

HandoffSummary Summarize(const View& view, const Analysis& a) {
  HandoffSummary s;
  s.goal = view.notes.goal;

  // Blocked by: critical findings, each with its first action's command, then the plan's blocking
  // steps that are not already one of them (the plan merged a finding's action with the note
  // saying the same, so its `from` names both).
  std::set<std::string> covered;              // finding ids already listed
  std::map<std::string, std::string> fix_of;  // "finding ID" -> its first action (the fix)
  for (const auto& mv : view.machines) {
    for (const auto& f : a.Of(mv).findings) {
      if (SeverityRank(f.severity) != 0) continue;
      SummaryLine l{f.title, "", mv.machine.name, "finding " + f.id};
      if (!f.actions.empty())
        l.command =
            f.actions.front().verify.empty() ? f.actions.front().step : f.actions.front().verify;
      fix_of["finding " + f.id] = f.actions.empty() ? "" : f.actions.front().step;
      s.blocked_by.push_back(std::move(l));
      covered.insert("finding " + f.id);
    }
  }
  for (const auto& st : a.plan.next_steps) {
    if (!st.blocking) continue;
    bool dup = false;
    for (const auto& id : covered) dup = dup || st.from.find(id) != std::string::npos;
    if (dup) {
      // The finding is listed; the step (a note's words, with the finding's fix when the plan
      // merged the two) completes it. The finding's concrete fix stays on the line either way,
      // and so does its own command.
      for (auto& l : s.blocked_by) {
        if (st.from.find(l.from) == std::string::npos) continue;
        const std::string& fix = fix_of[l.from];
        if (l.command.empty()) l.command = st.verify;
        l.text += ". " + st.step;
        if (!fix.empty() && st.step.find(fix) == std::string::npos) l.text += " " + fix;
        l.from = st.from;
        l.machine = st.machine;
      }
      continue;
    }
    s.blocked_by.push_back({st.step, st.verify, st.machine, st.from});
  }

  // Now: the next steps that do not block, in the plan's order.
  for (const auto& st : a.plan.next_steps) {
    if (st.blocking) continue;
    if (s.now.size() == kSummaryNow) break;
    s.now.push_back({st.step, st.verify, st.machine, st.from});
  }

  // Known not to help: the findings' "will not help", worst finding first, one line per subject;
  // a tried entry of the notes about the same subject is part of the evidence.
  std::vector<std::pair<int, std::pair<const MachineView*, const Finding*>>> order;
  for (const auto& mv : view.machines)
    for (const auto& f : a.Of(mv).findings)
      if (!f.not_helping.empty()) order.push_back({SeverityRank(f.severity), {&mv, &f}});
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  // Per subject: the shortest reasons first (at most two), then a tried entry about it.
  std::vector<std::string> keys;
  std::map<std::string, std::vector<std::string>> whys;
  std::map<std::string, NotHelping> by_key;
  std::map<std::string, std::string> tried_of;  // key -> "tried: what → result (notes.toml:N)"
  for (const auto& entry : order) {
    const MachineView* mv = entry.second.first;
    const Finding* f = entry.second.second;
    for (const auto& line : f->not_helping) {
      auto [what, why_all] = SplitNotHelping(line);
      // A tried entry of the notes comes with the line once (analyze/verdicts.h): kept whole,
      // not cut with the reason.
      std::string why = why_all, tried;
      if (size_t t = why_all.find("; tried: "); t != std::string::npos) {
        why = why_all.substr(0, t);
        tried = why_all.substr(t + 2);
      }
      std::string key = SummaryNotHelpingKey(what);
      // One subject per question the verdicts decide ("ACS": BIOS and kernel alike).
      for (const auto& id : TopicsOf(what))
        for (const auto& t : AdviceTopics())
          if (t.id == id && *t.question) key = SummaryTopicSubject(t.question);
      if (!by_key.count(key)) {
        keys.push_back(key);
        // A subject with a name (ACS, IOMMU, NCCL_P2P_LEVEL) is said by its name.
        bool named = key != SummaryLower(what);
        by_key[key] = {named ? key : what, "", "finding " + f->id + " on " + mv->machine.name};
      } else if (by_key[key].from.find(f->id) == std::string::npos) {
        by_key[key].from += "; finding " + f->id + " on " + mv->machine.name;
      }
      std::string w = SummaryFirstSentence(why);
      auto& list = whys[key];
      if (!w.empty() && std::find(list.begin(), list.end(), w) == list.end()) list.push_back(w);
      if (!tried.empty() && tried_of[key].empty()) tried_of[key] = tried;
    }
  }
  for (const auto& key : keys) {
    NotHelping n = by_key[key];
    auto list = whys[key];
    std::stable_sort(list.begin(), list.end(), [](const std::string& x, const std::string& y) {
      return x.size() < y.size();
    });
    for (size_t i = 0; i < list.size() && i < 2; ++i) n.evidence += (i ? "; " : "") + list[i];
    if (!tried_of[key].empty()) n.evidence += (n.evidence.empty() ? "" : "; ") + tried_of[key];
    s.not_helping.push_back(std::move(n));
  }
  // Tried entries of the notes that failed and that no finding's line carries: known not to help
  // too, each once, with the note's line.
  for (const auto& t : view.notes.tried) {
    if (!TriedFailed(t.result)) continue;
    bool listed = false;
    for (const auto& n : s.not_helping)
      listed = listed || n.evidence.find(t.what) != std::string::npos;
    if (listed) continue;
    s.not_helping.push_back(
        {t.what, t.result,
         SummaryNotesAt(view.notes, t.line) + (t.machine.empty() ? "" : " on " + t.machine)});
  }
  if (s.not_helping.size() > kSummaryNotHelping) s.not_helping.resize(kSummaryNotHelping);

  for (const auto& mv : view.machines)
    if (!mv.stale.empty()) s.stale.push_back(mv.machine.name + ": " + mv.stale);
  return s;
}

}  // namespace dossier
