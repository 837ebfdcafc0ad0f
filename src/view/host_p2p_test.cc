#include "view/host_p2p.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace dossier {
namespace {

// A pair of host GPUs is looked up only when both are the host's: one the host lacks says which,
// a host whose GPUs are not known at all says so and what to paste.
TEST(HostP2pBetween, AGpuTheHostLacksIsNamedNotLookedUp) {
  Machine host;
  host.gpus.resize(2);
  host.gpus[0].address = "0000:41:00.0";
  host.gpus[1].address = "0000:c1:00.0";
  host.topology.p2p_status.read = {{"X", "OK"}, {"OK", "X"}};
  EXPECT_EQ(HostP2pBetween(host, "0000:41:00.0", "0000:c1:00.0").why.find("no GPU"),
            std::string::npos);
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"0000:81:00.0", "0000:c1:00.0"}, {"0000:41:00.0", "0000:81:00.0"}}) {
    HostP2p p = HostP2pBetween(host, a, b);
    EXPECT_EQ(p.why, "the host's facts list no GPU at 0000:81:00.0") << a << " " << b;
    EXPECT_FALSE(p.decided);
  }
  HostP2p none = HostP2pBetween(Machine{}, "0000:41:00.0", "0000:c1:00.0");
  EXPECT_NE(none.why.find("the host's GPUs are not known"), std::string::npos) << none.why;
  EXPECT_FALSE(none.decided);
}

// Every arm of the verdict, one row each: the read and write cells of the driver's status, the
// level, and what a reader is told. A row differs from its neighbour in one cell, so a swapped
// comparison or arm gives another row's answer. The pair looked up is GPU 1 and GPU 0 (the
// second GPU first), so a matrix read as [j][i] or [0][1] reads another cell.
TEST(HostP2pBetween, EachStatusAndLevelGivesItsVerdict) {
  struct Row {
    const char *read, *write, *level;
    const char* want_level;
    bool can, decided;
    const char* why;
  };
  const char* kCross =
      ": across root complexes P2P depends on the CPU, and the host gave no P2P status (its GPUs "
      "are bound to vfio-pci there)";
  const std::vector<Row> rows = {
      {"OK", "OK", "SYS", "SYS", true, true, "the host driver reports P2P read and write OK"},
      {"OK", "CNS", "PIX", "PIX", false, true,
       "the host driver reports P2P write CNS (nvidia-smi topo -p2p)"},
      {"CNS", "OK", "PIX", "PIX", false, true,
       "the host driver reports P2P read CNS (nvidia-smi topo -p2p)"},
      {"NS", "CNS", "NODE", "NODE", false, true,
       "the host driver reports P2P read NS (nvidia-smi topo -p2p)"},
      {"OK", "", "SYS", "SYS", false, false, nullptr},
      {"", "OK", "PXB", "PXB", true, true, "they share a PCIe switch on the host (PXB)"},
      {"?", "?", "PIX", "PIX", true, true, "they share a PCIe switch on the host (PIX)"},
      {"?", "NS", "PIX", "PIX", false, true,
       "the host driver reports P2P write NS (nvidia-smi topo -p2p)"},
      {"", "", "PHB", "PHB", false, false, nullptr},
      {"", "", "NODE", "NODE", false, false, nullptr},
      {"", "", "?", "", false, false, nullptr},
      {"", "", "unknown", "", false, false, nullptr},
      {"", "", "", "", false, false, nullptr},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(std::string(r.read) + "/" + r.write + "/" + r.level);
    Machine host;
    host.gpus.resize(3);
    host.gpus[0].address = "0000:41:00.0";
    host.gpus[1].address = "0000:c1:00.0";
    host.gpus[2].address = "0000:e1:00.0";
    // Only cell [1][0] holds the row's values; every other cell says the opposite.
    auto m = [](const char* cell, const char* other) {
      std::vector<std::vector<std::string>> x(3, std::vector<std::string>(3, other));
      x[1][0] = cell;
      return x;
    };
    host.topology.p2p_status.read = m(r.read, "NS");
    host.topology.p2p_status.write = m(r.write, "NS");
    host.topology.gpu_levels = m(r.level, "NV4");
    HostP2p p = HostP2pBetween(host, "0000:c1:00.0", "0000:41:00.0");
    EXPECT_EQ(p.level, r.want_level);
    EXPECT_EQ(p.can, r.can);
    EXPECT_EQ(p.decided, r.decided);
    std::string why =
        r.why ? std::string(r.why)
              : "host level " + std::string(*r.want_level ? r.want_level : "unknown") + kCross;
    EXPECT_EQ(p.why, why);
  }
}

// A matrix shorter than the GPU list (a paste of two GPUs' rows, a third GPU from lspci) is read
// as empty cells, never past its end.
TEST(HostP2pBetween, AMatrixShorterThanTheGpuListReadsAsNoStatus) {
  Machine host;
  host.gpus.resize(3);
  for (int i = 0; i < 3; ++i) host.gpus[size_t(i)].address = "0000:0" + std::to_string(i) + ":00.0";
  host.topology.p2p_status.read = {{"X", "OK"}, {"OK", "X"}};
  host.topology.p2p_status.write = {{"X", "OK"}, {"OK"}};
  host.topology.gpu_levels = {{"X", "PIX", "SYS"}};
  HostP2p two = HostP2pBetween(host, "0000:00:00.0", "0000:01:00.0");
  EXPECT_TRUE(two.can);
  EXPECT_EQ(two.level, "PIX");
  // Row 1 of the levels is absent: the level is not known, the status still decides.
  HostP2p back = HostP2pBetween(host, "0000:01:00.0", "0000:00:00.0");
  EXPECT_EQ(back.level, "");
  EXPECT_TRUE(back.can) << back.why;  // read and write [1][0] are OK
  HostP2p third = HostP2pBetween(host, "0000:02:00.0", "0000:00:00.0");
  EXPECT_FALSE(third.decided);
  EXPECT_EQ(third.level, "");
  EXPECT_NE(third.why.find("host level unknown"), std::string::npos) << third.why;
}

}  // namespace
}  // namespace dossier
