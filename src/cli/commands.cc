#include <algorithm>
#include <cstdio>
#include <string_view>

#include "analyze/rule.h"
#include "cli/command.h"
#include "import/importer.h"
#include "probe/pci_names.h"
#include "probe/probe.h"
#include "render/render.h"
#include "util/utf8.h"

namespace dossier::cli {
namespace {

int RunHelp(const std::vector<std::string>& args);

int RunVersion(const std::vector<std::string>&) {
  std::printf("dossier %s\n", DOSSIER_VERSION);
  // The PCI ID database names every device in a collect: which one this run would use.
  PciNames::Database db = PciNames::Find(RootFs("/"));
  if (db.host.empty())
    std::printf("pci.ids: none (not in /usr/share/misc, /usr/share/hwdata, nor beside dossier)\n");
  else
    std::printf("pci.ids %s: %s%s\n", db.version.empty() ? "(version unknown)" : db.version.c_str(),
                db.host.c_str(),
                db.path.starts_with("pci.ids.gz carried") ? " (carried by dossier)" : "");
  return kExitOk;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"collect", "probe this machine (or --root DIR) into the dossier, or print it (--format)",
       RunCollect},
      {"import", "facts about a machine dossier cannot run on, from outputs a person pasted back",
       RunImport},
      {"report", "render the dossier: the latest view of every machine (--format md|json|html)",
       RunReport},
      {"serve-bench",
       "measure an OpenAI-compatible endpoint (TTFT, ITL, TPOT, throughput) into the dossier",
       RunServeBench},
      {"p2p", "measure GPU<->GPU and host<->GPU copies over message sizes, checking every byte",
       RunP2p},
      {"note", "edit the notes (goal, targets, machines, facts, tried, next steps, files)",
       RunNote},
      {"diff", "what changed between two collects of a machine (default: its last two)", RunDiff},
      {"plan", "will the model fit: weights and KV cache per GPU, requests of a length at once",
       RunPlan},
      {"fleet", "compare many nodes' records; name the ones that differ from their peers",
       RunFleet},
      {"generate",
       "artifacts that act on what was found (NCCL topology, NUMA unit, PVE mapping…); --help "
       "lists them",
       RunGenerate},
      {"mcp",
       "serve the dossier to an AI assistant (Model Context Protocol over stdio); reading "
       "always, writing and measuring with --allow-write, --allow-measure",
       RunMcp},
      {"help", "list the commands, or 'help probes' / 'help formats' / 'help rules'", RunHelp},
      {"version", "print the version", RunVersion},
  };
  return kCommands;
}

namespace {

int RunHelp(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "probes") {
    for (const auto& p : ProbeTable()) std::printf("  %-16s %s\n", p.name, p.what);
    return kExitOk;
  }
  if (!args.empty() && args[0] == "rules") {
    for (const auto& r : RuleTable()) std::printf("  %-28s %-8s %s\n", r.id, r.severity, r.what);
    return kExitOk;
  }
  if (!args.empty() && args[0] == "formats") {
    std::printf("what dossier import reads (detected from the content; --as NAME forces one):\n");
    for (const auto& i : import::ImporterTable()) std::printf("  %-22s %s\n", i.name, i.what);
    std::printf("\nwhat report and collect write (--format NAME):\n");
    for (const auto& r : RendererTable()) std::printf("  %-22s %s\n", r.format, r.what);
    return kExitOk;
  }
  std::printf(
      "dossier %s: the state of a multi-GPU inference machine, with every fact's source.\n\n"
      "usage: dossier COMMAND [options]   (dossier COMMAND --help for its options)\n\n",
      DOSSIER_VERSION);
  for (const auto& c : Commands()) std::printf("  %-12s %s\n", c.name, c.summary);
  std::printf("\nexit codes: 0 done; 1 ran but something failed; 2 bad usage or unusable input\n");
  return kExitOk;
}

}  // namespace

int Main(int argc, char** argv) {
  if (argc < 2) {
    RunHelp({});
    return kExitUsage;
  }
  // The door for argv: a --machine name, a URL or a note pasted from a terminal in another
  // encoding reaches records and reports, which hold only valid UTF-8 (util/utf8.h). A path
  // with invalid bytes is escaped too and then named as not found, rather than half-handled.
  std::string name = MakeValidUtf8(argv[1]);
  if (name == "--help" || name == "-h") return RunHelp({});
  if (name == "--version") return RunVersion({});
  std::vector<std::string> args;
  for (int i = 2; i < argc; ++i) args.push_back(MakeValidUtf8(argv[i]));
  for (const auto& c : Commands()) {
    if (name == c.name) return c.run(args);
  }
  std::fprintf(stderr, "dossier: unknown command '%s'", name.c_str());
  const Command* best = nullptr;
  size_t best_d = 3;  // suggest only close matches
  for (const auto& c : Commands()) {
    size_t d = EditDistance(name, c.name);
    if (d < best_d) {
      best_d = d;
      best = &c;
    }
  }
  if (best) std::fprintf(stderr, "; did you mean '%s'?", best->name);
  std::fprintf(stderr, "\nrun 'dossier help' for the list of commands\n");
  return kExitUsage;
}

}  // namespace dossier::cli
