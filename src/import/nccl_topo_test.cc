// The NCCL topology dump importer on a dump written by hand with the attributes NCCL's
// src/graph/xml.cc writes (no real dump was at hand): GPUs, NUMA, links, NVLinks, levels.
#include <gtest/gtest.h>

#include "import/import_test_util.h"

namespace dossier::import {
namespace {

using testing::Formats;
using testing::ImportString;

std::string NtCorpus(const std::string& f) {
  return dossier::testing::Slurp(std::string(DOSSIER_SOURCE_DIR) +
                                 "/tests/corpus/import-nccl-topo-xml/" + f);
}

// How sure detection is: the <system> line and a line from inside the tree (a CPU, a GPU, a PCI
// device with its busid) each count; both together are a dump, either alone half of one.
TEST(NcclTopoImport, DetectionWantsTheSystemLineAndOneFromInside) {
  const Importer* nt = FindImporter("nccl-topo-xml");
  ASSERT_NE(nt, nullptr);
  auto lines = [](std::vector<std::string> t) {
    Lines out;
    for (size_t i = 0; i < t.size(); ++i) out.push_back({i + 1, t[i]});
    return out;
  };
  const std::string sys = "<system version=\"1\">";
  for (const char* inner : {"  <cpu numaid=\"0\" affinity=\"ff\">", "<gpu dev=\"0\" sm=\"90\">",
                            "    <pci busid=\"0000:01:00.0\" class=\"0x030200\">"}) {
    SCOPED_TRACE(inner);
    EXPECT_EQ(nt->detect(lines({sys, inner, "</system>"})), 95);
    EXPECT_EQ(nt->detect(lines({inner})), 50);
  }
  EXPECT_EQ(nt->detect(lines({"<system>"})), 50);
  EXPECT_EQ(nt->detect(lines({sys, "<pci link=\"x\">", "<nic>"})), 50);  // a pci without busid
  EXPECT_EQ(nt->detect(lines({"<cpux>", "gpu dev=0"})), 0);
}

TEST(NcclTopoImport, GpusNumaLinksAndLevelsFromTheTreeShape) {
  ImportRun run = ImportString(NtCorpus("hgx-like-two-sockets.xml"));
  EXPECT_EQ(Formats(run), std::vector<std::string>{"nccl-topo-xml"});
  const Machine& m = run.imported.machine;
  ASSERT_EQ(m.gpus.size(), 5u);
  EXPECT_EQ(m.gpus[0].address, "0000:03:00.0");
  EXPECT_EQ(m.gpus[3].address, "0000:83:00.0");
  EXPECT_EQ(m.gpus[0].numa_node.value_or(-9), 0);
  EXPECT_EQ(m.gpus[3].numa_node.value_or(-9), 1);
  EXPECT_EQ(m.gpus[0].cpu_affinity.value_or(""), "0-47");
  EXPECT_EQ(m.gpus[4].cpu_affinity.value_or(""), "80-127");
  EXPECT_EQ(m.gpus[0].compute_capability.value_or(""), "9.0");
  EXPECT_EQ(m.gpus[0].numa_node.source, "imported: paste.txt:2 (nccl-topo-xml)");
  // Levels: same switch PIX; switch vs root port of one CPU PHB; nested switches PXB; SYS.
  const auto& lv = m.topology.gpu_levels;
  ASSERT_EQ(lv.size(), 5u);
  EXPECT_EQ(lv[0][0], "X");
  EXPECT_EQ(lv[0][1], "PIX");
  EXPECT_EQ(lv[0][2], "PHB");
  EXPECT_EQ(lv[0][3], "SYS");
  EXPECT_EQ(lv[3][4], "PXB");
  EXPECT_EQ(lv[4][3], "PXB");
  // NICs and their levels.
  ASSERT_EQ(m.topology.nics, std::vector<std::string>{"mlx5_0"});
  EXPECT_EQ(m.topology.gpu_nic_levels[0][0], "PIX");
  EXPECT_EQ(m.topology.gpu_nic_levels[3][0], "SYS");
  // The link NCCL read is the maximum (max_link_speed/width), not the trained one.
  const PciDevice* g2 = nullptr;
  for (const auto& d : m.pci.devices)
    if (d.address == "0000:41:00.0") g2 = &d;
  ASSERT_NE(g2, nullptr);
  EXPECT_EQ(g2->link.max.gen.value_or(0), 4);
  EXPECT_EQ(g2->link.max.width.value_or(0), 8);
  EXPECT_FALSE(g2->link.current.gen.known());
  EXPECT_EQ(g2->class_id.value_or(""), "0x030200");
  // NVLinks: four to the neighbour.
  ASSERT_GE(m.nvml.gpus.size(), 2u);
  EXPECT_EQ(m.nvml.gpus[0].nvlinks.size(), 4u);
  EXPECT_EQ(m.nvml.gpus[0].nvlinks[0].remote_pci_bus_id.value_or(""), "0000:04:00.0");
  // Ranks with their CUDA device.
  ASSERT_EQ(m.nccl.ranks.size(), 5u);
  EXPECT_EQ(m.nccl.ranks[0].bus_id.value_or(""), "0000:03:00.0");
}

TEST(NcclTopoImport, CrlfAndAPromptReadTheSame) {
  for (const char* f : {"hgx-like-crlf.xml", "hgx-like-prompt.txt"}) {
    ImportRun run = ImportString(NtCorpus(f));
    EXPECT_EQ(run.imported.machine.gpus.size(), 5u) << f;
    EXPECT_EQ(run.imported.machine.topology.gpu_levels.size(), 5u) << f;
  }
}

TEST(NcclTopoImport, CutOffKeepsWhatCameBeforeAndSaysWhere) {
  ImportRun run = ImportString(NtCorpus("hgx-like-cut.xml"));
  const Machine& m = run.imported.machine;
  EXPECT_EQ(m.gpus.size(), 4u);  // the fifth GPU's <pci> was cut before its <gpu>
  bool said = false;
  for (const auto& f : run.files)
    for (const auto& n : f.notes)
      said = said || (n.find("stops here (cut off) inside <system/cpu/pci>") != std::string::npos);
  EXPECT_TRUE(said);
}

TEST(NcclTopoImport, BadAttributesAreLeftOutNotGuessed) {
  ImportRun run = ImportString(NtCorpus("bad-attrs.xml"));
  const Machine& m = run.imported.machine;
  ASSERT_EQ(m.gpus.size(), 1u);
  EXPECT_EQ(m.gpus[0].address, "0000:0a:00.0");
  EXPECT_FALSE(m.gpus[0].compute_capability.known());
  EXPECT_FALSE(m.gpus[0].numa_node.known());
}

}  // namespace
}  // namespace dossier::import
