#include "import/paste_text.h"

#include <cstdio>

#include "import/import_text.h"

namespace dossier::import {
namespace {

// Length of the valid UTF-8 sequence at s[i], 0 when the byte does not start one.
size_t Utf8Len(std::string_view s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  if (n == 2 && c < 0xC2) return 0;  // overlong
  return n;
}

std::string Escaped(unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", c);
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
    if (u >= 0x80) {
      size_t n = Utf8Len(line, i);
      if (n == 0) {
        out += Escaped(u);
        continue;
      }
      out.append(line.substr(i, n));
      i += n - 1;
      continue;
    }
    out.push_back(c);
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
  return out;
}

Result<Paste> ReadPaste(std::string_view bytes, const std::string& file) {
  if (bytes.size() > kMaxPasteBytes) {
    return Error::TooLarge(
        file + ": " + std::to_string(bytes.size() >> 20) + " MiB is more than an import reads (" +
        std::to_string(kMaxPasteBytes >> 20) + " MiB); pass only the outputs that matter");
  }
  Paste p;
  p.text.reserve(bytes.size());
  size_t line_no = 1, line_start = 0, control = 0;
  for (size_t i = 0; i <= bytes.size(); ++i) {
    bool end = i == bytes.size();
    if (end || bytes[i] == '\n') {
      std::string_view raw = bytes.substr(line_start, i - line_start);
      if (raw.size() > kMaxLineBytes) {
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
      p.text.push_back('\n');
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
    size_t n = Utf8Len(bytes, i);
    if (n == 0) {
      p.text += Escaped(c);  // CleanLine escapes it the same way in the line
      continue;
    }
    p.text.append(bytes.substr(i, n));
    i += n - 1;
  }
  return p;
}

}  // namespace dossier::import
