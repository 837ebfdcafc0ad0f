// Editing notes.toml without losing what a person wrote. toml++ can write a table back out, but
// that drops every comment and reorders keys, so edits here are made on the text itself: a new
// entry is appended as text, and a value is replaced (or a key inserted) at the span toml++
// reports for it. After every edit the whole text is parsed again (store/notes_file.h) and the
// edit is refused when it would not parse. Saving keeps the previous file as notes.toml.bak and
// replaces the file atomically.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "model/notes.h"
#include "store/regular_file.h"
#include "util/result.h"

namespace dossier {

struct NoteField {
  std::string key;
  std::variant<std::string, bool, int64_t, double> value;
};

class NotesEditor {
 public:
  // The file's text, or a short header comment for a file that does not exist yet. A file that
  // does not parse is an error with its line; nothing is changed then.
  static Result<NotesEditor> Open(const std::string& path);
  // Edits `text` as the content of `path` (tests; Open uses it).
  static Result<NotesEditor> FromText(std::string text, const std::string& path, bool existed);

  const std::string& text() const { return text_; }
  const Notes& notes() const { return notes_; }

  // Sets [goal] text (replaces the value, or adds the key or the section).
  Status SetGoal(const std::string& goal);
  // Appends a [[section]] entry with these fields, in this order.
  Status Append(const std::string& section, const std::vector<NoteField>& fields);
  // Sets fields of the index-th [[section]] entry (0-based, file order): an existing key's value
  // is replaced in place, a missing key is added after the entry's last line.
  Status Update(const std::string& section, size_t index, const std::vector<NoteField>& fields);

  // Backs up the previous file (path + ".bak") and replaces it atomically; refuses (kInvalid)
  // when the file changed since Open read it. The caller holds the DossierLock from Open to Save
  // (store/dossier_lock.h), so dossier commands wait for each other instead of being refused.
  Status Save() const;

 private:
  NotesEditor(std::string path, std::string text, bool existed)
      : path_(std::move(path)), text_(std::move(text)), existed_(existed) {}
  // Accepts `candidate` as the new text when it parses as notes.
  Status Accept(std::string candidate);
  Status SetField(const std::string& section, size_t index, const NoteField& f);

  std::string path_;
  std::string text_;
  std::string original_;
  bool existed_ = false;
  FileStamp stamp_;  // the version Open read
  Notes notes_;
};

// The text a new notes file starts with.
extern const char* const kNotesHeader;

}  // namespace dossier
