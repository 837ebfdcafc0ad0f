// `dossier fleet` over many nodes, as a whole process: the bench writes N collect records (the
// seed story's 8-GPU guest collected from its tree, renamed per node, with a few nodes drifted: a
// GPU link at x8, another driver, another kernel command line), then runs
// `dossier fleet -q --format json DIR` and reports its wall time and peak RSS (getrusage of the
// child: ru_maxrss). Memory should grow with the number of distinct values, not with N × record
// size: compare peak_rss_mib at 1,000 and 10,000 nodes.
//
//   build/bench/dossier_bench --benchmark_filter=Fleet
//
// The records take about 140 KB each (1.4 GB at 10,000) in a temporary directory removed at exit;
// DOSSIER_BENCH_FLEET_DIR keeps them in a directory of your choice between runs.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "model/json_io.h"
#include "probe/probe.h"
#ifdef DOSSIER_BENCH_HAVE_TREEGEN
#include "treegen_tree.h"
#endif

extern char** environ;

namespace {

namespace fs = std::filesystem;

class FleetRecords {
 public:
  static const std::string& Dir(int nodes) {
    static FleetRecords records;
    return records.Ensure(nodes);
  }

 private:
  FleetRecords() {
    if (const char* env = std::getenv("DOSSIER_BENCH_FLEET_DIR"); env && *env) {
      base_ = env;
    } else {
      std::string tmpl = (fs::temp_directory_path() / "dossier-fleet-bench-XXXXXX").string();
      if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a temporary directory");
      base_ = owned_ = tmpl;
    }
  }
  ~FleetRecords() {
    std::error_code ec;
    if (!owned_.empty()) fs::remove_all(owned_, ec);
  }

  // The seed guest collected from its tree: a real record, as `dossier collect` writes it.
  nlohmann::json Template() {
    std::string tree = base_ + "/seed-guest";
#ifdef DOSSIER_BENCH_HAVE_TREEGEN
    if (!fs::exists(tree)) {
      std::string error = dossier::treegen::GenerateTree(
          std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/trees/seed-guest", tree, {});
      if (!error.empty()) throw std::runtime_error(error);
    }
#else
    if (const char* env = std::getenv("DOSSIER_BENCH_TREE"); env && *env) tree = env;
#endif
    dossier::RootFs rootfs(tree);
    std::vector<std::string> log;
    dossier::Machine m = dossier::CollectMachine(rootfs, dossier::CollectOptions{}, &log);
    nlohmann::json rec = {{"schema", dossier::kSchema},
                          {"kind", "collect"},
                          {"time", "2026-12-01T00:00:00Z"},
                          {"tool", "dossier bench"}};
    rec["machine"] = dossier::MachineToJson(m);
    return rec;
  }

  const std::string& Ensure(int nodes) {
    auto it = dirs_.find(nodes);
    if (it != dirs_.end()) return it->second;
    std::string dir = base_ + "/nodes-" + std::to_string(nodes);
    if (!fs::exists(dir + "/.complete")) {
      fs::create_directories(dir);
      nlohmann::json rec = Template();
      for (int i = 0; i < nodes; ++i) {
        nlohmann::json r = rec;
        auto& m = r["machine"];
        char name[32];
        std::snprintf(name, sizeof name, "gpu-node-%05d", i);
        m["name"] = name;
        m["hostname"] = name;
        // About 1 node in 500 drifts, each in its own way.
        if (i % 997 == 13) m["software"]["nvidia_driver"] = "575.57.08";
        if (i % 991 == 7) m["kernel"]["cmdline"] = "BOOT_IMAGE=/vmlinuz quiet";
        if (i % 983 == 5)
          for (auto& d : m["pci"]["devices"])
            if (d["address"] == "0000:03:00.0") d["link"]["current"]["width"] = 8;
        std::ofstream(dir + "/" + name + ".json") << r.dump();
      }
      std::ofstream(dir + "/.complete") << "";
    }
    return dirs_[nodes] = dir;
  }

  std::string base_, owned_;
  std::map<int, std::string> dirs_;
};

void BM_FleetProcess(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const std::string& dir = FleetRecords::Dir(nodes);
  const std::string binary = std::string(DOSSIER_BUILD_DIR) + "/dossier";
  double seconds = 0, rss_mib = 0;
  for (auto _ : state) {
    const char* argv[] = {binary.c_str(), "fleet", "-q", "--format", "json", dir.c_str(), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    auto t0 = std::chrono::steady_clock::now();
    int rc =
        posix_spawn(&pid, binary.c_str(), &actions, nullptr, const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
      state.SkipWithError("cannot run build/dossier");
      return;
    }
    int status = 0;
    struct rusage ru {};
    while (::wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rss_mib = std::max(rss_mib, ru.ru_maxrss / 1024.0);
    // Exit 1: the drifted nodes were found, as they should be; anything else is a failure.
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) {
      state.SkipWithError("dossier fleet did not exit 1 (outliers found)");
      return;
    }
  }
  state.counters["seconds"] = seconds / static_cast<double>(state.iterations());
  state.counters["peak_rss_mib"] = rss_mib;
  state.counters["nodes_per_s"] = benchmark::Counter(
      static_cast<double>(nodes) * static_cast<double>(state.iterations()) / seconds);
}
BENCHMARK(BM_FleetProcess)->Arg(1000)->Arg(10000)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
