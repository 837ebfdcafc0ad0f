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

// A record as Load lists it: its header (the top-level strings, store/record_header.h), without
// its body. The body is parsed only where a command uses it (RecordDoc), one record at a time,
// so memory does not grow with the dossier (issue #12).
struct Record {
  std::string file;      // path of the record file
  int64_t sequence = 0;  // order of writing
  std::string kind;      // "collect", "p2p", "serve-bench", …
  std::string time;      // ISO 8601, UTC
  std::string machine;   // machine name the record is about (may be empty)
  // The whole record when it is held in memory (a one-shot collect, an import shown without
  // storing, a fleet file; FillHeaderFromDoc sets the fields below); null for records Load
  // listed: RecordDoc reads those.
  nlohmann::json doc;
  std::string tool;               // "dossier 0.1.0"
  std::string boot_id, hostname;  // top-level: of the machine a measurement ran on
  std::string root;               // top-level "root" of a collect ("/" for the live machine)
  bool has_root = false;
  bool machine_object = false;  // "machine" is an object (a collect or an import)
};

// Fills the header fields of a record held in memory (kind, time and machine are left as set)
// from its doc.
void FillHeaderFromDoc(Record* r);

// The record's whole document: r.doc when it is held, else r.file parsed into *scratch (the
// caller drops it when done). nullptr, with a warning naming the file, when the file no longer
// reads as it did when listed.
const nlohmann::json* RecordDoc(const Record& r, nlohmann::json* scratch,
                                std::vector<std::string>* warnings);

class DossierDir {
 public:
  explicit DossierDir(std::string path) : path_(std::move(path)) {}
  const std::string& path() const { return path_; }

  // Writes doc (which must carry "kind"; "schema" and "time" are added when absent) as a new
  // record and returns its file path. Creates the directory when needed.
  Result<std::string> Append(nlohmann::json doc, std::string_view machine) const;

  // Every readable record, oldest first, as headers (Record::doc null). Files that are not valid
  // records (truncated, binary, another schema, too large) are named in `warnings` and skipped;
  // nothing is modified. Each file is read through once, streaming; none is held.
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
