#include "render/html_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

namespace dossier::html {
namespace {

// Colours that survive printing in grey: light fills, dark strokes.
constexpr const char* kNumaFill[] = {"#cfe3ff", "#ffe0b8", "#d6f5d6", "#f3d1f0",
                                     "#fff3b0", "#d9d9ff", "#c8f0f0", "#ffd6d6"};
constexpr const char* kUnknownFill = "#e6e6e6";
constexpr const char* kLinkOk = "#1b7f3b";       // at its maximum
constexpr const char* kLinkIdle = "#c77c00";     // speed below maximum (normal when idle)
constexpr const char* kLinkNarrow = "#c62828";   // width below maximum: a fault
constexpr const char* kLinkUnknown = "#777777";  // not read

std::string Num(double v) {
  return fmt::format("{:.1f}", v);
}

std::string Text(double x, double y, std::string_view s, std::string_view extra = "") {
  return fmt::format("<text x=\"{}\" y=\"{}\"{}{}>{}</text>", Num(x), Num(y),
                     extra.empty() ? "" : " ", extra, Escape(s));
}

// "0000:01:00.0" -> "01:00.0": the domain is the same for every device that matters here.
std::string ShortAddress(const std::string& a) {
  return a.size() == 12 && a.compare(0, 5, "0000:") == 0 ? a.substr(5) : a;
}

const PciDevice* DeviceAt(const Machine& m, const std::string& address) {
  for (const auto& d : m.pci.devices)
    if (d.address == address) return &d;
  return nullptr;
}

std::string LinkText(const PciLinkState& s) {
  if (!s.gen.known() && !s.width.known()) return "link ?";
  return fmt::format("Gen{} x{}", s.gen.known() ? std::to_string(*s.gen) : "?",
                     s.width.known() ? std::to_string(*s.width) : "?");
}

const char* LinkColour(const PciLink& l) {
  const auto &c = l.current, &x = l.max;
  if (!c.gen.known() || !c.width.known() || !x.gen.known() || !x.width.known()) return kLinkUnknown;
  if (*c.width < *x.width) return kLinkNarrow;
  if (*c.gen < *x.gen) return kLinkIdle;
  return kLinkOk;
}

// --- a line chart with optional log axes -------------------------------------------------------

struct Series {
  std::string name, colour;
  bool dashed = false;
  std::vector<std::pair<double, double>> points;  // x, y; sorted by x
};

struct Level {
  std::string label;
  double y = 0;
  std::string colour;
};

struct Axis {
  bool log = false;
  double lo = 0, hi = 1;
  std::string label;
  std::string (*tick)(double) = nullptr;
  double Map(double v, double from, double to) const {
    double a = log ? std::log10(lo) : lo, b = log ? std::log10(hi) : hi;
    double t = ((log ? std::log10(std::max(v, lo)) : v) - a) / (b - a == 0 ? 1 : b - a);
    return from + t * (to - from);
  }
  std::vector<double> Ticks() const {
    std::vector<double> out;
    if (log) {
      for (double d = std::pow(10, std::floor(std::log10(lo))); d <= hi * 1.0001; d *= 10)
        if (d >= lo * 0.9999) out.push_back(d);
      if (out.size() < 2) out = {lo, hi};
    } else {
      for (int i = 0; i <= 4; ++i) out.push_back(lo + (hi - lo) * i / 4);
    }
    return out;
  }
};

std::string SizeTick(double b) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (u < 3 && b >= 1024) b /= 1024, ++u;
  return fmt::format("{:g} {}", std::round(b * 10) / 10, kUnits[u]);
}
std::string PlainTick(double v) {
  return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v);
}

void Fit(Axis* a, const std::vector<Series>& s, const std::vector<Level>& levels, bool x) {
  double lo = 1e300, hi = -1e300;
  for (const auto& se : s)
    for (const auto& [px, py] : se.points) {
      double v = x ? px : py;
      if (a->log && v <= 0) continue;
      lo = std::min(lo, v), hi = std::max(hi, v);
    }
  if (!x)
    for (const auto& l : levels) lo = std::min(lo, l.y), hi = std::max(hi, l.y);
  if (lo > hi) lo = 1, hi = 10;
  if (a->log) {
    lo = std::pow(10, std::floor(std::log10(lo)));
    hi = std::pow(10, std::ceil(std::log10(hi)));
    if (lo == hi) hi = lo * 10;
  } else {
    lo = std::min(0.0, lo);
    hi = hi <= lo ? lo + 1 : hi * 1.1;
  }
  a->lo = lo, a->hi = hi;
}

std::string LineChart(const std::string& title, Axis x, Axis y, const std::vector<Series>& series,
                      const std::vector<Level>& levels) {
  if (series.empty()) return "";
  Fit(&x, series, levels, true);
  Fit(&y, series, levels, false);
  const double W = 420, H = 250, L = 58, R = 12, T = 26, B = 44;
  std::string o = fmt::format(
      "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" "
      "role=\"img\" aria-label=\"{}\">",
      W, H + 16.0 * static_cast<double>(series.size() + levels.size()), Escape(title));
  o += Text(L, 16, title, "class=\"t\"");
  o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"plot\"/>", L, T,
                   W - L - R, H - T - B);
  for (double t : x.Ticks()) {
    double px = x.Map(t, L, W - R);
    o += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" class=\"grid\"/>", Num(px),
                     T, H - B);
    o += Text(px, H - B + 14, x.tick ? x.tick(t) : PlainTick(t), "text-anchor=\"middle\"");
  }
  for (double t : y.Ticks()) {
    double py = y.Map(t, H - B, T);
    o += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"grid\"/>", L, W - R,
                     Num(py));
    o += Text(L - 4, py + 4, y.tick ? y.tick(t) : PlainTick(t), "text-anchor=\"end\"");
  }
  o += Text((L + W - R) / 2, H - 8, x.label, "text-anchor=\"middle\"");
  o += Text(
      12, (T + H - B) / 2, y.label,
      fmt::format("text-anchor=\"middle\" transform=\"rotate(-90 12 {})\"", Num((T + H - B) / 2)));
  for (const auto& l : levels) {
    double py = y.Map(l.y, H - B, T);
    o += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"1.5\" "
        "stroke-dasharray=\"2 3\"/>",
        L, W - R, Num(py), l.colour);
  }
  for (const auto& s : series) {
    std::string pts;
    for (const auto& [px, py] : s.points) {
      if ((x.log && px <= 0) || (y.log && py <= 0)) continue;
      pts += Num(x.Map(px, L, W - R)) + "," + Num(y.Map(py, H - B, T)) + " ";
    }
    o += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{} points=\"{}\"/>",
                     s.colour, s.dashed ? " stroke-dasharray=\"6 4\"" : "", pts);
    for (const auto& [px, py] : s.points) {
      if ((x.log && px <= 0) || (y.log && py <= 0)) continue;
      o += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"2.5\" fill=\"{}\"/>",
                       Num(x.Map(px, L, W - R)), Num(y.Map(py, H - B, T)), s.colour);
    }
  }
  // The key, one line per series and level, under the plot (it never covers a line).
  double ky = H + 4;
  for (const auto& s : series) {
    o += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2\"{4}/>",
        L, L + 24, Num(ky), s.colour, s.dashed ? " stroke-dasharray=\"6 4\"" : "");
    o += Text(L + 30, ky + 4, s.name);
    ky += 16;
  }
  for (const auto& l : levels) {
    o += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"1.5\" "
        "stroke-dasharray=\"2 3\"/>",
        L, L + 24, Num(ky), l.colour);
    o += Text(L + 30, ky + 4, l.label);
    ky += 16;
  }
  return o + "</svg>";
}

}  // namespace

std::string Escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string TopologySvg(const View& view, const MachineView& mv) {
  const Machine& m = mv.machine;
  const MachineLink* link = view.HostLinkOf(m.name);
  auto behind = [&](const std::string& guest_address) -> const PassthroughGpu* {
    if (!link) return nullptr;
    for (const auto& p : link->gpus)
      if (p.guest_address == guest_address && !p.host_address.empty()) return &p;
    return nullptr;
  };
  if (m.gpus.empty()) return "";
  // Root complexes in order, each with its GPUs.
  std::map<std::string, std::vector<const Gpu*>> by_rc;
  for (const auto& g : m.gpus) {
    const PciDevice* d = DeviceAt(m, g.address);
    by_rc[d && d->root_complex.known() ? *d->root_complex : "root complex ?"].push_back(&g);
  }
  const double BW = 128, BH = link ? 74 : 58, GAP = 10, TOP = 30, RCH = 30, ROW = 70;
  size_t cols = 0;
  for (const auto& [rc, gs] : by_rc) cols += gs.size();
  const double W = std::max(680.0, static_cast<double>(cols) * (BW + GAP) + GAP);
  const double H = TOP + RCH + ROW + BH + 70;
  std::string o = fmt::format(
      "<svg class=\"topo\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"PCIe tree of {}\">",
      Num(W), Num(H), Escape(m.name));
  o += Text(GAP, 18,
            "PCIe tree of " + m.name +
                ": root complexes (top) to GPUs; fill = NUMA node, border = link state" +
                (link ? "; host GPUs from " + link->host : std::string()),
            "class=\"t\"");
  double x = GAP;
  std::set<int64_t> numa_seen;
  for (const auto& [rc, gs] : by_rc) {
    double span = static_cast<double>(gs.size()) * (BW + GAP) - GAP;
    o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\" class=\"rc\"/>",
                     Num(x), TOP, Num(span), RCH);
    o += Text(x + span / 2, TOP + 19, rc, "text-anchor=\"middle\"");
    for (size_t i = 0; i < gs.size(); ++i) {
      const Gpu& g = *gs[i];
      const PciDevice* d = DeviceAt(m, g.address);
      double gx = x + static_cast<double>(i) * (BW + GAP), gy = TOP + RCH + ROW;
      const char* border = d ? LinkColour(d->link) : kLinkUnknown;
      const PassthroughGpu* host = behind(g.address);
      int64_t node = g.numa_node.value_or(-1);
      // A guest's GPUs read NUMA -1 more often than not; the host's node is the one that counts.
      if (node < 0 && host && host->host_numa_node.known()) node = *host->host_numa_node;
      const char* fill = node >= 0 ? kNumaFill[node % 8] : kUnknownFill;
      numa_seen.insert(node);
      // The parent chain in one line: a switch or root port between shows as a label on the edge.
      std::string via = d && d->parent.known() ? *d->parent : "";
      o += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"/>",
          Num(gx + BW / 2), TOP + RCH, Num(gx + BW / 2), Num(gy), border);
      if (!via.empty())
        o += Text(gx + BW / 2 + 4, TOP + RCH + ROW / 2 + 4, "via " + ShortAddress(via),
                  "class=\"s\"");
      o += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"6\" fill=\"{}\" stroke=\"{}\" "
          "stroke-width=\"3\" class=\"gpu\"/>",
          Num(gx), Num(gy), BW, BH, fill, border);
      o += Text(gx + 6, gy + 16, fmt::format("GPU{}  {}", g.index, ShortAddress(g.address)),
                "class=\"b\"");
      // "Gen5 x16 (max)" at its maximum, else "Gen1 x16 of Gen5 x16": fits the box.
      std::string link_text = "link not read";
      if (d)
        link_text = LinkText(d->link.current) == LinkText(d->link.max)
                        ? LinkText(d->link.current) + " (max)"
                        : LinkText(d->link.current) + " of " + LinkText(d->link.max);
      o += Text(gx + 6, gy + 32, link_text, link_text.size() > 20 ? "class=\"s\"" : "");
      o += Text(gx + 6, gy + 48,
                node >= 0 ? "NUMA " + std::to_string(node) + (host ? " (host)" : "")
                          : "NUMA " + (g.numa_node.known() ? std::string("-1") : "?"));
      if (host)
        o += Text(
            gx + 6, gy + 64,
            "host " + ShortAddress(host->host_address) + " " + host->host_root_complex.value_or(""),
            "class=\"s\"");
    }
    x += span + GAP;
  }
  // Key.
  double ky = TOP + RCH + ROW + BH + 24, kx = GAP;
  for (auto [colour, label] : std::initializer_list<std::pair<const char*, const char*>>{
           {kLinkOk, "link at maximum"},
           {kLinkIdle, "speed below maximum (normal when idle)"},
           {kLinkNarrow, "narrower than maximum"},
           {kLinkUnknown, "not read"}}) {
    o += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" fill=\"none\" stroke=\"{}\" "
        "stroke-width=\"3\"/>",
        Num(kx), Num(ky - 9), colour);
    o += Text(kx + 20, ky, label, "class=\"s\"");
    kx += 40 + 6.0 * static_cast<double>(std::string_view(label).size());
  }
  ky += 20, kx = GAP;
  for (int64_t node : numa_seen) {
    o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" fill=\"{}\"/>", Num(kx),
                     Num(ky - 9), node >= 0 ? kNumaFill[node % 8] : kUnknownFill);
    o += Text(kx + 20, ky, node >= 0 ? "NUMA node " + std::to_string(node) : "NUMA unknown (-1)",
              "class=\"s\"");
    kx += 130;
  }
  return o + "</svg>";
}

std::string P2pCharts(const MachineView& mv, size_t max_pairs) {
  if (mv.p2p.empty()) return "";
  const P2pMeasurement& pm = mv.p2p.back();
  struct PairData {
    Series p2p{"peer access on (uni-p2p)", "#1565c0", false, {}};
    Series staged{"staged through host (uni-staged)", "#6d4c41", true, {}};
    double limit = 0;
  };
  std::map<std::pair<int64_t, int64_t>, PairData> pairs;
  for (const auto& r : pm.results) {
    if (r.src < 0 || r.dst < 0 || r.verdict != "ok" || !r.gbps_median.known()) continue;
    if (r.mode != "uni-p2p" && r.mode != "uni-staged") continue;
    PairData& p = pairs[{r.src, r.dst}];
    (r.mode == "uni-p2p" ? p.p2p : p.staged)
        .points.push_back({static_cast<double>(r.size_bytes), *r.gbps_median});
    if (r.link_limit_gbps.known()) p.limit = std::max(p.limit, *r.link_limit_gbps);
  }
  std::string o;
  size_t shown = 0;
  for (auto& [key, p] : pairs) {
    if (shown == max_pairs) break;
    std::vector<Series> s;
    for (Series* x : {&p.p2p, &p.staged}) {
      std::sort(x->points.begin(), x->points.end());
      if (!x->points.empty()) s.push_back(*x);
    }
    std::vector<Level> levels;
    if (p.limit > 0)
      levels.push_back({fmt::format("link limit {:.1f} GB/s", p.limit), p.limit, "#c62828"});
    Axis x{true, 0, 1, "message size", SizeTick}, y{true, 0, 1, "GB/s", PlainTick};
    o += LineChart(fmt::format("GPU{} → GPU{}", key.first, key.second), x, y, s, levels);
    ++shown;
  }
  if (pairs.size() > shown)
    o += fmt::format("<p class=\"more\">{} more pairs in the Markdown tables and the JSON.</p>",
                     pairs.size() - shown);
  return o;
}

std::string ServeCharts(const MachineView& mv, const Analysis& a) {
  if (mv.serve.empty()) return "";
  const ServeMeasurement& sm = mv.serve.back();
  Series total{"total tokens/s", "#1565c0", false, {}},
      output{"output tokens/s", "#2e7d32", true, {}};
  Series ttft{"TTFT median (ms)", "#6a1b9a", false, {}},
      tpot{"TPOT median (ms)", "#ef6c00", true, {}};
  for (const auto& r : sm.runs) {
    if (!r.concurrency.known() || r.completed == 0) continue;  // a failed run measured nothing
    double c = static_cast<double>(*r.concurrency);
    total.points.push_back({c, r.total_tokens_per_s});
    output.points.push_back({c, r.output_tokens_per_s});
    if (r.ttft_ms.median.known()) ttft.points.push_back({c, *r.ttft_ms.median});
    if (r.tpot_ms.median.known()) tpot.points.push_back({c, *r.tpot_ms.median});
  }
  std::vector<Level> tput_targets, lat_targets;
  for (const auto& t : a.plan.targets) {
    const std::string& metric = t.target.metric;
    std::string label = "target: " + t.text;
    if (metric == "total_tokens_per_s" || metric == "output_tokens_per_s" ||
        metric == "single_stream_tokens_per_s")
      tput_targets.push_back({label, t.target.value, "#c62828"});
    else if (metric.starts_with("ttft_ms") || metric.starts_with("tpot_ms"))
      lat_targets.push_back({label, t.target.value, "#c62828"});
  }
  std::vector<Series> tput, lat;
  for (Series* s : {&total, &output}) {
    std::sort(s->points.begin(), s->points.end());
    if (!s->points.empty()) tput.push_back(*s);
  }
  for (Series* s : {&ttft, &tpot}) {
    std::sort(s->points.begin(), s->points.end());
    if (!s->points.empty()) lat.push_back(*s);
  }
  Axis x{true, 0, 1, "concurrency (requests in flight)", PlainTick};
  std::string o = LineChart("Throughput against concurrency, " + sm.time, x,
                            Axis{false, 0, 1, "tokens/s", PlainTick}, tput, tput_targets);
  o += LineChart("Latency against concurrency, " + sm.time, x, Axis{false, 0, 1, "ms", PlainTick},
                 lat, lat_targets);
  return o;
}

}  // namespace dossier::html
