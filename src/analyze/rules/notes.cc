// notes.contradicted: what a person stated and what a probe read disagree. A stated fact is the
// best anyone knew when it was written; a probe reading something else means one of them is out
// of date, and the next engineer should know which before relying on either. Also a disagreement
// between two probed facts that people state the same way (CUDA_HOME against /usr/local/cuda).
#include <cctype>
#include <optional>

#include "analyze/evidence.h"
#include "analyze/pci_walk.h"
#include "analyze/rule.h"

namespace dossier {
namespace {

std::string NotesLower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool NotesNames(const std::string& text, const std::string& word) {
  std::string t = NotesLower(text), w = NotesLower(word);
  for (size_t at = t.find(w); at != std::string::npos; at = t.find(w, at + 1)) {
    bool left = at == 0 || !std::isalnum(static_cast<unsigned char>(t[at - 1]));
    bool right =
        at + w.size() >= t.size() || !std::isalnum(static_cast<unsigned char>(t[at + w.size()]));
    if (left && right) return true;
  }
  return false;
}

bool SaysOff(const std::string& v) {
  std::string s = NotesLower(v);
  return s == "disabled" || s == "off" || s == "no" || s == "false" || s == "0" ||
         s.rfind("disabled", 0) == 0;
}

bool SaysOn(const std::string& v) {
  std::string s = NotesLower(v);
  return s == "enabled" || s == "on" || s == "yes" || s == "true" || s == "1" || s == "set" ||
         s.rfind("enabled", 0) == 0 || s.rfind("set", 0) == 0;
}

std::string NotesSource(const Notes& n, const NoteFact& f) {
  return (n.path.empty() ? std::string("notes.toml") : n.path) + ":" + std::to_string(f.line);
}

// The stated facts about this machine (or about no machine in particular).
std::vector<const NoteFact*> FactsAbout(const RuleContext& ctx) {
  std::vector<const NoteFact*> out;
  for (const auto& f : ctx.notes.facts)
    if (f.machine.empty() || f.machine == ctx.m().name) out.push_back(&f);
  return out;
}

}  // namespace

std::optional<Finding> RuleNotesContradicted(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  Finding f;
  std::vector<std::string> what;

  for (const NoteFact* nf : FactsAbout(ctx)) {
    const std::string src = NotesSource(ctx.notes, *nf);
    // ACS stated off, but a bridge's ACS control still has bits set. Linux turns ACS on by
    // itself on every port that has it when the IOMMU is on, whatever the BIOS said.
    if (NotesNames(nf->name, "ACS") && SaysOff(nf->value)) {
      std::vector<const PciDevice*> on;
      for (const auto& d : m.pci.devices)
        if (d.acs.control.known() && !d.acs.control->empty()) on.push_back(&d);
      if (!on.empty()) {
        f.evidence.push_back(Ev("notes: " + nf->name, nf->value + " (" + nf->status + ")", src));
        for (const PciDevice* d : on)
          f.evidence.push_back(Ev(d->address + " ACS control", d->acs.control));
        bool unchanged = !ctx.changes.from.file.empty();
        for (const auto& c : ctx.changes.changes)
          if (c.detail.find("ACS") != std::string::npos ||
              c.subject.find("acs") != std::string::npos)
            unchanged = false;
        what.push_back(std::string("the notes say ACS is disabled, but ") +
                       std::to_string(on.size()) + " port(s) have ACS control bits set" +
                       (unchanged ? ", unchanged since the previous boot" : "") +
                       " (Linux enables ACS itself when the IOMMU is on; a BIOS switch does not "
                       "reach it)");
      }
    }
    // IOMMU stated unknown (or off) while the probe sees it on.
    if (NotesNames(nf->name, "IOMMU") && m.iommu.enabled.known() && *m.iommu.enabled &&
        (nf->status == "unknown" || SaysOff(nf->value))) {
      f.evidence.push_back(Ev("notes: " + nf->name, nf->value + " (" + nf->status + ")", src));
      f.evidence.push_back(Ev("IOMMU enabled (probe)", m.iommu.enabled));
      what.push_back("the notes hold the IOMMU as " +
                     (nf->status == "unknown" ? std::string("unknown") : nf->value) +
                     ", the probe sees it on: the note can be confirmed");
    }
    // NUMA affinity stated set, GPUs at numa_node -1.
    if (NotesNames(nf->name, "NUMA") && SaysOn(nf->value)) {
      std::vector<const Gpu*> lost;
      for (const auto& g : m.gpus)
        if (g.numa_node.known() && *g.numa_node < 0) lost.push_back(&g);
      if (!lost.empty()) {
        f.evidence.push_back(Ev("notes: " + nf->name, nf->value + " (" + nf->status + ")", src));
        for (const Gpu* g : lost)
          f.evidence.push_back(Ev("GPU " + g->address + " numa_node", g->numa_node));
        what.push_back("the notes say NUMA affinity is set, but " + std::to_string(lost.size()) +
                       " GPU(s) read numa_node -1 (the boot-time fix did not run, or ran before "
                       "the devices appeared)");
      }
    }
  }

  // CUDA_HOME naming one toolkit while /usr/local/cuda points to another: builds and the server
  // can pick different CUDA versions.
  auto cuda_home = [&]() -> std::pair<std::string, std::string> {
    for (const auto& s : m.servers)
      if (auto it = s.env.find("CUDA_HOME"); it != s.env.end())
        return {it->second, "/proc/" + std::to_string(s.pid) + "/environ"};
    if (auto it = m.software.env.find("CUDA_HOME"); it != m.software.env.end())
      return {it->second, "environment"};
    return {"", ""};
  }();
  if (!cuda_home.first.empty() && m.software.cuda_default.known()) {
    std::string home = cuda_home.first;
    while (home.size() > 1 && home.back() == '/') home.pop_back();
    const std::string& def = *m.software.cuda_default;
    bool same = home == def || home == "/usr/local/cuda";
    for (const auto& tk : m.software.cuda_toolkits) {
      if (tk.path != def) continue;
      for (const auto& a : tk.aliases) same = same || a == home;
    }
    if (!same) {
      f.evidence.push_back(Ev("CUDA_HOME", cuda_home.first, cuda_home.second));
      f.evidence.push_back(Ev("/usr/local/cuda points to", m.software.cuda_default));
      what.push_back("CUDA_HOME names " + cuda_home.first + " while /usr/local/cuda points to " +
                     def + ": a build and the runtime can use different toolkits");
    }
  }

  if (what.empty()) return std::nullopt;
  f.title = "Stated and probed facts disagree (" + std::to_string(what.size()) + ")";
  f.explanation = "What the notes (or one probe) say and what another probe read differ: ";
  for (size_t i = 0; i < what.size(); ++i) f.explanation += (i ? "; " : "") + what[i];
  f.explanation +=
      ". One of them is out of date; the probe read the machine as collected, the note is what "
      "a person believed when writing it.";
  f.actions.push_back(
      {"Correct the note to what the machine shows (dossier note fact NAME VALUE "
       "--status confirmed), or find why the machine does not show what was set",
       "dossier note show; dossier collect && dossier report", ""});
  return f;
}

}  // namespace dossier
