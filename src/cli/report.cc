// dossier report: render the dossier (the latest record of every machine).
#include <cstdio>

#include "analyze/analysis.h"
#include "cli/parse.h"
#include "render/render.h"
#include "view/build_view.h"

namespace dossier::cli {

int RunReport(const std::vector<std::string>& args) {
  CLI::App app("Render the dossier: the latest view of every machine.", "dossier report");
  std::string dossier_dir = "dossier", format = "md";
  app.add_option("--dossier", dossier_dir, "dossier directory")
      ->check(NonEmptyPath())
      ->capture_default_str();
  app.add_option("--format", format, "md or json")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str();
  if (int rc = Parse(app, args); rc >= 0) return rc;

  auto view = LoadView(DossierDir(dossier_dir));
  if (!view) {
    std::fprintf(stderr, "dossier report: %s\n", view.error().message.c_str());
    return kExitUsage;
  }
  for (const auto& w : view->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  std::string text = FindRenderer(format)->render(*view, Analyze(*view));
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace dossier::cli
