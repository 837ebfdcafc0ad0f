// Running the dossier binary from a test: exit code and what it printed.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace dossier::testing {

struct CliResult {
  int code = -1;
  std::string out;  // stdout and stderr together
};

// A shell command line, stdout and stderr together (the caller adds 2>&1 where it wants it).
inline CliResult RunShell(const std::string& cmd) {
  CliResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// args are passed to the shell as written: quote them.
inline CliResult RunCli(const std::string& args) {
  return RunShell(std::string(DOSSIER_BINARY) + " " + args + " 2>&1");
}

}  // namespace dossier::testing
