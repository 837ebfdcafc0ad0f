// The CUDA sample p2pBandwidthLatencyTest: devices with their bus ids, which pairs "CAN Access
// Peer", then bandwidth matrices (GB/s) for unidirectional and bidirectional copies with P2P
// disabled (staged through the host) and enabled, and latency matrices (us). Becomes one p2p
// measurement in the form `dossier p2p` writes (tool "p2pBandwidthLatencyTest"): results per
// ordered pair and mode (uni-staged, uni-p2p, bi-staged, bi-p2p, latency-staged, latency-p2p).
// The sample copies 10,000,000 ints (40,000,000 bytes) per bandwidth run (its source says so; the
// output does not). The diagonal (a GPU's copy to itself) is not a pair and is left out.
#include <cstdio>
#include <map>
#include <set>

#include <regex>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

constexpr uint64_t kSampleBytes = 40000000;

bool P2pBwHead(std::string_view line) {
  return line.find("P2P (Peer-to-Peer) GPU Bandwidth Latency Test") != std::string_view::npos;
}

bool P2pBwStarts(const Lines& lines, size_t i) {
  return P2pBwHead(lines[i].text);
}

int P2pBwDetect(const Lines& lines) {
  for (const auto& l : lines) {
    if (P2pBwHead(l.text)) return 95;
    if (l.text.find("Bandwidth Matrix (GB/s)") != std::string_view::npos) return 80;
  }
  return 0;
}

// The mode a matrix title names; empty for a matrix that is not kept (CPU latency).
std::string MatrixMode(std::string_view title) {
  bool en = title.find("P2P=Enabled") != std::string_view::npos;
  bool dis = title.find("P2P=Disabled") != std::string_view::npos;
  if (!en && !dis) return {};
  if (title.find("Unidirectional") != std::string_view::npos) return en ? "uni-p2p" : "uni-staged";
  if (title.find("Bidirectional") != std::string_view::npos) return en ? "bi-p2p" : "bi-staged";
  if (title.find("Latency") != std::string_view::npos) return en ? "latency-p2p" : "latency-staged";
  return {};
}

Status P2pBwParse(const Lines& lines, const ImportSource& src, Imported* out) {
  P2pMeasurement pm;
  pm.tool = "p2pBandwidthLatencyTest";
  std::set<std::pair<int64_t, int64_t>> no_access;
  std::string mode;       // the matrix being read
  bool cpu_rows = false;  // inside a latency matrix's CPU part
  size_t matrices = 0, first = lines.empty() ? 0 : lines.front().number;
  bool cut = false;
  size_t expect_cols = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = Trim(lines[i].text);
    if (t.starts_with("Device: ")) {
      // "Device: 0, NVIDIA …, pciBusID: b4, pciDeviceID: 0, pciDomainID:0"
      auto idx = ParseInt(Trim(t.substr(8, t.find(',') - 8)));
      size_t b = t.find("pciBusID:"), dv = t.find("pciDeviceID:"), dm = t.find("pciDomainID:");
      if (idx && b != std::string_view::npos && dv != std::string_view::npos &&
          dm != std::string_view::npos && *idx >= 0 && *idx < 1024) {
        auto bus = ParseInt(Trim(t.substr(b + 9, t.find(',', b) - b - 9)), 16);
        auto dev = ParseInt(Trim(t.substr(dv + 12, t.find(',', dv) - dv - 12)), 16);
        auto dom = ParseInt(Trim(t.substr(dm + 12)), 16);
        if (bus && dev && dom) {
          char buf[32];
          std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.0", static_cast<unsigned>(*dom & 0xffff),
                        static_cast<unsigned>(*bus & 0xff), static_cast<unsigned>(*dev & 0x1f));
          if (pm.gpu_addresses.size() <= static_cast<size_t>(*idx))
            pm.gpu_addresses.resize(*idx + 1);
          pm.gpu_addresses[*idx] = buf;
        }
      }
      continue;
    }
    if (t.starts_with("Device=") && t.find("CANNOT Access Peer") != std::string_view::npos) {
      auto a = ParseInt(t.substr(7, t.find(' ') - 7));
      size_t at = t.rfind("Device=");
      auto b = ParseInt(t.substr(at + 7));
      if (a && b) no_access.insert({*a, *b});
      continue;
    }
    if (t.find("Matrix") != std::string_view::npos) {
      mode = MatrixMode(t);
      cpu_rows = false;
      expect_cols = 0;
      if (!mode.empty()) ++matrices;
      continue;
    }
    auto tok = Tokens(t);
    if (tok.empty()) continue;
    if (tok[0] == "D\\D" || tok[0] == "GPU" || tok[0] == "CPU") {
      cpu_rows = tok[0] == "CPU";
      expect_cols = tok.size() - 1;
      continue;
    }
    if (mode.empty() || cpu_rows || expect_cols == 0) continue;
    auto src_gpu = ParseInt(tok[0]);
    if (!src_gpu) continue;
    if (tok.size() != expect_cols + 1) {
      cut = true;
      out->notes.push_back(src.file + ":" + std::to_string(lines[i].number) +
                           ": this matrix row is incomplete (cut off); left out");
      continue;
    }
    for (size_t k = 1; k < tok.size(); ++k) {
      int64_t dst = static_cast<int64_t>(k - 1);
      if (dst == *src_gpu) continue;
      auto val = ParseDouble(tok[k]);
      if (!val) continue;
      bool p2p_mode = mode.find("p2p") != std::string::npos;
      if (p2p_mode && (no_access.count({*src_gpu, dst}) || no_access.count({dst, *src_gpu}))) {
        continue;  // without peer access the "enabled" run repeats staged copies
      }
      P2pResult r;
      r.src = *src_gpu;
      r.dst = dst;
      r.mode = mode;
      r.verdict = "ok";
      r.detail = "imported from " + src.At(lines[i].number);
      if (mode.starts_with("latency")) {
        r.latency_us.Set(*val, src.At(lines[i].number));
      } else {
        r.size_bytes = kSampleBytes;
        r.gbps_median.Set(*val, src.At(lines[i].number));
      }
      pm.results.push_back(std::move(r));
      ++out->facts;
    }
  }
  if (matrices == 0 && pm.results.empty())
    return Error::Invalid("no p2pBandwidthLatencyTest matrix");
  if (!no_access.empty())
    out->notes.push_back(src.file + ": " + std::to_string(no_access.size()) +
                         " ordered pair(s) CANNOT access each other: their 'P2P=Enabled' "
                         "numbers are staged copies and are not kept as P2P");
  pm.interrupted = cut;
  pm.imported_from = src.At(first);
  out->p2p.push_back(std::move(pm));
  return OkStatus();
}

}  // namespace

Importer P2pBandwidthImporter() {
  return {"p2p-bandwidth-latency",
          "CUDA sample p2pBandwidthLatencyTest: a p2p measurement (bandwidth, latency per pair)",
          {"p2pBandwidthLatencyTest"},
          P2pBwStarts,
          P2pBwDetect,
          P2pBwParse};
}

}  // namespace dossier::import

// --- hand-made tables
// ----------------------------------------------------------------------------- A bandwidth table a
// person made with a small script (cudaMemcpyPeer in a loop, a torch copy timer) and pasted: one
// row per message size with its bandwidth and latency, in whatever units the script printed, under
// a line naming the pair:
//   GPU0 -> GPU1 (staged through host, P2P: NS)
//   size        bandwidth     latency
//   12KB        0.92 GB/s     13.4 us
//   16MB        41.41 GB/s    405.1 us
// Also Markdown tables (| 12 KB | 0.92 GB/s | 13.4 µs |) and units in the header ("Size (B)",
// "BW (GB/s)", "Lat (us)"). The pair comes from the text ("GPU0 -> GPU1", "0->1", "--src 0 --dst
// 1", the pasted command's flags) or `dossier import --pair 0-1`; the mode is what the text says
// ("staged", "via host", "P2P disabled" -> uni-staged; "P2P", "peer" -> uni-p2p), else
// uni-unknown. The rows become one p2p measurement (tool "table"), which the report's bandwidth
// tables and decode.communication-bound read. GB/s is 1e9 bytes/s, GiB/s 2^30; KB/MB sizes are
// taken as the script's powers of two (KiB/MiB), which is what such scripts print.
namespace dossier::import {
namespace {

struct Cell {
  enum Kind { kSize, kRate, kTime, kNumber } kind;
  double value;  // bytes, GB/s, microseconds, or a bare number
};

// "12KB", "16 MiB", "0.92 GB/s", "405.1 us", "13.4µs", "1048576" (one or two tokens).
std::vector<Cell> Cells(const std::string& row) {
  static const std::regex kCell(
      R"(([0-9]+(?:\.[0-9]+)?)\s*(GB/s|GiB/s|MB/s|MiB/s|Gbps|KiB|MiB|GiB|KB|MB|GB|B|K|M|G|usec|us|µs|ms|ns|s)?(?![A-Za-z/µ]))",
      std::regex::icase);
  std::vector<Cell> out;
  for (auto it = std::sregex_iterator(row.begin(), row.end(), kCell); it != std::sregex_iterator();
       ++it) {
    double v = std::stod((*it)[1].str());
    std::string u = ToLower((*it)[2].str());
    if (u.empty()) {
      out.push_back({Cell::kNumber, v});
    } else if (u == "gb/s") {
      out.push_back({Cell::kRate, v});
    } else if (u == "gib/s") {
      out.push_back({Cell::kRate, v * 1.073741824});
    } else if (u == "mb/s") {
      out.push_back({Cell::kRate, v / 1e3});
    } else if (u == "mib/s") {
      out.push_back({Cell::kRate, v * 1048576 / 1e9});
    } else if (u == "gbps") {
      out.push_back({Cell::kRate, v / 8});
    } else if (u == "us" || u == "µs" || u == "usec") {
      out.push_back({Cell::kTime, v});
    } else if (u == "ms") {
      out.push_back({Cell::kTime, v * 1e3});
    } else if (u == "ns") {
      out.push_back({Cell::kTime, v / 1e3});
    } else if (u == "s") {
      out.push_back({Cell::kTime, v * 1e6});
    } else {
      double mul = u == "b" ? 1 : (u[0] == 'k') ? 1024 : (u[0] == 'm') ? 1048576 : 1073741824.0;
      out.push_back({Cell::kSize, v * mul});
    }
  }
  return out;
}

// Header words: which column holds what, and the unit a column's bare numbers are in.
struct Header {
  bool ok = false;
  std::vector<Cell::Kind> kinds;  // per column
  std::vector<double> scale;      // per column: bytes per unit, GB/s per unit, us per unit
};

Header ReadHeader(const std::string& line) {
  Header h;
  std::string l = ToLower(StripMarkup(line));
  for (char& c : l)
    if (c == '|') c = ' ';
  bool size = false, rate = false, time = false;
  for (auto tok : Tokens(l)) {
    std::string t(tok);
    if (t.starts_with("size") || t.starts_with("bytes") || t.starts_with("msg") ||
        t.starts_with("message")) {
      h.kinds.push_back(Cell::kSize);
      h.scale.push_back(t.find("(kb") != std::string::npos   ? 1024
                        : t.find("(mb") != std::string::npos ? 1048576
                                                             : 1);
      size = true;
    } else if (t.starts_with("bandwidth") || t.starts_with("bw") || t.starts_with("gb/s") ||
               t.starts_with("throughput")) {
      h.kinds.push_back(Cell::kRate);
      h.scale.push_back(t.find("mb/s") != std::string::npos ? 1e-3 : 1);
      rate = true;
    } else if (t.starts_with("latency") || t.starts_with("lat") || t.starts_with("time")) {
      h.kinds.push_back(Cell::kTime);
      h.scale.push_back(t.find("(ms") != std::string::npos ? 1e3 : 1);
      time = true;
    } else if (t.starts_with("(")) {
      // "Size (KB)": the unit belongs to the column before
      if (!h.kinds.empty() && h.kinds.back() == Cell::kSize)
        h.scale.back() = t.find("kb") != std::string::npos   ? 1024
                         : t.find("mb") != std::string::npos ? 1048576
                                                             : 1;
      if (!h.kinds.empty() && h.kinds.back() == Cell::kTime && t.find("ms") != std::string::npos)
        h.scale.back() = 1e3;
    }
  }
  h.ok = size && (rate || time);
  return h;
}

// A row: a size and a rate or a time, nothing else but numbers.
bool TableRow(const std::string& line) {
  auto c = Cells(StripMarkup(line));
  bool size = false, other = false;
  for (const auto& x : c) {
    size |= x.kind == Cell::kSize;
    other |= x.kind == Cell::kRate || x.kind == Cell::kTime;
  }
  return size && other;
}

// A row of bare numbers ("| 4096 | 0.31 | 13.2 |"), read by the header's columns.
bool NumericRow(const std::string& line) {
  std::string t = StripMarkup(line);
  for (char& c : t)
    if (c == '|') c = ' ';
  auto toks = Tokens(t);
  if (toks.size() < 2) return false;
  for (auto tok : toks)
    if (!ParseDouble(tok)) return false;
  return true;
}

std::optional<std::pair<int64_t, int64_t>> PairIn(const std::string& text) {
  static const std::regex kGpu(R"(GPU\s*(\d+)\s*(?:->|→|=>|to|<->|↔)\s*GPU\s*(\d+))",
                               std::regex::icase);
  static const std::regex kBare(R"((?:^|[\s(\[])(\d+)\s*(?:->|→|=>)\s*(\d+)(?:$|[\s)\]:,]))");
  static const std::regex kFlags(R"(--src[ =](\d+).*--dst[ =](\d+))");
  static const std::regex kPair(R"(--pair[ =](\d+)[-,:](\d+))");
  std::smatch m;
  for (const auto* re : {&kGpu, &kFlags, &kPair, &kBare})
    if (std::regex_search(text, m, *re)) return std::make_pair(std::stoll(m[1]), std::stoll(m[2]));
  return std::nullopt;
}

std::string ModeIn(const std::string& text) {
  std::string l = ToLower(text);
  if (l.find("staged") != std::string::npos || l.find("via host") != std::string::npos ||
      l.find("through host") != std::string::npos || l.find("p2p disabled") != std::string::npos ||
      l.find("p2p=disabled") != std::string::npos || l.find("p2p: ns") != std::string::npos ||
      l.find("no p2p") != std::string::npos)
    return "uni-staged";
  if (l.find("p2p") != std::string::npos || l.find("peer") != std::string::npos ||
      l.find("nvlink") != std::string::npos)
    return "uni-p2p";
  return "";
}

bool TableStarts(const Lines& lines, size_t i) {
  const std::string& t = lines[i].text;
  if (t.size() > 2000 || TableRow(t)) return false;
  if (!ReadHeader(t).ok && !PairIn(t)) return false;
  bool header = ReadHeader(t).ok;
  for (size_t j = i + 1; j < lines.size() && j < i + 4; ++j)
    if (TableRow(lines[j].text) || (header && NumericRow(lines[j].text))) return true;
  return false;
}

int TableDetect(const Lines& lines) {
  size_t rows = 0;
  bool header = false;
  for (const auto& l : lines) {
    if (l.text.size() > 2000) continue;
    if (TableRow(l.text) || (header && NumericRow(l.text)))
      ++rows;
    else if (ReadHeader(l.text).ok)
      header = true;
  }
  if (rows >= 1 && header) return 70;
  if (rows >= 2) return 40;
  return 0;
}

Status TableParse(const Lines& lines, const ImportSource& src, Imported* out) {
  std::optional<std::pair<int64_t, int64_t>> pair;
  std::string mode;
  if (!src.pair.empty()) pair = PairIn("--pair " + src.pair);
  if (!pair) pair = PairIn(src.command);
  mode = ModeIn(src.command);
  Header h;
  P2pMeasurement pm;
  pm.tool = "table";
  size_t first = 0;
  for (const auto& l : lines) {
    if (l.text.size() > 2000) continue;
    std::string t = StripMarkup(l.text);
    if (!TableRow(t) && !(h.ok && NumericRow(t))) {
      if (auto p = PairIn(t); p && pm.results.empty()) pair = p;
      if (auto md = ModeIn(t); !md.empty() && pm.results.empty()) mode = md;
      if (Header hh = ReadHeader(t); hh.ok) h = hh;
      continue;
    }
    if (!pair) {
      out->notes.push_back(src.file + ":" + std::to_string(l.number) +
                           ": a bandwidth row, but no line names the GPU pair (GPU0 -> GPU1, "
                           "--src 0 --dst 1) and no --pair was given; not read");
      return Error::Invalid("a bandwidth table without its GPU pair (pass --pair A-B)");
    }
    // Columns by the header where there is one; else by the units in the row.
    for (char& c : t)
      if (c == '|') c = ' ';
    auto cells = Cells(t);
    P2pResult r;
    r.src = pair->first;
    r.dst = pair->second;
    r.mode = mode.empty() ? "uni-unknown" : mode;
    r.verdict = "ok";
    std::string at = src.At(l.number);
    for (size_t k = 0; k < cells.size(); ++k) {
      Cell c = cells[k];
      if (c.kind == Cell::kNumber && h.ok && k < h.kinds.size())
        c = {h.kinds[k], c.value * h.scale[k]};
      if (c.kind == Cell::kSize && r.size_bytes == 0)
        r.size_bytes = static_cast<uint64_t>(c.value);
      else if (c.kind == Cell::kRate && !r.gbps_median.known())
        r.gbps_median.Set(c.value, at);
      else if (c.kind == Cell::kTime && !r.latency_us.known())
        r.latency_us.Set(c.value, at);
    }
    if (r.size_bytes == 0) continue;
    if (!first) first = l.number;
    pm.results.push_back(std::move(r));
  }
  if (pm.results.empty())
    return Error::Invalid("no row with a message size and a bandwidth or latency");
  if (mode.empty())
    out->notes.push_back(src.file + ":" + std::to_string(first) +
                         ": the table does not say whether peer access was on (staged, P2P): "
                         "kept as uni-unknown");
  pm.imported_from = src.At(first);
  out->facts += pm.results.size();
  out->p2p.push_back(std::move(pm));
  return OkStatus();
}

}  // namespace

Importer P2pTableImporter() {
  return {"bandwidth-table",
          "a hand-made table of message size, bandwidth and latency for one GPU pair (GPU0 -> "
          "GPU1, --pair 0-1): a p2p measurement",
          {},
          TableStarts,
          TableDetect,
          TableParse};
}

}  // namespace dossier::import
