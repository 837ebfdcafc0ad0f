// dossier fleet PATH…: compare many nodes' records and name the ones that differ from the nodes
// that should be alike (fleet/). Exit 1 when any node differs, 0 when the fleet is uniform, so a
// CI job or a cron check can gate on it.
#include <cstdio>

#include "cli/parse.h"
#include "fleet/fleet_compare.h"
#include "fleet/fleet_reader.h"
#include "fleet/fleet_render.h"

namespace dossier::cli {

int RunFleet(const std::vector<std::string>& args) {
  CLI::App app(
      "Compare many nodes: dossier directories, collect records, or 'collect --format json' "
      "outputs (directories are walked for *.json). Groups machines that should be alike (board, "
      "GPU model and count) and reports, per group, what differs and on which nodes. Exit 1 when "
      "a node differs, 0 when the fleet is uniform.",
      "dossier fleet");
  std::vector<std::string> paths;
  std::string format = "md";
  bool quiet = false;
  app.add_option("paths", paths, "dossiers, record files, JSON outputs, or directories of them")
      ->required();
  app.add_option("--format", format, "md or json")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str();
  app.add_flag("-q,--quiet", quiet, "no progress on stderr");
  if (int rc = Parse(app, args); rc >= 0) return rc;

  fleet::FleetComparer cmp;
  size_t seen = 0;
  auto on_node = [&](const fleet::NodeFacts& n) {
    cmp.Add(n);
    if (!quiet && ++seen % 1000 == 0) std::fprintf(stderr, "read %zu nodes\n", seen);
  };
  auto on_warning = [&](std::string w) {
    if (!quiet) std::fprintf(stderr, "warning: %s\n", w.c_str());
    cmp.Warn(std::move(w));
  };
  auto counts = fleet::ReadFleet(paths, on_node, on_warning);
  if (!counts) {
    std::fprintf(stderr, "dossier fleet: %s\n", counts.error().message.c_str());
    return kExitUsage;
  }
  for (size_t i = 0; i < counts->files; ++i) cmp.AddFile();
  if (counts->measurements)
    cmp.Warn(std::to_string(counts->measurements) +
             " p2p/serve-bench record(s) outside a dossier were not compared: give the dossier "
             "directory to compare measurements");
  fleet::FleetReport rep = cmp.Finish();
  if (rep.nodes == 0) {
    std::fprintf(stderr,
                 "dossier fleet: no node found in the given paths (%zu file(s) skipped); give "
                 "dossier directories, collect records or 'collect --format json' outputs\n",
                 counts->skipped);
    return kExitUsage;
  }
  std::string text = format == "json" ? fleet::FleetJson(rep) : fleet::FleetMarkdown(rep);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return rep.uniform() ? kExitOk : kExitFailure;
}

}  // namespace dossier::cli
