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

// The facts a note can name, each with the names people give it: ONE table. A note is about a
// fact only when its name is one of these, whole (case and spacing aside): "IOMMU group numbers"
// is not "IOMMU", "ACS override" is not "ACS".
struct StatedName {
  const char* fact;
  std::vector<const char*> names;
};
const std::vector<StatedName>& StatedNames() {
  static const std::vector<StatedName> kNames = {
      {"acs", {"acs", "acs control", "acs enable", "acs enabled", "acs redirect", "pcie acs"}},
      {"iommu",
       {"iommu", "iommu enabled", "iommu on", "amd-vi", "amd iommu", "intel iommu", "vt-d",
        "intel vt-d"}},
      {"numa-affinity",
       {"numa affinity", "gpu numa affinity", "gpu numa node", "gpu numa nodes", "numa_node",
        "gpu numa_node"}},
      {"cuda-home", {"cuda_home", "cuda home"}},
  };
  return kNames;
}

std::string NotesNormalName(const std::string& s) {
  std::string out;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isspace(u)) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += static_cast<char>(std::tolower(u));
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '.' || out.back() == ':'))
    out.pop_back();
  return out;
}

// True when the note's name is one of the fact's names in the table.
bool NotesNames(const std::string& name, const std::string& fact) {
  std::string n = NotesNormalName(name);
  for (const auto& e : StatedNames())
    if (fact == e.fact)
      for (const char* alias : e.names)
        if (n == alias) return true;
  return false;
}

// The note says the difference is meant ("deliberately", "on purpose", "expected"): it states
// the difference, it does not contradict it.
bool NotesDeliberate(const NoteFact& f) {
  std::string t = NotesLower(f.note + " " + f.value);
  for (const char* w : {"deliberate", "intentional", "on purpose", "by design", "expected",
                        "intended", "on intent"})
    if (t.find(w) != std::string::npos) return true;
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
    if (NotesDeliberate(*nf)) continue;
    // ACS stated off, but a bridge's ACS control still has bits set. Linux turns ACS on by
    // itself on every port that has it when the IOMMU is on, whatever the BIOS said.
    if (NotesNames(nf->name, "acs") && SaysOff(nf->value)) {
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
    // Whether the IOMMU is on is the machine's verdict (analyze/verdicts.h).
    const Verdict& iommu = ctx.V().iommu;
    if (NotesNames(nf->name, "iommu") && iommu.answer == Answer::kYes &&
        (nf->status == "unknown" || SaysOff(nf->value))) {
      f.evidence.push_back(Ev("notes: " + nf->name, nf->value + " (" + nf->status + ")", src));
      f.evidence.push_back(Ev("IOMMU enabled (probe)", m.iommu.enabled));
      what.push_back("the notes hold the IOMMU as " +
                     (nf->status == "unknown" ? std::string("unknown") : nf->value) +
                     ", the probe sees it on: the note can be confirmed");
    }
    // NUMA affinity stated set, GPUs at numa_node -1.
    if (NotesNames(nf->name, "numa-affinity") && SaysOn(nf->value)) {
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

  // A server's CUDA_HOME naming one toolkit while /usr/local/cuda points to another: builds and
  // the server can pick different CUDA versions. Only a server's environment counts: the
  // environment dossier itself ran in (the caller's shell) is neither a note nor the server's.
  // A note stating that CUDA_HOME (or saying the difference is meant) settles it.
  auto cuda_home = [&]() -> std::pair<std::string, std::string> {
    for (const auto& s : m.servers)
      if (auto it = s.env.find("CUDA_HOME"); it != s.env.end())
        return {it->second, "/proc/" + std::to_string(s.pid) + "/environ"};
    return {"", ""};
  }();
  bool cuda_home_stated = false;
  for (const NoteFact* nf : FactsAbout(ctx)) {
    if (!NotesNames(nf->name, "cuda-home")) continue;
    std::string v = nf->value;
    while (v.size() > 1 && v.back() == '/') v.pop_back();
    std::string h = cuda_home.first;
    while (h.size() > 1 && h.back() == '/') h.pop_back();
    cuda_home_stated = cuda_home_stated || NotesDeliberate(*nf) || (!h.empty() && v == h);
  }
  if (!cuda_home.first.empty() && !cuda_home_stated && m.software.cuda_default.known()) {
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
