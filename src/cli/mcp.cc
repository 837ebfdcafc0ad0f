// dossier mcp: the dossier as tools and resources for an AI assistant (Model Context Protocol
// over stdio, src/mcp/). What the assistant may do beyond reading is decided here, by the person
// who starts the server: --allow-write, --allow-measure, --allow-root, and the GPU libraries.
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>

#include "cli/parse.h"
#include "mcp/server.h"

namespace dossier::cli {

int RunMcp(const std::vector<std::string>& args) {
  CLI::App app(
      "Serve the dossier to an AI assistant over the Model Context Protocol (stdio): tools "
      "(summary, report, findings, facts, import, note, collect, diff, generate, p2p, "
      "serve_bench) and resources (report.md, report.json, notes.toml, records). Reading is "
      "always allowed; writing and measuring only with their flags. stdout carries the "
      "protocol alone; logs go to stderr.",
      "dossier mcp");
  mcp::ServerOptions o;
  o.dossier_dir = "dossier";
  std::vector<std::string> roots;
  app.add_option("--dossier", o.dossier_dir, "dossier directory")
      ->check(NonEmptyPath())
      ->capture_default_str();
  app.add_flag("--allow-write", o.allow_write,
               "let the assistant write: note, and store what import and collect read");
  app.add_flag("--allow-measure", o.allow_measure,
               "let the assistant run p2p (GPU copies) and serve_bench (load on an endpoint), "
               "each stored as a measurement record");
  app.add_option("--allow-root", roots,
                 "a directory of captured machine trees collect may read (repeatable)")
      ->check(CLI::ExistingDirectory);
  app.add_option("--cuda-lib", o.cuda_lib, "CUDA driver library for p2p (default libcuda.so.1)");
  app.add_option("--nvml-lib", o.nvml_lib, "NVML library for p2p (default libnvidia-ml.so.1)");
  if (int rc = Parse(app, args); rc >= 0) return rc;
  for (const auto& r : roots) {
    char buf[PATH_MAX];
    if (!::realpath(r.c_str(), buf)) {
      std::fprintf(stderr, "dossier mcp: --allow-root %s: cannot be resolved\n", r.c_str());
      return kExitUsage;
    }
    o.allowed_roots.push_back(buf);
  }
  // The children run this very binary, found through /proc (argv[0] may be a bare name).
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) {
    std::fprintf(stderr, "dossier mcp: cannot find its own binary (/proc/self/exe)\n");
    return kExitFailure;
  }
  self[n] = '\0';
  o.self = self;
  return mcp::Serve(o, 0, 1);
}

}  // namespace dossier::cli
