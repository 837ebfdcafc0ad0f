#include <gtest/gtest.h>

#include "../tests/gpu_machines.h"
#include "analyze/topology.h"
#include "render/markdown.h"

namespace dossier {
namespace {

MachineView TwoGpusOnRootPorts() {
  MachineView mv;
  Machine& m = mv.machine;
  testing::AddBridge(&m, "0000:c0:01.1", "pci0000:c0", "", "root_port", 0);
  testing::AddBridge(&m, "0000:c0:03.1", "pci0000:c0", "", "root_port", 0);
  testing::AddGpu(&m, "0000:c1:00.0", "pci0000:c0", "0000:c0:01.1", 0, "0x26b1", "0x030000");
  testing::AddGpu(&m, "0000:c2:00.0", "pci0000:c0", "0000:c0:03.1", -1, "0x26b1", "0x030000");
  testing::SetGpus(&m, {"0000:c1:00.0", "0000:c2:00.0"});
  m.gpus[0].name.Set("NVIDIA RTX 6000 Ada Generation", "table");
  m.gpus[0].architecture.Set("Ada Lovelace", "table");
  m.gpus[0].compute_capability.Set("8.9", "table");
  m.gpus[0].driver.Set("vfio-pci", "driver");
  m.gpus[1].name.Unknown("device id 0x26b1 not in dossier's table");
  m.software.nvidia_driver.Set("550.127.05", "/proc/driver/nvidia/version:1");
  DeriveTopology(&m);
  return mv;
}

TEST(MdGpus, TableMatrixLegendAndDriver) {
  std::string out;
  MdGpus(TwoGpusOnRootPorts(), &out);
  EXPECT_NE(out.find("| NVIDIA driver | 550.127.05 | `/proc/driver/nvidia/version:1` |"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("| 0 | `0000:c1:00.0` | NVIDIA RTX 6000 Ada Generation | Ada Lovelace | 8.9 "
                     "| 0 | vfio-pci |"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("unknown (device id 0x26b1 not in dossier's table)"), std::string::npos);
  // One level between every pair: one sentence, not a matrix.
  EXPECT_NE(out.find("`PHB` between all 2 GPUs"), std::string::npos) << out;
  EXPECT_EQ(out.find("| GPU0 | GPU1 | NUMA |"), std::string::npos) << out;
  EXPECT_EQ(out.find("NODE/SYS"), std::string::npos) << "marker legend only when used";
  // The levels' legend is once per document.
  EXPECT_EQ(out.find("- `PHB` = "), std::string::npos);
  std::string legend;
  MdLegend(View{}, Analysis{}, &legend);
  EXPECT_NE(legend.find("- `PHB` = Connection traversing PCIe as well as a PCIe Host Bridge"),
            std::string::npos);
  EXPECT_NE(legend.find("- `PIX` = "), std::string::npos);
  EXPECT_NE(legend.find("`NS` = not supported"), std::string::npos);
}

TEST(MdGpus, MarkerLegendWhenTheWalkCouldNotTell) {
  MachineView mv = TwoGpusOnRootPorts();
  mv.machine.topology.gpu_levels[0][1] = kLevelNodeOrSys;
  std::string out;
  MdGpus(mv, &out);
  // Levels that differ: the matrix, with its NUMA column and the marker's meaning.
  EXPECT_NE(out.find("| GPU0 | GPU1 | NUMA |"), std::string::npos) << out;
  EXPECT_NE(out.find("| GPU1 | PHB | X | -1 (kernel does not know) |"), std::string::npos) << out;
  EXPECT_NE(out.find("- `NODE/SYS` = "), std::string::npos) << out;
}

TEST(MdGpus, NoGpusAndStaleMatrixAreSaid) {
  MachineView empty;
  empty.machine.pci.count.Set(0, "/sys/bus/pci/devices");
  empty.machine.software.nvidia_driver.Unknown("file absent (NVIDIA driver not loaded)");
  std::string out;
  MdGpus(empty, &out);
  EXPECT_NE(out.find("unknown (file absent (NVIDIA driver not loaded))"), std::string::npos);
  EXPECT_NE(out.find("no PCI devices are recorded"), std::string::npos) << out;

  MachineView unread;  // PCI not captured: GPUs unknown, not "none"
  unread.machine.pci.count.Unknown("not in the capture", "/sys/bus/pci/devices");
  out.clear();
  MdGpus(unread, &out);
  EXPECT_NE(out.find("Compute GPUs unknown: the PCI devices were not read (not in the capture)"),
            std::string::npos)
      << out;

  MachineView mv = TwoGpusOnRootPorts();
  mv.machine.topology.gpu_levels.pop_back();
  out.clear();
  MdGpus(mv, &out);
  EXPECT_NE(out.find("not derived"), std::string::npos) << out;
}

TEST(MdGpus, IsASectionOfTheDocument) {
  bool found = false;
  const auto& sections = MdMachineSections();
  for (size_t i = 0; i < sections.size(); ++i) {
    if (std::string(sections[i].title) != "GPUs and topology") continue;
    found = true;
    ASSERT_GT(i, 0u);
    EXPECT_STREQ(sections[i - 1].title, "VMs on this host");  // after Virtualization
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace dossier
