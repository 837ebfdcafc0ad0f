// Running a program from a test and collecting what it did: exit code, stdout and stderr. The
// outputs go to files (not pipes), so a chatty program can never block on a full pipe.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace dossier::testing {

struct ProcessResult {
  int exit_code = -1;  // -1: could not start, or killed by a signal
  std::string out, err;
};

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline ProcessResult RunProcess(const std::vector<std::string>& argv) {
  ProcessResult r;
  std::string tmpl = (std::filesystem::temp_directory_path() / "dossier-run-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) return r;
  const std::string out = tmpl + "/out", err = tmpl + "/err";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc == 0) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
    r.out = ReadWholeFile(out);
    r.err = ReadWholeFile(err);
  } else {
    r.err = "cannot start " + argv[0];
  }
  std::error_code ec;
  std::filesystem::remove_all(tmpl, ec);
  return r;
}

// Whether a program is on PATH (for tests that use a system tool such as lspci).
inline bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

}  // namespace dossier::testing
