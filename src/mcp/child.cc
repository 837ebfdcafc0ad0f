#include "mcp/child.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace dossier::mcp {
namespace {

bool MakePipe(int fds[2]) {
  return ::pipe2(fds, O_CLOEXEC) == 0;
}

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

Child::Child(const std::vector<std::string>& argv, std::string input) : input_(std::move(input)) {
  int in[2] = {-1, -1}, out[2] = {-1, -1}, err[2] = {-1, -1};
  if (!MakePipe(in) || !MakePipe(out) || !MakePipe(err)) {
    error_ = std::string("pipe: ") + std::strerror(errno);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]})
      if (fd >= 0) ::close(fd);
    return;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  // The server's own SIGPIPE disposition (ignored, so a closed client cannot kill it) would be
  // inherited; the CLI expects the default. SIGINT and SIGTERM are default for it to install its
  // stop handlers over.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t def;
  sigemptyset(&def);
  sigaddset(&def, SIGPIPE);
  sigaddset(&def, SIGINT);
  sigaddset(&def, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &def);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int rc = ::posix_spawn(&pid_, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  if (rc != 0) {
    pid_ = -1;
    error_ = "cannot start " + argv[0] + ": " + std::strerror(rc);
    ::close(in[1]);
    ::close(out[0]);
    ::close(err[0]);
    return;
  }
  in_ = in[1];
  out_ = out[0];
  err_ = err[0];
  for (int fd : {in_, out_, err_}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  if (input_.empty()) CloseFd(in_);
}

Child::~Child() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  CloseFd(in_);
  CloseFd(out_);
  CloseFd(err_);
}

size_t Child::ReadInto(int& fd, std::string& text) {
  if (fd < 0) return 0;
  char buf[65536];
  size_t total = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      size_t room = kMaxOutput > text.size() ? kMaxOutput - text.size() : 0;
      if (static_cast<size_t>(n) > room) truncated_ = true;
      text.append(buf, std::min(room, static_cast<size_t>(n)));
      total += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return total;
    CloseFd(fd);  // end of output, or an error reading it
    return total;
  }
}

size_t Child::ReadOut() {
  return ReadInto(out_, out_text_);
}
size_t Child::ReadErr() {
  return ReadInto(err_, err_text_);
}

void Child::WriteIn() {
  while (in_ >= 0 && input_pos_ < input_.size()) {
    ssize_t n = ::write(in_, input_.data() + input_pos_, input_.size() - input_pos_);
    if (n > 0) {
      input_pos_ += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return;
    } else {
      break;  // the child closed its stdin (EPIPE): it will say why on stderr
    }
  }
  CloseFd(in_);
  input_.clear();
}

void Child::Signal(int sig) {
  if (pid_ > 0 && !reaped_) ::kill(pid_, sig);
}

bool Child::Reap() {
  if (reaped_ || pid_ <= 0) return reaped_ || pid_ <= 0;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r != pid_) return false;
  reaped_ = true;
  if (WIFEXITED(status)) {
    exit_code_ = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    killed_by_ = WTERMSIG(status);
  }
  return true;
}

}  // namespace dossier::mcp
