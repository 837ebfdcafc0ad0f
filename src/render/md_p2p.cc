// Markdown: a p2p sweep (dossier p2p). The verdicts first (a corrupted or hung pair matters more
// than any figure), then per mode a table by message size like the seed story's (size, GB/s, µs),
// then the pair matrices at one size, like p2pBandwidthLatencyTest's, and host<->device per GPU.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "render/markdown.h"
#include "render/md_util.h"

namespace dossier {
namespace {

struct ModeInfo {
  const char* mode;
  const char* title;
};
// Every mode a sweep holds, in the order the report shows them.
const ModeInfo kModes[] = {
    {"device-local", "one GPU's memory to itself (the ceiling the other modes are read against)"},
    {"uni-p2p", "GPU to GPU, peer access on (direct)"},
    {"uni-staged", "GPU to GPU, peer access off (staged through host memory)"},
    {"uni-unknown", "GPU to GPU, peer access not said (a pasted or typed-in table)"},
    {"bi-p2p", "both directions at once, peer access on (GB/s of both together)"},
    {"bi-staged", "both directions at once, peer access off (GB/s of both together)"},
    {"latency-p2p", "small-message latency, peer access on"},
    {"latency-staged", "small-message latency, peer access off"},
    {"h2d-local", "host to GPU, host memory on the GPU's NUMA node"},
    {"h2d-far", "host to GPU, host memory on the farthest NUMA node"},
    {"d2h-local", "GPU to host, host memory on the GPU's NUMA node"},
    {"d2h-far", "GPU to host, host memory on the farthest NUMA node"},
    // Imported nvbandwidth (import/nvbandwidth.cc): its own kinds of copy.
    {"uni-p2p-read", "GPU to GPU, peer access on, run by the destination GPU (nvbandwidth read)"},
    {"bi-p2p-read", "both directions at once, run by the reading GPUs (nvbandwidth; GB/s of both)"},
    {"h2d", "host to GPU (nvbandwidth: host memory where it placed it)"},
    {"d2h", "GPU to host (nvbandwidth: host memory where it placed it)"},
    {"bi-h2d", "host to GPU while GPU to host runs (nvbandwidth)"},
    {"bi-d2h", "GPU to host while host to GPU runs (nvbandwidth)"},
    {"uni-p2p-sm", "GPU to GPU by SM kernel (nvbandwidth)"},
    {"uni-p2p-read-sm", "GPU to GPU by SM kernel, destination reads (nvbandwidth)"},
    {"bi-p2p-sm", "both directions by SM kernel (nvbandwidth)"},
    {"bi-p2p-read-sm", "both directions by SM kernel, reads (nvbandwidth)"},
    {"h2d-sm", "host to GPU by SM kernel (nvbandwidth)"},
    {"d2h-sm", "GPU to host by SM kernel (nvbandwidth)"},
    {"bi-h2d-sm", "host to GPU by SM kernel while the other direction runs (nvbandwidth)"},
    {"bi-d2h-sm", "GPU to host by SM kernel while the other direction runs (nvbandwidth)"},
    {"latency-host", "host memory latency from the GPU (nvbandwidth)"},
};

std::string SizeText(uint64_t b) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (u < 3 && b >= 1024 && b % 1024 == 0) {
    b /= 1024;
    ++u;
  }
  return std::to_string(b) + " " + kUnits[u];
}

std::string Gbps(double v) {
  return fmt::format("{:.2f}", v);
}
std::string Us(double v) {
  return fmt::format("{:.1f}", v);
}

std::string EndLabel(int64_t d) {
  return d < 0 ? "host" : "GPU" + std::to_string(d);
}

bool Usable(const P2pResult& r) {
  return r.verdict == "ok" && r.gbps_median.known();
}
// A latency mode's figure is its time per copy: an imported one (nvbandwidth,
// p2pBandwidthLatencyTest) has no GB/s beside it.
bool UsableLatency(const P2pResult& r) {
  return r.verdict == "ok" && r.latency_us.known();
}

void Verdicts(const P2pMeasurement& m, std::string* out) {
  std::map<std::string, int> count;
  for (const auto& r : m.results) ++count[r.verdict];
  std::string summary;
  for (const auto& [v, n] : count)
    summary += (summary.empty() ? "" : ", ") + fmt::format("{} {}", n, v);
  *out += "Verdicts: " + (summary.empty() ? std::string("no results") : summary) + ".\n\n";
  md::Table bad({"from", "to", "mode", "size", "verdict", "detail"});
  // Waivers grouped by their reason with the GPU numbers taken out: 56 pairs without peer access
  // are one line, not 56.
  struct Group {
    int count = 0;
    std::string example;
    bool varied = false;
  };
  std::map<std::string, Group> waived;
  for (const auto& r : m.results) {
    if (r.verdict == "waived") {
      std::string key = r.detail;
      for (char& c : key)
        if (c >= '0' && c <= '9') c = '#';
      Group& g = waived[key];
      if (g.count++ == 0) g.example = r.detail;
      g.varied |= g.example != r.detail;
    }
    if (r.verdict == "corrupted" || r.verdict == "hung" || r.verdict == "error")
      bad.Row({EndLabel(r.src), EndLabel(r.dst), md::Escape(r.mode), SizeText(r.size_bytes),
               "**" + md::Escape(r.verdict) + "**", md::Prose(r.detail)});
  }
  if (!bad.empty()) {
    *out +=
        "Copies whose bytes did not arrive intact (corrupted), that never completed (hung) or "
        "failed:\n\n" +
        bad.Render() + "\n";
  }
  for (const auto& [key, g] : waived)
    *out += fmt::format("- {} waived: {}{}\n", g.count, md::Prose(g.example, false),
                        g.varied ? " (and the same for other GPUs)" : "");
  if (!waived.empty()) *out += "\n";
}

// One table per mode, a row per size: the median over pairs, and their range when several.
void BySize(const P2pMeasurement& m, const ModeInfo& mode, std::string* out) {
  std::map<uint64_t, std::vector<const P2pResult*>> by_size;
  for (const auto& r : m.results)
    if (r.mode == mode.mode && Usable(r)) by_size[r.size_bytes].push_back(&r);
  if (by_size.empty()) return;
  *out += fmt::format("**{}** — {}:\n\n", mode.mode, mode.title);
  md::Table t({"size", "GB/s", "µs per copy", "% of link limit", "spread (GB/s)", "results"});
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  };
  for (const auto& [size, rs] : by_size) {
    std::vector<double> g, us, pct;
    double lo = 1e300, hi = 0;
    for (const auto* r : rs) {
      g.push_back(*r->gbps_median);
      // Unknown is not 0 µs: an imported bandwidth matrix has no time per copy.
      if (r->latency_us.known()) us.push_back(*r->latency_us);
      if (r->percent_of_limit.known()) pct.push_back(*r->percent_of_limit);
      lo = std::min(lo, r->gbps_min.value_or(*r->gbps_median));
      hi = std::max(hi, r->gbps_max.value_or(*r->gbps_median));
    }
    std::string gcell = Gbps(median(g));
    if (rs.size() > 1) {
      auto [mn, mx] = std::minmax_element(g.begin(), g.end());
      gcell += fmt::format(" ({}–{} over {})", Gbps(*mn), Gbps(*mx),
                           std::string_view(mode.mode).starts_with("h2d") ||
                                   std::string_view(mode.mode).starts_with("d2h") ||
                                   std::string_view(mode.mode) == "device-local"
                               ? "GPUs"
                               : "pairs");
    }
    t.Row({SizeText(size), gcell, us.empty() ? "unknown" : Us(median(us)),
           pct.empty() ? "unknown" : fmt::format("{:.1f} %", median(pct)),
           Gbps(lo) + "–" + Gbps(hi), std::to_string(rs.size())});
  }
  *out += t.Render() + "\n";
}

// p2pBandwidthLatencyTest's shape: rows are sources, columns destinations. A matrix whose cells
// are all one value (56 pairs "waived") is one line, and so is one identical to a matrix already
// shown (`shown` holds them, by mode).
void PairMatrix(const P2pMeasurement& m, const ModeInfo& mode, uint64_t size,
                std::vector<std::pair<std::string, std::vector<std::vector<std::string>>>>* shown,
                std::string* out) {
  std::set<int64_t> gpus;
  std::map<std::pair<int64_t, int64_t>, const P2pResult*> cell;
  bool latency = std::string_view(mode.mode).starts_with("latency");
  for (const auto& r : m.results) {
    if (r.mode != mode.mode || r.src < 0 || r.dst < 0) continue;
    if (!latency && r.size_bytes != size) continue;
    gpus.insert(r.src);
    gpus.insert(r.dst);
    cell[{r.src, r.dst}] = &r;
    if (std::string_view(mode.mode).starts_with("bi-")) cell[{r.dst, r.src}] = &r;
  }
  if (cell.empty()) return;
  std::vector<std::vector<std::string>> cells;
  for (int64_t a : gpus) {
    std::vector<std::string> row;
    for (int64_t b : gpus) {
      auto it = cell.find({a, b});
      if (a == b || it == cell.end()) {
        row.push_back(a == b ? "X" : "·");
        continue;
      }
      const P2pResult& r = *it->second;
      if (latency ? UsableLatency(r) : Usable(r))
        row.push_back(latency ? Us(*r.latency_us) : Gbps(*r.gbps_median));
      else if (r.verdict == "corrupted")
        row.push_back("**CORRUPTED**");
      else if (r.verdict == "hung")
        row.push_back("**HUNG**");
      else
        row.push_back(md::Escape(r.verdict));
    }
    cells.push_back(std::move(row));
  }
  std::string what =
      fmt::format("**{}** at {}", mode.mode, latency ? "the small size" : SizeText(size));
  if (auto v = md::UniformOffDiagonal(cells)) {
    *out += fmt::format("{}: {} for all {} ordered pairs.\n\n", what, *v,
                        cells.size() * (cells.size() - 1));
    return;
  }
  for (const auto& [other, c] : *shown) {
    if (c != cells) continue;
    *out += fmt::format("{}: the same figures as {}.\n\n", what, other);
    return;
  }
  shown->push_back({mode.mode, cells});
  *out += what + ", " + (latency ? "µs per copy" : "GB/s") + ":\n\n";
  std::vector<std::string> header{"from \\ to"};
  for (int64_t g : gpus) header.push_back(EndLabel(g));
  md::Table t(header);
  size_t i = 0;
  for (int64_t a : gpus) {
    std::vector<std::string> row{"**" + EndLabel(a) + "**"};
    row.insert(row.end(), cells[i].begin(), cells[i].end());
    ++i;
    t.Row(row);
  }
  *out += t.Render() + "\n";
}

// The device-local copies at one size are each GPU's own memory path: every other copy involving
// the GPU is read against them. One line: the ceiling (its range over GPUs) and how close the
// best result of each other mode at that size comes to the slowest GPU's ceiling.
void Ceiling(const P2pMeasurement& m, uint64_t size, std::string* out) {
  std::vector<std::pair<double, int64_t>> local;  // GB/s, GPU
  for (const auto& r : m.results)
    if (r.mode == "device-local" && r.size_bytes == size && Usable(r))
      local.push_back({*r.gbps_median, r.src});
  if (local.empty()) return;
  std::sort(local.begin(), local.end());
  std::string what =
      local.size() == 1
          ? fmt::format("{} GB/s ({})", Gbps(local[0].first), EndLabel(local[0].second))
          : fmt::format("{}–{} GB/s over {} GPUs (slowest {})", Gbps(local.front().first),
                        Gbps(local.back().first), local.size(), EndLabel(local.front().second));
  *out += fmt::format("Ceiling: a GPU copies within its own memory at {} at {} (device-local).",
                      what, SizeText(size));
  std::string against;
  for (const auto& info : kModes) {
    std::string_view mode = info.mode;
    if (mode == "device-local" || mode.starts_with("latency")) continue;
    double best = 0;
    for (const auto& r : m.results)
      if (r.mode == mode && r.size_bytes == size && Usable(r))
        best = std::max(best, *r.gbps_median);
    if (best > 0)
      against += fmt::format("{}{} {:.1f} %", against.empty() ? "" : ", ", mode,
                             best / local.front().first * 100);
  }
  if (!against.empty())
    *out += " The best of each mode at that size, as a share of it: " + against + ".";
  *out += "\n\n";
}

void HostTable(const P2pMeasurement& m, uint64_t size, std::string* out) {
  std::map<int64_t, std::map<std::string, const P2pResult*>> by_gpu;
  for (const auto& r : m.results) {
    if (r.size_bytes != size || !(r.mode.starts_with("h2d-") || r.mode.starts_with("d2h-")))
      continue;
    by_gpu[r.src >= 0 ? r.src : r.dst][r.mode] = &r;
  }
  if (by_gpu.empty()) return;
  *out += fmt::format("Host and GPU at {}, GB/s:\n\n", SizeText(size));
  md::Table t({"GPU", "h2d local", "h2d far", "d2h local", "d2h far"});
  for (const auto& [g, modes] : by_gpu) {
    std::vector<std::string> row{EndLabel(g)};
    for (const char* mode : {"h2d-local", "h2d-far", "d2h-local", "d2h-far"}) {
      auto it = modes.find(mode);
      if (it == modes.end())
        row.push_back("·");
      else if (Usable(*it->second))
        row.push_back(Gbps(*it->second->gbps_median));
      else
        row.push_back(md::Escape(it->second->verdict));
    }
    t.Row(row);
  }
  *out += t.Render() + "\n";
}

}  // namespace

void MdP2pMeasurement(const P2pMeasurement& m, uint64_t matrix_size, std::string* out) {
  *out += "Measured " + (m.time.empty() ? std::string("at an unknown time") : md::Escape(m.time));
  if (!m.boot_id.empty()) *out += " in boot " + md::Code(m.boot_id, false);
  *out += ". GB = 10^9 bytes; the method is in docs/measurement.md.\n\n";
  if (m.interrupted)
    *out +=
        "> The run was cut short (Ctrl-C or --timeout): the results below are what was "
        "measured before.\n\n";
  if (!m.gpu_addresses.empty()) {
    std::string gpus;
    for (size_t i = 0; i < m.gpu_addresses.size(); ++i)
      gpus += fmt::format("{}GPU{} = {}", i ? ", " : "", i,
                          md::Code(m.gpu_addresses[i].empty() ? "?" : m.gpu_addresses[i], false));
    *out += "GPUs by CUDA ordinal: " + gpus + ".\n\n";
  }
  Verdicts(m, out);
  // The matrices at the size asked for, or the nearest size the sweep has (largest below first).
  std::set<uint64_t> sizes;
  for (const auto& r : m.results)
    if (!std::string_view(r.mode).starts_with("latency")) sizes.insert(r.size_bytes);
  if (!sizes.empty() && !sizes.count(matrix_size)) {
    auto it = sizes.lower_bound(matrix_size);
    uint64_t near = it == sizes.begin() ? *it : *std::prev(it);
    *out += fmt::format("Matrices at {}: the sweep has no {}.\n\n", SizeText(near),
                        SizeText(matrix_size));
    matrix_size = near;
  }
  Ceiling(m, matrix_size, out);
  for (const auto& mode : kModes)
    if (!std::string_view(mode.mode).starts_with("latency")) BySize(m, mode, out);
  std::vector<std::pair<std::string, std::vector<std::vector<std::string>>>> shown;
  for (const char* mode : {"uni-p2p", "uni-staged", "uni-unknown", "bi-p2p", "bi-staged",
                           "latency-p2p", "latency-staged", "uni-p2p-read", "bi-p2p-read"})
    for (const auto& info : kModes)
      if (std::string_view(info.mode) == mode) PairMatrix(m, info, matrix_size, &shown, out);
  HostTable(m, matrix_size, out);
}

void MdP2p(const MachineView& mv, std::string* out) {
  if (mv.p2p.empty()) {
    *out += "No p2p measurement in the dossier (run `dossier p2p`).\n";
    return;
  }
  MdP2pMeasurement(mv.p2p.back(), 16ull << 20, out);
}

}  // namespace dossier
