// Reading the file NCCL_TOPO_FILE names: the bus ids as NCCL compares them, the NUMA node each GPU
// is placed under, and where the file is looked for. Comparing it with the machine is analysis
// (analyze/cross_checks_test.cc).
#include "probe/nccl_topo_file.h"

#include <gtest/gtest.h>

#include "../tests/temp_dir.h"

namespace dossier {
namespace {

TEST(NcclTopoXml, BusIdForms) {
  EXPECT_EQ(NormalizeNcclBusId("0000:1A:00.0"), "0000:1a:00.0");
  EXPECT_EQ(NormalizeNcclBusId(" 1a:00.0 "), "0000:1a:00.0");
  EXPECT_EQ(NormalizeNcclBusId("00000000:1A:00.0"), "0000:1a:00.0");  // nvidia-smi's 8 digits
  // A domain other than 0 (a second PCI segment, some Hyper-V and multi-host machines) is kept.
  EXPECT_EQ(NormalizeNcclBusId("0001:3b:00.1"), "0001:3b:00.1");
  EXPECT_EQ(NormalizeNcclBusId("00000002:C1:1F.7"), "0002:c1:1f.7");
  EXPECT_EQ(NormalizeNcclBusId("10002:c1:00.0"), "");     // 5 digits: no such domain form
  EXPECT_EQ(NormalizeNcclBusId("00010002:c1:00.0"), "");  // 8 digits not starting 0000
  EXPECT_EQ(NormalizeNcclBusId("gpu0"), "");
  EXPECT_EQ(NormalizeNcclBusId("0000:1a:00"), "");
  EXPECT_EQ(NormalizeNcclBusId("0000:1a:00.00"), "");
  EXPECT_EQ(NormalizeNcclBusId("0000:1a:000.0"), "");
  EXPECT_EQ(NormalizeNcclBusId("0000:1g:00.0"), "");
  EXPECT_EQ(NormalizeNcclBusId("000g:1a:00.0"), "");
  EXPECT_EQ(NormalizeNcclBusId("0000:1a:0g.0"), "");
  EXPECT_EQ(NormalizeNcclBusId("0000:1a:00.g"), "");
  EXPECT_EQ(NormalizeNcclBusId("0000:1a:00:0"), "");
  EXPECT_EQ(NormalizeNcclBusId("0000:0000:1a:00.0"), "");
  EXPECT_EQ(NormalizeNcclBusId(""), "");
}

TEST(NcclTopoXml, EachGpuTakesTheNumaNodeOfTheCpuAboveItAndKeepsItsLine) {
  NcclTopoFile f = ParseNcclTopoXml(
      "<system version=\"1\">\n"
      "  <cpu numaid=\"1\" affinity=\"ff\">\n"
      "    <pci busid=\"0001:3B:00.0\" class=\"0x030200\"/>\n"
      "  </cpu>\n"
      "  <cpu numaid=\"x1\">\n"
      "    <pci busid=\"0000:5e:00.0\"><gpu dev=\"1\"/></pci>\n"
      "  </cpu>\n"
      "  <pci busid=\"not-an-id\" class=\"0x030000\"/>\n"
      "  <pci busid=\"0000:60:00.0\" class=\"0x020000\"/>\n"  // a NIC: not a GPU
      "</system>\n",
      "/etc/topo.xml");
  EXPECT_EQ(f.parse_error, "");
  ASSERT_EQ(f.gpus.size(), 3u);
  EXPECT_EQ(f.gpus[0].bus_id, "0001:3b:00.0");
  EXPECT_EQ(f.gpus[0].numa_id.value_or(-9), 1);
  EXPECT_EQ(f.gpus[0].numa_id.source, "/etc/topo.xml:2");
  EXPECT_EQ(f.gpus[0].line, 3);
  EXPECT_EQ(f.gpus[1].bus_id, "0000:5e:00.0");
  EXPECT_FALSE(f.gpus[1].numa_id.known());
  EXPECT_EQ(f.gpus[1].numa_id.unknown, "numaid \"x1\" is not a number");
  EXPECT_EQ(f.gpus[1].line, 6);
  EXPECT_EQ(f.gpus[2].bus_id, "not-an-id");  // kept as written, so it shows as a mismatch
  EXPECT_FALSE(f.gpus[2].numa_id.known());
  EXPECT_EQ(f.gpus[2].numa_id.unknown, "not under a <cpu numaid=…>");
  EXPECT_EQ(f.cpu_numa_ids, (std::vector<int64_t>{1}));
}

TEST(NcclTopoXml, DeepNestingCostsNoStack) {
  std::string deep = "<system><cpu numaid=\"0\">";
  for (int i = 0; i < 200000; ++i) deep += "<pci busid=\"0000:00:01.0\">";
  deep += "<pci busid=\"0000:01:00.0\" class=\"0x030000\"/>";
  for (int i = 0; i < 200000; ++i) deep += "</pci>";
  deep += "</cpu></system>";
  NcclTopoFile f = ParseNcclTopoXml(deep, "deep.xml");
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(*f.gpus[0].numa_id, 0);
}

TEST(NcclTopoXml, TheFileIsLookedForWhereNcclOpensIt) {
  testing::TempDir t;
  t.Write("work/topo.xml",
          "<system><cpu numaid=\"0\"><pci busid=\"01:00.0\" "
          "class=\"0x030000\"/></cpu></system>");
  RootFs fs(t.path());
  const std::string env = "/proc/7/environ";
  NcclTopoFile unset = ReadNcclTopoFile(fs, {{"NCCL_DEBUG", "INFO"}}, "/work", env);
  EXPECT_EQ(unset.file.unknown, "NCCL_TOPO_FILE not set");
  EXPECT_EQ(unset.file.source, env);
  EXPECT_EQ(ReadNcclTopoFile(fs, {{"NCCL_TOPO_FILE", ""}}, "/work", env).file.unknown,
            "NCCL_TOPO_FILE not set");

  // Relative: from the process's working directory.
  NcclTopoFile rel = ReadNcclTopoFile(fs, {{"NCCL_TOPO_FILE", "topo.xml"}}, "/work", env);
  EXPECT_EQ(rel.file.value_or("(unknown)"), "/work/topo.xml");
  EXPECT_EQ(rel.file.source, "/proc/7/environ NCCL_TOPO_FILE");
  ASSERT_EQ(rel.gpus.size(), 1u);
  EXPECT_EQ(rel.gpus[0].bus_id, "0000:01:00.0");

  NcclTopoFile nocwd = ReadNcclTopoFile(fs, {{"NCCL_TOPO_FILE", "topo.xml"}}, "", env);
  EXPECT_EQ(nocwd.file.unknown,
            "NCCL_TOPO_FILE is relative (topo.xml) and the working directory is unknown");

  NcclTopoFile abs = ReadNcclTopoFile(fs, {{"NCCL_TOPO_FILE", "/work/topo.xml"}}, "/", env);
  EXPECT_EQ(abs.file.value_or("(unknown)"), "/work/topo.xml");

  NcclTopoFile absent = ReadNcclTopoFile(fs, {{"NCCL_TOPO_FILE", "/etc/none.xml"}}, "/", env);
  EXPECT_FALSE(absent.file.known());
  EXPECT_EQ(absent.file.unknown.rfind("/etc/none.xml: ", 0), 0u) << absent.file.unknown;
  EXPECT_TRUE(absent.gpus.empty());
}

}  // namespace
}  // namespace dossier
