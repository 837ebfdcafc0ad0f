// `dossier p2p` as a user runs it, over the stand-in libraries: the record it appends, its exit
// codes, and what it says about bad input.
#include <gtest/gtest.h>
#include <sys/wait.h>

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

Ran Dossier(const std::string& fixture, const std::string& args) {
  std::string cmd = "DOSSIER_STANDIN=" + fixture + " " + DOSSIER_BINARY + " p2p --cuda-lib " +
                    testing::CudaStandin() + " --nvml-lib " + testing::NvmlStandin() + " " + args +
                    " 2>&1";
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

}  // namespace
}  // namespace dossier
