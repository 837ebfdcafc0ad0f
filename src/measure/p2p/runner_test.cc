// The sweep end to end over the stand-in CUDA library, whose copies are real memcpys and whose
// times come from the fixture's model (tests/standins/fixtures.h): medians, spread, percent of
// the link limit, verification, hang detection and interruption.
#include "measure/p2p/runner.h"

#include <gtest/gtest.h>

#include "tests/standin_paths.h"

namespace dossier::p2p {
namespace {

using testing::StandinFixture;

// The model a collect would give: NVML's links (Gen5 x16) for the fixture's bus ids.
Machine Model(std::vector<std::string> buses, int64_t numa = -1) {
  Machine m;
  for (size_t i = 0; i < buses.size(); ++i) {
    NvmlGpu g;
    g.index = static_cast<int64_t>(i);
    g.pci_bus_id = Known(buses[i], "nvml");
    g.pcie.max.gen = Known<int64_t>(5, "nvml");
    g.pcie.current.width = Known<int64_t>(16, "nvml");
    g.numa_node = Known(numa, "nvml");
    m.nvml.gpus.push_back(g);
  }
  for (int i = 0; i < 2; ++i) {
    NumaNode n;
    n.id = i;
    n.distances = Known<std::vector<int64_t>>(
        i ? std::vector<int64_t>{32, 10} : std::vector<int64_t>{10, 32}, "distance");
    m.numa.nodes.push_back(n);
  }
  return m;
}

struct SweepRun {
  std::unique_ptr<gpu::CudaLibrary> cuda;
  std::unique_ptr<CopyEngine> engine;
  P2pMeasurement m;
};

SweepRun Sweep(const Machine& model, PlanOptions plan, RunOptions ro = {},
               const std::function<bool(size_t)>& stop_after = {}) {
  SweepRun r;
  auto cuda = gpu::CudaLibrary::Open(testing::CudaStandin());
  EXPECT_TRUE(cuda) << cuda.error().message;
  if (!cuda) return r;
  r.cuda = std::move(*cuda);
  auto engine = CopyEngine::Open(*r.cuda);
  EXPECT_TRUE(engine) << engine.error().message;
  if (!engine) return r;
  r.engine = std::move(*engine);
  std::atomic<bool> stop{false};
  r.m = RunPlan(*r.engine, model, BuildPlan(r.engine->device_count(), plan), ro, stop,
                [&](size_t done, size_t, const P2pResult&) {
                  if (stop_after && stop_after(done)) stop = true;
                });
  return r;
}

const P2pResult* Find(const P2pMeasurement& m, int src, int dst, const std::string& mode,
                      uint64_t size) {
  for (const auto& r : m.results)
    if (r.src == src && r.dst == dst && r.mode == mode && r.size_bytes == size) return &r;
  return nullptr;
}

TEST(P2pRunner, SeedGuestReproducesTheSeedTable) {
  StandinFixture f("seed-guest");
  PlanOptions p;
  p.sizes = {12 << 10, 16 << 20};
  p.pairs = {{0, 1}};
  p.host = false;
  SweepRun run = Sweep(Model({"0000:01:00.0", "0000:02:00.0", "0000:03:00.0", "0000:04:00.0",
                              "0000:05:00.0", "0000:06:00.0", "0000:07:00.0", "0000:08:00.0"}),
                       p);
  ASSERT_EQ(run.m.gpu_addresses.size(), 8u);
  EXPECT_EQ(run.m.gpu_addresses[1], "0000:02:00.0");
  EXPECT_FALSE(run.m.interrupted);

  const P2pResult* small = Find(run.m, 0, 1, kUniStaged, 12 << 10);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->verdict, "ok") << small->detail;
  EXPECT_NEAR(*small->gbps_median, 0.92, 0.005);
  EXPECT_NEAR(*small->latency_us, 13.4, 0.05);
  const P2pResult* big = Find(run.m, 0, 1, kUniStaged, 16 << 20);
  ASSERT_TRUE(big);
  EXPECT_NEAR(*big->gbps_median, 41.41, 0.01);
  EXPECT_NEAR(*big->latency_us, 405.1, 0.1);
  // The model spreads batches by ±2 %: the median is the middle, min and max the ends.
  EXPECT_NEAR(*big->gbps_min, 41.41 / 1.02, 0.02);
  EXPECT_NEAR(*big->gbps_max, 41.41 / 0.98, 0.02);
  EXPECT_NEAR(*big->link_limit_gbps, 63.0, 0.05);
  EXPECT_EQ(big->link_limit_gbps.source, "0000:01:00.0 Gen5 x16 (NVML)");
  EXPECT_NEAR(*big->percent_of_limit, 41.41 / 63.015 * 100, 0.05);

  const P2pResult* bi = Find(run.m, 0, 1, kBiStaged, 16 << 20);
  ASSERT_TRUE(bi);
  EXPECT_NEAR(*bi->gbps_median, 2 * 41.41, 0.02);  // both directions together
  EXPECT_NEAR(*bi->percent_of_limit, 41.41 / 63.015 * 100, 0.05);

  const P2pResult* peer = Find(run.m, 0, 1, kUniP2p, 16 << 20);
  ASSERT_TRUE(peer);
  EXPECT_EQ(peer->verdict, "waived");
  EXPECT_NE(peer->detail.find("cuDeviceCanAccessPeer(0, 1) = 0"), std::string::npos);
  EXPECT_FALSE(peer->gbps_median.known());
  EXPECT_NE(peer->gbps_median.unknown.find("waived"), std::string::npos);
}

TEST(P2pRunner, BarePairPeerCopiesAndHostMemoryPlacement) {
  StandinFixture f("bare-pair");
  PlanOptions p;
  p.sizes = {64 << 10};  // 100 copies a batch: cheap real memcpys
  SweepRun run = Sweep(Model({"0000:01:00.0", "0000:11:00.0"}, 0), p);
  const P2pResult* peer = Find(run.m, 0, 1, kUniP2p, 64 << 10);
  ASSERT_TRUE(peer);
  EXPECT_EQ(peer->verdict, "ok") << peer->detail;
  EXPECT_NEAR(*peer->gbps_median, 65536 / (1.2 + 65536 / 52e3) / 1e3, 0.01);
  const P2pResult* staged = Find(run.m, 1, 0, kUniStaged, 64 << 10);
  ASSERT_TRUE(staged);
  EXPECT_LT(*staged->gbps_median, *peer->gbps_median);  // peer access really was switched off
  const P2pResult* lat = Find(run.m, 0, 1, kLatencyP2p, 16);
  ASSERT_TRUE(lat);
  EXPECT_NEAR(*lat->latency_us, 1.2, 0.01);
  for (const char* mode : {kH2dLocal, kD2hLocal, kH2dFar, kD2hFar}) {
    bool h2d = std::string(mode).starts_with("h2d");
    const P2pResult* h = Find(run.m, h2d ? -1 : 1, h2d ? 1 : -1, mode, 64 << 10);
    ASSERT_TRUE(h) << mode;
    EXPECT_EQ(h->verdict, "ok") << mode << ": " << h->detail;
    EXPECT_NE(h->detail.find("host memory: "), std::string::npos) << h->detail;
  }
  EXPECT_NE(Find(run.m, -1, 0, kH2dFar, 64 << 10)->detail.find("node 1"), std::string::npos);
}

TEST(P2pRunner, CorruptedBytesAndAHungCopyAreVerdicts) {
  StandinFixture f("faulty");
  PlanOptions p;
  p.sizes = {4096, 64 << 10};
  p.pairs = {{0, 1}, {1, 2}, {0, 2}};
  p.host = false;
  RunOptions ro;
  ro.copy_timeout = std::chrono::milliseconds(200);
  SweepRun run = Sweep(Model({"0000:01:00.0", "0000:11:00.0", "0000:21:00.0"}, 0), p, ro);

  const P2pResult* c = Find(run.m, 0, 1, kUniP2p, 64 << 10);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->verdict, "corrupted");
  EXPECT_NE(c->detail.find("offset 4096 of 64 KiB"), std::string::npos) << c->detail;
  EXPECT_TRUE(c->gbps_median.known());  // the timing is kept; the verdict says it is worthless
  const P2pResult* small = Find(run.m, 0, 1, kUniP2p, 4096);
  EXPECT_NE(small->detail.find("offset 2048 of 4 KiB (every byte checked)"), std::string::npos);
  const P2pResult* bi = Find(run.m, 0, 1, kBiP2p, 4096);
  EXPECT_EQ(bi->verdict, "corrupted");
  EXPECT_NE(bi->detail.find("forward: "), std::string::npos);
  EXPECT_EQ(Find(run.m, 0, 1, kUniStaged, 64 << 10)->verdict, "ok");  // staged copies are fine
  // No stream wait in this fixture: the detail says how the copies were timed.
  EXPECT_NE(Find(run.m, 0, 1, kUniStaged, 4096)->detail.find("copies ran as they were queued"),
            std::string::npos);

  const P2pResult* h = Find(run.m, 1, 2, kUniP2p, 4096);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->verdict, "hung");
  EXPECT_NE(h->detail.find("did not complete within 0.2 s"), std::string::npos) << h->detail;
  // Nothing touches the hung GPUs again; GPU 0's other work goes on.
  const P2pResult* after = Find(run.m, 0, 2, kUniStaged, 4096);
  EXPECT_EQ(after->verdict, "waived");
  EXPECT_NE(after->detail.find("not run: GPU 2"), std::string::npos);
  EXPECT_FALSE(run.m.interrupted);  // the copy timeout fired, not the run's
}

TEST(P2pRunner, TheRunTimeoutBoundsAHang) {
  StandinFixture f("faulty");
  PlanOptions p;
  p.sizes = {4096};
  p.pairs = {{1, 2}, {0, 1}};
  p.host = false;
  RunOptions ro;
  ro.copy_timeout = std::chrono::seconds(60);
  ro.deadline = Clock::now() + std::chrono::milliseconds(300);
  SweepRun run = Sweep(Model({"0000:01:00.0", "0000:11:00.0", "0000:21:00.0"}), p, ro);
  const P2pResult* h = Find(run.m, 1, 2, kUniP2p, 4096);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->verdict, "hung");
  EXPECT_NE(h->detail.find("--timeout was reached"), std::string::npos);
  EXPECT_TRUE(run.m.interrupted);
  EXPECT_FALSE(Find(run.m, 0, 1, kUniStaged, 4096));  // not reached
  // The run's deadline fired (the copy's 60 s timeout could not have, in a passing test).
}

TEST(P2pRunner, OneGpuMeasuresItsOwnMemoryAndTheHost) {
  StandinFixture f("one-gpu");
  PlanOptions p;
  p.sizes = {64 << 20};
  SweepRun run = Sweep(Model({"0000:05:00.0"}), p);
  ASSERT_EQ(run.m.gpu_addresses, std::vector<std::string>{"0000:05:00.0"});
  ASSERT_EQ(run.m.results.size(), 5u);  // device-local and the four host modes
  const P2pResult* local = Find(run.m, 0, 0, kDeviceLocal, 64 << 20);
  ASSERT_TRUE(local);
  EXPECT_EQ(local->verdict, "ok") << local->detail;  // the bytes were checked too
  // The fixture's model: 0.3 us + bytes / 2094 GB/s per copy.
  EXPECT_NEAR(*local->gbps_median, 67108864 / (0.3 + 67108864 / 2094e3) / 1e3, 0.5);
  EXPECT_FALSE(local->link_limit_gbps.known());
  EXPECT_NE(local->link_limit_gbps.unknown.find("crosses no PCIe link"), std::string::npos);
  EXPECT_FALSE(local->percent_of_limit.known());
  const P2pResult* h2d = Find(run.m, -1, 0, kH2dLocal, 64 << 20);
  ASSERT_TRUE(h2d);
  EXPECT_EQ(h2d->verdict, "ok") << h2d->detail;
  EXPECT_NEAR(*h2d->gbps_median, 67108864 / (2.0 + 67108864 / 55.5e3) / 1e3, 0.01);
}

TEST(P2pRunner, CudaVisibleDevicesPicksAndOrdersTheGpus) {
  StandinFixture f("faulty");  // GPUs at buses 01, 11, 21
  struct Case {
    const char* value;
    std::vector<std::string> want;  // PCI address by ordinal; empty: cuInit finds no device
  };
  const std::vector<Case> cases = {
      {"2,0", {"0000:21:00.0", "0000:01:00.0"}},
      {"1,x,0", {"0000:11:00.0"}},  // an invalid entry ends the list
      {"0,0,1", {"0000:01:00.0"}},  // so does a GPU listed twice
      {"3", {}},                    // out of range: nothing visible
      {"", {}},
      {"GPU-5e1d0021", {"0000:21:00.0"}},  // a UUID prefix
      {"GPU-5e1d00", {}},                  // ambiguous: matches every GPU
      {" 1 , GPU-5e1d0001", {"0000:11:00.0", "0000:01:00.0"}},
  };
  // Unset again however the test ends: later tests initialize the stand-in too.
  struct Unset {
    ~Unset() { ::unsetenv("CUDA_VISIBLE_DEVICES"); }
  } unset;
  for (const auto& c : cases) {
    ::setenv("CUDA_VISIBLE_DEVICES", c.value, 1);
    auto cuda = gpu::CudaLibrary::Open(testing::CudaStandin());
    if (c.want.empty()) {
      ASSERT_FALSE(cuda) << c.value;
      EXPECT_NE(cuda.error().message.find("CUDA_ERROR_NO_DEVICE"), std::string::npos);
      continue;
    }
    ASSERT_TRUE(cuda) << c.value << ": " << cuda.error().message;
    auto engine = CopyEngine::Open(**cuda);
    ASSERT_TRUE(engine) << c.value;
    std::vector<std::string> got;
    for (int d = 0; d < (*engine)->device_count(); ++d) got.push_back((*engine)->bus_id(d));
    EXPECT_EQ(got, c.want) << c.value;
  }
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  // Ordinals name the visible GPUs: the fault pair (fixture GPUs 0 -> 1) is ordinals 1 -> 0 here.
  ::setenv("CUDA_VISIBLE_DEVICES", "1,0", 1);
  PlanOptions p;
  p.sizes = {4096};
  p.pairs = {{1, 0}};
  p.host = false;
  p.local = false;
  SweepRun run = Sweep(Model({"0000:11:00.0", "0000:01:00.0"}), p);
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  const P2pResult* c = Find(run.m, 1, 0, kUniP2p, 4096);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->verdict, "corrupted");
  EXPECT_EQ(run.m.gpu_addresses, (std::vector<std::string>{"0000:11:00.0", "0000:01:00.0"}));
}

TEST(P2pRunner, StopKeepsWhatWasMeasured) {
  StandinFixture f("bare-pair");
  PlanOptions p;
  p.sizes = {4096, 8192};
  SweepRun run =
      Sweep(Model({"0000:01:00.0", "0000:11:00.0"}), p, {}, [](size_t done) { return done == 3; });
  EXPECT_TRUE(run.m.interrupted);
  ASSERT_EQ(run.m.results.size(), 3u);
  EXPECT_EQ(run.m.results[2].mode, kLatencyStaged);
  EXPECT_EQ(run.m.results[2].verdict, "ok");
}

}  // namespace
}  // namespace dossier::p2p
