// dossier collect: probe the machine (or a captured tree) and append a record to the dossier, or
// print it (--format) and store nothing.
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "analyze/analysis.h"
#include "cli/parse.h"
#include "model/json_io.h"
#include "probe/probe.h"
#include "render/render.h"
#include "store/dossier_dir.h"
#include "util/redact.h"
#include "util/utf8.h"
#include "view/build_view.h"

extern char** environ;

namespace dossier::cli {
namespace {

std::map<std::string, std::string> CallerEnvironment() {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    // The door for the caller's environment: values reach the record (util/utf8.h).
    env.emplace(MakeValidUtf8(kv.substr(0, eq)), MakeValidUtf8(kv.substr(eq + 1)));
  }
  return env;
}

}  // namespace

int RunCollect(const std::vector<std::string>& args) {
  CLI::App app("Probe this machine, or a captured machine tree, into the dossier.",
               "dossier collect");
  std::string root = "/", dossier_dir = "dossier", format;
  CollectOptions opts;
  bool quiet = false;
  app.add_option("--root", root, "read the machine under this directory instead of /")
      ->check(NonEmptyPath());
  app.add_option("--machine", opts.machine_name, "name of the machine (default: its hostname)")
      ->check(MachineName());
  app.add_option("--dossier", dossier_dir, "dossier directory to append to")
      ->check(NonEmptyPath())
      ->capture_default_str();
  app.add_option("--format", format, "print the report (md, json or html) and store nothing")
      ->check(CLI::IsMember({"md", "json", "html"}));
  app.add_option("--venv", opts.venvs, "a Python environment to read (repeatable)")
      ->check(NonEmptyPath());
  app.add_option("--nvml-lib", opts.nvml_lib,
                 "NVML library to load (default libnvidia-ml.so.1; with --root, NVML is off "
                 "unless this is given)");
  app.add_flag("-q,--quiet", quiet, "no progress on stderr");
  if (int rc = Parse(app, args); rc >= 0) return rc;

  RootFs fs(root);
  if (auto s = fs.Check(); !s) {
    std::fprintf(stderr, "dossier collect: --root: %s\n", s.error().message.c_str());
    return kExitUsage;
  }
  if (!fs.live() && !fs.IsDir("/sys") && !fs.IsDir("/proc")) {
    std::fprintf(stderr,
                 "dossier collect: --root %s: neither %s/sys nor %s/proc is a directory; a "
                 "machine tree holds the machine's sys/ and proc/ (at least one), laid out as "
                 "the kernel shows them (sys/devices, sys/bus/pci, proc/cpuinfo …)\n",
                 root.c_str(), fs.root().c_str(), fs.root().c_str());
    return kExitUsage;
  }
  if (fs.live()) opts.caller_env = CallerEnvironment();
  std::vector<std::string> log;
  if (!quiet) std::fprintf(stderr, "collecting %s\n", fs.live() ? "this machine" : root.c_str());
  Machine m = CollectMachine(fs, opts, &log);
  if (!quiet)
    for (const auto& l : log) std::fprintf(stderr, "  %s\n", l.c_str());

  if (!format.empty()) {
    // The same path as a dossier on disk: the record it would have been -> view -> analysis.
    View view = OneShotView(m);
    std::string text = FindRenderer(format)->render(view, Analyze(view));
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kExitOk;
  }

  nlohmann::json doc = {{"kind", "collect"}, {"root", fs.live() ? "/" : root}};
  doc["machine"] = MachineToJson(m);
  DossierDir dir(dossier_dir);
  auto path = dir.Append(std::move(doc), m.name);
  if (!path) {
    std::fprintf(stderr, "dossier collect: cannot write the record: %s\n",
                 path.error().message.c_str());
    return kExitFailure;
  }
  if (!quiet) std::fprintf(stderr, "wrote %s\n", path->c_str());
  return kExitOk;
}

}  // namespace dossier::cli
