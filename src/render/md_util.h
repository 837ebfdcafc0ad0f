// Helpers shared by the Markdown sections: a fact as a table cell ("unknown (reason)" when
// unknown), a Markdown table builder, byte and size formatting.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/fact.h"
#include "view/coverage.h"

namespace dossier::md {

// Data never becomes Markdown syntax: every value from a record, the notes, a paste or a server
// passes through one of these three on its way into the document (a hostname, a note, a model id
// can hold `[c](javascript:…)`, `![t](http://…)`, backticks or a `|`).
//
// Escape: s as literal inline text, in a table cell or anywhere else. Backslash-escapes what
// could open a link, image, code span, emphasis, strikethrough, entity, autolink or cell (`\`,
// `` ` ``, `*`, `]` before `(` or `[` or at the end, `<`, `|`, `~`, `&` of an entity, `_` at a
// word's edge), what would start a block at the start of a line (`#`, `>`, `[`, `-`/`+`/`=` as
// a marker, `1.`) and a heading's closing `#`; a line break or other control character becomes a
// space. It still reads right as plain text: `total_tokens_per_s`, `a -> b`, `AT&T` and
// `[RTX PRO 6000] x` stay as they are.
std::string Escape(std::string_view s);
// Prose: dossier's own sentences with data in them (a finding's explanation, a note): their
// code spans stay code spans (sized to their content), everything else is escaped as above, so
// no link, image, emphasis or block can come out of it.
std::string Prose(std::string_view s, bool in_table = true);

std::string Str(const std::string& v);
std::string Str(int64_t v);
std::string Str(uint64_t v);
std::string Str(bool v);
std::string Str(const std::vector<std::string>& v);
std::string Str(const std::vector<int64_t>& v);
std::string Str(const std::vector<uint64_t>& v);

// The value of a fact, or "unknown (reason)"; a stale value says why it may no longer hold.
template <class T>
std::string Cell(const Fact<T>& f) {
  std::string stale = f.stale.empty() ? "" : " (stale: " + Escape(f.stale) + ")";
  if (f.value) return Escape(Str(*f.value)) + stale;
  return "unknown (" + Escape(f.unknown.empty() ? "not recorded" : f.unknown) + ")" + stale;
}

// s as an inline code span ("" for an empty s): the fence is one backtick longer than the
// longest run inside, padded with a space where s starts or ends with a backtick (or with a
// space at both ends, which CommonMark would strip); line breaks become spaces; in a table cell
// its pipes are escaped (GitHub tables take `\|` inside code as a pipe).
std::string Code(std::string_view s, bool in_table = true);
// s as a fenced code block (a fence longer than any backtick run inside, so no line of s can
// close it); control characters other than line breaks become spaces.
std::string CodeBlock(std::string_view s);
// The source of a fact as a code span, or "" when none.
template <class T>
std::string Source(const Fact<T>& f) {
  return Code(f.source);
}

// 1073741824 -> "1 GiB"; 1500000 -> "1.43 MiB".
std::string Bytes(uint64_t n);

// When a square matrix of at least two rows holds one value in every off-diagonal cell, that
// value; nullopt otherwise. A matrix like that is one sentence, not a table.
std::optional<std::string> UniformOffDiagonal(const std::vector<std::vector<std::string>>& m);

// When the machine's pastes did not cover family `f`: one sentence saying so, with what to paste,
// instead of a "none" the pastes never said; true then (the caller says nothing more).
bool NotPasted(const Coverage& c, Family f, std::string* out);
// The sentence alone ("NUMA nodes: not in the pasted outputs (paste: `numactl -H`)."); "" when
// covered.
std::string NotPastedText(const Coverage& c, Family f);

// The source line under a section: the collected paths, or where the pastes said it.
std::string SourceLine(const Coverage& c, Family f, std::string_view collected);

class Table {
 public:
  explicit Table(std::vector<std::string> header) : header_(std::move(header)) {}
  void Row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  bool empty() const { return rows_.empty(); }
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// A two-column "fact | value | source" table row helper.
class FactTable {
 public:
  template <class T>
  void Add(std::string label, const Fact<T>& f) {
    t_.Row({std::move(label), Cell(f), Source(f)});
  }
  void AddText(std::string label, std::string value, std::string source = {}) {
    t_.Row({std::move(label), std::move(value), std::move(source)});
  }
  std::string Render() const { return t_.Render(); }

 private:
  Table t_{{"fact", "value", "source"}};
};

}  // namespace dossier::md
