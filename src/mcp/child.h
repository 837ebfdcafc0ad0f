// A dossier subcommand run as a child process for one MCP tool call. Each call runs the very CLI
// a person runs (the same checks, redaction, locking and records), with an argv the tool built
// from validated arguments: no shell, options as --name=value and positionals after "--", so no
// argument can become an option or a command. A child that crashes, hangs or runs out of memory
// takes only its call with it; the server answers the others. Non-blocking pipes, read by the
// server's one poll loop (mcp/server.cc).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace dossier::mcp {

class Child {
 public:
  // Starts `argv` (argv[0] the program) with stdin fed `input` (then closed), stdout and stderr
  // captured. On failure, pid() is -1 and error() says why.
  Child(const std::vector<std::string>& argv, std::string input);
  ~Child();  // kills and reaps a child still running
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  const std::string& error() const { return error_; }

  // The fds to poll (-1 once closed) and what to do when they are ready.
  int out_fd() const { return out_; }
  int err_fd() const { return err_; }
  int in_fd() const { return in_; }
  // Read what is there; returns the bytes read (0 at end, which closes the fd). Output past
  // kMaxOutput is dropped and truncated() set: a report is megabytes, not gigabytes.
  size_t ReadOut();
  size_t ReadErr();
  void WriteIn();  // writes what the pipe takes of the remaining input; closes it when done

  const std::string& out() const { return out_text_; }
  const std::string& err() const { return err_text_; }
  bool truncated() const { return truncated_; }

  // Signal the child (SIGINT: a measurement stops and keeps what it measured).
  void Signal(int sig);
  // Non-blocking: true once the child has exited (status in exit_code/killed_by).
  bool Reap();
  bool done() const { return reaped_; }
  int exit_code() const { return exit_code_; }  // -1 when killed by a signal
  int killed_by() const { return killed_by_; }

  static constexpr size_t kMaxOutput = 64u << 20;

 private:
  size_t ReadInto(int& fd, std::string& text);

  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string input_;
  size_t input_pos_ = 0;
  std::string out_text_, err_text_, error_;
  bool truncated_ = false, reaped_ = false;
  int exit_code_ = -1, killed_by_ = 0;
};

}  // namespace dossier::mcp
