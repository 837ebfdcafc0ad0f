// How long a whole `dossier collect` of the seed story's 8-GPU guest takes in-process (every probe
// through RootFs, then the Markdown rendering), set against one `lspci -vvv` of the same tree:
// the tool people run today to see a fraction of it.
//
// The tree: $DOSSIER_BENCH_TREE if set (any machine tree, e.g. one written by
// `build/dossier-treegen tests/fixtures/trees/seed-guest build/fixtures/seed-guest`); otherwise
// the bench generates tests/fixtures/trees/seed-guest itself into a temporary directory (when
// built with the tests, which hold the generator), removed at exit.
//
//   build/bench/dossier_bench --benchmark_filter=Alternating
//
// BM_CollectVsLspci_Alternating runs the two back to back in every iteration, so both see the
// same page cache and CPU state, and reports collect_ms, lspci_ms and their ratio
// (lspci_per_collect: how many collects fit in one lspci run).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "probe/probe.h"
#include "render/render.h"
#ifdef DOSSIER_BENCH_HAVE_TREEGEN
#include "treegen_tree.h"
#endif

extern char** environ;

namespace {

class BenchTree {
 public:
  static const std::string& Path() {
    static BenchTree tree;
    return tree.path_;
  }

 private:
  BenchTree() {
    if (const char* env = std::getenv("DOSSIER_BENCH_TREE"); env && *env) {
      path_ = env;
      return;
    }
#ifdef DOSSIER_BENCH_HAVE_TREEGEN
    std::string tmpl = (std::filesystem::temp_directory_path() / "dossier-bench-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a temporary directory");
    owned_ = tmpl;
    path_ = tmpl + "/seed-guest";
    std::string error = dossier::treegen::GenerateTree(
        std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/trees/seed-guest", path_, {});
    if (!error.empty()) throw std::runtime_error(error);
#else
    throw std::runtime_error("set DOSSIER_BENCH_TREE to a machine tree (see the top of the file)");
#endif
  }
  ~BenchTree() {
    std::error_code ec;
    if (!owned_.empty()) std::filesystem::remove_all(owned_, ec);
  }
  std::string path_, owned_;
};

// One in-process collect and Markdown rendering; returns the report size (kept live).
size_t CollectOnce(const std::string& root) {
  dossier::RootFs fs(root);
  dossier::CollectOptions options;
  std::vector<std::string> log;
  dossier::View view;
  view.generated_at = "bench";
  dossier::MachineView mv;
  mv.machine = dossier::CollectMachine(fs, options, &log);
  view.machines.push_back(std::move(mv));
  // No analysis: this measures collecting and rendering, as it always has.
  return dossier::RenderMarkdown(view, dossier::Analysis{}).size();
}

// One `lspci -vvv` of the tree, output discarded; false when lspci could not run.
bool LspciOnce(const std::string& root) {
  const std::string sysfs = "sysfs.path=" + root + "/sys/bus/pci";
  const char* argv[] = {"lspci", "-vvv", "-A", "linux-sysfs", "-O", sysfs.c_str(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, "lspci", &actions, nullptr, const_cast<char**>(argv), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return false;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

void BM_CollectInProcess(benchmark::State& state) {
  const std::string& root = BenchTree::Path();
  for (auto _ : state) benchmark::DoNotOptimize(CollectOnce(root));
}
BENCHMARK(BM_CollectInProcess)->Unit(benchmark::kMillisecond);

void BM_Lspci(benchmark::State& state) {
  const std::string& root = BenchTree::Path();
  for (auto _ : state) {
    if (!LspciOnce(root)) {
      state.SkipWithError("lspci (pciutils) did not run");
      break;
    }
  }
}
BENCHMARK(BM_Lspci)->Unit(benchmark::kMillisecond);

void BM_CollectVsLspci_Alternating(benchmark::State& state) {
  const std::string& root = BenchTree::Path();
  double collect = 0, lspci = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(CollectOnce(root));
    auto t1 = std::chrono::steady_clock::now();
    if (!LspciOnce(root)) {
      state.SkipWithError("lspci (pciutils) did not run");
      break;
    }
    auto t2 = std::chrono::steady_clock::now();
    collect += Seconds(t1 - t0);
    lspci += Seconds(t2 - t1);
  }
  const double n = static_cast<double>(state.iterations());
  if (n == 0 || collect == 0) return;
  state.counters["collect_ms"] = 1e3 * collect / n;
  state.counters["lspci_ms"] = 1e3 * lspci / n;
  state.counters["lspci_per_collect"] = lspci / collect;
}
BENCHMARK(BM_CollectVsLspci_Alternating)->Unit(benchmark::kMillisecond)->MinTime(2.0);

}  // namespace
