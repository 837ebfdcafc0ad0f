#include "store/notes_edit.h"

#include <sys/stat.h>

#include <toml++/toml.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "store/dossier_dir.h"
#include "store/notes_file.h"
#include "store/regular_file.h"
#include "util/redact.h"

namespace dossier {

const char* const kNotesHeader =
    "# Notes for this dossier: what only a person knows (the goal and its targets, how to work\n"
    "# on each machine, BIOS settings, what was tried, next steps, files that matter).\n"
    "# Edit freely: `dossier note …` adds entries and keeps your comments and layout.\n"
    "# Sections: [goal], [[target]], [[machine]], [[fact]], [[tried]], [[next]], [[file]].\n";

namespace {

// A TOML basic string ("…" with escapes, TOML 1.0 section 'String'). toml++ would write a
// literal string ('…') where it can; people write "…", so a file keeps one style.
std::string BasicString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04X", c);
          out += buf;
        } else {
          out += static_cast<char>(c);  // UTF-8 passes through; toml++ validates it on re-parse
        }
    }
  }
  return out + "\"";
}

// Every string a note stores passes the paste rules first (util/redact.h): a step tried with
// `--api-key X`, a fact holding `HF_TOKEN=…`, a verify command with a URL's password are stored
// redacted, whoever typed them (a person at the CLI, an assistant through `dossier mcp`).
std::string Serialize(const NoteField& f) {
  if (const auto* s = std::get_if<std::string>(&f.value)) return BasicString(RedactPaste(*s));
  std::ostringstream os;  // numbers and booleans as toml++ writes them
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (!std::is_same_v<T, std::string>) os << toml::value<T>(v);
      },
      f.value);
  return os.str();
}

std::string LineEnding(const std::string& text) {
  return text.find("\r\n") != std::string::npos ? "\r\n" : "\n";
}

// Byte offset of (line, column) as toml++ counts them: both from 1, columns in code points.
size_t Offset(const std::string& text, uint32_t line, uint32_t column) {
  size_t pos = 0;
  for (uint32_t l = 1; l < line && pos < text.size(); ++l) {
    size_t nl = text.find('\n', pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
  }
  for (uint32_t c = 1; c < column && pos < text.size(); ++c) {
    ++pos;  // past the lead byte, then past continuation bytes (10xxxxxx)
    while (pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) ++pos;
  }
  return pos;
}

// Offset of the start of the line after `line`.
size_t AfterLine(const std::string& text, uint32_t line) {
  return Offset(text, line + 1, 1);
}

toml::table Parse(const std::string& text, const std::string& path) {
  return toml::parse(text, std::string_view(path));  // the text was accepted: it parses
}

const toml::table* Entry(const toml::table& root, const std::string& section, size_t index) {
  const toml::array* arr = root[section].as_array();
  if (!arr || index >= arr->size()) return nullptr;
  return (*arr)[index].as_table();
}

// The last line of an entry: its header, or the end of its last value.
uint32_t LastLine(const toml::table& t) {
  uint32_t last = t.source().begin.line;
  for (const auto& [k, v] : t) last = std::max(last, v.source().end.line);
  return last;
}

}  // namespace

Result<NotesEditor> NotesEditor::FromText(std::string text, const std::string& path, bool existed) {
  NotesEditor e(path, "", existed);
  e.original_ = text;
  if (auto s = e.Accept(std::move(text)); !s) return s.error();
  return e;
}

Result<NotesEditor> NotesEditor::Open(const std::string& path) {
  FileStamp stamp;
  auto text = ReadRegularFile(path, kMaxNotesBytes, &stamp);
  if (!text) {
    if (text.error().kind != Error::kNotFound) return text.error();
    auto e = FromText(kNotesHeader, path, false);
    if (e) e->stamp_ = FileStamp{};
    return e;
  }
  auto e = FromText(std::move(*text), path, true);
  if (e) e->stamp_ = stamp;
  return e;
}

Status NotesEditor::Accept(std::string candidate) {
  auto n = ParseNotes(candidate, path_);
  if (!n) return n.error();
  text_ = std::move(candidate);
  notes_ = std::move(*n);
  return OkStatus();
}

Status NotesEditor::Append(const std::string& section, const std::vector<NoteField>& fields) {
  std::string nl = LineEnding(text_);
  std::string t = text_;
  if (!t.empty() && t.back() != '\n') t += nl;
  if (!t.empty()) t += nl;
  t += "[[" + section + "]]" + nl;
  for (const auto& f : fields) t += f.key + " = " + Serialize(f) + nl;
  return Accept(std::move(t));
}

Status NotesEditor::SetField(const std::string& section, size_t index, const NoteField& f) {
  toml::table root = Parse(text_, path_);
  const toml::table* entry =
      section == "goal" ? root["goal"].as_table() : Entry(root, section, index);
  if (!entry) return Error::Invalid("no [[" + section + "]] entry " + std::to_string(index + 1));
  std::string t = text_;
  std::string value = Serialize(f);
  if (const toml::node* old = entry->get(f.key)) {
    const auto& r = old->source();
    size_t b = Offset(t, r.begin.line, r.begin.column), e = Offset(t, r.end.line, r.end.column);
    t.replace(b, e - b, value);
  } else if (entry->is_inline()) {
    // An entry written as an inline table (next = [{ do = "a" }]): the key goes inside its
    // braces, since a line after it would be a key of the enclosing table.
    const auto& r = entry->source();
    size_t p = Offset(t, r.end.line, r.end.column);
    bool at_brace = p < t.size() && t[p] == '}';
    if (!at_brace && p > 0 && p <= t.size() && t[p - 1] == '}') {
      --p;  // the region ends just past the brace
    } else if (!at_brace) {
      return Error::Invalid(path_ + ":" + std::to_string(r.begin.line) +
                            ": cannot find the end of this inline table; edit it by hand");
    }
    size_t at = p;
    while (at > 0 && (t[at - 1] == ' ' || t[at - 1] == '\t')) --at;
    bool empty = at > 0 && t[at - 1] == '{';
    t.insert(at, (empty ? " " : ", ") + f.key + " = " + value + (empty ? " " : ""));
  } else {
    size_t at = AfterLine(t, LastLine(*entry));
    std::string nl = LineEnding(t);
    if (at == t.size() && !t.empty() && t.back() != '\n') t += nl, at = t.size();
    t.insert(at, f.key + " = " + value + nl);
  }
  return Accept(std::move(t));
}

Status NotesEditor::Update(const std::string& section, size_t index,
                           const std::vector<NoteField>& fields) {
  // One field at a time, re-parsing in between, so every span is read from the current text.
  for (const auto& f : fields)
    if (auto s = SetField(section, index, f); !s) return s;
  return OkStatus();
}

Status NotesEditor::SetGoal(const std::string& goal) {
  NoteField f{"text", goal};
  toml::table root = Parse(text_, path_);
  if (root["goal"].as_table()) return SetField("goal", 0, f);
  // A new [goal] goes before the first section (and the comment lines right above it), so the
  // file reads goal-first; with no section it is appended.
  uint32_t first = 0;
  for (const auto& [k, v] : root) {
    uint32_t line = v.source().begin.line;
    if (const toml::array* a = v.as_array(); a && !a->empty()) line = (*a)[0].source().begin.line;
    if (line > 0 && (first == 0 || line < first)) first = line;
  }
  std::string nl = LineEnding(text_);
  std::string block = "[goal]" + nl + "text = " + Serialize(f) + nl;
  std::string t = text_;
  if (first == 0) {
    if (!t.empty() && t.back() != '\n') t += nl;
    if (!t.empty()) t += nl;
    return Accept(t + block);
  }
  while (first > 1) {
    size_t b = Offset(t, first - 1, 1);
    if (t.compare(b, 1, "#") != 0) break;
    --first;
  }
  t.insert(Offset(t, first, 1), block + nl);
  return Accept(std::move(t));
}

Status NotesEditor::Save() const {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::path(path_).parent_path();
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (ec) return Error::Io("cannot create " + dir.string() + ": " + ec.message());
  // Never replace a version this editor did not read: a person may have saved notes.toml from an
  // editor meanwhile (which takes no lock). The stamp catches a new inode or time, the content
  // catches a writer that kept both. A window of microseconds remains between this check and
  // the rename; no file system call closes it for a writer that does not lock.
  FileStamp now = StampOf(path_);
  bool changed = !(now == stamp_);
  if (!changed && now.existed) {
    auto current = ReadRegularFile(path_, kMaxNotesBytes);
    changed = !current || *current != original_;
  }
  if (changed)
    return Error::Invalid(path_ +
                          " changed since it was read (edited by someone else?); this edit was "
                          "not saved, so nothing of theirs is lost: run the command again");
  // The previous version stays beside the file, so an unwanted edit can be undone by hand.
  if (existed_) {
    if (auto s = WriteFileAtomic(path_ + ".bak", original_, /*replace=*/true); !s) return s;
  }
  return WriteFileAtomic(path_, text_, /*replace=*/true);
}

}  // namespace dossier
