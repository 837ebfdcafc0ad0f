// Reading a file of the dossier (a record, notes.toml) safely: opened without blocking, refused
// unless it is a regular file (a FIFO named notes.toml would hang every command), bounded in
// size, and returned with a stamp that tells later whether the file changed since.
#pragma once

#include <cstdint>
#include <string>

#include <sys/stat.h>

#include "util/result.h"

namespace dossier {

// What identifies one version of a file: a person's editor replacing it changes the inode or
// the modification time; the content comparison catches writers that keep both.
struct FileStamp {
  bool existed = false;
  uint64_t device = 0, inode = 0, size = 0;
  int64_t mtime_ns = 0;
  bool operator==(const FileStamp&) const = default;
};

// The file opened for reading (the caller closes the descriptor) under the same checks as
// ReadRegularFile; `st` (optional) receives its status. For readers that stream it.
Result<int> OpenRegularFile(const std::string& path, size_t max_bytes, struct stat* st = nullptr);

// The file's bytes; Error::kNotFound when absent, kInvalid when not a regular file, kTooLarge
// beyond max_bytes. `stamp` (optional) receives the version read.
Result<std::string> ReadRegularFile(const std::string& path, size_t max_bytes,
                                    FileStamp* stamp = nullptr);
// The version of the file now (existed=false when absent).
FileStamp StampOf(const std::string& path);

}  // namespace dossier
