// Helpers for importers that hand a whole part to a parser written for files (src/hypervisor/,
// pugixml): the part's lines joined back into one text, the parser's "NAME:LINE" sources turned
// into the pasted file's lines, and XML that a paste cut off closed where it stopped so that what
// is complete can still be read.
#pragma once

#include <cctype>
#include <string>
#include <type_traits>

#include "import/importer.h"
#include "model/fact_paths.h"
#include "util/text.h"

namespace dossier::import {

// The part's lines as one text: line k of the text is lines[k-1].
inline std::string JoinPartLines(const Lines& lines) {
  std::string t;
  for (const auto& l : lines) t += l.text + "\n";
  return t;
}

// A parser named its sources "NAME:K…" (K a line of the joined text) or "NAME…"; these become
// "imported: FILE:LINE (format)…" with LINE the pasted file's line.
inline std::string RemapPartSource(const std::string& source, const std::string& name,
                                   const Lines& lines, const ImportSource& src) {
  size_t first = lines.empty() ? 0 : lines.front().number;
  if (source.rfind(name + ":", 0) != 0) {
    if (source == name || source.rfind(name + " ", 0) == 0)
      return src.At(first) + source.substr(name.size());
    return source;
  }
  size_t at = name.size() + 1, end = at;
  while (end < source.size() && std::isdigit(static_cast<unsigned char>(source[end]))) ++end;
  auto k = ParseInt(std::string_view(source).substr(at, end - at));
  size_t line = k && *k >= 1 && static_cast<size_t>(*k) <= lines.size()
                    ? lines[static_cast<size_t>(*k) - 1].number
                    : first;
  return src.At(line) + source.substr(end);
}

// A parser's problem "NAME:K: what" (or "NAME: what") as a person reads it: "FILE:LINE: what",
// LINE the pasted file's line (the parser's internal name never shown).
inline std::string RemapPartProblem(const std::string& problem, const std::string& name,
                                    const Lines& lines, const ImportSource& src) {
  if (problem.rfind(name, 0) != 0) return problem;
  size_t at = name.size(), end = at;
  size_t line = lines.empty() ? 0 : lines.front().number;
  if (at < problem.size() && problem[at] == ':') {
    end = at + 1;
    while (end < problem.size() && std::isdigit(static_cast<unsigned char>(problem[end]))) ++end;
    auto k = ParseInt(std::string_view(problem).substr(at + 1, end - at - 1));
    if (k && *k >= 1 && static_cast<size_t>(*k) <= lines.size())
      line = lines[static_cast<size_t>(*k) - 1].number;
    else
      end = at;  // "NAME: what": no line of its own
  }
  std::string rest = problem.substr(end);
  if (!rest.empty() && rest[0] != ':') rest = ":" + rest;
  return src.file + ":" + std::to_string(line) + rest;
}

template <class T>
void RemapPartSources(T* obj, const std::string& name, const Lines& lines,
                      const ImportSource& src) {
  WalkPaths(*obj, [&](const std::string&, auto& leaf) {
    if constexpr (IsFactType<std::remove_reference_t<decltype(leaf)>>::value)
      leaf.source = RemapPartSource(leaf.source, name, lines, src);
  });
}

// XML a paste cut off: the text up to the last complete tag, with the elements still open
// closed in order. pugixml has no recovery mode (it stops at the first error), so this small
// tag scanner (quotes, comments, <?…?> and <!…> respected) finds where the text stopped.
struct CutXml {
  bool cut = false;       // the text needed closing
  std::string text;       // what pugixml is given
  size_t stopped_at = 0;  // 1-based line of the joined text where the last complete tag ended
  std::string open;       // the elements left open, outermost first: "domain/devices/hostdev"
};
CutXml CloseCutXml(const std::string& xml);

}  // namespace dossier::import
