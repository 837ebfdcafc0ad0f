#include "store/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace dossier {
namespace {

std::string SysError(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

std::string DirOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The descriptor a path names without going through the file system's view of it: /dev/stdout,
// /dev/stderr, /dev/fd/N, /proc/self/fd/N (and /proc/thread-self/…, /proc/OUR-PID/…). -1 when
// it names none. Opening /proc/self/fd/N would open the file again (at offset 0, losing a
// shell's `>>`), and fails for a socket: writing to the descriptor is what a shell does.
int FdOfPath(const std::string& p) {
  if (p == "/dev/stdin") return 0;
  if (p == "/dev/stdout") return 1;
  if (p == "/dev/stderr") return 2;
  const std::string prefixes[] = {"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/",
                                  "/proc/" + std::to_string(::getpid()) + "/fd/"};
  for (const auto& pre : prefixes) {
    if (!p.starts_with(pre)) continue;
    std::string n = p.substr(pre.size());
    if (n.empty() || n.size() > 9 || n.find_first_not_of("0123456789") != std::string::npos)
      return -1;
    return std::atoi(n.c_str());
  }
  return -1;
}

struct Target {
  enum Kind { kNew, kRegular, kStream, kFd } kind = kNew;
  std::string path;   // the file that is written (a symlink's target), or the node opened
  int fd = -1;        // kFd
  struct stat st {};  // kRegular: the file now (its mode and owner are kept)
};

Result<Target> Resolve(const std::string& path) {
  if (path.empty()) return Error::Invalid("no file name given");
  std::string cur = path;
  for (int hops = 0; hops < 40; ++hops) {
    if (int fd = FdOfPath(cur); fd >= 0) {
      int fl = ::fcntl(fd, F_GETFL);
      if (fl < 0)
        return Error::Invalid(path + ": names descriptor " + std::to_string(fd) +
                              ", which is not open");
      if ((fl & O_ACCMODE) == O_RDONLY)
        return Error::Invalid(path + ": names descriptor " + std::to_string(fd) +
                              ", which is open for reading only");
      Target t;
      t.kind = Target::kFd;
      t.fd = fd;
      t.path = cur;
      return t;
    }
    struct stat st {};
    if (::lstat(cur.c_str(), &st) != 0) {
      if (errno != ENOENT) return Error::Io(SysError(cur));
      if (hops > 0)
        return Error::Invalid(path + " is a symbolic link to " + cur +
                              ", which does not exist: refused (create the file first, or give "
                              "its own path)");
      struct stat dst {};
      std::string dir = DirOf(cur);
      if (::stat(dir.c_str(), &dst) != 0) return Error::Invalid(SysError(dir));
      if (!S_ISDIR(dst.st_mode)) return Error::Invalid(dir + " is not a directory");
      Target t;
      t.path = cur;
      return t;
    }
    if (S_ISLNK(st.st_mode)) {
      char buf[4096];
      ssize_t n = ::readlink(cur.c_str(), buf, sizeof buf);
      if (n < 0 || static_cast<size_t>(n) >= sizeof buf) return Error::Io(SysError(cur));
      std::string to(buf, static_cast<size_t>(n));
      cur = to.starts_with("/") ? to : DirOf(cur) + "/" + to;
      continue;
    }
    Target t;
    t.path = cur;
    t.st = st;
    if (S_ISREG(st.st_mode)) {
      t.kind = Target::kRegular;
      return t;
    }
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      t.kind = Target::kStream;
      return t;
    }
    std::string what = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                                              : "not a regular file";
    return Error::Invalid(path + (cur == path ? "" : " (" + cur + ")") + " is " + what +
                          ": refused (give a file, a FIFO or a character device)");
  }
  return Error::Invalid(path + ": too many levels of symbolic links");
}

Status WriteAll(int fd, std::string_view data, const std::string& name) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::Io(SysError("cannot write " + name));
    }
    off += static_cast<size_t>(n);
  }
  return OkStatus();
}

// In place, for a file whose owner a rename could not keep (another user's file, writable by
// this one): truncated and rewritten, not atomic.
Status WriteInPlace(const std::string& path, std::string_view data) {
  int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return Error::Io(SysError("cannot open " + path));
  Status s = WriteAll(fd, data, path);
  if (::close(fd) != 0 && s) return Error::Io(SysError("cannot write " + path));
  return s;
}

// A temporary file beside `path`, with the old file's mode (set before the data is in it: a
// 0600 file's content is never in a 0644 file) and owner, fsynced, renamed onto `path`.
Status ReplaceFile(const Target& t, std::string_view data) {
  const std::string dir = DirOf(t.path);
  std::string tmp = dir + "/.tmp-" + std::to_string(::getpid()) + "-" +
                    std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Error::Io(SysError("cannot create " + tmp));
  auto fail = [&](Error e) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return e;
  };
  if (t.kind == Target::kRegular) {
    if (::fchmod(fd, t.st.st_mode & 07777) != 0)
      return fail(Error::Io(SysError("cannot set the mode of " + tmp)));
    struct stat now {};
    if (::fstat(fd, &now) == 0 && (now.st_uid != t.st.st_uid || now.st_gid != t.st.st_gid) &&
        ::fchown(fd, t.st.st_uid, t.st.st_gid) != 0) {
      // Not allowed to give the file its owner back: write the file itself instead.
      ::close(fd);
      ::unlink(tmp.c_str());
      return WriteInPlace(t.path, data);
    }
    // fchown may clear set-id bits: set the mode again.
    ::fchmod(fd, t.st.st_mode & 07777);
  }
  if (auto s = WriteAll(fd, data, tmp); !s) return fail(s.error());
  if (::fsync(fd) != 0) return fail(Error::Io(SysError("cannot flush " + tmp)));
  if (::close(fd) != 0) {
    Error e = Error::Io(SysError("cannot flush " + tmp));
    ::unlink(tmp.c_str());
    return e;
  }
  if (::rename(tmp.c_str(), t.path.c_str()) != 0) {
    Error e = Error::Io(SysError("cannot rename to " + t.path));
    ::unlink(tmp.c_str());
    return e;
  }
  if (int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return OkStatus();
}

}  // namespace

std::string OutputTargetProblem(const std::string& path) {
  auto t = Resolve(path);
  if (!t) return t.error().message;
  if (t->kind == Target::kNew || t->kind == Target::kRegular) {
    std::string dir = DirOf(t->path);
    if (::access(dir.c_str(), W_OK | X_OK) != 0) return SysError(dir);
  } else if (t->kind == Target::kStream && ::access(t->path.c_str(), W_OK) != 0) {
    return SysError(path);
  }
  return "";
}

Status WriteOutputFile(const std::string& path, std::string_view data) {
  auto t = Resolve(path);
  if (!t) return t.error();
  switch (t->kind) {
    case Target::kFd:
      return WriteAll(t->fd, data, path);
    case Target::kStream: {
      // Blocks until a FIFO has a reader, as a shell's `> fifo` does.
      int fd = ::open(t->path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (fd < 0) return Error::Io(SysError("cannot open " + path));
      Status s = WriteAll(fd, data, path);
      if (::close(fd) != 0 && s) return Error::Io(SysError("cannot write " + path));
      return s;
    }
    case Target::kNew:
    case Target::kRegular:
      return ReplaceFile(*t, data);
  }
  return OkStatus();
}

}  // namespace dossier
