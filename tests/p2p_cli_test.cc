// `dossier p2p` as a user runs it, over the stand-in libraries: the record it appends, its exit
// codes, and what it says about bad input.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/standin_paths.h"
#include "tests/temp_dir.h"

namespace dossier {
namespace {

struct Ran {
  int rc = -1;
  std::string out;
};

Ran Dossier(const std::string& fixture, const std::string& args, const std::string& env = "") {
  std::string cmd = env + " DOSSIER_STANDIN=" + fixture + " " + DOSSIER_BINARY +
                    " p2p --cuda-lib " + testing::CudaStandin() + " --nvml-lib " +
                    testing::NvmlStandin() + " " + args + " 2>&1";
  Ran r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int status = ::pclose(p);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(P2pCli, AppendsARecordAndPrintsJson) {
  testing::TempDir dir;
  Ran r = Dossier("seed-guest", "--pairs 0-1 --sizes 12K --no-host -q --machine guest --dossier " +
                                    dir.path() + " --format json");
  ASSERT_EQ(r.rc, 0) << r.out;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["gpu_addresses"].size(), 8u);
  EXPECT_EQ(j["results"][0]["mode"], "uni-staged");
  EXPECT_NEAR(j["results"][0]["gbps_median"].get<double>(), 0.92, 0.005);
  int records = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path() + "/records")) {
    EXPECT_NE(e.path().filename().string().find("-p2p-guest"), std::string::npos);
    ++records;
  }
  EXPECT_EQ(records, 1);
}

TEST(P2pCli, RepsIsTheNumberOfTimedBatchesEachFigureIsFrom) {
  for (int reps : {3, 7}) {
    Ran r = Dossier("seed-guest",
                    "--pairs 0-1 --sizes 12K --no-host -q --no-store --format json "
                    "--reps " +
                        std::to_string(reps));
    ASSERT_EQ(r.rc, 0) << r.out;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    ASSERT_FALSE(j["results"].empty());
    EXPECT_EQ(j["provenance"]["/results/0/gbps_median"]["from"],
              "events around 100 copies, " + std::to_string(reps) + " batches")
        << j["provenance"];
  }
}

TEST(P2pCli, FailedVerdictsAndBadInput) {
  testing::TempDir dir;
  std::string common = " --no-host -q --no-store --copy-timeout 0.2";
  Ran bad = Dossier("faulty", "--pairs 0-1 --sizes 4K" + common);
  EXPECT_EQ(bad.rc, 1) << bad.out;  // corrupted copies: the run failed
  EXPECT_EQ(Dossier("faulty", "--pairs 0-7 --sizes 4K" + common).rc, 2);
  Ran sizes = Dossier("faulty", "--sizes 12Q" + common);
  EXPECT_EQ(sizes.rc, 2);
  EXPECT_NE(sizes.out.find("'12Q' has an unknown unit"), std::string::npos) << sizes.out;
  Ran nocuda = Dossier("init-fails", "--sizes 4K" + common);
  EXPECT_EQ(nocuda.rc, 1);
  EXPECT_NE(nocuda.out.find("cuInit: CUDA_ERROR_NO_DEVICE"), std::string::npos) << nocuda.out;
}

TEST(P2pCli, OneGpuIsMeasuredAndNothingToMeasureIsAnError) {
  testing::TempDir dir;
  Ran r = Dossier("one-gpu", "--sizes 64M --machine vm --dossier " + dir.path() + " --format md");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("p2p: one GPU: no pairs; device-local and host<->GPU copies"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("5 results to measure"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("**device-local**"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Ceiling: a GPU copies within its own memory at 2074."), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("h2d-local 2.7 %"), std::string::npos) << r.out;

  testing::TempDir empty;
  Ran none = Dossier("one-gpu", "--no-host --no-local --dossier " + empty.path());
  EXPECT_EQ(none.rc, 1) << none.out;
  EXPECT_NE(none.out.find("nothing to measure: CUDA sees 1 GPU, so there is no pair, and "
                          "--no-host and --no-local turned off the per-GPU copies"),
            std::string::npos)
      << none.out;
  EXPECT_FALSE(std::filesystem::exists(empty.path() + "/records"));  // no empty record
}

TEST(P2pCli, CudaVisibleDevicesIsHonouredAndRecorded) {
  Ran r = Dossier("bare-pair", "--sizes 4K --no-host -q --no-store --format json",
                  "CUDA_VISIBLE_DEVICES=GPU-5e1d0011");
  ASSERT_EQ(r.rc, 0) << r.out;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["gpu_addresses"], nlohmann::json::array({"0000:11:00.0"}));
  EXPECT_EQ(j["cuda_visible_devices"], "GPU-5e1d0011");
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["mode"], "device-local");
  Ran pairs =
      Dossier("bare-pair", "--pairs 0-1 --sizes 4K -q --no-store", "CUDA_VISIBLE_DEVICES=1");
  EXPECT_EQ(pairs.rc, 2);
  EXPECT_NE(pairs.out.find("(CUDA sees 1) (CUDA_VISIBLE_DEVICES=1)"), std::string::npos)
      << pairs.out;
  Ran hidden = Dossier("bare-pair", "--sizes 4K -q --no-store", "CUDA_VISIBLE_DEVICES=-1");
  EXPECT_EQ(hidden.rc, 1);
  EXPECT_NE(hidden.out.find("CUDA_ERROR_NO_DEVICE"), std::string::npos) << hidden.out;
}

TEST(P2pCli, CtrlCStopsCleanlyAndKeepsWhatWasMeasured) {
  testing::TempDir dir;
  int err[2];
  ASSERT_EQ(::pipe(err), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("DOSSIER_STANDIN", "seed-guest", 1);
    ::dup2(err[1], 2);
    ::close(err[0]);
    std::string cuda = testing::CudaStandin(), nvml = testing::NvmlStandin();
    std::string out = dir.path() + "/d";
    // 512 results of real memcpys: the run lasts far longer than the test waits for two of them.
    ::execl(DOSSIER_BINARY, DOSSIER_BINARY, "p2p", "--cuda-lib", cuda.c_str(), "--nvml-lib",
            nvml.c_str(), "--sizes", "1M,2M", "--machine", "guest", "--dossier", out.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(err[1]);
  // Wait for the first result on stderr, then interrupt.
  std::string seen;
  char buf[512];
  while (seen.find("p2p [2/") == std::string::npos) {
    ssize_t n = ::read(err[0], buf, sizeof buf);
    if (n <= 0) break;
    seen.append(buf, static_cast<size_t>(n));
  }
  ASSERT_NE(seen.find("p2p [2/"), std::string::npos) << seen;
  ::kill(pid, SIGINT);
  while (::read(err[0], buf, sizeof buf) > 0) {
  }
  ::close(err[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal instead of stopping";
  EXPECT_EQ(WEXITSTATUS(status), 1);
  std::filesystem::path rec;
  for (const auto& e : std::filesystem::directory_iterator(dir.path() + "/d/records"))
    rec = e.path();
  std::ifstream in(rec);
  auto j = nlohmann::json::parse(in, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["kind"], "p2p");
  EXPECT_EQ(j["machine"], "guest");
  EXPECT_TRUE(j["p2p"]["interrupted"].get<bool>());
  EXPECT_GE(j["p2p"]["results"].size(), 2u);
  EXPECT_LT(j["p2p"]["results"].size(), 100u);
}

}  // namespace
}  // namespace dossier
