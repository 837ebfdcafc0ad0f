#include "import/split_session.h"

#include <regex>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

// First words a bare "$ " or "# " line must start with to be taken for a prompt: a '#' line is
// otherwise a comment (qm config, pci.cfg) and a '$' line may be text.
bool LooksLikeCommand(std::string_view cmd) {
  static const char* const kWords[] = {
      "sudo",       "nvidia-smi", "lspci",  "cat",         "dmesg",
      "journalctl", "for",        "find",   "ls",          "qm",
      "virsh",      "grep",       "python", "python3",     "./",
      "vllm",       "nccl",       "NCCL_",  "nvbandwidth", "p2pBandwidthLatencyTest",
      "dossier",    "echo",       "head",   "tail",        "bash",
      "sh",         "pvesh",      "lscpu",  "numactl",     "uname",
      "torchrun",   "mpirun",     "export", "env",         "awk",
      "sed",        "shopt"};
  for (const char* w : kWords)
    if (cmd.starts_with(w)) return true;
  return false;
}

}  // namespace

std::string PromptCommand(const std::string& line, std::string* rest) {
  // user@host:path$ cmd | user@host path]# cmd | (venv) user@host$ cmd | $ cmd | # cmd | PS> cmd
  static const std::regex kUserHost(
      R"(^\s*(?:\([^)]*\)\s*)?(?:\[)?[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+(?:[: ][^\s$#>]*)?\]?\s*[$#%>]\s*(.*)$)");
  static const std::regex kBare(R"(^\s*[$#>%]\s+(.*)$)");
  std::smatch m;
  std::string cmd;
  if (line.size() < 4096 && std::regex_match(line, m, kUserHost)) {
    cmd = m[1].str();
    // "$ sonata@coyote2:~$ sudo lspci" (a prompt pasted after a '$'): the inner one counts.
  } else if (line.size() < 4096 && std::regex_match(line, m, kBare)) {
    cmd = m[1].str();
    std::string inner_rest;
    std::string inner = PromptCommand(cmd, &inner_rest);
    if (!inner.empty()) {
      if (rest) *rest = inner_rest;
      return inner;
    }
    if (!LooksLikeCommand(cmd)) return {};
  } else {
    return {};
  }
  if (cmd.empty()) return {};
  // A paste that lost the newline after the command: the output's first line follows after a
  // tab or a long run of spaces.
  size_t cut = cmd.find('\t');
  size_t spaces = cmd.find("    ");
  if (spaces != std::string::npos && (cut == std::string::npos || spaces < cut)) cut = spaces;
  if (cut != std::string::npos) {
    if (rest) *rest = std::string(Trim(std::string_view(cmd).substr(cut)));
    cmd = std::string(Trim(std::string_view(cmd).substr(0, cut)));
  }
  return cmd;
}

namespace {

const Importer* ByCommand(const std::string& cmd) {
  const Importer* best = nullptr;
  size_t best_len = 0;
  for (const auto& imp : ImporterTable()) {
    for (const char* c : imp.commands) {
      size_t n = std::string_view(c).size();
      if (n > best_len && cmd.find(c) != std::string::npos) {
        best = &imp;
        best_len = n;
      }
    }
  }
  return best;
}

const Importer* Detect(const Lines& lines, size_t begin, size_t end) {
  Lines slice(lines.begin() + begin, lines.begin() + end);
  const Importer* best = nullptr;
  int best_score = 0;
  for (const auto& imp : ImporterTable()) {
    int s = DetectGuarded(imp, slice);
    if (s > best_score) {
      best = &imp;
      best_score = s;
    }
  }
  return best;
}

// "root@pve:~# " with nothing after it: the prompt a terminal shows after the last command. It
// ends the output above it (else it is read as a line of that output: "unknown key 'root@pve'").
bool EmptyPrompt(const std::string& line) {
  static const std::regex kEmpty(
      R"(^\s*(?:\([^)]*\)\s*)?(?:\[)?[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+(?:[: ][^\s$#>]*)?\]?\s*[$#%>]\s*$)");
  return line.size() < 4096 && std::regex_match(line, kEmpty);
}

bool Blank(const Lines& lines, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i)
    if (!Trim(lines[i].text).empty()) return false;
  return true;
}

}  // namespace

std::vector<Part> SplitSession(Lines* lines_in, const Importer* forced) {
  Lines& lines = *lines_in;
  // 1. Prompts cut the text into segments, each with its command; a line glued after a command
  //    becomes the segment's first line (same line number).
  struct Segment {
    size_t begin, end;
    std::string command;
  };
  std::vector<Segment> segs;
  Lines out;
  out.reserve(lines.size());
  size_t seg_begin = 0;
  std::string seg_cmd;
  for (auto& l : lines) {
    std::string rest;
    std::string cmd = PromptCommand(l.text, &rest);
    // A prompt glued after markup a chat or a web page left ("</pre><p>root@pve:~# lscpu").
    if (cmd.empty() && l.text.find('<') != std::string::npos && l.text.size() < 4096)
      cmd = PromptCommand(StripMarkup(l.text), &rest);
    if (!cmd.empty()) {
      if (out.size() > seg_begin || !seg_cmd.empty())
        segs.push_back({seg_begin, out.size(), seg_cmd});
      seg_begin = out.size();
      seg_cmd = cmd;
      if (!rest.empty()) out.push_back({l.number, rest});
      continue;
    }
    if (EmptyPrompt(l.text)) {
      if (out.size() > seg_begin || !seg_cmd.empty())
        segs.push_back({seg_begin, out.size(), seg_cmd});
      seg_begin = out.size();
      seg_cmd.clear();
      continue;
    }
    out.push_back(std::move(l));
  }
  if (out.size() > seg_begin || !seg_cmd.empty()) segs.push_back({seg_begin, out.size(), seg_cmd});
  lines = std::move(out);

  std::vector<Part> parts;
  for (const auto& s : segs) {
    if (forced) {
      if (!Blank(lines, s.begin, s.end)) parts.push_back({s.begin, s.end, s.command, forced});
      continue;
    }
    const Importer* by_cmd = s.command.empty() ? nullptr : ByCommand(s.command);
    if (by_cmd) {
      // A command that printed nothing is no part: every part has a line (ImportText and the
      // importers read its first and last).
      if (!Blank(lines, s.begin, s.end)) parts.push_back({s.begin, s.end, s.command, by_cmd});
      continue;
    }
    // 2. Without a command: cut where another format's output begins.
    size_t cur = s.begin;
    const Importer* cur_imp = nullptr;
    for (size_t i = s.begin; i < s.end; ++i) {
      const Importer* starting = nullptr;
      for (const auto& imp : ImporterTable()) {
        if (StartsGuarded(imp, lines, i)) {
          starting = &imp;
          break;
        }
      }
      if (!starting || starting == cur_imp) continue;
      if (i > cur && !Blank(lines, cur, i)) {
        parts.push_back({cur, i, s.command, cur_imp ? cur_imp : Detect(lines, cur, i)});
      }
      cur = i;
      cur_imp = starting;
    }
    if (s.end > cur && !Blank(lines, cur, s.end)) {
      const Importer* imp = cur_imp ? cur_imp : Detect(lines, cur, s.end);
      parts.push_back({cur, s.end, s.command, imp});
    }
  }
  return parts;
}

}  // namespace dossier::import
