// NVIDIA nvbandwidth: its plain-text output and its JSON (`nvbandwidth -j`). Becomes one p2p
// measurement in the form `dossier p2p` writes (tool "nvbandwidth"), a result per ordered pair
// (or host and GPU) and mode. What the output looks like is read off nvbandwidth's sources
// (output.cpp, json_output.cpp, testcases_*.cpp; versions 0.4-0.8): "Device N: NAME
// (DDDDDDDD:BB:DD)", then per test case "Running NAME." and a matrix under its description
// ("memcpy CE GPU(row) <- GPU(column) bandwidth (GB/s)"), values or N/A, then "SUM NAME total";
// a test case that cannot run prints "Waived: " (older versions "Waiving NAME."), one that fails
// "Error: …". In JSON: nvbandwidth.testcases[] with name, status (Passed, Waived, Error),
// bandwidth_description and bandwidth_matrix (rows of strings), and "GPU Device list".
//
// Modes, by the data's direction (from the sources: a write copy runs in the row GPU's context
// from row to column; a read copy in the row GPU's context from column to row):
//   device_to_device_memcpy_write_*   uni-p2p        src row, dst column
//   device_to_device_memcpy_read_*    uni-p2p-read   src column, dst row
//   device_to_device_bidirectional_memcpy_write_* / _read_*: the "Total" matrix (both
//                                     directions together) as bi-p2p / bi-p2p-read; the
//                                     per-direction matrices and the single matrix of versions
//                                     before 0.6 (one direction under load) are not kept
//   host_to_device_memcpy_* / device_to_host_memcpy_*                       h2d / d2h
//   host_to_device_bidirectional_memcpy_* / device_to_host_bidirectional_*  bi-h2d / bi-d2h
//   device_to_device_latency_sm       latency-p2p (ns in the output, latency_us here)
//   host_device_latency_sm            latency-host
// SM copies (_sm) get "-sm" after the mode: they are kernels, not the copy engines that
// cudaMemcpyPeer and NCCL use. Test cases that are not one copy per pair (all_to_host,
// host_to_all, all_to_one, one_to_all, device_local_copy, multinode_*) are not kept, and the
// notes say so. An off-diagonal N/A (no peer access) is a result with verdict "waived"; a waived
// test case is one result with verdict "waived" and src = dst = -1 (the test case names no pair).
// The buffer size is the pasted command's --bufferSize / -b (MiB), else nvbandwidth's default
// 512 MiB, said in the notes; the latency tests use 2 MiB whatever the flag says.
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>

#include "import/import_text.h"
#include "import/part_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

constexpr uint64_t kNvbMiB = 1024 * 1024;
constexpr uint64_t kNvbDefaultBuffer = 512 * kNvbMiB;
constexpr uint64_t kNvbLatencyBuffer = 2 * kNvbMiB;

// How a test case's matrix becomes results.
struct NvbKind {
  std::string mode;  // empty: not kept (skip says why)
  std::string skip;
  enum Shape { kPair, kHostToGpu, kGpuToHost } shape = kPair;
  bool swap = false;  // src = column, dst = row
  bool latency = false;
  bool bidir_p2p = false;  // only the Total matrix is kept
};

NvbKind NvbKindOf(const std::string& name) {
  NvbKind k;
  bool sm = name.ends_with("_sm"), ce = name.ends_with("_ce");
  std::string base = sm || ce ? name.substr(0, name.size() - 3) : name;
  std::string suffix = sm ? "-sm" : "";
  if (name.rfind("multinode", 0) == 0) {
    k.skip = "a multinode test (GPUs of other machines)";
  } else if (name == "device_to_device_latency_sm") {
    k.mode = "latency-p2p";
    k.latency = true;
  } else if (name == "host_device_latency_sm") {
    k.mode = "latency-host";
    k.latency = true;
    k.shape = NvbKind::kHostToGpu;
  } else if (base == "device_to_device_memcpy_write") {
    k.mode = "uni-p2p" + suffix;
  } else if (base == "device_to_device_memcpy_read") {
    k.mode = "uni-p2p-read" + suffix;
    k.swap = true;
  } else if (base == "device_to_device_bidirectional_memcpy_write") {
    k.mode = "bi-p2p" + suffix;
    k.bidir_p2p = true;
  } else if (base == "device_to_device_bidirectional_memcpy_read") {
    k.mode = "bi-p2p-read" + suffix;
    k.bidir_p2p = true;
  } else if (base == "host_to_device_memcpy") {
    k.mode = "h2d" + suffix;
    k.shape = NvbKind::kHostToGpu;
  } else if (base == "device_to_host_memcpy") {
    k.mode = "d2h" + suffix;
    k.shape = NvbKind::kGpuToHost;
  } else if (base == "host_to_device_bidirectional_memcpy") {
    k.mode = "bi-h2d" + suffix;
    k.shape = NvbKind::kHostToGpu;
  } else if (base == "device_to_host_bidirectional_memcpy") {
    k.mode = "bi-d2h" + suffix;
    k.shape = NvbKind::kGpuToHost;
  } else if (base == "device_local_copy") {
    k.skip = "a GPU's copy within its own memory, not between two ends";
  } else if (name.find("all_to_") != std::string::npos ||
             name.find("_to_all") != std::string::npos ||
             name.find("one_to_") != std::string::npos ||
             name.find("_to_one") != std::string::npos) {
    k.skip = "all GPUs copying at once, not one copy per pair";
  } else {
    k.skip = "a test case dossier does not know";
  }
  return k;
}

// "NAME (00000000:19:00)" -> "0000:19:00.0"
std::string NvbAddress(std::string_view s) {
  size_t open = s.rfind('('), close = s.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return {};
  auto parts = Split(s.substr(open + 1, close - open - 1), ':');
  if (parts.size() != 3) return {};
  auto dom = ParseUint(Trim(parts[0]), 16), bus = ParseUint(Trim(parts[1]), 16),
       dev = ParseUint(Trim(parts[2]), 16);
  if (!dom || !bus || !dev || *dom > 0xffff || *bus > 0xff || *dev > 0x1f) return {};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.0", static_cast<unsigned>(*dom),
                static_cast<unsigned>(*bus), static_cast<unsigned>(*dev));
  return buf;
}

void NvbSetAddress(P2pMeasurement* pm, int64_t idx, const std::string& addr) {
  if (idx < 0 || idx >= 4096 || addr.empty()) return;
  if (pm->gpu_addresses.size() <= static_cast<size_t>(idx)) pm->gpu_addresses.resize(idx + 1);
  pm->gpu_addresses[idx] = addr;
}

// One cell: a number, or N/A (nullopt with na set), under its matrix column.
struct NvbCell {
  std::optional<double> value;
  bool na = false;
  int64_t col = 0;
};

struct NvbState {
  P2pMeasurement pm;
  uint64_t buffer = kNvbDefaultBuffer;
  std::vector<std::string> notes;
  size_t facts = 0;
};

void NvbAddRow(const NvbKind& k, const std::string& test, int64_t row,
               const std::vector<NvbCell>& cells, const std::string& at, NvbState* st) {
  for (size_t c = 0; c < cells.size(); ++c) {
    int64_t col = cells[c].col;
    P2pResult r;
    r.mode = k.mode;
    if (k.shape == NvbKind::kPair) {
      if (col == row) continue;  // a GPU to itself is not a pair
      r.src = k.swap ? col : row;
      r.dst = k.swap ? row : col;
    } else if (k.shape == NvbKind::kHostToGpu) {
      r.src = -1;
      r.dst = col;
    } else {
      r.src = col;
      r.dst = -1;
    }
    r.size_bytes = k.latency ? kNvbLatencyBuffer : st->buffer;
    if (cells[c].na || !cells[c].value) {
      r.verdict = "waived";
      r.detail = "nvbandwidth " + test + " printed N/A (no peer access, or not measured); " + at;
    } else {
      r.verdict = "ok";
      r.detail = "nvbandwidth " + test + "; imported from " + at;
      if (k.latency)
        r.latency_us.Set(*cells[c].value / 1000.0, at);
      else
        r.gbps_median.Set(*cells[c].value, at);
    }
    st->pm.results.push_back(std::move(r));
    ++st->facts;
  }
}

void NvbWaived(const std::string& test, const std::string& why, const std::string& at,
               NvbState* st) {
  P2pResult r;
  r.mode = test.empty() ? "" : NvbKindOf(test).mode;
  r.verdict = "waived";
  r.detail = "nvbandwidth " +
             (test.empty() ? std::string("test case (its name is not printed)") : test) + " " +
             why + "; " + at;
  st->pm.results.push_back(std::move(r));
  ++st->facts;
}

void NvbError(const std::string& test, const std::string& msg, const std::string& at,
              NvbState* st) {
  P2pResult r;
  r.mode = NvbKindOf(test).mode;
  r.verdict = "error";
  r.detail = "nvbandwidth " + test + " failed: " + msg.substr(0, 300) + "; " + at;
  st->pm.results.push_back(std::move(r));
  ++st->facts;
}

// Which matrix of a bidirectional device-to-device test a description names.
bool NvbKeepMatrix(const NvbKind& k, std::string_view desc, const std::string& test,
                   std::set<std::string>* said, NvbState* st, const std::string& where) {
  if (!k.bidir_p2p) return true;
  if (desc.find(" Total ") != std::string_view::npos) return true;
  bool per_dir = desc.find("Read1") != std::string_view::npos ||
                 desc.find("Read2") != std::string_view::npos ||
                 desc.find("Write1") != std::string_view::npos ||
                 desc.find("Write2") != std::string_view::npos;
  if (said->insert(test).second)
    st->notes.push_back(where + ": " + test +
                        (per_dir ? ": the per-direction matrices are not kept (the Total one is)"
                                 : ": one direction measured while the other runs (nvbandwidth "
                                   "before 0.6); not comparable with both together, not kept"));
  return false;
}

NvbCell NvbParseCell(std::string_view t) {
  NvbCell c;
  if (t == "N/A") {
    c.na = true;
    return c;
  }
  c.value = ParseDouble(t);
  return c;
}

// --- text -----------------------------------------------------------------------------------

bool NvbTextHead(std::string_view t) {
  return t.starts_with("nvbandwidth Version:");
}

bool NvbRunningLine(std::string_view t, std::string* name) {
  if (!t.starts_with("Running ") || !t.ends_with(".")) return false;
  std::string_view n = t.substr(8, t.size() - 9);
  if (n.empty() || n.size() > 80) return false;
  for (char c : n)
    if (!(std::islower(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  if (n.find('_') == std::string_view::npos) return false;
  if (name) *name = std::string(n);
  return true;
}

bool NvbDescLine(std::string_view t) {
  return (t.starts_with("memcpy ") && t.ends_with("bandwidth (GB/s)")) ||
         (t.find("Latency") != std::string_view::npos && t.ends_with("(ns)")) ||
         (t.starts_with("memory latency") && t.ends_with("(ns)"));
}

bool NvbJsonHead(const Lines& lines, size_t i) {
  std::string_view t = Trim(lines[i].text);
  if (t.find("\"nvbandwidth\"") != std::string_view::npos && t.starts_with("{")) return true;
  if (t != "{") return false;
  for (size_t j = i + 1; j < lines.size() && j < i + 3; ++j)
    if (Trim(lines[j].text).starts_with("\"nvbandwidth\"")) return true;
  return false;
}

bool NvbStarts(const Lines& lines, size_t i) {
  std::string_view t = Trim(lines[i].text);
  if (NvbTextHead(t) || NvbJsonHead(lines, i)) return true;
  // A paste that begins at a test case: only where no nvbandwidth output comes before it.
  std::string name;
  if (!NvbRunningLine(t, &name) || i + 1 >= lines.size()) return false;
  if (!NvbDescLine(Trim(lines[i + 1].text)) && !Trim(lines[i + 1].text).starts_with("Waived"))
    return false;
  for (size_t j = i; j-- > 0 && i - j < 64;) {
    std::string_view p = Trim(lines[j].text);
    if (p.starts_with("SUM ") || NvbTextHead(p) || p.starts_with("Device ") ||
        NvbRunningLine(p, nullptr))
      return false;
  }
  return true;
}

int NvbDetect(const Lines& lines) {
  int score = 0;
  for (size_t i = 0; i < lines.size() && i < 200000; ++i) {
    std::string_view t = Trim(lines[i].text);
    if (NvbTextHead(t)) return 95;
    if (t.find("\"nvbandwidth\"") != std::string_view::npos) score = std::max(score, 70);
    if (t.find("\"bandwidth_matrix\"") != std::string_view::npos) score = std::max(score, 90);
    if (NvbRunningLine(t, nullptr)) score = std::max(score, 60);
    if (NvbDescLine(t)) score = std::max(score, 85);
  }
  return score;
}

void NvbParseText(const Lines& lines, const ImportSource& src, NvbState* st, size_t* cut_line) {
  std::string test;  // the test case being read
  NvbKind kind;
  bool keep = false;                 // the matrix under the current description is kept
  size_t cols = 0;                   // columns of the current matrix (0: header not seen)
  size_t rows_seen = 0;              // complete rows of the current matrix
  std::vector<int64_t> header_cols;  // the column each header token names (-1: "...")
  size_t expect_rows = 0;            // rows the header implies
  bool elided = false;               // a "..." in the current matrix (rows or columns)
  size_t prev_line = 0;
  bool open = false;       // a test case started and neither its SUM nor a status came yet
  bool described = false;  // its matrix description came
  std::set<std::string> said;
  static const std::regex kDevice(R"(^Device (\d+): (.*)$)");
  for (const auto& l : lines) {
    std::string_view t = Trim(l.text);
    std::string at = src.At(l.number);
    std::string where = src.file + ":" + std::to_string(l.number);  // for notes
    std::string name;
    // ReadPaste leaves "..." lines out: a jump in line numbers inside a matrix is one.
    if (prev_line && l.number > prev_line + 1 && cols > 0) elided = true;
    prev_line = l.number;
    if (t.empty() || IsElision(t)) continue;
    if (NvbRunningLine(t, &name)) {
      test = name;
      elided = false;
      kind = NvbKindOf(test);
      keep = false;
      cols = 0;
      open = true;
      described = false;
      if (!kind.skip.empty())
        st->notes.push_back(where + ": " + test + " is " + kind.skip + "; not kept");
      continue;
    }
    if (t.starts_with("Waiving ") && t.ends_with(".")) {
      NvbWaived(std::string(t.substr(8, t.size() - 9)), "was waived (it cannot run here)", at, st);
      test.clear();
      continue;
    }
    if (t.starts_with("Waived:")) {
      // Since 0.5 the text output does not name a waived test case.
      NvbWaived("", "was waived (it cannot run here)", at, st);
      test.clear();
      open = false;
      continue;
    }
    if ((t.starts_with("Error:") || t.starts_with("ERROR:")) && !test.empty()) {
      NvbError(test, std::string(Trim(t.substr(6))), at, st);
      test.clear();
      open = false;
      continue;
    }
    if (t.size() < 512 && t.starts_with("Device ")) {
      std::smatch m;
      std::string s(t);
      // "Device 0: NAME (…)"; "Device to Device Latency …" is a matrix title, read below.
      if (std::regex_match(s, m, kDevice)) {
        NvbSetAddress(&st->pm, ParseInt(m[1].str()).value_or(-1), NvbAddress(m[2].str()));
        continue;
      }
    }
    if (NvbDescLine(t)) {
      cols = 0;
      rows_seen = 0;
      elided = false;
      described = true;
      keep = !test.empty() && !kind.mode.empty() && NvbKeepMatrix(kind, t, test, &said, st, where);
      continue;
    }
    if (t.starts_with("SUM ") || t.starts_with("&&&& PERF ")) {
      keep = false;
      cols = 0;
      open = false;
      continue;
    }
    if (!keep) continue;
    auto tok = Tokens(t);
    if (cols == 0) {
      // The header: column numbers 0 1 2 …, where a person may have left columns out with
      // "..." ("0 1 2 ... 7"): each number is the one before plus one, or larger after a gap.
      header_cols.clear();
      bool header = !tok.empty() && ParseInt(tok[0]) == 0;
      int64_t last = -1;
      bool gap = false;
      for (size_t k = 0; header && k < tok.size(); ++k) {
        if (IsElision(tok[k])) {
          header = !gap && k > 0;
          gap = true;
          header_cols.push_back(-1);
          continue;
        }
        auto n = ParseInt(tok[k]);
        header = n && (gap ? *n > last + 1 : *n == last + 1) && *n <= 4096;
        if (header) last = *n;
        header_cols.push_back(header ? *n : -1);
        gap = false;
      }
      if (header && !gap) {
        cols = tok.size();
        elided =
            elided || std::find(header_cols.begin(), header_cols.end(), -1) != header_cols.end();
        expect_rows = static_cast<size_t>(last + 1);
      }
      continue;
    }
    auto row = ParseInt(tok.empty() ? "" : tok[0]);
    if (!row || *row < 0 || *row > 4096) continue;
    if (tok.size() != cols + 1) {
      if (!*cut_line) *cut_line = l.number;
      st->notes.push_back(where + ": this row of " + test + " is incomplete (cut off); left out");
      continue;
    }
    std::vector<NvbCell> cells;
    for (size_t k = 1; k < tok.size(); ++k) {
      if (header_cols[k - 1] < 0) continue;  // under a "..." the person left the column out
      NvbCell c = NvbParseCell(tok[k]);
      c.col = header_cols[k - 1];
      cells.push_back(c);
    }
    NvbAddRow(kind, test, *row, cells, at, st);
    ++rows_seen;
  }
  // The paste ends inside a test case: before its matrix, or with rows missing.
  // Rows a person left out with "..." are not a cut.
  size_t expect = kind.shape == NvbKind::kPair ? expect_rows : 1;
  if (open && !lines.empty() && !*cut_line && !elided &&
      (!described || (keep && (cols == 0 || rows_seen < expect))))
    *cut_line = lines.back().number;
}

// --- JSON -----------------------------------------------------------------------------------

// The JSON a paste cut off: everything up to the last complete test case, closed.
std::string NvbCloseJson(const std::string& text) {
  std::vector<char> stack;
  size_t last = std::string::npos;
  bool in_str = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_str) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_str = false;
      continue;
    }
    if (c == '"')
      in_str = true;
    else if (c == '{' || c == '[')
      stack.push_back(c);
    else if ((c == '}' || c == ']') && !stack.empty()) {
      stack.pop_back();
      // A test case object ends: root { nvbandwidth { testcases [ {…}
      if (c == '}' && stack.size() == 3 && stack[2] == '[') last = i;
    }
  }
  if (last == std::string::npos) return {};
  return text.substr(0, last + 1) + "]}}";
}

size_t NvbLineOf(const Lines& lines, const std::string& needle, size_t* from) {
  for (size_t i = *from; i < lines.size(); ++i)
    if (lines[i].text.find(needle) != std::string::npos) {
      *from = i + 1;
      return lines[i].number;
    }
  return lines.empty() ? 0 : lines.front().number;
}

Status NvbParseJson(const Lines& lines, const ImportSource& src, NvbState* st, size_t* cut_line) {
  std::string text = JoinPartLines(lines);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    std::string closed = NvbCloseJson(text);
    j = closed.empty() ? nlohmann::json() : nlohmann::json::parse(closed, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return Error::Invalid(
          "nvbandwidth JSON that does not parse, not even up to a complete "
          "test case");
    size_t line = 1;
    for (char c : closed) line += c == '\n';
    *cut_line = line <= lines.size() ? lines[line - 1].number : lines.back().number;
  }
  if (!j.is_object() || !j.contains("nvbandwidth") || !j["nvbandwidth"].is_object())
    return Error::Invalid("JSON without an \"nvbandwidth\" object");
  const auto& nv = j["nvbandwidth"];
  size_t from = 0;
  if (auto it = nv.find("GPU Device list"); it != nv.end() && it->is_array()) {
    for (const auto& d : *it) {
      if (!d.is_string()) continue;
      std::string s = d.get<std::string>();
      // "0: NVIDIA H100 80GB HBM3 (00000000:19:00): (host)"
      auto idx = ParseInt(Trim(std::string_view(s).substr(0, s.find(':'))));
      size_t host = s.rfind("): (");
      NvbSetAddress(&st->pm, idx.value_or(-1),
                    NvbAddress(host == std::string::npos ? s : s.substr(0, host + 1)));
    }
  }
  if (auto it = nv.find("error"); it != nv.end() && it->is_string())
    st->notes.push_back(
        src.file + ": nvbandwidth reported an error: " + it->get<std::string>().substr(0, 300));
  auto tcs = nv.find("testcases");
  if (tcs == nv.end() || !tcs->is_array()) return OkStatus();
  std::set<std::string> said;
  for (const auto& tc : *tcs) {
    if (!tc.is_object()) continue;
    std::string name = tc.value("name", std::string());
    std::string status = tc.value("status", std::string());
    size_t line = NvbLineOf(lines, "\"" + name + "\"", &from);
    std::string at = src.At(line), where = src.file + ":" + std::to_string(line);
    if (name.empty()) continue;
    NvbKind kind = NvbKindOf(name);
    if (status == "Waived") {
      NvbWaived(name, "was waived (it cannot run here)", at, st);
      continue;
    }
    if (status == "Error" || status == "ERROR" || tc.contains("error")) {
      NvbError(name, tc.value("error", status), at, st);
      continue;
    }
    if (!kind.skip.empty()) {
      st->notes.push_back(where + ": " + name + " is " + kind.skip + "; not kept");
      continue;
    }
    auto m = tc.find("bandwidth_matrix");
    if (m == tc.end() || !m->is_array()) {
      st->notes.push_back(where + ": " + name + " has status '" + status +
                          "' and no matrix (it did "
                          "not finish); not kept");
      continue;
    }
    std::vector<std::vector<NvbCell>> rows;
    for (const auto& r : *m) {
      std::vector<NvbCell> cells;
      if (r.is_array())
        for (const auto& c : r)
          cells.push_back(c.is_string()   ? NvbParseCell(c.get<std::string>())
                          : c.is_number() ? NvbCell{c.get<double>(), false}
                                          : NvbCell{});
      for (size_t k = 0; k < cells.size(); ++k) cells[k].col = static_cast<int64_t>(k);
      rows.push_back(std::move(cells));
    }
    size_t ncols = rows.empty() ? 0 : rows.front().size();
    if (kind.bidir_p2p) {
      // Every matrix of the test case is appended to one bandwidth_matrix: Read1, Read2, Total.
      if (ncols > 0 && rows.size() == 3 * ncols) {
        rows.erase(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(2 * ncols));
      } else {
        NvbKeepMatrix(kind, "", name, &said, st, where);
        continue;
      }
    }
    for (size_t r = 0; r < rows.size(); ++r)
      NvbAddRow(kind, name, static_cast<int64_t>(r), rows[r], at, st);
  }
  return OkStatus();
}

std::optional<uint64_t> NvbBufferFromCommand(const std::string& cmd) {
  static const std::regex kBuf(R"((?:^|\s)(?:-b|--bufferSize)(?:\s+|=)(\d+))");
  std::smatch m;
  if (!std::regex_search(cmd, m, kBuf)) return std::nullopt;
  auto v = ParseUint(m[1].str());
  if (!v || *v == 0 || *v > (1u << 20)) return std::nullopt;
  return *v * kNvbMiB;
}

Status NvbParse(const Lines& lines, const ImportSource& src, Imported* out) {
  NvbState st;
  st.pm.tool = "nvbandwidth";
  size_t first = lines.empty() ? 0 : lines.front().number;
  if (auto b = NvbBufferFromCommand(src.command)) {
    st.buffer = *b;
  } else {
    st.notes.push_back(src.file + ":" + std::to_string(first) +
                       ": the buffer size is not in the paste; taken as nvbandwidth's default "
                       "(--bufferSize 512 MiB)");
  }
  bool json = false;
  for (const auto& l : lines) {
    std::string_view t = Trim(l.text);
    if (t.empty()) continue;
    json = t.starts_with("{");
    break;
  }
  size_t cut_line = 0;
  if (json) {
    Status s = NvbParseJson(lines, src, &st, &cut_line);
    if (!s) return s;
  } else {
    NvbParseText(lines, src, &st, &cut_line);
  }
  if (st.pm.results.empty() && st.pm.gpu_addresses.empty())
    return Error::Invalid("no nvbandwidth device, test case or matrix in it");
  if (cut_line) {
    st.pm.interrupted = true;
    st.notes.push_back(src.file + ":" + std::to_string(cut_line) +
                       ": the output stops here (cut off); kept what was complete before it");
  }
  for (auto& n : st.notes) out->notes.push_back(std::move(n));
  out->facts += st.facts + st.pm.gpu_addresses.size();
  st.pm.imported_from = src.At(first);
  out->p2p.push_back(std::move(st.pm));
  return OkStatus();
}

}  // namespace

Importer NvbandwidthImporter() {
  return {"nvbandwidth",
          "NVIDIA nvbandwidth, text or -j JSON: a p2p measurement (GPU-GPU, host-GPU bandwidth, "
          "latency; waived test cases)",
          {"nvbandwidth"},
          NvbStarts,
          NvbDetect,
          NvbParse};
}

}  // namespace dossier::import
