// The NCCL topology file against the machine: parsed from XML text (probe/nccl_topo_file.h), then
// checked (analyze/cross_checks.h) for bus ids that are not GPUs here, NUMA ids the machine lacks,
// GPUs twice or missing, and a NUMA placement that contradicts the GPU's numa_node.
#include "analyze/cross_checks.h"

#include <gtest/gtest.h>

#include "probe/nccl_topo_file.h"

namespace dossier {
namespace {

const char kTopo[] = R"(<system version="1">
  <cpu numaid="0" affinity="0000ffff">
    <pci busid="0000:00:01.0" class="0x060400">
      <pci busid="0000:01:00.0" class="0x030200"/>
    </pci>
    <pci busid="02:00.0" class="0x030000"/>
  </cpu>
  <cpu numaid="1">
    <pci busid="0000:03:00.0" class="0x068000">
      <gpu dev="2" sm="90" rank="2"/>
    </pci>
  </cpu>
</system>
)";

Machine FourGpuMachine() {
  Machine m;
  for (int i = 0; i < 3; ++i) {
    Gpu g;
    g.index = i;
    g.address = "0000:0" + std::to_string(i + 1) + ":00.0";
    g.numa_node.Set(-1, "sysfs");
    m.gpus.push_back(g);
  }
  for (int i = 0; i < 2; ++i) {
    NumaNode n;
    n.id = i;
    m.numa.nodes.push_back(n);
  }
  return m;
}

NcclTopoFile Topo(const std::string& text) {
  NcclTopoFile f = ParseNcclTopoXml(text, "/etc/nccl.xml");
  f.file.Set("/etc/nccl.xml", "/proc/1/environ NCCL_TOPO_FILE");
  return f;
}

TEST(NcclTopoFile, ParsesGpusWithTheirNumaNodes) {
  NcclTopoFile f = Topo(kTopo);
  EXPECT_EQ(f.parse_error, "");
  ASSERT_EQ(f.gpus.size(), 3u);
  // A display-class leaf under a bridge, a short bus id (domain added), a <pci> holding <gpu>.
  EXPECT_EQ(f.gpus[0].bus_id, "0000:01:00.0");
  EXPECT_EQ(*f.gpus[0].numa_id, 0);
  EXPECT_EQ(f.gpus[0].line, 4);
  EXPECT_EQ(f.gpus[1].bus_id, "0000:02:00.0");
  EXPECT_EQ(f.gpus[2].bus_id, "0000:03:00.0");
  EXPECT_EQ(*f.gpus[2].numa_id, 1);
  EXPECT_EQ(f.cpu_numa_ids, (std::vector<int64_t>{0, 1}));
}

TEST(NcclTopoFile, MatchingFileAgrees) {
  Machine m = FourGpuMachine();
  NcclTopoCheck c = CheckNcclTopoFile(m, Topo(kTopo));
  EXPECT_TRUE(c.problems.empty()) << c.problems.front();
  EXPECT_NE(c.agreed.find("3 GPU(s)"), std::string::npos) << c.agreed;
}

TEST(NcclTopoFile, EachMismatchNamesTheGpuOrId) {
  Machine m = FourGpuMachine();
  // A GPU of another machine, a GPU twice, a NUMA node this machine lacks.
  std::string text = kTopo;
  text.replace(text.find("02:00.0"), 7, "0000:41:00.0");
  text.replace(text.find("numaid=\"1\""), 10, "numaid=\"3\"");
  text.replace(text.find("</system>"), 9,
               "<cpu numaid=\"0\"><pci busid=\"0000:01:00.0\" class=\"0x030200\"/></cpu></system>");
  NcclTopoCheck c = CheckNcclTopoFile(m, Topo(text));
  std::string all;
  for (const auto& p : c.problems) all += p + "\n";
  EXPECT_NE(all.find("numaid=\"3\"> names a NUMA node this machine does not have"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("GPU 0000:41:00.0 is not a GPU of this machine"), std::string::npos) << all;
  EXPECT_NE(all.find("GPU 0000:01:00.0 appears twice (lines 4 and 13)"), std::string::npos) << all;
  EXPECT_NE(all.find("not in the file (0000:02:00.0)"), std::string::npos) << all;
  EXPECT_EQ(c.problems.size(), c.sources.size());
  EXPECT_EQ(c.agreed, "");
}

TEST(NcclTopoFile, NumaPlacementAgainstTheGpusNumaNode) {
  Machine m = FourGpuMachine();
  m.gpus[2].numa_node.Set(0, "sysfs");  // the file puts 0000:03:00.0 under node 1
  NcclTopoCheck c = CheckNcclTopoFile(m, Topo(kTopo));
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_NE(c.problems[0].find("0000:03:00.0 is under NUMA node 1 in the file but reads "
                               "numa_node 0"),
            std::string::npos)
      << c.problems[0];
  EXPECT_EQ(c.sources[0], "/etc/nccl.xml:9");
}

TEST(NcclTopoFile, BrokenXmlIsOneProblemWithTheLine) {
  NcclTopoFile f = Topo("<system>\n<cpu numaid=\"0\">\n<pci busid=\"0000:01:00.0\"\n</system>");
  EXPECT_NE(f.parse_error.find("/etc/nccl.xml:"), std::string::npos) << f.parse_error;
  NcclTopoCheck c = CheckNcclTopoFile(FourGpuMachine(), f);
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_NE(c.problems[0].find("does not parse"), std::string::npos);
  EXPECT_NE(ParseNcclTopoXml("<domain/>", "x.xml").parse_error.find("no <system>"),
            std::string::npos);
}

}  // namespace
}  // namespace dossier
