#include "measure/p2p/link_limit.h"
#include "measure/p2p/host_memory.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include "measure/p2p/host_memory.h"
#include "measure/p2p/host_nodes.h"
#include "tests/standin_paths.h"

namespace dossier::p2p {
namespace {

PciDevice Dev(const std::string& addr, const std::string& parent, int64_t max_gen, int64_t width) {
  PciDevice d;
  d.address = addr;
  if (parent.empty())
    d.parent.Unknown("root", "sysfs");
  else
    d.parent = Known(parent, "sysfs");
  d.link.max.gen = Known(max_gen, "sysfs");
  d.link.current.gen = Known<int64_t>(1, "sysfs");  // idle: trained down, not a limit
  d.link.current.width = Known(width, "sysfs");
  return d;
}

TEST(P2pLinkLimit, PcieArithmetic) {
  EXPECT_NEAR(PcieGbps(5, 16), 63.0, 0.05);
  EXPECT_NEAR(PcieGbps(4, 16), 31.5, 0.05);
  EXPECT_NEAR(PcieGbps(3, 16), 15.75, 0.01);
  EXPECT_NEAR(PcieGbps(1, 1), 0.25, 1e-9);
  EXPECT_NEAR(PcieGbps(2, 16), 8.0, 1e-9);        // 5 GT/s, 8b/10b
  EXPECT_NEAR(PcieGbps(6, 16), 121.0, 1e-9);      // 64 GT/s, FLIT mode (242 of 256 bytes)
  EXPECT_NEAR(PcieGbps(4, 32), 2 * 31.51, 0.05);  // x32 is in the specification
  EXPECT_EQ(PcieGbps(0, 16), 0);
  EXPECT_EQ(PcieGbps(-1, 16), 0);
  EXPECT_EQ(PcieGbps(7, 16), 0);  // a generation past the table: no figure, never a guess
  EXPECT_EQ(PcieGbps(5, 0), 0);
  EXPECT_EQ(PcieGbps(5, -16), 0);
  EXPECT_EQ(PcieGbps(5, 33), 0);
}

TEST(P2pHostMemory, PlacementSaysWhereThePagesAreNotWhereTheyWereAskedFor) {
  EXPECT_EQ(DescribePlacement("", 1, 1), "NUMA node 1");
  EXPECT_EQ(DescribePlacement("", 0, 0), "NUMA node 0");   // node 0 is a node, not "none"
  EXPECT_EQ(DescribePlacement("", 1, -1), "NUMA node 1");  // the kernel would not say
  EXPECT_EQ(DescribePlacement("", 1, 0), "NUMA node 1 asked for; pages on node 0");
  EXPECT_EQ(DescribePlacement("", 0, 2), "NUMA node 0 asked for; pages on node 2");
  EXPECT_EQ(DescribePlacement("Invalid argument", 1, 0),
            "default policy (mbind to node 1: Invalid argument); pages on node 0");
  EXPECT_EQ(DescribePlacement("Operation not permitted", 3, -1),
            "default policy (mbind to node 3: Operation not permitted); node not known");
  EXPECT_EQ(DescribePlacement("", -1, 0), "default policy; pages on node 0");
  EXPECT_EQ(DescribePlacement("", -1, -1), "default policy; node not known");
}

TEST(P2pLinkLimit, NarrowestLinkOnTheWalkUpFromTheGpu) {
  Machine m;
  m.pci.devices = {Dev("0000:00:01.1", "", 5, 16), Dev("0000:01:00.0", "0000:00:01.1", 5, 16),
                   Dev("0000:02:00.0", "0000:01:00.0", 5, 8),  // a switch port at x8
                   Dev("0000:03:00.0", "0000:02:00.0", 5, 16)};
  Fact<double> f = GpuPathLimit(m, "0000:03:00.0");
  ASSERT_TRUE(f.known()) << f.unknown;
  EXPECT_NEAR(*f, 31.5, 0.05);
  EXPECT_EQ(f.source, "0000:02:00.0 Gen5 x8 (PCI walk)");
  // A pair crosses both paths.
  m.pci.devices.push_back(Dev("0000:41:00.0", "0000:00:01.1", 4, 16));
  EXPECT_NEAR(*PathLimit(m, {"0000:03:00.0", "0000:41:00.0"}), 31.5, 0.05);
}

TEST(P2pLinkLimit, NvmlWhenThePciWalkHasNothing) {
  Machine m;
  NvmlGpu g;
  g.pci_bus_id = Known<std::string>("0000:01:00.0", "nvml");
  g.pcie.max.gen = Known<int64_t>(5, "nvml:nvmlDeviceGetMaxPcieLinkGeneration");
  g.pcie.max.width = Known<int64_t>(16, "nvml");
  g.pcie.current.width = Known<int64_t>(16, "nvml");
  m.nvml.gpus.push_back(g);
  Fact<double> f = GpuPathLimit(m, "0000:01:00.0");
  ASSERT_TRUE(f.known());
  EXPECT_NEAR(*f, 63.0, 0.05);
  EXPECT_EQ(f.source, "0000:01:00.0 Gen5 x16 (NVML)");
  Fact<double> none = PathLimit(m, {"0000:01:00.0", "0000:02:00.0"});
  EXPECT_FALSE(none.known());
  EXPECT_NE(none.unknown.find("0000:02:00.0"), std::string::npos);
}

TEST(P2pHostNodes, LocalFromTheModelFarFromTheDistances) {
  Machine m;
  for (int i = 0; i < 3; ++i) {
    NumaNode n;
    n.id = i;
    n.memory_bytes = Known<uint64_t>(i == 2 ? 0 : 1ull << 30, "meminfo");  // node 2: no memory
    m.numa.nodes.push_back(n);
  }
  m.numa.nodes[0].distances = Known<std::vector<int64_t>>({10, 32, 40}, "distance");
  m.numa.nodes[1].distances = Known<std::vector<int64_t>>({32, 10, 40}, "distance");
  PciDevice gpu;
  gpu.address = "0000:81:00.0";
  gpu.numa_node = Known<int64_t>(1, "numa_node");
  m.pci.devices.push_back(gpu);
  HostNodes h = HostNodesFor(m, "0000:81:00.0");
  EXPECT_EQ(*h.local, 1);
  EXPECT_EQ(*h.far, 0);  // node 2 is farther but holds no memory

  m.pci.devices[0].numa_node = Known<int64_t>(-1, "numa_node");  // a guest
  h = HostNodesFor(m, "0000:81:00.0");
  EXPECT_FALSE(h.local.known());
  EXPECT_FALSE(h.far.known());
  EXPECT_NE(h.local.unknown.find("virtual machine"), std::string::npos);
}

// The real thing on this machine (node 0 is every Linux machine's): pages bound to node 0 are on
// node 0 by the kernel's answer, or the bind was refused (a container) and says why; a node past
// the bitmask dossier builds is refused before the kernel, one past the kernel's own nodes by it.
TEST(P2pHostMemory, PagesBoundToNodeZeroAreAskedBackFromTheKernel) {
  auto cuda = gpu::CudaLibrary::Open(testing::CudaStandin());
  ASSERT_TRUE(cuda) << cuda.error().message;
  auto zero = PinnedHostMemory::Create(**cuda, 1 << 20, 0);
  ASSERT_TRUE(zero) << zero.error().message;
  const std::string& p = (*zero)->placement();
  EXPECT_TRUE(p == "NUMA node 0" || (p.starts_with("default policy (mbind to node 0: ") &&
                                     p.ends_with("); pages on node 0")))
      << p;
  EXPECT_GE((*zero)->size(), 1u << 20);
  (*zero)->data()[(1 << 20) - 1] = 7;  // mapped and writable to its last byte

  auto past = PinnedHostMemory::Create(**cuda, 4096, 4096);
  ASSERT_TRUE(past) << past.error().message;
  EXPECT_TRUE((*past)->placement().starts_with(
      "default policy (mbind to node 4096: no such node); pages on node "))
      << (*past)->placement();
  auto last = PinnedHostMemory::Create(**cuda, 4096, 4095);
  ASSERT_TRUE(last) << last.error().message;
  EXPECT_TRUE((*last)->placement().starts_with("default policy (mbind to node 4095: "))
      << (*last)->placement();
  EXPECT_EQ((*last)->placement().find("no such node"), std::string::npos) << (*last)->placement();

  auto none = PinnedHostMemory::Create(**cuda, 4096, -1);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_TRUE((*none)->placement().starts_with("default policy; pages on node "))
      << (*none)->placement();
}

// What is registered with CUDA is unregistered when the memory goes, unless it was abandoned to a
// copy that never completed (then it stays registered and mapped for the life of the process).
TEST(P2pHostMemory, RegisteredWhileHeldUnregisteredWhenGoneUnlessAbandoned) {
  auto cuda = gpu::CudaLibrary::Open(testing::CudaStandin());
  ASSERT_TRUE(cuda) << cuda.error().message;
  void* lib = ::dlopen(testing::CudaStandin().c_str(), RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(lib, nullptr);
  auto count = reinterpret_cast<size_t (*)()>(::dlsym(lib, "dossier_standin_host_registrations"));
  ASSERT_NE(count, nullptr);
  const size_t before = count();
  {
    auto m = PinnedHostMemory::Create(**cuda, 1 << 16, -1);
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(count(), before + 1);
  }
  EXPECT_EQ(count(), before);
  {
    auto m = PinnedHostMemory::Create(**cuda, 1 << 16, -1);
    ASSERT_TRUE(m) << m.error().message;
    (*m)->Abandon();
  }
  EXPECT_EQ(count(), before + 1);
  ::dlclose(lib);
}

}  // namespace
}  // namespace dossier::p2p
