// RootFs: the only door to the file system for probes. Every path a probe names is a path on the
// machine being described ("/sys/bus/pci/devices"); RootFs reads it under a root directory, "/" for
// the live machine or a captured tree for another one. Symbolic links are resolved here, component
// by component, so an absolute link inside the tree (/proc/PID/exe -> /usr/bin/python3) stays
// under the root instead of escaping to the machine running the tool.
//
// Reads are bounded (a probe never loads a multi-gigabyte file by mistake) and failures come back
// as Error values whose kind tells "file absent" from "needs root". Only regular files are read:
// a FIFO, socket or device under the root is refused (it could block or never end).
//
// RootFs is the door for text from the machine: everything it returns (contents, names, link
// targets) is valid UTF-8, invalid bytes written as "\xNN" (util/utf8.h), and cuts at a byte
// limit fall on character boundaries. ReadBytes alone returns raw bytes, for binary files.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "util/result.h"

namespace dossier {

class RootFs {
 public:
  // `root` is a directory on this machine; "/" means the live machine.
  explicit RootFs(std::string root = "/");

  // Checks that the root exists and is a directory (a clear error for --root typos).
  Status Check() const;

  bool live() const { return live_; }
  const std::string& root() const { return root_; }

  // Whole file, at most max_bytes (more is Error::kTooLarge), as valid UTF-8. Works for sysfs and
  // procfs files, which report a size of 4096 or 0.
  Result<std::string> Read(std::string_view path, size_t max_bytes = kDefaultMax) const;
  // The same, bytes as they are: for binary files (PCI config space), never for text.
  Result<std::string> ReadBytes(std::string_view path, size_t max_bytes = kDefaultMax) const;
  // The end of a file that grows without bound (a log): its last max_bytes at most. When the file
  // is longer, the text starts after the first newline of that tail, so no partial line is
  // returned.
  Result<std::string> ReadTail(std::string_view path, size_t max_bytes) const;
  // The first max_bytes of a file (less when it is shorter); for headers of files whose tail may
  // be large (a package's METADATA carries its whole README after the headers).
  Result<std::string> ReadPrefix(std::string_view path, size_t max_bytes) const;
  // First line, surrounding white space removed: the shape of most sysfs attributes.
  Result<std::string> ReadValue(std::string_view path) const;
  // Entry names of a directory, sorted, without "." and "..".
  Result<std::vector<std::string>> List(std::string_view dir) const;
  // The raw target of a symbolic link, as stored.
  Result<std::string> ReadLink(std::string_view path) const;
  // The machine path with every link resolved under the root (like realpath, but rooted).
  Result<std::string> Resolve(std::string_view path) const;
  bool Exists(std::string_view path) const;
  bool IsDir(std::string_view path) const;
  // A regular file (links followed under the root): what a library that opens files itself
  // (libpci's pci.ids) may be given, never a FIFO that would block it.
  bool IsRegularFile(std::string_view path) const;
  // Records of a character device such as /dev/kmsg, read without blocking until none is left.
  Result<std::vector<std::string>> ReadRecords(std::string_view path, size_t max_records) const;

  // Where a machine path lies on this machine (no link resolution); for libraries that need a
  // host path, and for messages.
  std::string HostPath(std::string_view path) const;

  static constexpr size_t kDefaultMax = 16u << 20;

 private:
  std::string root_;  // without trailing slash; "" for "/"
  bool live_;
  // Machine paths already seen to be directories, not links: Resolve skips their lstat. A
  // collect reads ~400 files under a few dozen directories, and checking every component of
  // every path was ~4,000 lstat calls, a fifth of its run time. Links' targets likewise (every
  // read of /sys/bus/pci/devices/X/… went through the link X again: lstat and readlink), except
  // under the live /proc, where a link (/proc/PID/cwd, fd/N) may point elsewhere a moment later.
  // Shared by copies; guarded, as a RootFs may be read from more than one thread.
  struct DirCache {
    std::mutex mu;
    std::unordered_set<std::string> dirs;
    std::unordered_map<std::string, std::string> links;  // machine path -> readlink text
  };
  // Opens a file for reading, links followed under the root: the directory part through
  // Resolve (the caches), the last component with O_NOFOLLOW, and only a last component that is
  // a link takes the whole walk.
  Result<int> OpenForRead(std::string_view path) const;
  std::shared_ptr<DirCache> dir_cache_ = std::make_shared<DirCache>();
};

// Joins machine paths: Join("/sys/bus", "pci") == "/sys/bus/pci".
std::string JoinPath(std::string_view a, std::string_view b);
// The last component ("/a/b/c" -> "c").
std::string_view BaseName(std::string_view path);
// Everything before the last component ("/a/b/c" -> "/a/b").
std::string_view DirName(std::string_view path);

}  // namespace dossier
