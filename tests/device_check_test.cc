// scripts/device-check.sh without a GPU: its non-GPU parts (collect beside nvidia-smi, field by
// field; dossier p2p beside nvbandwidth, ratio per mode and size) run against the stand-in NVML
// and CUDA libraries (fixture one-gpu) with a fake nvidia-smi and nvbandwidth first on PATH
// (tests/fixtures/device-check/), and must pass; a changed power limit or bandwidths 20 % off
// must fail it. On a real GPU machine the same script runs on the real libraries and tools.
#include <gtest/gtest.h>

#include <string>

#include "tests/run_cli.h"
#include "tests/standin_paths.h"

namespace dossier {
namespace {

using CheckRun = testing::CliResult;

CheckRun DeviceCheck(const std::string& env, const std::string& args = "") {
  const std::string fixtures = std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/device-check";
  std::string cmd = "env DOSSIER_STANDIN=one-gpu PATH=" + fixtures + ":$PATH " + env + " " +
                    DOSSIER_SOURCE_DIR + "/scripts/device-check.sh --dossier " + DOSSIER_BINARY +
                    " --nvml-lib " + testing::NvmlStandin() + " --cuda-lib " +
                    testing::CudaStandin() + " --sizes 1,64 --budget 120 " + args + " 2>&1";
  return testing::RunShell(cmd);
}

bool HavePython() {
  return std::system("command -v python3 >/dev/null 2>&1") == 0;
}

TEST(DeviceCheck, AgreesWithNvidiaSmiAndNvbandwidthOnTheStandIns) {
  if (!HavePython()) GTEST_SKIP() << "python3 missing";
  CheckRun r = DeviceCheck("");
  EXPECT_EQ(r.code, 0) << r.out;
  // The facts table: NVML's facts beside nvidia-smi's, each agreeing.
  EXPECT_NE(r.out.find("| GPU 0 0000:05:00.0 | name | NVIDIA H200 | NVIDIA H200 | yes |"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| memory total (MiB) | 143771 | 143771 | yes |"), std::string::npos);
  EXPECT_NE(r.out.find("| serial | 1654925000123 |"), std::string::npos);
  EXPECT_NE(r.out.find("| MIG mode | unknown (nvmlDeviceGetMigMode: NOT_SUPPORTED) | [N/A] | yes"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| PCIe gen host max | not claimed"), std::string::npos);
  EXPECT_NE(r.out.find(" 0 disagree"), std::string::npos);
  // The bandwidth table: each mode and size with its ratio.
  EXPECT_NE(r.out.find("| h2d-local | host->GPU0 | 64 MiB | 55.41 | 55.41 | 1.000 | yes |"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("| device-local | GPU0->GPU0 | 1 MiB |"), std::string::npos);
  EXPECT_NE(r.out.find("| d2h-local | GPU0->host | 1 MiB |"), std::string::npos);
  EXPECT_NE(r.out.find("6 results compared, 0 outside 0.95-1.05"), std::string::npos) << r.out;
}

TEST(DeviceCheck, ADisagreementOrARatioOutsideTheBandFails) {
  if (!HavePython()) GTEST_SKIP() << "python3 missing";
  CheckRun facts = DeviceCheck("FAKE_SMI_POWER_LIMIT=600.00", "--no-bandwidth");
  EXPECT_EQ(facts.code, 1) << facts.out;
  EXPECT_NE(facts.out.find("| power limit (W) | 700.0 | 600.00 | **NO** |"), std::string::npos)
      << facts.out;
  CheckRun slow = DeviceCheck("FAKE_NVB_FACTOR=1.2");
  EXPECT_EQ(slow.code, 1) << slow.out;
  EXPECT_NE(slow.out.find("| 0.833 | **NO** |"), std::string::npos) << slow.out;
  CheckRun usage = DeviceCheck("", "--sizes 1M");
  EXPECT_EQ(usage.code, 2) << usage.out;
}

}  // namespace
}  // namespace dossier
