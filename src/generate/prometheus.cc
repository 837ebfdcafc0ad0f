#include "generate/prometheus.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cmath>
#include <ctime>
#include <map>
#include <set>

#include "generate/generator.h"
#include "store/output_file.h"

namespace dossier::prometheus {
namespace {

// Label values: backslash, double quote and line feed are escaped (exposition format).
std::string LabelValue(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

using Labels = std::vector<std::pair<std::string, std::string>>;

// A family: HELP and TYPE once, then its samples. Families are written whole, in a fixed order,
// as the format requires (all samples of a family together).
class Family {
 public:
  Family(std::string name, std::string help) : name_(std::move(name)), help_(std::move(help)) {}
  void Add(const Labels& labels, double value) {
    std::string s = name_;
    if (!labels.empty()) {
      s += '{';
      for (size_t i = 0; i < labels.size(); ++i)
        s += (i ? "," : "") + labels[i].first + "=\"" + LabelValue(labels[i].second) + "\"";
      s += '}';
    }
    // Integers as integers; NaN and infinities as the format spells them.
    if (std::isnan(value))
      s += " NaN";
    else if (std::isinf(value))
      s += value > 0 ? " +Inf" : " -Inf";
    else if (value == std::floor(value) && std::fabs(value) < 1e15)
      s += fmt::format(" {}", static_cast<int64_t>(value));
    else
      s += fmt::format(" {}", value);
    samples_.insert(s + "\n");  // a set: the same sample twice would be a duplicate series
  }
  void Write(std::string* out) const {
    if (samples_.empty()) return;
    *out += "# HELP " + name_ + " " + help_ + "\n# TYPE " + name_ + " gauge\n";
    for (const auto& s : samples_) *out += s;
  }

 private:
  std::string name_, help_;
  std::set<std::string> samples_;
};

// "2026-12-02T16:30:00Z" -> seconds since the epoch; NaN when it does not parse.
double EpochSeconds(const std::string& iso) {
  std::tm tm{};
  if (!strptime(iso.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm)) return NAN;
  return static_cast<double>(timegm(&tm));
}

std::string Pair(int64_t a, int64_t b) {
  auto dev = [](int64_t i) { return i < 0 ? std::string("host") : std::to_string(i); };
  return dev(a) + "-" + dev(b);
}

std::string Load(const ServeRun& r) {
  if (r.concurrency.known()) return "concurrency=" + std::to_string(*r.concurrency);
  if (r.request_rate.known()) return fmt::format("rate={:g}", *r.request_rate);
  return "unknown";
}

}  // namespace

std::string MetricsText(const View& view, const Analysis& analysis) {
  Family build("dossier_build_info", "The dossier version that wrote these metrics (always 1).");
  Family collect_time("dossier_last_collect_timestamp_seconds",
                      "When the machine was last collected (Unix time).");
  Family gpus("dossier_gpus", "GPUs for compute found on the PCI bus.");
  Family gpu_info("dossier_gpu_info", "One series per GPU with its identity (always 1).");
  Family link_gen("dossier_gpu_pcie_link_generation",
                  "PCIe generation of the GPU's link (state: current or max), from sysfs.");
  Family link_width("dossier_gpu_pcie_link_width_lanes",
                    "PCIe width of the GPU's link in lanes (state: current or max), from sysfs.");
  Family numa("dossier_gpu_numa_node", "NUMA node of the GPU (-1: the kernel does not know).");
  Family numa_known("dossier_gpu_numa_affinity_known",
                    "1 when the kernel knows the GPU's NUMA node, 0 when it reports -1 or none.");
  Family p2p_ok("dossier_gpu_p2p_ok",
                "1 when NVML reports P2P status OK for the pair and capability, else 0.");
  Family p2p_status("dossier_gpu_p2p_status",
                    "NVML P2P status code of the pair and capability (always 1).");
  // Bytes, not gigabytes: Prometheus' base units (promtool rejects a gigabytes suffix); the
  // dossier's GB/s (1e9 bytes) times 1e9.
  Family p2p_bw("dossier_p2p_bandwidth_bytes_per_second",
                "Median copy bandwidth of the last p2p measurement.");
  Family p2p_lat("dossier_p2p_latency_seconds", "Median copy latency of the last p2p measurement.");
  Family p2p_bad("dossier_p2p_results",
                 "Results of the last p2p measurement by verdict (ok, corrupted, hung, ...).");
  Family p2p_time("dossier_p2p_last_measurement_timestamp_seconds",
                  "When the last p2p measurement ran (Unix time).");
  Family iommu("dossier_iommu_enabled", "1 when the kernel has an IOMMU enabled, 0 when off.");
  Family iommu_mode("dossier_iommu_domain_groups",
                    "IOMMU groups by default domain type (DMA, DMA-FQ, identity, ...).");
  Family finding("dossier_finding",
                 "A finding of the diagnosis rules present on the machine (always 1).");
  Family tps("dossier_serve_tokens_per_second",
             "Throughput of the last serve-bench run per load (kind: total or output tokens).");
  Family req("dossier_serve_requests_per_second",
             "Completed requests per second, last serve-bench.");
  Family failed("dossier_serve_failed_requests", "Failed requests of the last serve-bench run.");
  Family ttft("dossier_serve_ttft_seconds", "Time to first token of the last serve-bench run.");
  Family tpot("dossier_serve_tpot_seconds", "Time per output token of the last serve-bench run.");
  Family itl("dossier_serve_itl_seconds", "Inter-token latency of the last serve-bench run.");
  Family e2e("dossier_serve_e2e_seconds", "End-to-end request latency, last serve-bench run.");
  Family serve_time("dossier_serve_last_measurement_timestamp_seconds",
                    "When the last serve-bench ran (Unix time).");
  Family target("dossier_serve_target", "A serving target from the notes (its value).");
  Family target_met("dossier_serve_target_met",
                    "1 when the latest measurement meets the serving target, 0 when it does not.");

  build.Add({{"version", DOSSIER_VERSION}}, 1);
  for (const auto& mv : view.machines) {
    const Machine& m = mv.machine;
    const std::string& name = m.name;
    // A machine known only from its measurements was never collected: no collect time.
    if (double t = EpochSeconds(mv.record.time); !std::isnan(t) && !mv.measured_only)
      collect_time.Add({{"machine", name}}, t);
    // A count no paste covered is unknown: no series (0 would say the machine has no GPU).
    if (mv.coverage.Covers(dossier::Family::kGpus) || !m.gpus.empty())
      gpus.Add({{"machine", name}}, static_cast<double>(m.gpus.size()));
    for (const auto& g : m.gpus) {
      std::string idx = std::to_string(g.index);
      gpu_info.Add({{"machine", name},
                    {"gpu", idx},
                    {"pci_address", g.address},
                    {"name", g.name.value_or("unknown")},
                    {"architecture", g.architecture.value_or("unknown")},
                    {"compute_capability", g.compute_capability.value_or("unknown")}},
                   1);
      Labels l = {{"machine", name}, {"gpu", idx}, {"pci_address", g.address}};
      if (const PciDevice* d = m.FindPci(g.address)) {
        auto state = [&](const char* s, const PciLinkState& ls) {
          Labels x = l;
          x.emplace_back("state", s);
          if (ls.gen.known()) link_gen.Add(x, static_cast<double>(*ls.gen));
          if (ls.width.known()) link_width.Add(x, static_cast<double>(*ls.width));
        };
        state("current", d->link.current);
        state("max", d->link.max);
      }
      if (g.numa_node.known()) {
        numa.Add(l, static_cast<double>(*g.numa_node));
        numa_known.Add(l, *g.numa_node >= 0 ? 1 : 0);
      } else if (mv.coverage.collected) {
        numa_known.Add(l, 0);  // pasted: the node is not known either way, so no series
      }
    }
    const auto& ps = m.topology.p2p_status;
    const std::pair<const char*, const std::vector<std::vector<std::string>>*> caps[] = {
        {"read", &ps.read},
        {"write", &ps.write},
        {"nvlink", &ps.nvlink},
        {"atomics", &ps.atomics},
        {"pci", &ps.pci}};
    for (const auto& [cap, mat] : caps)
      for (size_t i = 0; i < mat->size(); ++i)
        for (size_t j = 0; j < (*mat)[i].size(); ++j) {
          if (i == j) continue;
          const std::string& s = (*mat)[i][j];
          Labels l = {{"machine", name},
                      {"pair", Pair(static_cast<int64_t>(i), static_cast<int64_t>(j))},
                      {"capability", cap}};
          p2p_ok.Add(l, s == "OK" ? 1 : 0);
          l.emplace_back("status", s);
          p2p_status.Add(l, 1);
        }
    if (!mv.p2p.empty()) {
      const P2pMeasurement& pm = mv.p2p.back();
      if (double t = EpochSeconds(pm.time); !std::isnan(t)) p2p_time.Add({{"machine", name}}, t);
      std::map<std::string, int> verdicts = {{"ok", 0}, {"corrupted", 0}, {"hung", 0}};
      for (const auto& r : pm.results) {
        ++verdicts[r.verdict.empty() ? "unknown" : r.verdict];
        Labels l = {{"machine", name},
                    {"pair", Pair(r.src, r.dst)},
                    {"mode", r.mode},
                    {"size_bytes", std::to_string(r.size_bytes)}};
        if (r.verdict != "ok") continue;
        if (r.gbps_median.known()) p2p_bw.Add(l, *r.gbps_median * 1e9);
        if (r.latency_us.known()) p2p_lat.Add(l, *r.latency_us / 1e6);
      }
      for (const auto& [v, n] : verdicts) p2p_bad.Add({{"machine", name}, {"verdict", v}}, n);
    }
    if (m.iommu.enabled.known()) {
      iommu.Add({{"machine", name}}, *m.iommu.enabled ? 1 : 0);
      std::map<std::string, int> types;
      for (const auto& g : m.iommu.groups) ++types[g.type.value_or("unknown")];
      for (const auto& [t, n] : types) iommu_mode.Add({{"machine", name}, {"type", t}}, n);
    }
    for (const auto& f : analysis.Of(mv).findings)
      finding.Add({{"machine", name}, {"id", f.id}, {"severity", f.severity}}, 1);
    if (!mv.serve.empty()) {
      const ServeMeasurement& sm = mv.serve.back();
      if (double t = EpochSeconds(sm.time); !std::isnan(t)) serve_time.Add({{"machine", name}}, t);
      for (const auto& r : sm.runs) {
        Labels l = {{"machine", name}, {"load", Load(r)}};
        // A figure not known (typed in without it) is absent, never a 0.
        if (r.Knows("failed")) failed.Add(l, static_cast<double>(r.failed));
        if (!r.MeasuredSomething()) continue;
        if (r.Knows("request_throughput")) req.Add(l, r.request_throughput);
        Labels t = l;
        t.emplace_back("kind", "total");
        if (r.Knows("total_tokens_per_s")) tps.Add(t, r.total_tokens_per_s);
        t.back().second = "output";
        if (r.Knows("output_tokens_per_s")) tps.Add(t, r.output_tokens_per_s);
        auto quantiles = [&](Family& fam, const LatencyStats& s) {
          const std::pair<const char*, const Fact<double>*> qs[] = {
              {"50", &s.median}, {"90", &s.p90}, {"99", &s.p99}, {"100", &s.max}};
          for (const auto& [q, v] : qs) {
            if (!v->known()) continue;
            Labels x = l;
            // "percentile", not "quantile": promtool reserves that label for summaries.
            x.emplace_back("percentile", q);
            fam.Add(x, **v / 1000.0);
          }
        };
        quantiles(ttft, r.ttft_ms);
        quantiles(tpot, r.tpot_ms);
        quantiles(itl, r.itl_ms);
        quantiles(e2e, r.e2e_ms);
      }
    }
  }
  for (const auto& t : analysis.plan.targets) {
    Labels l = {{"metric", t.target.metric},
                {"op", t.target.op},
                {"concurrency", std::to_string(t.target.concurrency)}};
    target.Add(l, t.target.value);
    if (t.measured && !t.stale.empty()) continue;  // an earlier boot's figure says nothing now
    if (t.measured) target_met.Add(l, t.verdict == "met" ? 1 : 0);
  }

  std::string out;
  for (const Family* f :
       {&build,      &collect_time, &gpus,       &gpu_info,   &link_gen, &link_width, &numa,
        &numa_known, &p2p_ok,       &p2p_status, &p2p_time,   &p2p_bw,   &p2p_lat,    &p2p_bad,
        &iommu,      &iommu_mode,   &finding,    &serve_time, &tps,      &req,        &failed,
        &ttft,       &tpot,         &itl,        &e2e,        &target,   &target_met})
    f->Write(&out);
  return out;
}

Result<std::string> WriteTextfile(const std::string& dir, const std::string& text) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Error::NotFound(dir +
                           ": not a directory (give node_exporter's "
                           "--collector.textfile.directory)");
  std::string path = dir + "/dossier.prom";
  if (auto s = WriteOutputFile(path, text); !s) return s.error();
  return path;
}

}  // namespace dossier::prometheus

namespace dossier {

Result<Artifact> GeneratePrometheus(const GenerateArgs& args, const View& view,
                                    const Analysis& analysis) {
  if (view.machines.empty())
    return Error::NotFound("the dossier holds no collect yet: run 'dossier collect' first");
  Artifact a;
  if (args.machine.empty()) {
    a.text = prometheus::MetricsText(view, analysis);
  } else {
    const MachineView* mv = view.Find(args.machine);
    if (!mv) return Error::NotFound("no machine '" + args.machine + "' in the dossier");
    View one;
    one.machines.push_back(*mv);
    one.notes = view.notes;
    a.text = prometheus::MetricsText(one, analysis);
  }
  a.notes =
      "node_exporter exposes it when the file is in its --collector.textfile.directory: use "
      "--textfile-dir DIR (written atomically as DIR/dossier.prom). Run it after each collect "
      "(cron, a systemd timer, a DaemonSet: docs/fleet.md); alerting rules: "
      "docs/prometheus/dossier.rules.yml.";
  a.verify =
      "promtool check metrics < DIR/dossier.prom; curl -s localhost:9100/metrics | grep ^dossier_";
  return a;
}

}  // namespace dossier
