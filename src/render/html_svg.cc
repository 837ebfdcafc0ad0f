#include "render/html_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "analyze/pci_walk.h"
#include "util/xml_escape.h"

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
  return XmlEscape(s, /*literal_whitespace=*/true);
}

namespace {

// One GPU box of a tree: a compute GPU of the machine, or (a machine known only from pasted
// lspci, whose GPU facts were not derived) an NVIDIA display or 3D function.
struct TreeGpu {
  std::string label;  // "GPU3", or "GPU" when the machine numbers none
  std::string address;
  Fact<int64_t> numa_node;
};

std::vector<TreeGpu> TreeGpus(const Machine& m) {
  std::vector<TreeGpu> out;
  for (const auto& g : m.gpus)
    out.push_back({fmt::format("GPU{}", g.index), g.address, g.numa_node});
  if (!out.empty()) return out;
  for (const PciDevice* d : GpuDevices(m)) out.push_back({"GPU", d->address, d->numa_node});
  return out;
}

struct TreeBox {
  double cx = 0, top = 0, bottom = 0;
};

struct TreeDrawing {
  std::string svg;
  double width = 0, height = 0;
  std::map<std::string, TreeBox> boxes;  // by GPU address
};

constexpr double kBoxW = 128, kGap = 10, kTitleH = 30, kRcH = 30, kRow = 70;

// Width of a machine's tree.
double TreeWidth(const std::vector<TreeGpu>& gpus) {
  return static_cast<double>(gpus.size()) * (kBoxW + kGap) + kGap;
}

// The tree of `m` (root complexes on top, GPUs below) with its title at `top`. `link` when m is
// a linked guest: each GPU also names the host GPU behind it, and is filled by its NUMA node.
TreeDrawing DrawTree(const Machine& m, const MachineLink* link, double top,
                     const std::string& title, std::set<int64_t>* numa_seen) {
  TreeDrawing t;
  auto behind = [&](const std::string& guest_address) -> const PassthroughGpu* {
    if (!link) return nullptr;
    for (const auto& p : link->gpus)
      if (p.guest_address == guest_address && !p.host_address.empty()) return &p;
    return nullptr;
  };
  std::vector<TreeGpu> gpus = TreeGpus(m);
  // Root complexes in order, each with its GPUs.
  std::map<std::string, std::vector<const TreeGpu*>> by_rc;
  for (const auto& g : gpus) {
    const PciDevice* d = DeviceAt(m, g.address);
    std::string rc = d ? RootComplexOf(m, *d) : "";
    by_rc[rc.empty() ? "root complex ?" : rc].push_back(&g);
  }
  const double BH = link ? 74 : 58, RC_TOP = top + kTitleH - 4;
  t.width = TreeWidth(gpus);
  t.height = kTitleH + kRcH + kRow + BH;
  t.svg += Text(kGap, top + 18, title, "class=\"t\"");
  double x = kGap;
  for (const auto& [rc, gs] : by_rc) {
    double span = static_cast<double>(gs.size()) * (kBoxW + kGap) - kGap;
    t.svg +=
        fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\" class=\"rc\"/>",
                    Num(x), Num(RC_TOP), Num(span), kRcH);
    t.svg += Text(x + span / 2, RC_TOP + 19, rc, "text-anchor=\"middle\"");
    for (size_t i = 0; i < gs.size(); ++i) {
      const TreeGpu& g = *gs[i];
      const PciDevice* d = DeviceAt(m, g.address);
      double gx = x + static_cast<double>(i) * (kBoxW + kGap), gy = RC_TOP + kRcH + kRow;
      const char* border = d ? LinkColour(d->link) : kLinkUnknown;
      const PassthroughGpu* host = behind(g.address);
      int64_t node = g.numa_node.value_or(-1);
      // A guest's GPUs read NUMA -1 more often than not; the host's node is the one that counts.
      if (node < 0 && host && host->host_numa_node.known()) node = *host->host_numa_node;
      const char* fill = node >= 0 ? kNumaFill[node % 8] : kUnknownFill;
      numa_seen->insert(node);
      // The parent chain in one line: a switch or root port between shows as a label on the edge.
      std::string via = d && d->parent.known() ? *d->parent : "";
      t.svg += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"3\"/>",
          Num(gx + kBoxW / 2), Num(RC_TOP + kRcH), Num(gx + kBoxW / 2), Num(gy), border);
      if (!via.empty())
        t.svg += Text(gx + kBoxW / 2 + 4, RC_TOP + kRcH + kRow / 2 + 4, "via " + ShortAddress(via),
                      "class=\"s\"");
      t.svg += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"6\" fill=\"{}\" stroke=\"{}\" "
          "stroke-width=\"3\" class=\"gpu\"/>",
          Num(gx), Num(gy), kBoxW, BH, fill, border);
      t.boxes[g.address] = {gx + kBoxW / 2, gy, gy + BH};
      t.svg += Text(gx + 6, gy + 16, g.label + "  " + ShortAddress(g.address), "class=\"b\"");
      // "Gen5 x16 (max)" at its maximum, else "Gen1 x16 of Gen5 x16": fits the box.
      std::string link_text = "link not read";
      if (d)
        link_text = LinkText(d->link.current) == LinkText(d->link.max)
                        ? LinkText(d->link.current) + " (max)"
                        : LinkText(d->link.current) + " of " + LinkText(d->link.max);
      t.svg += Text(gx + 6, gy + 32, link_text, link_text.size() > 20 ? "class=\"s\"" : "");
      t.svg += Text(gx + 6, gy + 48,
                    node >= 0 ? "NUMA " + std::to_string(node) + (host ? " (host)" : "")
                              : "NUMA " + (g.numa_node.known() ? std::string("-1") : "?"));
      if (host)
        t.svg += Text(
            gx + 6, gy + 64,
            "host " + ShortAddress(host->host_address) + " " + host->host_root_complex.value_or(""),
            "class=\"s\"");
    }
    x += span + kGap;
  }
  return t;
}

// The key under the trees: link colours, NUMA fills, and the passthrough line when drawn.
std::string TreeKey(double ky, const std::set<int64_t>& numa_seen, bool passthrough) {
  std::string o;
  double kx = kGap;
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
  if (passthrough) {
    o += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" class=\"pass\"/>", Num(kx),
                     Num(kx + 24), Num(ky - 4));
    o += Text(kx + 30, ky, "passed through (guest GPU is host GPU)", "class=\"s\"");
  }
  ky += 20, kx = kGap;
  for (int64_t node : numa_seen) {
    o += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" fill=\"{}\"/>", Num(kx),
                     Num(ky - 9), node >= 0 ? kNumaFill[node % 8] : kUnknownFill);
    o += Text(kx + 20, ky, node >= 0 ? "NUMA node " + std::to_string(node) : "NUMA unknown (-1)",
              "class=\"s\"");
    kx += 130;
  }
  return o;
}

std::string SvgOpen(double w, double h, const std::string& label) {
  return fmt::format(
      "<svg class=\"topo\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {}\" role=\"img\" "
      "aria-label=\"{}\">",
      Num(w), Num(h), Escape(label));
}

// The host machine of a linked guest, when the view holds it with GPUs to draw.
const MachineView* DrawnHost(const View& view, const MachineLink* link) {
  if (!link) return nullptr;
  const MachineView* host = view.Find(link->host);
  return host && !TreeGpus(host->machine).empty() ? host : nullptr;
}

}  // namespace

std::string TopologySvg(const View& view, const MachineView& mv) {
  const Machine& m = mv.machine;
  if (TreeGpus(m).empty()) return "";
  // A host is drawn with its guest, above it: skip it here when a guest of the view has it.
  for (const auto& l : view.links) {
    const MachineView* guest = l.host == m.name ? view.Find(l.guest) : nullptr;
    if (guest && !TreeGpus(guest->machine).empty()) return "";
  }
  const MachineLink* link = view.HostLinkOf(m.name);
  const MachineView* host = DrawnHost(view, link);
  std::set<int64_t> numa_seen;
  const std::string suffix = ": root complexes to GPUs; fill = NUMA node, border = link state";
  if (!host) {
    TreeDrawing t =
        DrawTree(m, link, 0,
                 "PCIe tree of " + m.name + suffix + (link ? "; host GPUs from " + link->host : ""),
                 &numa_seen);
    double w = std::max(680.0, t.width), h = t.height + 70;
    return SvgOpen(w, h, "PCIe tree of " + m.name) + t.svg +
           TreeKey(t.height + 24, numa_seen, false) + "</svg>";
  }
  // The host on top, the guest below, a dashed line from each guest GPU up to the host GPU it is.
  TreeDrawing top = DrawTree(host->machine, nullptr, 0,
                             "Host " + host->machine.name + suffix +
                                 (host->record.kind == "import" ? " (from pasted outputs)" : ""),
                             &numa_seen);
  const double between = 40;
  TreeDrawing bottom =
      DrawTree(m, link, top.height + between,
               "Guest " + m.name + " (VM " + link->vm_id + " on " + host->machine.name +
                   "): its GPUs are the host's, passed through",
               &numa_seen);
  std::string lines;
  for (const auto& p : link->gpus) {
    auto g = bottom.boxes.find(p.guest_address);
    auto h = top.boxes.find(p.host_address);
    if (g == bottom.boxes.end() || h == top.boxes.end()) continue;
    lines += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"pass\"/>",
                         Num(g->second.cx), Num(g->second.top), Num(h->second.cx),
                         Num(h->second.bottom));
  }
  double w = std::max({680.0, top.width, bottom.width});
  double h = top.height + between + bottom.height + 70;
  return SvgOpen(w, h, "PCIe trees of host " + host->machine.name + " and guest " + m.name) +
         // The lines first, so the boxes and the guest's root complex bar sit above them.
         lines + top.svg + bottom.svg +
         TreeKey(top.height + between + bottom.height + 24, numa_seen, !lines.empty()) + "</svg>";
}

std::string P2pCharts(const MachineView& mv, size_t max_pairs) {
  if (mv.p2p.empty()) return "";
  const P2pMeasurement& pm = mv.p2p.back();
  struct PairData {
    Series p2p{"peer access on (uni-p2p)", "#1565c0", false, {}};
    Series staged{"staged through host (uni-staged)", "#6d4c41", true, {}};
    // A pasted or typed-in table that did not say whether peer access was on: drawn, but
    // under its own name, never counted as either.
    Series unknown{"peer access not said (uni-unknown)", "#6a1b9a", true, {}};
    double limit = 0;
  };
  std::map<std::pair<int64_t, int64_t>, PairData> pairs;
  for (const auto& r : pm.results) {
    if (r.src < 0 || r.dst < 0 || r.verdict != "ok" || !r.gbps_median.known()) continue;
    Series PairData::*series = r.mode == "uni-p2p"       ? &PairData::p2p
                               : r.mode == "uni-staged"  ? &PairData::staged
                               : r.mode == "uni-unknown" ? &PairData::unknown
                                                         : nullptr;
    if (!series) continue;
    PairData& p = pairs[{r.src, r.dst}];
    (p.*series).points.push_back({static_cast<double>(r.size_bytes), *r.gbps_median});
    if (r.link_limit_gbps.known()) p.limit = std::max(p.limit, *r.link_limit_gbps);
  }
  std::string o;
  size_t shown = 0;
  for (auto& [key, p] : pairs) {
    if (shown == max_pairs) break;
    std::vector<Series> s;
    for (Series* x : {&p.p2p, &p.staged, &p.unknown}) {
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
  // The newest measurement, with the earlier ones of the same model at the same endpoint: two
  // pasted benchmark blocks (concurrency 1, then 64) are one curve, not two lone points.
  const ServeMeasurement& last = mv.serve.back();
  std::vector<const ServeMeasurement*> same;
  for (const auto& sm : mv.serve)
    if (sm.model == last.model && sm.endpoint == last.endpoint) same.push_back(&sm);
  std::vector<const ServeRun*> runs;
  for (const ServeMeasurement* sm : same)
    for (const auto& r : sm->runs)
      if (r.MeasuredSomething()) runs.push_back(&r);  // a failed run measured nothing
  // The x axis: requests in flight (closed loop, or an open loop's cap), else the request rate
  // of an open loop, else the runs in order.
  auto in_flight = [](const ServeRun& r) -> std::optional<double> {
    if (r.concurrency.known()) return static_cast<double>(*r.concurrency);
    if (r.max_concurrency.known()) return static_cast<double>(*r.max_concurrency);
    return std::nullopt;
  };
  size_t by_flight = 0, by_rate = 0;
  for (const ServeRun* r : runs) {
    by_flight += in_flight(*r).has_value();
    by_rate += r->request_rate.known() && std::isfinite(*r->request_rate) && *r->request_rate > 0;
  }
  Axis x{true, 0, 1, "concurrency (requests in flight)", PlainTick};
  if (by_flight == 0 && by_rate > 0) x.label = "request rate (requests/s)";
  if (by_flight == 0 && by_rate == 0) x = Axis{false, 0, 1, "run", PlainTick};
  Series total{"total tokens/s", "#1565c0", false, {}},
      output{"output tokens/s", "#2e7d32", true, {}};
  Series ttft{"TTFT median (ms)", "#6a1b9a", false, {}},
      tpot{"TPOT median (ms)", "#ef6c00", true, {}};
  double order = 0;
  for (const ServeRun* r : runs) {
    ++order;
    double c = order;
    if (by_flight > 0) {
      if (!in_flight(*r)) continue;
      c = *in_flight(*r);
    } else if (by_rate > 0) {
      if (!r->request_rate.known() || !std::isfinite(*r->request_rate) || *r->request_rate <= 0)
        continue;
      c = *r->request_rate;
    }
    if (r->Knows("total_tokens_per_s")) total.points.push_back({c, r->total_tokens_per_s});
    if (r->Knows("output_tokens_per_s")) output.points.push_back({c, r->output_tokens_per_s});
    if (r->ttft_ms.median.known()) ttft.points.push_back({c, *r->ttft_ms.median});
    if (r->tpot_ms.median.known()) tpot.points.push_back({c, *r->tpot_ms.median});
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
  std::string against = by_flight > 0 ? "concurrency" : by_rate > 0 ? "request rate" : "run";
  std::string when = same.size() > 1 ? fmt::format("{} measurements, {} to {}", same.size(),
                                                   same.front()->time, last.time)
                                     : last.time;
  std::string o = LineChart("Throughput against " + against + ", " + when, x,
                            Axis{false, 0, 1, "tokens/s", PlainTick}, tput, tput_targets);
  o += LineChart("Latency against " + against + ", " + when, x, Axis{false, 0, 1, "ms", PlainTick},
                 lat, lat_targets);
  return o;
}

}  // namespace dossier::html
