// The command table: every subcommand is one row (name, one-line summary, handler) and one file
// in src/cli/. main() hands argv here and does nothing else.
#pragma once

#include <string>
#include <vector>

namespace dossier::cli {

// Exit codes, documented in the README.
enum ExitCode {
  kExitOk = 0,       // done
  kExitFailure = 1,  // ran, but something failed (a record could not be written, a measurement)
  kExitUsage = 2,    // bad command line or unusable input (unknown flag, --root not a directory)
};

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);  // args after the subcommand name
};

const std::vector<Command>& Commands();
int Main(int argc, char** argv);

int RunCollect(const std::vector<std::string>& args);   // collect.cc
int RunReport(const std::vector<std::string>& args);    // report.cc
int RunP2p(const std::vector<std::string>& args);       // p2p.cc
int RunNote(const std::vector<std::string>& args);      // note.cc
int RunDiff(const std::vector<std::string>& args);      // diff.cc
int RunGenerate(const std::vector<std::string>& args);  // generate.cc
int RunImport(const std::vector<std::string>& args);    // import.cc
int RunFleet(const std::vector<std::string>& args);     // fleet.cc
int RunPlan(const std::vector<std::string>& args);      // plan.cc
int RunMcp(const std::vector<std::string>& args);       // mcp.cc

int RunServeBench(const std::vector<std::string>& args);  // serve_bench.cc

}  // namespace dossier::cli
