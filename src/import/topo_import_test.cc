// nvidia-smi topo -m and topo -p2p, on the shared samples and on pasting damage.
#include <gtest/gtest.h>

#include "import/import_test_util.h"

namespace dossier::import {
namespace {

using testing::Formats;
using testing::ImportSample;
using testing::ImportString;
using testing::SampleBody;

TEST(ImportTopoM, EpycFourGpusFourNics) {
  auto r = ImportSample("topo_m/stelline-asus-esc8000a-e12-4x-rtx6000ada-epyc.txt");
  ASSERT_EQ(Formats(r), std::vector<std::string>{"topo-m"});
  const Machine& m = r.imported.machine;
  ASSERT_EQ(m.topology.nvml_levels.size(), 4u);
  EXPECT_EQ(m.topology.nvml_levels[0][1], "NODE");
  EXPECT_EQ(m.topology.nvml_levels[2][3], "NODE");
  EXPECT_EQ(m.topology.nvml_levels[0][2], "SYS");
  EXPECT_EQ(m.topology.nvml_levels[1][3], "SYS");
  EXPECT_EQ(m.topology.nvml_levels[0][0], "X");
  ASSERT_EQ(m.topology.nics.size(), 4u);
  EXPECT_EQ(m.topology.nics[0], "mlx5_0");
  EXPECT_EQ(m.topology.nics[3], "mlx5_3");
  EXPECT_EQ(m.topology.nic_levels[0][1], "PIX");
  EXPECT_EQ(m.topology.nic_levels[2][3], "PIX");
  EXPECT_EQ(m.topology.gpu_nic_levels[0][0], "NODE");
  ASSERT_EQ(m.gpus.size(), 4u);
  EXPECT_EQ(m.gpus[0].cpu_affinity.value_or(""), "0-31");
  EXPECT_EQ(m.gpus[0].numa_node.value_or(-9), 0);
  EXPECT_EQ(m.gpus[2].cpu_affinity.value_or(""), "32-63");
  EXPECT_EQ(m.gpus[3].numa_node.value_or(-9), 1);
  EXPECT_TRUE(m.gpus[0].address.empty());  // the matrix does not say it
  EXPECT_NE(m.gpus[0].numa_node.source.find("topo_m/stelline"), std::string::npos);
  EXPECT_NE(m.gpus[0].numa_node.source.find("(topo-m)"), std::string::npos);
}

TEST(ImportTopoM, EveryTopoSample) {
  struct Case {
    const char* file;
    size_t gpus, nics;
    const char* pair01;
    const char* affinity0;
    int64_t numa0;
  };
  for (const Case& c : {
           Case{"topo_m/autodl-container-2x-2080ti-pix.txt", 2, 0, "PIX", "24-47,72-95", 1},
           Case{"topo_m/kagaho-2x-l40s-node-container-cpuset.txt", 2, 2, "NODE", "0,2,4,6,8,10", 0},
           Case{"topo_m/stas00-8x-h100-sxm-nv18.txt", 8, 0, "NV18", "0-51,104-155", 0},
           Case{"topo_m/stelline-puget-wrx90-2x-rtx6000ada-phb.txt", 2, 2, "PHB", "0-23", 0},
           Case{"topo_m/v100-homelab-3090-plus-2x-v100sxm2-nv6-ansi.txt", 3, 0, "NODE", "0-63", 0},
       }) {
    SCOPED_TRACE(c.file);
    auto r = ImportSample(c.file);
    ASSERT_EQ(Formats(r), std::vector<std::string>{"topo-m"});
    const Machine& m = r.imported.machine;
    ASSERT_EQ(m.topology.nvml_levels.size(), c.gpus);
    EXPECT_EQ(m.topology.nvml_levels[0][1], c.pair01);
    EXPECT_EQ(m.topology.nics.size(), c.nics);
    EXPECT_EQ(m.gpus[0].cpu_affinity.value_or(""), c.affinity0);
    EXPECT_EQ(m.gpus[0].numa_node.value_or(-9), c.numa0);
  }
  auto h100 = ImportSample("topo_m/stas00-8x-h100-sxm-nv18.txt").imported.machine;
  EXPECT_EQ(h100.gpus[4].cpu_affinity.value_or(""), "52-103,156-207");
  EXPECT_EQ(h100.gpus[7].numa_node.value_or(-9), 1);
  for (size_t a = 0; a < 8; ++a)
    for (size_t b = 0; b < 8; ++b)
      EXPECT_EQ(h100.topology.nvml_levels[a][b], a == b ? "X" : "NV18");
  auto v100 =
      ImportSample("topo_m/v100-homelab-3090-plus-2x-v100sxm2-nv6-ansi.txt").imported.machine;
  EXPECT_EQ(v100.topology.nvml_levels[1][2], "NV6");
  EXPECT_EQ(v100.topology.nvml_levels[0][2], "NODE");
  EXPECT_FALSE(v100.nvml.gpus.size() > 0 && v100.nvml.gpus[0].numa_node.known());  // N/A
  auto kag = ImportSample("topo_m/kagaho-2x-l40s-node-container-cpuset.txt").imported.machine;
  EXPECT_EQ(kag.topology.nic_levels[0][1], "PIX");
  EXPECT_EQ(kag.topology.gpu_nic_levels[0][0], "SYS");
}

TEST(ImportTopoM, PastingDamage) {
  std::string body = SampleBody("topo_m/stelline-puget-wrx90-2x-rtx6000ada-phb.txt");
  // CRLF, a prompt glued to the header, trailing spaces.
  std::string crlf;
  for (char c : body) {
    if (c == '\n') crlf += "  \r";
    crlf.push_back(c);
  }
  auto r = ImportString("root@node:~# nvidia-smi topo -m" + crlf);
  ASSERT_EQ(Formats(r), std::vector<std::string>{"topo-m"});
  EXPECT_EQ(r.imported.machine.topology.nvml_levels[0][1], "PHB");
  EXPECT_EQ(r.imported.machine.gpus[1].cpu_affinity.value_or(""), "0-23");
  // Cut off inside the second GPU row: what is complete is kept, and where it stopped is said.
  std::string cut = body.substr(0, body.find("\nGPU1 ") + 14);  // "GPU1    PHB  "
  auto c = ImportString(cut);
  ASSERT_EQ(Formats(c), std::vector<std::string>{"topo-m"});
  EXPECT_EQ(c.imported.machine.topology.nvml_levels.size(), 1u);
  bool said = false;
  for (const auto& n : c.files[0].notes) said = said || n.find("cut off") != std::string::npos;
  EXPECT_TRUE(said);
  // A hard-wrapped row: its continuation is joined back.
  std::string wrapped =
      "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tSYS\n\t0-15\t0\n"
      "GPU1\tSYS\t X \t16-31\t1\n";
  auto w = ImportString(wrapped);
  ASSERT_EQ(w.imported.machine.topology.nvml_levels.size(), 2u);
  EXPECT_EQ(w.imported.machine.gpus[0].cpu_affinity.value_or(""), "0-15");
  EXPECT_EQ(w.imported.machine.gpus[1].numa_node.value_or(-9), 1);
  // A sentence after the matrix that names GPU0 is not a row of it: only a command before a
  // glued header is taken off ("nvidia-smi topo -m  GPU0 …"), never other words.
  auto p = ImportString(
      "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tSYS\t0-15\t0\n"
      "GPU1\tSYS\t X \t16-31\t1\n"
      "why is it slow between GPU0 and GPU1 here?\n");
  ASSERT_EQ(p.imported.machine.topology.nvml_levels.size(), 2u);
  EXPECT_EQ(p.imported.machine.topology.nvml_levels[0][1], "SYS");
  EXPECT_EQ(p.imported.machine.gpus[0].cpu_affinity.value_or(""), "0-15");
  bool prose = false;
  for (const auto& n : p.files[0].notes)
    prose =
        prose || n.find(":4: not part of the topo -m matrix: 'why is it slow") != std::string::npos;
  EXPECT_TRUE(prose) << ::testing::PrintToString(p.files[0].notes);
}

TEST(ImportTopoP2p, SamplesAndCapabilityFromThePrompt) {
  auto ns = ImportSample("topo_p2p/autodl-container-2x-2080ti-p2p-p-ns.txt",
                         "$ nvidia-smi topo -p2p p\n");
  ASSERT_EQ(Formats(ns), std::vector<std::string>{"topo-p2p"});
  const auto& st = ns.imported.machine.topology.p2p_status;
  ASSERT_EQ(st.pci.size(), 2u);
  EXPECT_EQ(st.pci[0][1], "NS");
  EXPECT_EQ(st.pci[1][0], "NS");
  EXPECT_TRUE(st.read.empty());

  auto cns = ImportSample("topo_p2p/stas00-2x-l4-p2p-r-cns.txt", "$ nvidia-smi topo -p2p r\n");
  EXPECT_EQ(cns.imported.machine.topology.p2p_status.read[0][1], "CNS");
  EXPECT_EQ(cns.imported.machine.topology.p2p_status.read[1][0], "CNS");

  auto ok = ImportSample("topo_p2p/stas00-8x-h100-p2p-r-ok.txt");  // no command pasted
  const auto& u = ok.imported.machine.topology.p2p_status.unstated;
  ASSERT_EQ(u.size(), 8u);
  for (size_t a = 0; a < 8; ++a)
    for (size_t b = 0; b < 8; ++b) EXPECT_EQ(u[a][b], a == b ? "X" : "OK");
  bool said = false;
  for (const auto& n : ok.files[0].notes) said = said || n.find("not pasted") != std::string::npos;
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace dossier::import
