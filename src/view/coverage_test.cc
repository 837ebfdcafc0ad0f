#include "view/coverage.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace dossier {
namespace {

TEST(Coverage, EveryFamilyHasOneRowAndItsPathsAreItsOwn) {
  std::set<int> seen;
  std::set<std::string> keys;
  for (const auto& info : FamilyTable()) {
    EXPECT_TRUE(seen.insert(static_cast<int>(info.family)).second) << info.key;
    EXPECT_TRUE(keys.insert(info.key).second) << info.key;
    EXPECT_NE(std::string(info.paste), "") << info.key;
    for (const char* p : info.paths) {
      // A path of the family, with an element key where the pattern has [*], is that family.
      std::string path = p;
      for (size_t at; (at = path.find("[*]")) != std::string::npos;)
        path.replace(at, 3, "[0000:01:00.0]");
      Family f;
      ASSERT_TRUE(FamilyOfPath(path + "/x", &f)) << path;
      EXPECT_EQ(f, info.family) << path;
    }
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(Family::kNccl) + 1);
}

TEST(Coverage, LongestPathWinsAndComponentsMustEnd) {
  Family f;
  ASSERT_TRUE(FamilyOfPath("/pci/devices[0000:01:00.0]/link/current/gen", &f));
  EXPECT_EQ(f, Family::kPciLinks);
  ASSERT_TRUE(FamilyOfPath("/pci/devices[0000:01:00.0]/acs/control", &f));
  EXPECT_EQ(f, Family::kAcs);
  ASSERT_TRUE(FamilyOfPath("/pci/devices[0000:01:00.0]/name", &f));
  EXPECT_EQ(f, Family::kPciDevices);
  ASSERT_TRUE(FamilyOfPath("/nvml/driver_version", &f));
  EXPECT_EQ(f, Family::kNvidiaDriver);
  ASSERT_TRUE(FamilyOfPath("/topology/p2p_status/read[0][1]", &f));
  EXPECT_EQ(f, Family::kP2pRead);
  EXPECT_FALSE(FamilyOfPath("/numax", &f));  // "/numa" only as a whole component
  EXPECT_FALSE(FamilyOfPath("/topology/p2p_status/unstated[0][1]", &f));
}

TEST(Coverage, AnImportCoversOnlyTheFamiliesItsFactsAreIn) {
  Machine im;
  im.kernel.cmdline.Set("ro quiet", "imported: s.txt:2 (cmdline)");
  im.topology.p2p_status.read = {{"X", "NS"}, {"NS", "X"}};
  im.pci.acs_lines.push_back({"imported: s.txt:9 (lspci)", {}});
  Coverage c;
  c.collected = false;
  AddImportCoverage(im, "s.txt", &c);
  EXPECT_TRUE(c.Covers(Family::kKernelCmdline));
  EXPECT_EQ(c.From(Family::kKernelCmdline), "pasted: s.txt:2 (cmdline)");
  EXPECT_TRUE(c.Covers(Family::kP2pRead));
  EXPECT_EQ(c.From(Family::kP2pRead), "pasted: s.txt");
  EXPECT_TRUE(c.Covers(Family::kAcs));
  // What no paste said: not covered, with what to paste.
  for (Family f : {Family::kP2pWrite, Family::kNuma, Family::kCuda, Family::kServers, Family::kGpus,
                   Family::kPciDevices})
    EXPECT_FALSE(c.Covers(f)) << InfoOf(f).key;
  EXPECT_EQ(c.Absent(Family::kNuma), "not in the pasted outputs (paste: `numactl -H`)");
  EXPECT_EQ(c.Absent(Family::kKernelCmdline), "");
  c.collected = true;
  EXPECT_TRUE(c.Covers(Family::kNuma));
  EXPECT_EQ(c.From(Family::kNuma), "collected");
}

// A source with more after its format ("FILE:LINE (format) …") is cited as "FILE:LINE (format)".
TEST(Coverage, ASourceIsCitedUpToItsFormat) {
  Machine im;
  im.kernel.cmdline.Set("ro quiet", "imported: s.txt:2 (cmdline) line 2 of 3 (cut)");
  Coverage c;
  c.collected = false;
  AddImportCoverage(im, "s.txt", &c);
  EXPECT_EQ(c.From(Family::kKernelCmdline), "pasted: s.txt:2 (cmdline)");
  // One citation per pasted part (file and format): more lines of it add none, another file or
  // format does.
  Machine devs;
  int n = 0;
  for (const char* src : {"imported: s.txt:9 (lspci)", "imported: s.txt:12 (lspci) cut",
                          "imported: t.txt:3 (lspci)", "imported: s.txt:20 (lspci-tree)"}) {
    PciDevice& d = devs.pci.devices.emplace_back();
    d.address = "0000:0" + std::to_string(++n) + ":00.0";
    d.name.Set("NVIDIA Corporation Device 2bb1", src);
  }
  Coverage d;
  d.collected = false;
  AddImportCoverage(devs, "s.txt", &d);
  EXPECT_EQ(
      d.pasted[Family::kPciDevices],
      (std::vector<std::string>{"s.txt:9 (lspci)", "t.txt:3 (lspci)", "s.txt:20 (lspci-tree)"}));
}

// An import that says nothing but the machine's name covers no family: neither the name nor an
// empty text field is a fact.
TEST(Coverage, AnImportOfOnlyANameCoversNothing) {
  Machine im;
  im.name = "host";
  Coverage c;
  c.collected = false;
  AddImportCoverage(im, "s.txt", &c);
  for (const auto& info : FamilyTable()) EXPECT_FALSE(c.Covers(info.family)) << info.key;
}

// Each family from a path of the kind the model writes, and the paths that are no family's.
TEST(Coverage, EachFamilyFromARealPath) {
  const std::vector<std::pair<const char*, const char*>> rows = {
      {"/hostname", "system"},
      {"/boot_id", "system"},
      {"/os/pretty_name", "system"},
      {"/dmi/product_uuid", "system"},
      {"/dmi/memory_devices[DIMM_A1]/size_bytes", "system"},
      {"/cpu/model", "cpu"},
      {"/memory/total_bytes", "cpu"},
      {"/numa/nodes[0]/cpus", "numa"},
      {"/pci/devices[0000:01:00.0]/link/max/width", "pci_links"},
      {"/pci/devices[0000:01:00.0]/acs/capability", "acs"},
      {"/pci/acs_lines[3]/line", "acs"},
      {"/pci/devices[0000:01:00.0]/parent", "pci"},
      {"/pci/count", "pci"},
      {"/iommu/groups[12]/devices", "iommu"},
      {"/iommu/enabled", "iommu"},
      {"/virtualization/guest", "virtualization"},
      {"/hypervisor/vms[100]/hostpci[hostpci0]/host", "hypervisor"},
      {"/hypervisor/pci_mappings[gpu0]/entries[0]/path", "hypervisor"},
      {"/kernel/cmdline", "kernel_cmdline"},
      {"/kernel/release", "kernel_release"},
      {"/kernel_log/pci_problems[0]/message", "kernel_log"},
      {"/gpus[0]/name", "gpus"},
      {"/software/nvidia_driver", "nvidia_driver"},
      {"/nvml/driver_version", "nvidia_driver"},
      {"/nvml/gpus[0]/name", "nvml"},
      {"/topology/nvml_levels[0][1]", "gpu_topology"},
      {"/topology/p2p_status/read[1][0]", "p2p_read"},
      {"/topology/p2p_status/write[1][0]", "p2p_write"},
      {"/topology/p2p_status/nvlink[1][0]", "p2p_nvlink"},
      {"/topology/p2p_status/atomics[1][0]", "p2p_atomics"},
      {"/topology/p2p_status/pci[1][0]", "p2p_pci"},
      {"/software/cuda_toolkits[/usr/local/cuda-12.8]/version", "cuda"},
      {"/software/cuda_default", "cuda"},
      {"/software/python_envs[/opt/venv]/packages[torch]", "python"},
      {"/software/env[NCCL_P2P_DISABLE]", "env"},
      {"/servers[4242]/flags[--tp-size]", "servers"},
      {"/nccl/ranks[0]/gpu", "nccl"},
  };
  for (const auto& [path, key] : rows) {
    Family f;
    ASSERT_TRUE(FamilyOfPath(path, &f)) << path;
    EXPECT_STREQ(InfoOf(f).key, key) << path;
  }
  for (const char* none : {"/name", "/hostnames", "/kernel/cmdlines", "/topology/gpu_levels[0][1]",
                           "/pci/devicesx", "/pci", "/software", ""}) {
    Family f = Family::kNccl;
    EXPECT_FALSE(FamilyOfPath(none, &f)) << none;
  }
}

// At most eight citations per family, each once however many imports repeat it.
TEST(Coverage, EightCitationsAtMostEachOnce) {
  Machine devs;
  for (int i = 0; i < 12; ++i) {
    PciDevice& d = devs.pci.devices.emplace_back();
    d.address = "0000:" + std::to_string(10 + i) + ":00.0";
    d.name.Set("x", "imported: f" + std::to_string(i) + ".txt:1 (lspci)");
  }
  Coverage c;
  c.collected = false;
  AddImportCoverage(devs, "f0.txt", &c);
  AddImportCoverage(devs, "f0.txt", &c);
  const auto& v = c.pasted[Family::kPciDevices];
  ASSERT_EQ(v.size(), 8u);
  EXPECT_EQ(v.front(), "f0.txt:1 (lspci)");
  EXPECT_EQ(v.back(), "f7.txt:1 (lspci)");
  EXPECT_EQ(c.From(Family::kPciDevices), "pasted: f0.txt:1 (lspci)");
}

}  // namespace
}  // namespace dossier
