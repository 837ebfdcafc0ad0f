// dossier generate NAME: an artifact that acts on what was found (generate/generator.h). It is
// printed to stdout for a person to review, or written atomically to --output; the notes (how to
// apply it, what to verify) go to stderr. Nothing on the system is touched.
#include <sys/stat.h>

#include <cstdio>

#include "analyze/analysis.h"
#include "cli/parse.h"
#include "generate/generator.h"
#include "store/dossier_dir.h"
#include "store/output_file.h"
#include "view/build_view.h"

namespace dossier::cli {
namespace {

void PrintGenerators(std::FILE* to) {
  std::fprintf(to,
               "usage: dossier generate NAME [--dossier DIR] [--machine NAME] [--output FILE] "
               "[--diff] [--textfile-dir DIR]\n\ngenerators:\n");
  for (const auto& g : GeneratorTable()) std::fprintf(to, "  %-14s %s\n", g.name, g.what);
  std::fprintf(to,
               "\nEach prints the artifact to stdout (or writes --output FILE atomically) and the "
               "command that verifies it to stderr; nothing on the system is changed.\n");
}

}  // namespace

int RunGenerate(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    PrintGenerators(stdout);
    return args.empty() ? kExitUsage : kExitOk;
  }
  const GeneratorEntry* gen = FindGenerator(args[0]);
  if (!gen) {
    std::fprintf(stderr, "dossier generate: unknown generator '%s'\n\n", args[0].c_str());
    PrintGenerators(stderr);
    return kExitUsage;
  }
  CLI::App app(gen->what, std::string("dossier generate ") + gen->name);
  std::string dossier_dir = "dossier";
  GenerateArgs ga;
  app.add_option("--dossier", dossier_dir, "dossier directory")
      ->check(NonEmptyPath())
      ->capture_default_str();
  app.add_option("--machine", ga.machine, "the machine the artifact is for");
  app.add_option("--output", ga.output,
                 "write the artifact to FILE (atomically) instead of stdout");
  app.add_flag("--diff", ga.diff, "a unified diff against the current file (pve-mapping)");
  std::string textfile_dir;
  app.add_option("--textfile-dir", textfile_dir,
                 "prometheus: write DIR/dossier.prom atomically, for node_exporter's textfile "
                 "collector");
  if (int rc = Parse(app, std::vector<std::string>(args.begin() + 1, args.end())); rc >= 0)
    return rc;

  if (!textfile_dir.empty()) {
    struct stat st;
    if (std::string(gen->name) != "prometheus" || !ga.output.empty()) {
      std::fprintf(stderr,
                   "dossier generate %s: --textfile-dir is for 'generate prometheus' "
                   "alone (without --output)\n",
                   gen->name);
      return kExitUsage;
    }
    if (::stat(textfile_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      std::fprintf(stderr,
                   "dossier generate prometheus: --textfile-dir %s: not a directory (give "
                   "node_exporter's --collector.textfile.directory)\n",
                   textfile_dir.c_str());
      return kExitUsage;
    }
    // Written like --output (a temporary dot-file beside it, which the collector ignores, then
    // a rename), under the name the collector reads.
    ga.output = textfile_dir + "/dossier.prom";
  }
  // A target that cannot be written (a directory, a socket, a missing directory) is bad input,
  // said before anything is generated.
  if (!ga.output.empty()) {
    if (std::string why = OutputTargetProblem(ga.output); !why.empty()) {
      std::fprintf(stderr, "dossier generate %s: --output %s: %s\n", gen->name, ga.output.c_str(),
                   why.c_str());
      return kExitUsage;
    }
  }
  auto view = LoadView(DossierDir(dossier_dir));
  if (!view) {
    std::fprintf(stderr, "dossier generate %s: %s\n", gen->name, view.error().message.c_str());
    return kExitUsage;
  }
  for (const auto& w : view->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  Analysis analysis = Analyze(*view);
  auto art = gen->run(ga, *view, analysis);
  if (!art) {
    std::fprintf(stderr, "dossier generate %s: %s\n", gen->name, art.error().message.c_str());
    return kExitUsage;
  }
  if (ga.output.empty()) {
    std::fwrite(art->text.data(), 1, art->text.size(), stdout);
    std::fflush(stdout);
  } else if (auto s = WriteOutputFile(ga.output, art->text); !s) {
    std::fprintf(stderr, "dossier generate %s: %s\n", gen->name, s.error().message.c_str());
    return s.error().kind == Error::kInvalid ? kExitUsage : kExitFailure;
  } else {
    std::fprintf(stderr, "wrote %s\n", ga.output.c_str());
  }
  if (!art->notes.empty()) std::fprintf(stderr, "\n%s\n", art->notes.c_str());
  if (!art->verify.empty()) std::fprintf(stderr, "\nverify: %s\n", art->verify.c_str());
  return kExitOk;
}

}  // namespace dossier::cli
