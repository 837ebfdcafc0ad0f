#include <gtest/gtest.h>

#include "render/markdown.h"

namespace dossier {
namespace {

MachineView TwoGpus(const std::string& walk_level, const std::string& nvml_level) {
  MachineView mv;
  Machine& m = mv.machine;
  m.nvml.loaded = true;
  m.nvml.library = "libnvidia-ml.so.1";
  m.nvml.driver_version = Known<std::string>("580.95.05", "nvml:nvmlSystemGetDriverVersion");
  for (int i = 0; i < 2; ++i) {
    NvmlGpu g;
    g.index = i;
    g.gpu_index = Known<int64_t>(i, "gpus");
    g.pci_bus_id = Known<std::string>(i ? "0000:41:00.0" : "0000:01:00.0", "nvml");
    g.serial.Unknown("nvmlDeviceGetSerial: NOT_SUPPORTED", "nvml:nvmlDeviceGetSerial");
    m.nvml.gpus.push_back(g);
  }
  m.topology.gpu_levels = {{"X", walk_level}, {walk_level, "X"}};
  m.topology.nvml_levels = {{"X", nvml_level}, {nvml_level, "X"}};
  m.topology.p2p_status.read = {{"X", "NS"}, {"NS", "X"}};
  return mv;
}

TEST(MdNvml, SaysWhereThePciWalkAndNvmlDisagree) {
  std::string out;
  MdNvml(TwoGpus("NODE", "PHB"), &out);
  EXPECT_NE(out.find("GPU0–GPU1: the PCI walk says NODE, NVML says PHB"), std::string::npos) << out;
  EXPECT_NE(out.find("**NODE / PHB**"), std::string::npos);
  EXPECT_NE(out.find("unknown (nvmlDeviceGetSerial: NOT_SUPPORTED)"), std::string::npos);
  EXPECT_NE(out.find("`nvidia-smi topo -p2p r`"), std::string::npos);
  // A matrix with one value is one sentence; the codes' legend is once per document.
  EXPECT_NE(out.find("`NS` for all 2 ordered pairs of the 2 GPUs."), std::string::npos) << out;
  EXPECT_EQ(out.find("NS = not supported"), std::string::npos);
}

// A collected machine without the driver's library, its `topo -m` and `topo -p2p r` pasted in:
// the pasted matrices are shown, said to come from a paste.
TEST(MdNvml, ACollectedMachineWithoutNvmlShowsItsPastedMatrices) {
  MachineView mv = TwoGpus("PHB", "PIX");
  mv.coverage.collected = true;
  mv.machine.nvml = NvmlInfo{};
  mv.machine.nvml.error = "libnvidia-ml.so.1: cannot open shared object file";
  std::string out;
  MdNvml(mv, &out);
  EXPECT_NE(out.find("NVML not loaded"), std::string::npos) << out;
  EXPECT_NE(out.find("GPU pairs (`nvidia-smi topo -m`, imported from a paste)"), std::string::npos)
      << out;
  EXPECT_NE(out.find("P2P read (`nvidia-smi topo -p2p r`, imported from a paste)"),
            std::string::npos);
  EXPECT_NE(out.find("`PIX` for all 2 ordered pairs"), std::string::npos) << out;
  EXPECT_EQ(out.find("P2P write"), std::string::npos);  // not pasted: not shown
}

// A matrix with more than one value is a table: a row per GPU, a column per GPU, in order.
TEST(MdNvml, AMixedMatrixIsATableWithARowPerGpu) {
  MachineView mv = TwoGpus("NODE", "PHB");
  mv.machine.topology.nvml_levels = {{"X", "NV2", "PHB"}, {"NV2", "X", "SYS"}, {"PHB", "SYS", "X"}};
  std::string out;
  MdNvml(mv, &out);
  EXPECT_NE(out.find("|   | GPU0 | GPU1 | GPU2 |\n"), std::string::npos) << out;
  EXPECT_NE(out.find("| **GPU0** | X | NV2 | PHB |\n"
                     "| **GPU1** | NV2 | X | SYS |\n"
                     "| **GPU2** | PHB | SYS | X |\n"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("**GPU3**"), std::string::npos) << out;
}

TEST(MdNvml, AgreementAndAbsence) {
  std::string out;
  MdNvml(TwoGpus("PHB", "PHB"), &out);
  EXPECT_NE(out.find("agree on every pair"), std::string::npos) << out;

  MachineView none;
  none.machine.nvml.error = "libnvidia-ml.so.1: cannot open shared object file";
  std::string o2;
  MdNvml(none, &o2);
  EXPECT_EQ(o2, "NVML not loaded: libnvidia-ml.so.1: cannot open shared object file.\n");

  MachineView no_walk = TwoGpus("PHB", "PHB");
  no_walk.machine.topology.gpu_levels.clear();
  std::string o3;
  MdNvml(no_walk, &o3);
  EXPECT_NE(o3.find("The PCI walk gave no GPU levels"), std::string::npos);
}

}  // namespace
}  // namespace dossier
