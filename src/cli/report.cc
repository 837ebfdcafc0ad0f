// dossier report: render the dossier (the latest record of every machine); --machine narrows it
// to one machine, --summary to the first screen, for pasting into a chat or a ticket.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "analyze/analysis.h"
#include "cli/parse.h"
#include "model/json_io.h"
#include "render/focus.h"
#include "render/json_visit.h"
#include "render/markdown.h"
#include "render/render.h"
#include "view/build_view.h"

namespace dossier::cli {
namespace {

// The summary alone: the report's first screen ("## Summary" of the Markdown, "summary" of the
// JSON), under a title that says which dossier and machine it is about.
std::string SummaryOnly(const View& view, const Analysis& a, const std::string& format,
                        const std::string& machine) {
  if (format == "json") {
    nlohmann::json doc = nlohmann::json::parse(RenderJson(view, a));
    nlohmann::json out = {{"schema", doc["schema"]},
                          {"generated_at", doc["generated_at"]},
                          {"summary", doc["summary"]}};
    if (doc.contains("dossier")) out["dossier"] = doc["dossier"];
    if (!machine.empty()) out["machine"] = machine;
    return DumpJson(out, 2) + "\n";
  }
  std::string body;
  MdSummary(view, a, &body);
  std::string title = "# Dossier summary";
  if (!machine.empty()) title += ": `" + machine + "`";
  return title + "\n\nGenerated " + view.generated_at +
         (view.dossier_path.empty() ? "" : " from the dossier in `" + view.dossier_path + "`") +
         "; the whole report: `dossier report`.\n\n" + body;
}

}  // namespace

int RunReport(const std::vector<std::string>& args) {
  CLI::App app("Render the dossier: the latest view of every machine.", "dossier report");
  std::string dossier_dir = "dossier", format = "md";
  app.add_option("--dossier", dossier_dir, "dossier directory")
      ->check(NonEmptyPath())
      ->capture_default_str();
  app.add_option("--format", format,
                 "md, json or html (one self-contained file with pictures, opens offline)")
      ->check(CLI::IsMember({"md", "json", "html"}))
      ->capture_default_str();
  std::string machine;
  bool summary = false;
  app.add_option("--machine", machine,
                 "only this machine: its discoveries, findings and steps (the analysis still "
                 "reads the whole dossier)");
  app.add_flag("--summary", summary,
               "only the summary, the report's first screen (md or json), for a chat or a ticket");
  if (int rc = Parse(app, args); rc >= 0) return rc;
  if (summary && format == "html") {
    std::fprintf(stderr, "dossier report: --summary is for --format md or json\n");
    return kExitUsage;
  }

  auto view = LoadView(DossierDir(dossier_dir));
  if (!view) {
    std::fprintf(stderr, "dossier report: %s\n", view.error().message.c_str());
    return kExitUsage;
  }
  for (const auto& w : view->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  Analysis analysis = Analyze(*view);
  if (!machine.empty() && !FocusOnMachine(machine, &*view, &analysis)) {
    std::string names;
    for (const auto& mv : view->machines) names += " " + mv.machine.name;
    std::fprintf(stderr, "dossier report: no machine '%s' in %s (machines:%s)\n", machine.c_str(),
                 dossier_dir.c_str(), names.empty() ? " none" : names.c_str());
    return kExitUsage;
  }
  std::string text = summary ? SummaryOnly(*view, analysis, format, machine)
                             : FindRenderer(format)->render(*view, analysis);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace dossier::cli
