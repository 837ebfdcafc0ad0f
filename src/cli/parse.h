// Running a CLI11 parser over a subcommand's arguments with our exit codes. Included only by the
// cli/*.cc files (CLI11 is slow to compile; it stays out of everything else).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/command.h"
#include "util/machine_name.h"

namespace dossier::cli {

// For --dossier, --root and other paths: an empty value is a usage error. Without it,
// `--dossier ''` would write records/ and notes.toml into the current directory's root ("" +
// "/records" is "/records").
inline CLI::Validator NonEmptyPath() {
  return CLI::Validator(
      [](std::string& s) {
        return s.empty() ? std::string("an empty path; give a directory or a file name") : "";
      },
      "PATH");
}

// For names, URLs and lists: `--model ''` is a mistake (an unset shell variable), not a request
// for the default.
inline CLI::Validator NonEmpty() {
  return CLI::Validator(
      [](std::string& s) {
        return s.empty() ? std::string("an empty value; leave the flag out for the default") : "";
      },
      "VALUE");
}

// Machine names that are stored (util/machine_name.h): hostname-like, so no name can carry a line
// or markup into a generated unit or XML file.
inline CLI::Validator MachineName() {
  return CLI::Validator([](std::string& s) { return MachineNameProblem(s); }, "NAME");
}

// Returns -1 when the command should go on, else the exit code (0 after --help).
inline int Parse(CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them reversed
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }
  return -1;
}

}  // namespace dossier::cli
