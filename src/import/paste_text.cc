#include "import/paste_text.h"

#include <cstdio>

#include "import/import_text.h"
#include "util/text.h"
#include "util/utf8.h"

namespace dossier::import {
namespace {

std::string Escaped(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

}  // namespace

std::string CleanLine(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\x1b') {
      // CSI: ESC [ params final-byte; OSC: ESC ] … BEL or ESC \; anything else: ESC + one byte.
      if (i + 1 < line.size() && line[i + 1] == '[') {
        size_t j = i + 2;
        while (j < line.size() && (line[j] < 0x40 || line[j] > 0x7e)) ++j;
        i = j;
      } else if (i + 1 < line.size() && line[i + 1] == ']') {
        size_t j = i + 2;
        while (j < line.size() && line[j] != '\x07' && line[j] != '\x1b') ++j;
        if (j < line.size() && line[j] == '\x1b') ++j;
        i = j;
      } else {
        ++i;
      }
      continue;
    }
    if (c == '\r') continue;
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t') {
      out += Escaped(u);  // stray control bytes stay visible, never raw
      continue;
    }
    out.push_back(c);
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
  MakeValidUtf8InPlace(&out);  // the project's one door: invalid bytes become visible \xNN
  return out;
}

Result<Paste> ReadPaste(std::string_view bytes, const std::string& file) {
  if (bytes.size() > kMaxPasteBytes) {
    return Error::TooLarge(
        file + ": " + std::to_string(bytes.size() >> 20) + " MiB is more than an import reads (" +
        std::to_string(kMaxPasteBytes >> 20) + " MiB); pass only the outputs that matter");
  }
  Paste p;
  size_t line_no = 1, line_start = 0, control = 0;
  for (size_t i = 0; i <= bytes.size(); ++i) {
    bool end = i == bytes.size();
    if (end || bytes[i] == '\n') {
      std::string_view raw = bytes.substr(line_start, i - line_start);
      // A compact JSON document (collect --format json, nvbandwidth -j) is one long line: a line
      // that opens a JSON object and ends closing one may be as long as a whole paste.
      std::string_view rt = Trim(raw);
      bool json_line = rt.size() > 1 && rt.front() == '{' && rt.back() == '}';
      if (raw.size() > kMaxLineBytes && !json_line) {
        return Error::Invalid(file + ":" + std::to_string(line_no) + ": a line of " +
                              std::to_string(raw.size()) + " bytes (at most " +
                              std::to_string(kMaxLineBytes) +
                              " are read): not a pasted command output; was a binary file "
                              "given, or were the newlines lost?");
      }
      if (!(end && raw.empty())) {
        std::string clean = CleanLine(raw);
        if (IsElision(clean)) {
          p.notes.push_back("line " + std::to_string(line_no) + ": '" + clean +
                            "' (a part was left out of the paste; what follows is read on)");
        } else {
          p.lines.push_back({line_no, std::move(clean)});
        }
      }
      if (end) break;
      ++line_no;
      line_start = i + 1;
      continue;
    }
    unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (c == 0) {
      return Error::Invalid(file + ":" + std::to_string(line_no) + ": a NUL byte (column " +
                            std::to_string(i - line_start + 1) +
                            "): this is binary data, not a pasted text output");
    }
    if (c < 0x20 && c != '\t' && c != '\r' && c != '\x1b' && c != '\f') {
      // A few stray control bytes happen in pastes; many mean a binary file.
      if (++control > 64 && control * 20 > i) {
        return Error::Invalid(file + ":" + std::to_string(line_no) +
                              ": control bytes throughout: this looks like binary data, not a "
                              "pasted text output");
      }
    }
  }
  p.text = MakeValidUtf8(bytes);  // kept as pasted; CleanLine escapes the same bytes the same way
  return p;
}

}  // namespace dossier::import
