// The generator table: artifacts that act on what was found (`dossier generate NAME`). Every
// generator is one row (name, one-line description, function) in generator_table.cc and one file
// in src/generate/. A generator reads the built view and its analysis only: it never touches the
// system and never writes a file itself. The CLI (cli/generate.cc) prints the artifact to stdout
// or writes it atomically to --output, and prints the notes (how to apply it, what to verify) to
// stderr; an artifact whose format has comments carries the verify command at its end as well.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analyze/analysis.h"
#include "util/result.h"
#include "view/view.h"

namespace dossier {

// What `dossier generate NAME` parsed, common to every generator.
struct GenerateArgs {
  std::string machine;  // --machine: the machine the artifact is for; empty = the generator picks
  bool diff = false;    // --diff: a unified diff against the current file instead of the file
  std::string output;   // --output FILE, empty for stdout (a generator may name it in its notes)
};

struct Artifact {
  std::string text;    // the artifact itself: exactly what goes to stdout or --output
  std::string notes;   // for the person: how to apply it, alternatives; printed to stderr
  std::string verify;  // the command(s) that show it took effect; printed last
};

// An error is bad usage or missing facts (exit 2): say what is missing and how to get it.
using GenerateFn = Result<Artifact> (*)(const GenerateArgs& args, const View& view,
                                        const Analysis& analysis);

struct GeneratorEntry {
  const char* name;
  const char* what;  // one line, listed by `dossier generate --help`
  GenerateFn run;
};

const std::vector<GeneratorEntry>& GeneratorTable();
const GeneratorEntry* FindGenerator(std::string_view name);

// The generators, one file each.
Result<Artifact> GenerateNcclTopo(const GenerateArgs&, const View&,
                                  const Analysis&);  // nccl_topo.cc
Result<Artifact> GeneratePveMapping(const GenerateArgs&, const View&,
                                    const Analysis&);  // pve_mapping.cc
Result<Artifact> GenerateNumaAffinity(const GenerateArgs&, const View&,
                                      const Analysis&);  // numa_affinity.cc
Result<Artifact> GeneratePrometheus(const GenerateArgs&, const View&,
                                    const Analysis&);  // prometheus.cc
Result<Artifact> GenerateQemuArgs(const GenerateArgs&, const View&,
                                  const Analysis&);  // qemu_args.cc

}  // namespace dossier
