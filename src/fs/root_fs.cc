#include "fs/root_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "util/utf8.h"

namespace dossier {
namespace {

Error FromErrno(int err, const std::string& what) {
  std::string msg = what + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return Error::NotFound(msg);
    case EACCES:
    case EPERM:
      return Error::Permission(msg + " (needs root)");
    default:
      return Error::Io(msg);
  }
}

// Splits a machine path into components, dropping empty ones and ".".
std::vector<std::string> Components(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view c = path.substr(i, j - i);
    if (!c.empty() && c != ".") out.emplace_back(c);
    i = j + 1;
  }
  return out;
}

// A file opened for reading is read only when regular: it was opened without blocking
// (O_NONBLOCK), but a FIFO under the root would still hang a reader waiting for a writer and a
// device may never end; a directory is named as such. Closes fd on refusal.
Result<int> CheckRegular(int fd, std::string_view path) {
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return FromErrno(err, std::string(path));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Error::Invalid(std::string(path) + " is a directory");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error::Invalid(std::string(path) + " is not a regular file (a FIFO, socket or device)");
  }
  return fd;
}

constexpr int kReadFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;

Result<int> OpenRegular(const std::string& host, std::string_view path) {
  int fd = ::open(host.c_str(), kReadFlags);
  if (fd < 0) return FromErrno(errno, std::string(path));
  return CheckRegular(fd, path);
}

}  // namespace

std::string JoinPath(std::string_view a, std::string_view b) {
  if (b.starts_with('/')) return std::string(b);
  std::string out(a);
  if (out.empty() || out.back() != '/') out += '/';
  out += b;
  return out;
}

std::string_view BaseName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t k = path.rfind('/');
  return k == std::string_view::npos ? path : path.substr(k + 1);
}

std::string_view DirName(std::string_view path) {
  size_t k = path.rfind('/');
  if (k == std::string_view::npos) return ".";
  if (k == 0) return "/";
  return path.substr(0, k);
}

RootFs::RootFs(std::string root) {
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  live_ = root.empty() || root == "/";
  root_ = live_ ? "" : root;
}

Status RootFs::Check() const {
  struct stat st;
  std::string r = live_ ? "/" : root_;
  if (::stat(r.c_str(), &st) != 0) {
    return FromErrno(errno, "root directory " + r);
  }
  if (!S_ISDIR(st.st_mode)) return Error::Invalid("root " + r + " is not a directory");
  return OkStatus();
}

Result<int> RootFs::OpenForRead(std::string_view path) const {
  std::string_view base = BaseName(path);
  if (path.find('/') != std::string_view::npos && !path.ends_with('/') && !base.empty() &&
      base != "." && base != "..") {
    auto dir = Resolve(DirName(path));
    if (!dir) return dir.error();
    std::string host = root_ + (*dir == "/" ? std::string() : *dir) + "/" + std::string(base);
    int fd = ::open(host.c_str(), kReadFlags | O_NOFOLLOW);
    if (fd >= 0) return CheckRegular(fd, path);
    if (errno != ELOOP) return FromErrno(errno, std::string(path));
    // ELOOP: the last component is a link, followed below under the root.
  }
  auto resolved = Resolve(path);
  if (!resolved) return resolved.error();
  return OpenRegular(HostPath(*resolved), path);
}

std::string RootFs::HostPath(std::string_view path) const {
  std::string p(path);
  if (p.empty() || p[0] != '/') p.insert(p.begin(), '/');
  return root_ + p;
}

Result<std::string> RootFs::Resolve(std::string_view path) const {
  // Walk the components; a link's target replaces the components read so far (absolute) or is
  // spliced in (relative). 40 links at most, as the kernel allows.
  std::vector<std::string> todo = Components(path);
  std::reverse(todo.begin(), todo.end());
  std::vector<std::string> done;
  int links = 0;
  while (!todo.empty()) {
    std::string c = std::move(todo.back());
    todo.pop_back();
    if (c == "..") {
      if (!done.empty()) done.pop_back();  // ".." at the root stays at the root
      continue;
    }
    done.push_back(c);
    std::string cur;
    for (const auto& d : done) cur += "/" + d;
    {  // a directory seen before: not a link (the last component too: Resolve returns it as is)
      std::lock_guard<std::mutex> lock(dir_cache_->mu);
      if (dir_cache_->dirs.count(cur)) continue;
    }
    std::string target;
    bool known = false;
    {
      std::lock_guard<std::mutex> lock(dir_cache_->mu);
      if (auto it = dir_cache_->links.find(cur); it != dir_cache_->links.end()) {
        target = it->second;
        known = true;
      }
    }
    if (!known) {
      struct stat st;
      std::string host = root_ + cur;
      if (::lstat(host.c_str(), &st) != 0) {
        if (errno == ENOENT && todo.empty()) return cur;  // a missing last component is allowed
        return FromErrno(errno, cur);
      }
      if (S_ISDIR(st.st_mode)) {
        std::lock_guard<std::mutex> lock(dir_cache_->mu);
        dir_cache_->dirs.insert(cur);
      }
      if (!S_ISLNK(st.st_mode)) continue;
      char buf[4096];
      ssize_t n = ::readlink(host.c_str(), buf, sizeof buf - 1);
      if (n < 0) return FromErrno(errno, cur);
      target.assign(buf, n);
      if (!live_ || !(cur == "/proc" || cur.starts_with("/proc/"))) {
        std::lock_guard<std::mutex> lock(dir_cache_->mu);
        dir_cache_->links.emplace(cur, target);
      }
    }
    if (++links > 40) return Error::Invalid(std::string(path) + ": too many levels of links");
    done.pop_back();
    if (!target.empty() && target[0] == '/') done.clear();
    std::vector<std::string> t = Components(target);
    for (auto it = t.rbegin(); it != t.rend(); ++it) todo.push_back(*it);
  }
  std::string out;
  for (const auto& d : done) out += "/" + d;
  return out.empty() ? std::string("/") : out;
}

Result<std::string> RootFs::ReadBytes(std::string_view path, size_t max_bytes) const {
  auto opened = OpenForRead(path);
  if (!opened) return opened.error();
  int fd = *opened;
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return FromErrno(err, std::string(path));
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      ::close(fd);
      return Error::TooLarge(std::string(path) + ": larger than " + std::to_string(max_bytes) +
                             " bytes");
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

Result<std::string> RootFs::Read(std::string_view path, size_t max_bytes) const {
  auto r = ReadBytes(path, max_bytes);
  if (r) MakeValidUtf8InPlace(&*r);
  return r;
}

Result<std::string> RootFs::ReadTail(std::string_view path, size_t max_bytes) const {
  auto opened = OpenForRead(path);
  if (!opened) return opened.error();
  int fd = *opened;
  struct stat st;
  if (::fstat(fd, &st) != 0) st.st_size = 0;
  bool cut = false;
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::lseek(fd, st.st_size - static_cast<off_t>(max_bytes), SEEK_SET);
    cut = true;
  }
  // Files without a size (procfs) are read to the end, keeping only the last max_bytes.
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return FromErrno(err, std::string(path));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > 2 * max_bytes + sizeof buf) {
      out.erase(0, out.size() - max_bytes);
      cut = true;
    }
  }
  ::close(fd);
  if (out.size() > max_bytes) {
    out.erase(0, out.size() - max_bytes);
    cut = true;
  }
  if (cut) {
    size_t nl = out.find('\n');
    out.erase(0, nl == std::string::npos ? out.size() : nl + 1);
  }
  MakeValidUtf8InPlace(&out);
  return out;
}

Result<std::string> RootFs::ReadPrefix(std::string_view path, size_t max_bytes) const {
  auto opened = OpenForRead(path);
  if (!opened) return opened.error();
  int fd = *opened;
  // Three bytes more than asked, so a character that straddles the limit is seen whole and the
  // cut falls before it rather than inside it.
  // Read through a stack buffer, not into a string sized to the limit: callers ask for up to
  // megabytes of files that hold a few bytes (sysfs attributes), and zero-filling that string
  // was a fifth of a whole collect's instructions.
  const size_t want = max_bytes + 3;
  std::string out;
  char buf[65536];
  while (out.size() < want) {
    ssize_t n = ::read(fd, buf, std::min(sizeof buf, want - out.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return FromErrno(err, std::string(path));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (out.size() > max_bytes) out.resize(CutUtf8(out, max_bytes).size());
  MakeValidUtf8InPlace(&out);
  return out;
}

Result<std::string> RootFs::ReadValue(std::string_view path) const {
  auto r = Read(path, 1 << 20);
  if (!r) return r;
  std::string& s = *r;
  size_t nl = s.find('\n');
  if (nl != std::string::npos) s.resize(nl);
  size_t b = s.find_first_not_of(" \t\r");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

Result<std::vector<std::string>> RootFs::List(std::string_view dir) const {
  auto resolved = Resolve(dir);
  if (!resolved) return resolved.error();
  std::string host = HostPath(*resolved);
  DIR* d = ::opendir(host.c_str());
  if (!d) return FromErrno(errno, std::string(dir));
  std::vector<std::string> out;
  while (struct dirent* e = ::readdir(d)) {
    if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
    out.push_back(MakeValidUtf8(e->d_name));
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

Result<std::string> RootFs::ReadLink(std::string_view path) const {
  auto resolved = Resolve(DirName(path));
  if (!resolved) return resolved.error();
  std::string host = HostPath(JoinPath(*resolved, BaseName(path)));
  char buf[4096];
  ssize_t n = ::readlink(host.c_str(), buf, sizeof buf - 1);
  if (n < 0) return FromErrno(errno, std::string(path));
  return MakeValidUtf8(std::string_view(buf, static_cast<size_t>(n)));
}

bool RootFs::Exists(std::string_view path) const {
  auto resolved = Resolve(path);
  if (!resolved) return false;
  struct stat st;
  return ::stat(HostPath(*resolved).c_str(), &st) == 0;
}

bool RootFs::IsDir(std::string_view path) const {
  auto resolved = Resolve(path);
  if (!resolved) return false;
  struct stat st;
  return ::stat(HostPath(*resolved).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool RootFs::IsRegularFile(std::string_view path) const {
  auto resolved = Resolve(path);
  if (!resolved) return false;
  struct stat st;
  return ::stat(HostPath(*resolved).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

Result<std::vector<std::string>> RootFs::ReadRecords(std::string_view path,
                                                     size_t max_records) const {
  auto resolved = Resolve(path);
  if (!resolved) return resolved.error();
  int fd = ::open(HostPath(*resolved).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return FromErrno(errno, std::string(path));
  std::vector<std::string> out;
  char buf[8192];
  while (out.size() < max_records) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) continue;  // /dev/kmsg: a record was overwritten; go on with the next
      break;                         // EAGAIN: no more records
    }
    if (n == 0) break;
    out.push_back(MakeValidUtf8(std::string_view(buf, static_cast<size_t>(n))));
  }
  ::close(fd);
  return out;
}

}  // namespace dossier
