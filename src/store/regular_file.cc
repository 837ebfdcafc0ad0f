#include "store/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dossier {
namespace {

FileStamp FromStat(const struct stat& st) {
  FileStamp s;
  s.existed = true;
  s.device = st.st_dev;
  s.inode = st.st_ino;
  s.size = static_cast<uint64_t>(st.st_size);
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  return s;
}

}  // namespace

FileStamp StampOf(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return {};
  return FromStat(st);
}

Result<int> OpenRegularFile(const std::string& path, size_t max_bytes, struct stat* st_out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    std::string msg = path + ": cannot open (" + std::strerror(errno) + ")";
    return errno == ENOENT ? Error::NotFound(msg) : Error::Io(msg);
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    bool dir = S_ISDIR(st.st_mode);
    ::close(fd);
    return Error::Invalid(
        path + (dir ? " is a directory" : " is not a regular file (a FIFO, socket or device)") +
        "; move it away");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return Error::TooLarge(path + ": larger than " + std::to_string(max_bytes >> 20) + " MiB");
  }
  if (st_out) *st_out = st;
  return fd;
}

Result<std::string> ReadRegularFile(const std::string& path, size_t max_bytes, FileStamp* stamp) {
  struct stat st;
  auto opened = OpenRegularFile(path, max_bytes, &st);
  if (!opened) return opened.error();
  int fd = *opened;
  std::string out;
  out.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return Error::Io(path + ": cannot read (" + std::strerror(err) + ")");
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {  // it grew while being read
      ::close(fd);
      return Error::TooLarge(path + ": larger than " + std::to_string(max_bytes >> 20) + " MiB");
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (stamp) *stamp = FromStat(st);
  return out;
}

}  // namespace dossier
