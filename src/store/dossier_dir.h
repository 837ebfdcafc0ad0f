// DossierDir: a dossier on disk. A directory (default ./dossier) holding append-only records,
// one JSON file per collect, import, note or measurement, under records/, plus the human-edited
// notes file. Records are written atomically (temporary file, fsync, link to a name nobody has
// taken) and never replaced; a record that cannot be read is reported by name and skipped.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace dossier {

struct Record {
  std::string file;      // path of the record file
  int64_t sequence = 0;  // order of writing
  std::string kind;      // "collect", "p2p", "serve-bench", …
  std::string time;      // ISO 8601, UTC
  std::string machine;   // machine name the record is about (may be empty)
  nlohmann::json doc;    // the whole record
};

class DossierDir {
 public:
  explicit DossierDir(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }

  // Writes doc (which must carry "kind"; "schema" and "time" are added when absent) as a new
  // record and returns its file path. Creates the directory when needed.
  Result<std::string> Append(nlohmann::json doc, std::string_view machine) const;

  // Every readable record, oldest first. Files that are not valid records (truncated, binary,
  // another schema, too large) are named in `warnings` and skipped; nothing is modified.
  Result<std::vector<Record>> Load(std::vector<std::string>* warnings) const;

  std::string records_dir() const { return path_ + "/records"; }
  std::string notes_path() const { return path_ + "/notes.toml"; }

  static constexpr size_t kMaxRecordBytes = 256u << 20;

 private:
  std::string path_;
};

// Writes `data` to `path` atomically: a temporary file beside it, fsync, then a hard link to
// `path`, which fails rather than replace an existing file. With replace=true it renames instead
// (for files a person edits, after their old content has been kept).
Status WriteFileAtomic(const std::string& path, std::string_view data, bool replace = false);

// Current time as "2026-12-02T16:30:00Z".
std::string NowIso8601();

}  // namespace dossier
