// dossier p2p: measure GPU<->GPU and host<->GPU copies over a sweep of message sizes, check every
// copy's bytes, and append the result to the dossier (and print it with --format).
#include <fmt/format.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cli/parse.h"
#include "gpu/cuda_loader.h"
#include "measure/p2p/copy_engine.h"
#include "measure/p2p/plan.h"
#include "measure/p2p/record.h"
#include "measure/p2p/runner.h"
#include "model/json_io.h"
#include "probe/probe.h"
#include "render/markdown.h"
#include "render/md_util.h"
#include "store/dossier_dir.h"
#include "util/stop_signals.h"
#include "util/text.h"

namespace dossier::cli {
namespace {

void Progress(bool quiet, size_t done, size_t total, const P2pResult& r) {
  if (quiet) return;
  auto who = [](int64_t d) { return d < 0 ? std::string("host") : std::to_string(d); };
  std::string figures;
  if (r.gbps_median.known() && r.mode.starts_with("latency")) {
    figures = fmt::format("{:.2f} us", r.latency_us.value_or(0));
  } else if (r.gbps_median.known()) {
    figures = fmt::format("{:.2f} GB/s, {:.1f} us", *r.gbps_median, r.latency_us.value_or(0));
    if (r.percent_of_limit.known())
      figures += fmt::format(", {:.0f}% of link", *r.percent_of_limit);
  }
  std::fprintf(stderr, "p2p [%zu/%zu] %s->%s %s %s: %s%s%s\n", done, total, who(r.src).c_str(),
               who(r.dst).c_str(), r.mode.c_str(), p2p::FormatSize(r.size_bytes).c_str(),
               r.verdict.c_str(), figures.empty() ? "" : " ", figures.c_str());
  if (r.verdict != "ok" && r.verdict != "waived")
    std::fprintf(stderr, "    %s\n", r.detail.c_str());
}

}  // namespace

int RunP2p(const std::vector<std::string>& args) {
  CLI::App app(
      "Measure GPU peer-to-peer and host<->GPU bandwidth and latency over message sizes, and "
      "check that every copy's bytes arrive intact.",
      "dossier p2p");
  std::string cuda_lib, nvml_lib, pairs_text, sizes_text, format, machine, dossier_dir = "dossier";
  std::string matrix_text = "16M";
  int reps = 5, warmup = 1;
  double timeout_s = 180, copy_timeout_s = 10;
  uint64_t latency_bytes = 16;
  bool no_host = false, no_local = false, no_store = false, quiet = false;
  app.add_option("--cuda-lib", cuda_lib, "CUDA driver library (default libcuda.so.1)");
  app.add_option("--nvml-lib", nvml_lib,
                 "NVML library, for link limits (default libnvidia-ml.so.1)");
  app.add_option("--pairs", pairs_text,
                 "ordered GPU pairs by CUDA ordinal, e.g. 0-1,2-3 (default all)");
  app.add_option("--sizes", sizes_text, "message sizes, e.g. 4K,12K,16M (default 4K..256M)");
  app.add_option("--reps", reps, "timed batches per result")
      ->capture_default_str()
      ->check(CLI::Range(1, 100));
  app.add_option("--warmup", warmup, "untimed batches first")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  app.add_option("--latency-size", latency_bytes, "bytes per copy for latency")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--timeout", timeout_s, "seconds for the whole run")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 86400.0));
  app.add_option("--copy-timeout", copy_timeout_s,
                 "seconds before one batch of copies is called hung")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 3600.0));
  app.add_option("--matrix-size", matrix_text, "size of the pair matrices in --format md")
      ->capture_default_str();
  app.add_flag("--no-host", no_host, "skip host<->GPU copies");
  app.add_flag("--no-local", no_local,
               "skip device-local copies (one GPU's memory to itself, the ceiling for the rest)");
  app.add_option("--machine", machine, "machine name for the record (default: the hostname)")
      ->check(MachineName());
  app.add_option("--dossier", dossier_dir, "dossier directory to append to")
      ->check(NonEmptyPath())
      ->capture_default_str();
  app.add_flag("--no-store", no_store, "do not append the result to the dossier");
  app.add_option("--format", format, "also print the result (md or json) on stdout")
      ->check(CLI::IsMember({"md", "json"}));
  app.add_flag("-q,--quiet", quiet, "no progress on stderr");
  if (int rc = Parse(app, args); rc >= 0) return rc;

  p2p::PlanOptions plan_opts;
  plan_opts.sizes = p2p::DefaultSizes();
  plan_opts.latency_bytes = latency_bytes;
  plan_opts.host = !no_host;
  plan_opts.local = !no_local;
  if (!sizes_text.empty()) {
    auto s = p2p::ParseSizes(sizes_text);
    if (!s) return std::fprintf(stderr, "dossier p2p: %s\n", s.error().message.c_str()), kExitUsage;
    plan_opts.sizes = *s;
  }
  if (!pairs_text.empty()) {
    auto p = p2p::ParsePairs(pairs_text);
    if (!p) return std::fprintf(stderr, "dossier p2p: %s\n", p.error().message.c_str()), kExitUsage;
    plan_opts.pairs = *p;
  }
  auto matrix = p2p::ParseSizes(matrix_text);
  if (!matrix || matrix->size() != 1)
    return std::fprintf(stderr, "dossier p2p: --matrix-size: one size, like 16M\n"), kExitUsage;

  // The deadline starts now: collecting the machine and opening CUDA count against --timeout.
  const auto deadline =
      p2p::Clock::now() + std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  // SIGINT, SIGTERM and SIGHUP alike: stop after the copy under way, free the GPUs, store what
  // was measured marked interrupted. Held until the function returns: a repeated signal must not
  // end the process before the record is stored (util/stop_signals.h).
  StopSignals stop("dossier p2p");
  std::atomic<bool>& stop_flag = StopSignals::flag();

  // The machine model gives link limits (PCI walk, NVML) and NUMA nodes.
  RootFs fs("/");
  CollectOptions copts;
  copts.nvml_lib = nvml_lib;
  std::vector<std::string> log;
  if (!quiet) std::fprintf(stderr, "p2p: reading the machine\n");
  Machine model = CollectMachine(fs, copts, &log);
  if (!machine.empty()) model.name = machine;

  // CUDA orders devices fastest-first unless told otherwise; PCI order matches nvidia-smi and the
  // rest of the dossier. A value the user set is kept (gpu_addresses records the mapping anyway).
  ::setenv("CUDA_DEVICE_ORDER", "PCI_BUS_ID", 0);
  auto cuda = gpu::CudaLibrary::Open(cuda_lib);
  if (!cuda) {
    std::fprintf(stderr, "dossier p2p: the CUDA driver is not usable: %s\n",
                 cuda.error().message.c_str());
    return kExitFailure;
  }
  auto engine = p2p::CopyEngine::Open(**cuda);
  if (!engine) {
    std::fprintf(stderr, "dossier p2p: %s\n", engine.error().message.c_str());
    return kExitFailure;
  }
  int devices = (*engine)->device_count();
  // The driver honours CUDA_VISIBLE_DEVICES: ordinals are among the GPUs it lists, in its order.
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string visible_note =
      visible ? fmt::format(" (CUDA_VISIBLE_DEVICES={})", Printable(visible)) : std::string();
  if (auto s = p2p::CheckPairs(plan_opts.pairs, devices); !s)
    return std::fprintf(stderr, "dossier p2p: %s%s\n", s.error().message.c_str(),
                        visible_note.c_str()),
           kExitUsage;
  auto plan = p2p::BuildPlan(devices, plan_opts);
  if (plan.empty()) {
    // Nothing stored: an empty record would read as a run that found nothing wrong.
    std::string why =
        fmt::format("CUDA sees {} GPU{}{}", devices, devices == 1 ? "" : "s", visible_note);
    if (devices < 2) why += ", so there is no pair";
    std::string off = no_host && no_local ? "--no-host and --no-local"
                      : no_host           ? "--no-host"
                      : no_local          ? "--no-local"
                                          : "";
    if (!off.empty()) why += ", and " + off + " turned off the per-GPU copies";
    std::fprintf(stderr, "dossier p2p: nothing to measure: %s\n", why.c_str());
    return kExitFailure;
  }
  if (devices < 2 && !quiet)
    std::fprintf(stderr, "p2p: one GPU%s: no pairs; %s\n", visible_note.c_str(),
                 no_host    ? "device-local copies only"
                 : no_local ? "host<->GPU copies only"
                            : "device-local and host<->GPU copies");
  if (!quiet)
    std::fprintf(stderr, "p2p: %d GPUs, %zu results to measure (--timeout %.0f s)\n", devices,
                 plan.size(), timeout_s);

  const std::string started = NowIso8601();
  p2p::RunOptions ro;
  ro.reps = reps;
  ro.warmup = warmup;
  ro.copy_timeout = std::chrono::milliseconds(static_cast<int64_t>(copy_timeout_s * 1000));
  ro.deadline = deadline;
  P2pMeasurement m =
      p2p::RunPlan(**engine, model, plan, ro, stop_flag,
                   [quiet](size_t d, size_t t, const P2pResult& r) { Progress(quiet, d, t, r); });
  engine->reset();  // frees GPU and pinned memory before anything is written
  m.time = started;
  m.boot_id = model.boot_id.value_or("");
  m.hostname = model.hostname.value_or("");
  if (visible) m.cuda_visible_devices = Printable(visible);
  if (stop_flag.load()) m.interrupted = true;

  int rc = kExitOk;
  for (const auto& r : m.results)
    if (r.verdict == "corrupted" || r.verdict == "hung" || r.verdict == "error") rc = kExitFailure;
  if (m.interrupted) rc = kExitFailure;
  // Every result waived (no GPU usable, no far node, no peer access): nothing was measured, and
  // exit 0 would read as a run that measured and found nothing wrong.
  if (!m.results.empty() && std::all_of(m.results.begin(), m.results.end(),
                                        [](const P2pResult& r) { return r.verdict == "waived"; })) {
    std::fprintf(stderr, "dossier p2p: nothing was measured: every result was waived (%s)\n",
                 m.results.front().detail.c_str());
    rc = kExitFailure;
  }

  if (!no_store) {
    auto path = DossierDir(dossier_dir).Append(p2p::P2pRecord(m, model.name), model.name);
    if (!path) {
      std::fprintf(stderr, "dossier p2p: cannot write the record: %s\n",
                   path.error().message.c_str());
      rc = kExitFailure;
    } else if (!quiet) {
      std::fprintf(stderr, "wrote %s\n", path->c_str());
    }
  }
  if (format == "json") {
    std::string text = DumpJson(P2pToJson(m), 1) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else if (format == "md") {
    std::string text = "# GPU copies on " + md::Code(model.name, false) + "\n\n";
    MdP2pMeasurement(m, matrix->front(), &text);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return rc;
}

}  // namespace dossier::cli
