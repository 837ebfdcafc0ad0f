#include "view/pasted_gpus.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dossier {
namespace {

PciDevice PastedDevice(const std::string& address, const std::string& name) {
  PciDevice d;
  d.address = address;
  d.name.Set(name, "imported: t.txt:3 (lspci-tree)");
  if (name.rfind("NVIDIA", 0) == 0) d.vendor_id.Set("0x10de", "imported: t.txt:3 (lspci-tree)");
  return d;
}

// A pasted pci.cfg entry: path and vendor:device (either left out when null), from line `line`.
PciMappingEntry CfgEntry(const char* path, const char* id, int line) {
  PciMappingEntry e;
  const std::string src = "imported: t.txt:" + std::to_string(line) + " (pci-cfg)";
  if (path) e.path.Set(path, src);
  if (id) e.id.Set(id, src);
  return e;
}

TEST(PastedGpus, EveryPasteThatNamesAGpuGivesOne) {
  Machine m;
  // lspci -tv: names only, no class.
  m.pci.devices.push_back(PastedDevice(
      "0000:71:00.0", "NVIDIA Corporation GB202GL [RTX PRO 6000 Blackwell Server Edition]"));
  m.pci.devices.push_back(
      PastedDevice("0000:71:00.1", "NVIDIA Corporation GB202 High Definition Audio Controller"));
  m.pci.devices.push_back(PastedDevice("0000:70:01.1", "Advanced Micro Devices, Inc. [AMD] 14ab"));
  // lspci -nn: class and ids.
  PciDevice nn;
  nn.address = "0000:01:00.0";
  nn.vendor_id.Set("0x10de", "imported: t.txt:9 (lspci)");
  nn.device_id.Set("0x2bb1", "imported: t.txt:9 (lspci)");
  nn.class_id.Set("0x030000", "imported: t.txt:9 (lspci)");
  m.pci.devices.push_back(nn);
  // pci.cfg: a path and vendor:device.
  PciMapping mp;
  mp.name = "gpu0";
  mp.entries = {CfgEntry("0000:f1:00.0", "10de:2bb1", 20),
                CfgEntry("0000:c1:00.0", "15b3:1021", 23)};
  m.hypervisor.pci_mappings.push_back(mp);
  // nvidia-smi -q: a bus id.
  NvmlGpu ng;
  ng.pci_bus_id.Set("00000000:81:00.0", "imported: t.txt:40 (nvidia-smi-q)");
  m.nvml.gpus.push_back(ng);
  GpusFromPastes(&m);
  ASSERT_EQ(m.gpus.size(), 4u);
  EXPECT_EQ(m.gpus[0].address, "0000:01:00.0");
  EXPECT_EQ(m.gpus[1].address, "0000:71:00.0");
  EXPECT_EQ(m.gpus[2].address, "0000:81:00.0");
  EXPECT_EQ(m.gpus[3].address, "0000:f1:00.0");
  for (size_t i = 0; i < m.gpus.size(); ++i) EXPECT_EQ(m.gpus[i].index, static_cast<int64_t>(i));
  EXPECT_EQ(m.gpus[3].architecture.value_or(""), "Blackwell");  // 10de:2bb1 from the table
  ASSERT_EQ(m.topology.gpu_levels.size(), 4u);                  // levels derived, as a collect
}

TEST(PastedGpus, TopoMFactsJoinByIndexAndNothingIsInventedWithoutANamingPaste) {
  Machine m;
  Gpu t0, t1;
  t0.index = 0, t1.index = 1;
  t0.numa_node.Set(0, "imported: t.txt:5 (topo-m)");
  t1.numa_node.Set(1, "imported: t.txt:6 (topo-m)");
  m.gpus = {t0, t1};
  GpusFromPastes(&m);  // no address anywhere: the topo -m GPUs stay as they were
  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_TRUE(m.gpus[0].address.empty());
  PciDevice a = PastedDevice("0000:11:00.0", "NVIDIA Corporation GH100 [H100 SXM5 80GB]");
  PciDevice b = PastedDevice("0000:91:00.0", "NVIDIA Corporation GH100 [H100 SXM5 80GB]");
  m.pci.devices = {b, a};
  GpusFromPastes(&m);
  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_EQ(m.gpus[0].address, "0000:11:00.0");
  EXPECT_EQ(m.gpus[0].numa_node.value_or(-9), 0);
  EXPECT_EQ(m.gpus[1].numa_node.value_or(-9), 1);
  EXPECT_EQ(m.gpus[1].numa_node.source, "imported: t.txt:6 (topo-m)");
}

// A pasted GPU with an address joins the GPU of that address, never the one at its index: here
// the paste lists three GPUs (its indexes 0-2), the lspci paste only two of them, so index 1 is
// not the machine's second GPU. A pasted GPU whose address the machine does not have fills
// nothing.
TEST(PastedGpus, AGpuWithAnAddressJoinsByAddressNotByIndex) {
  Machine m;
  m.pci.devices = {PastedDevice("0000:11:00.0", "NVIDIA Corporation GH100 [H100 SXM5 80GB]"),
                   PastedDevice("0000:91:00.0", "NVIDIA Corporation GH100 [H100 SXM5 80GB]")};
  auto pasted = [](int64_t index, const char* address, int64_t node, const char* src) {
    Gpu g;
    g.index = index;
    g.address = address;
    g.numa_node.Set(node, src);
    return g;
  };
  m.gpus = {pasted(0, "0000:11:00.0", 0, "imported: q.txt:2 (nvidia-smi-query)"),
            pasted(1, "0000:51:00.0", 5, "imported: q.txt:3 (nvidia-smi-query)"),
            pasted(2, "0000:91:00.0", 1, "imported: q.txt:4 (nvidia-smi-query)")};
  GpusFromPastes(&m);
  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_EQ(m.gpus[0].address, "0000:11:00.0");
  EXPECT_EQ(m.gpus[0].numa_node.value_or(-9), 0);
  EXPECT_EQ(m.gpus[1].address, "0000:91:00.0");
  EXPECT_EQ(m.gpus[1].numa_node.value_or(-9), 1);
  EXPECT_EQ(m.gpus[1].numa_node.source, "imported: q.txt:4 (nvidia-smi-query)");
}

// What the naming paste already says stands; another paste fills only what it lacks, field by
// field (the name, the NUMA node, the driver, the CPU affinity), and a field neither knows stays
// unknown. Each field is tried known on the lspci side alone, on the topo -m side alone, on both
// sides with different values, and on neither.
TEST(PastedGpus, AnotherPasteFillsOnlyWhatTheNamingPasteLacks) {
  enum Side { kNeither, kLspci, kTopo, kBoth };
  for (Side side : {kNeither, kLspci, kTopo, kBoth}) {
    SCOPED_TRACE(side);
    Machine m;
    // lspci -n: a 3D controller by class and vendor, named only on the lspci side.
    PciDevice d;
    d.address = "0000:11:00.0";
    d.vendor_id.Set("0x10de", "lspci");
    d.class_id.Set("0x030200", "lspci");
    Gpu t;  // topo -m: no address, index 0 of one GPU
    t.index = 0;
    if (side == kLspci || side == kBoth) {
      d.name.Set("NVIDIA Corporation GH100 [H100 SXM5 80GB]", "lspci");
      d.numa_node.Set(1, "lspci");
      d.driver.Set("vfio-pci", "lspci");
      d.local_cpus.Set("0-7", "lspci");
    }
    if (side == kTopo || side == kBoth) {
      t.name.Set("from topo", "topo");
      t.numa_node.Set(3, "topo");
      t.driver.Set("nvidia", "topo");
      t.cpu_affinity.Set("8-15", "topo");
    }
    m.pci.devices = {d};
    m.gpus = {t};
    GpusFromPastes(&m);
    ASSERT_EQ(m.gpus.size(), 1u);
    const Gpu& g = m.gpus[0];
    switch (side) {
      case kNeither:
        EXPECT_FALSE(g.numa_node.known());
        EXPECT_FALSE(g.driver.known());
        EXPECT_FALSE(g.cpu_affinity.known());
        break;
      case kLspci:
      case kBoth:
        EXPECT_EQ(g.numa_node.value_or(-9), 1);
        EXPECT_EQ(g.numa_node.source, "lspci");
        EXPECT_EQ(g.driver.value_or(""), "vfio-pci");
        EXPECT_EQ(g.cpu_affinity.value_or(""), "0-7");
        break;
      case kTopo:
        EXPECT_EQ(g.numa_node.value_or(-9), 3);
        EXPECT_EQ(g.numa_node.source, "topo");
        EXPECT_EQ(g.driver.value_or(""), "nvidia");
        EXPECT_EQ(g.cpu_affinity.value_or(""), "8-15");
        break;
    }
    // The name: lspci's when it has one, else topo -m's, else unknown.
    const char* names[] = {"", "NVIDIA Corporation GH100 [H100 SXM5 80GB]", "from topo",
                           "NVIDIA Corporation GH100 [H100 SXM5 80GB]"};
    EXPECT_EQ(g.name.value_or(""), names[side]);
    EXPECT_EQ(g.name.source, side == kNeither ? "" : side == kTopo ? "topo" : "lspci");
  }
}

// One GPU per address whichever pastes name it: lspci's (first, with its identity) stands, and
// nvidia-smi's bus id in any case and width joins it rather than adding a second GPU; a mapping
// entry naming the same device adds none either.
TEST(PastedGpus, AGpuNamedByThreePastesIsOneGpu) {
  Machine m;
  PciDevice d;
  d.address = "0000:81:00.0";
  d.vendor_id.Set("0x10de", "imported: t.txt:9 (lspci)");
  d.device_id.Set("0x2bb1", "imported: t.txt:9 (lspci)");
  d.class_id.Set("0x030200", "imported: t.txt:9 (lspci)");
  d.numa_node.Set(1, "imported: t.txt:9 (lspci)");
  m.pci.devices = {d};
  for (const char* id : {"00000000:81:00.0", "00000000:81:00.0 ", "0000:81:00.0"}) {
    NvmlGpu n;
    n.pci_bus_id.Set(id, "imported: t.txt:40 (nvidia-smi-q)");
    n.name.Set("from nvidia-smi", "imported: t.txt:41 (nvidia-smi-q)");
    n.numa_node.Set(3, "imported: t.txt:42 (nvidia-smi-q)");
    m.nvml.gpus.push_back(n);
  }
  NvmlGpu upper;
  upper.pci_bus_id.Set("00000000:C1:00.0", "imported: t.txt:50 (nvidia-smi-q)");
  m.nvml.gpus.push_back(upper);
  PciMapping mp;
  mp.name = "gpu0";
  // A damaged entry (an id without a path, a path without an id) names no GPU.
  mp.entries = {CfgEntry("0000:81:00.0", "10de:2bb1", 20), CfgEntry(nullptr, "10de:2bb1", 21),
                CfgEntry("0000:e1:00.0", nullptr, 22)};
  m.hypervisor.pci_mappings = {mp};
  GpusFromPastes(&m);
  ASSERT_EQ(m.gpus.size(), 2u);
  EXPECT_EQ(m.gpus[0].address, "0000:81:00.0");
  EXPECT_EQ(m.gpus[0].numa_node.value_or(-9), 1);
  EXPECT_EQ(m.gpus[0].numa_node.source, "imported: t.txt:9 (lspci)");
  EXPECT_NE(m.gpus[0].name.value_or(""), "from nvidia-smi");
  EXPECT_EQ(m.gpus[1].address, "0000:c1:00.0");
}

}  // namespace
}  // namespace dossier
