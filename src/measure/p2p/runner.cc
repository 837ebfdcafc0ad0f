#include "measure/p2p/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "measure/p2p/host_nodes.h"
#include "measure/p2p/link_limit.h"
#include "measure/p2p/stats.h"
#include "measure/p2p/verify.h"

namespace dossier::p2p {
namespace {

// What RunPlan keeps between items.
struct Sweep {
  CopyEngine& engine;
  const Machine& model;
  const RunOptions& options;
  std::map<int, size_t> device_capacity;  // largest copy each device takes part in
  size_t host_capacity = 0;
  bool deadline_hit = false;
};

std::string GpuName(int d) {
  return "GPU " + std::to_string(d);
}

// Why the item cannot run, or "" when it can.
std::string Waiver(const Sweep& s, const PlanItem& it, int64_t* node) {
  for (int d : {it.src, it.dst})
    if (d >= 0 && !s.engine.usable(d))
      return "not run: " + GpuName(d) + ": " + s.engine.unusable_reason(d);
  if (IsPeerMode(it.mode)) {
    for (auto [a, b] : {std::pair{it.src, it.dst}, std::pair{it.dst, it.src}}) {
      if (!s.engine.can_access_peer(a, b))
        return fmt::format(
            "cuDeviceCanAccessPeer({}, {}) = 0: the driver allows no peer access "
            "between these GPUs",
            a, b);
      if (!IsBidirectional(it.mode)) break;  // one direction needs only its own access
    }
  }
  if (IsHostMode(it.mode)) {
    int gpu = it.src >= 0 ? it.src : it.dst;
    HostNodes nodes = HostNodesFor(s.model, s.engine.bus_id(gpu));
    const Fact<int64_t>& n = IsFarHost(it.mode) ? nodes.far : nodes.local;
    if (n.known())
      *node = *n;
    else if (IsFarHost(it.mode))
      return "no far NUMA node: " + n.unknown;
    else
      *node = -1;  // local but unknown: the default policy, said in the detail
  }
  return {};
}

std::vector<Direction> Directions(const PlanItem& it, int64_t node) {
  auto ep = [node](int d) { return d >= 0 ? Endpoint{d, -1} : Endpoint{-1, node}; };
  std::vector<Direction> dirs{{ep(it.src), ep(it.dst)}};
  if (IsBidirectional(it.mode)) dirs.push_back({ep(it.dst), ep(it.src)});
  return dirs;
}

Status Setup(Sweep& s, const PlanItem& it, int64_t node) {
  CopyEngine& e = s.engine;
  auto deadline = std::min(Clock::now() + s.options.copy_timeout, s.options.deadline);
  for (int d : {it.src, it.dst})
    if (d >= 0)
      if (Status st = e.PrepareDevice(d, s.device_capacity[d], deadline); !st) return st;
  if (IsHostMode(it.mode)) return e.PrepareHost(node, s.host_capacity);
  if (IsDeviceLocal(it.mode)) return OkStatus();  // one GPU: no peer access to switch
  if (IsPeerMode(it.mode)) {
    if (Status st = e.SetPeer(it.src, it.dst, true); !st) return st;
    if (IsBidirectional(it.mode)) return e.SetPeer(it.dst, it.src, true);
    return OkStatus();
  }
  // Staged: no direct access either way, so the driver goes through host memory.
  if (Status st = e.SetPeer(it.src, it.dst, false); !st) return st;
  return e.SetPeer(it.dst, it.src, false);
}

void Measure(Sweep& s, const PlanItem& it, P2pResult* r) {
  int64_t node = -1;
  if (std::string why = Waiver(s, it, &node); !why.empty()) {
    r->verdict = "waived";
    r->detail = why;
    return;
  }
  auto fail = [&](const char* verdict, std::string why) {
    // A wait that timed out outside the timed batches (clearing, reading back) is a hang too:
    // the engine has marked the GPU unusable.
    for (int d : {it.src, it.dst})
      if (d >= 0 && !s.engine.usable(d)) verdict = "hung";
    r->verdict = verdict;
    r->detail = std::move(why);
  };
  if (Status st = Setup(s, it, node); !st) return fail("error", st.error().message);
  auto batch_deadline = [&] {
    return std::min(Clock::now() + s.options.copy_timeout, s.options.deadline);
  };
  const std::vector<Direction> dirs = Directions(it, node);
  for (const auto& d : dirs)
    if (Status st = s.engine.Clear(d.dst, it.size, batch_deadline()); !st)
      return fail("error", st.error().message);

  const int copies = CopiesPerBatch(it);
  std::vector<double> ms;
  for (int b = 0; b < s.options.warmup + s.options.reps; ++b) {
    BatchResult br = s.engine.TimeBatch(dirs, copies, it.size, batch_deadline());
    if (br.status == BatchResult::kHung) {
      bool cut = Clock::now() >= s.options.deadline;
      s.deadline_hit |= cut;
      std::string gpus;
      for (int d : {it.src, it.dst})
        if (d >= 0 && gpus.find(GpuName(d)) == std::string::npos)
          gpus += (gpus.empty() ? "" : " and ") + GpuName(d);
      return fail("hung",
                  fmt::format("{} copies of {} did not complete within {:.1f} s{}; {} not used "
                              "again",
                              copies, FormatSize(it.size),
                              std::chrono::duration<double>(s.options.copy_timeout).count(),
                              cut ? " (the run's --timeout was reached)" : "", gpus));
    }
    if (br.status == BatchResult::kError) return fail("error", br.detail);
    if (br.ms <= 0) return fail("error", "the events measured no time between them");
    if (b >= s.options.warmup) ms.push_back(br.ms);
  }

  const double bytes = static_cast<double>(it.size) * copies * static_cast<double>(dirs.size());
  Spread t = Summarize(ms);
  std::string src = fmt::format("events around {} copies, {} batches", copies, ms.size());
  r->gbps_median.Set(bytes / (t.median * 1e6), src);  // bytes per ms * 1e-6 = GB/s
  r->gbps_min.Set(bytes / (t.max * 1e6), src);
  r->gbps_max.Set(bytes / (t.min * 1e6), src);
  r->latency_us.Set(t.median * 1000 / copies, src);
  if (r->link_limit_gbps.known()) {
    double both = IsBidirectional(it.mode) ? 2 : 1;  // both directions of the link are in use
    r->percent_of_limit.Set(*r->gbps_median / (*r->link_limit_gbps * both) * 100,
                            "measured / " + r->link_limit_gbps.source);
  } else {
    r->percent_of_limit.Unknown(r->link_limit_gbps.unknown, r->link_limit_gbps.source);
  }

  std::vector<std::string> notes;
  if (!s.engine.timing_note().empty()) notes.push_back(s.engine.timing_note());
  if (IsHostMode(it.mode)) notes.push_back("host memory: " + s.engine.host_placement(node));
  r->verdict = "ok";
  for (size_t i = 0; i < dirs.size(); ++i) {
    auto bad = s.engine.Verify(dirs[i], it.size, batch_deadline());
    if (!bad) return fail("error", "checking the bytes: " + bad.error().message);
    if (*bad) {
      r->verdict = "corrupted";
      notes.insert(
          notes.begin(),
          fmt::format("{}bytes differ from the source at offset {} of {} ({})",
                      dirs.size() > 1 ? (i == 0 ? "forward: " : "reverse: ") : "", **bad,
                      FormatSize(it.size),
                      CheckedEntirely(it.size) ? "every byte checked"
                                               : "first difference among the windows checked"));
      break;
    }
  }
  for (const auto& n : notes) r->detail += (r->detail.empty() ? "" : "; ") + n;
}

}  // namespace

P2pMeasurement RunPlan(CopyEngine& engine, const Machine& model, const std::vector<PlanItem>& plan,
                       const RunOptions& options, const std::atomic<bool>& stop,
                       const ProgressFn& progress) {
  P2pMeasurement m;
  for (int d = 0; d < engine.device_count(); ++d) m.gpu_addresses.push_back(engine.bus_id(d));
  Sweep s{engine, model, options, {}, 0, false};
  for (const auto& it : plan) {
    for (int d : {it.src, it.dst})
      if (d >= 0) s.device_capacity[d] = std::max<size_t>(s.device_capacity[d], it.size);
    if (IsHostMode(it.mode)) s.host_capacity = std::max<size_t>(s.host_capacity, it.size);
  }
  for (size_t i = 0; i < plan.size(); ++i) {
    if (stop.load() || Clock::now() >= options.deadline || s.deadline_hit) {
      m.interrupted = true;
      break;
    }
    const PlanItem& it = plan[i];
    P2pResult r;
    r.src = it.src;
    r.dst = it.dst;
    r.mode = it.mode;
    r.size_bytes = it.size;
    std::vector<std::string> addrs;
    for (int d : {it.src, it.dst})
      if (d >= 0) addrs.push_back(engine.bus_id(d));
    if (IsDeviceLocal(it.mode))
      // The copy stays in the GPU's memory: no PCIe link is on its path, and this mode is the
      // ceiling the other modes are read against rather than a figure read against a link.
      r.link_limit_gbps.Unknown("a copy within one GPU's memory crosses no PCIe link",
                                "link limit");
    else if (std::find(addrs.begin(), addrs.end(), "") != addrs.end())
      r.link_limit_gbps.Unknown("the CUDA driver gave no PCI bus id", "cuDeviceGetPCIBusId");
    else
      r.link_limit_gbps = PathLimit(model, addrs);
    Measure(s, it, &r);
    if (!r.gbps_median.known()) {  // waived, hung or error: the numbers say why they are absent
      std::string why = r.verdict + ": " + r.detail;
      for (Fact<double>* f : {&r.gbps_median, &r.gbps_min, &r.gbps_max, &r.latency_us})
        f->Unknown(why, "dossier p2p");
      if (r.link_limit_gbps.known())
        r.percent_of_limit.Unknown(why, "dossier p2p");
      else
        r.percent_of_limit.Unknown(r.link_limit_gbps.unknown, r.link_limit_gbps.source);
    }
    m.results.push_back(std::move(r));
    if (progress) progress(i + 1, plan.size(), m.results.back());
  }
  if (s.deadline_hit) m.interrupted = true;
  return m;
}

}  // namespace dossier::p2p
