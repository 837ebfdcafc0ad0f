// Tests of the identity, dmi, cpu, numa and virtualization probes on small machine trees.
#include <gtest/gtest.h>

#include <cstring>

#include "../tests/temp_dir.h"
#include "probe/probe.h"

namespace dossier {
namespace {

using testing::TempDir;

Machine RunProbe(const TempDir& t, void (*probe)(const ProbeContext&, Machine*), Machine m = {},
                 const CollectOptions& o = {}) {
  RootFs fs(t.path());
  std::vector<std::string> log;
  ProbeContext ctx{fs, o, &log};
  probe(ctx, &m);
  return m;
}

const char* kCpuinfo2Sockets =
    "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9335 32-Core Processor\n"
    "physical id\t: 0\ncore id\t\t: 0\nflags\t\t: fpu vme hypervisor sse\n\n"
    "processor\t: 1\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9335 32-Core Processor\n"
    "physical id\t: 0\ncore id\t\t: 1\nflags\t\t: fpu vme hypervisor sse\n\n"
    "processor\t: 2\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9335 32-Core Processor\n"
    "physical id\t: 1\ncore id\t\t: 0\nflags\t\t: fpu vme hypervisor sse\n\n";

TEST(CpuProbe, CountsSocketsCoresThreadsAndSeesTheHypervisorFlag) {
  TempDir t;
  t.Write("proc/cpuinfo", kCpuinfo2Sockets);
  t.Write("proc/meminfo", "MemTotal:       541065216 kB\nMemFree: 1 kB\n");
  Machine m = RunProbe(t, ProbeCpu);
  EXPECT_EQ(*m.cpu.model, "AMD EPYC 9335 32-Core Processor");
  EXPECT_EQ(m.cpu.model.source, "/proc/cpuinfo:3");
  EXPECT_EQ(*m.cpu.sockets, 2);
  EXPECT_EQ(*m.cpu.cores, 3);
  EXPECT_EQ(*m.cpu.threads, 3);
  EXPECT_TRUE(*m.cpu.hypervisor_flag);
  EXPECT_EQ(*m.memory.total_bytes, 541065216ull * 1024);
}

TEST(CpuProbe, MissingAndGarbageFilesAreUnknownWithReason) {
  TempDir t;
  t.Write("proc/meminfo", "MemTotal: lots kB\n");
  Machine m = RunProbe(t, ProbeCpu);
  EXPECT_FALSE(m.cpu.model.known());
  EXPECT_EQ(m.cpu.model.unknown, "file absent; no SMBIOS processor or device tree");
  EXPECT_FALSE(m.memory.total_bytes.known());
  EXPECT_EQ(m.memory.total_bytes.unknown, "MemTotal is not a number");
  TempDir bin;
  bin.Write("proc/cpuinfo", std::string("\0\x01\x02\xff garbage\n", 13));
  Machine b = RunProbe(bin, ProbeCpu);
  EXPECT_FALSE(b.cpu.threads.known());
}

TEST(NumaProbe, NodesCpusMemoryDistances) {
  TempDir t;
  t.Write("sys/devices/system/node/node0/cpulist", "0-31,64-95\n");
  t.Write("sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:  263834604 kB\n");
  t.Write("sys/devices/system/node/node0/distance", "10 32\n");
  t.Write("sys/devices/system/node/node1/cpulist", "32-63\n");
  t.Write("sys/devices/system/node/node1/meminfo", "Node 1 MemTotal:  oops kB\n");
  t.Write("sys/devices/system/node/node1/distance", "32 ten\n");
  t.Write("sys/devices/system/node/possible", "0-1\n");
  Machine m = RunProbe(t, ProbeNuma);
  ASSERT_EQ(m.numa.nodes.size(), 2u);
  EXPECT_EQ(*m.numa.nodes[0].cpus, "0-31,64-95");
  EXPECT_EQ(*m.numa.nodes[0].memory_bytes, 263834604ull * 1024);
  EXPECT_EQ(*m.numa.nodes[0].distances, (std::vector<int64_t>{10, 32}));
  EXPECT_FALSE(m.numa.nodes[1].memory_bytes.known());
  EXPECT_FALSE(m.numa.nodes[1].distances.known());
  EXPECT_NE(m.numa.nodes[1].distances.unknown.find("ten"), std::string::npos);
}

TEST(VirtualizationProbe, Q35AndI440fxGuestsAndBareMetal) {
  TempDir t;
  t.Write("proc/cpuinfo", kCpuinfo2Sockets);
  t.Write("sys/class/dmi/id/sys_vendor", "QEMU\n");
  t.Write("sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n");
  Machine m = RunProbe(t, ProbeCpu);
  m = RunProbe(t, ProbeDmi, m);
  m = RunProbe(t, ProbeVirtualization, m);
  EXPECT_TRUE(*m.virtualization.guest);
  EXPECT_EQ(*m.virtualization.hypervisor, "kvm");
  EXPECT_EQ(*m.virtualization.chipset, "q35");

  TempDir old;
  old.Write("proc/cpuinfo", kCpuinfo2Sockets);
  old.Write("sys/class/dmi/id/sys_vendor", "QEMU\n");
  old.Write("sys/class/dmi/id/product_name", "Standard PC (i440FX + PIIX, 1996)\n");
  Machine o = RunProbe(old, ProbeDmi, RunProbe(old, ProbeCpu));
  o = RunProbe(old, ProbeVirtualization, o);
  EXPECT_EQ(*o.virtualization.chipset, "i440fx");

  TempDir metal;
  metal.Write("proc/cpuinfo", "processor: 0\nflags: fpu sse\n");
  metal.Write("sys/class/dmi/id/sys_vendor", "ASUSTeK COMPUTER INC.\n");
  metal.Write("sys/class/dmi/id/product_name", "ESC8000A-E13\n");
  Machine b = RunProbe(metal, ProbeDmi, RunProbe(metal, ProbeCpu));
  b = RunProbe(metal, ProbeVirtualization, b);
  EXPECT_FALSE(*b.virtualization.guest);
  EXPECT_FALSE(b.virtualization.hypervisor.known());
  EXPECT_FALSE(b.virtualization.chipset.known());
}

// A CPUID reader answering for one hypervisor signature (12 bytes, EBX ECX EDX), optionally a
// second at 0x40000100; `present` is the hypervisor bit of leaf 1.
CpuidReader FakeCpuid(std::string sig, bool present = true, std::string sig100 = "") {
  return [=](uint32_t leaf) -> std::optional<CpuidRegs> {
    CpuidRegs r;
    auto fill = [&r](std::string s) {
      s.resize(12, '\0');
      std::memcpy(&r.ebx, s.data(), 4);
      std::memcpy(&r.ecx, s.data() + 4, 4);
      std::memcpy(&r.edx, s.data() + 8, 4);
    };
    if (leaf == 1) r.ecx = present ? 0x80000000u : 0;
    if (leaf == 0x40000000) fill(sig);
    if (leaf == 0x40000100) fill(sig100);
    return r;
  };
}

TEST(VirtualizationProbe, CpuidNamesTheHypervisorBeforeDmi) {
  struct Case {
    const char* sig;
    const char* id;
  };
  for (const Case& c : std::vector<Case>{{"KVMKVMKVM", "kvm"},
                                         {"Microsoft Hv", "hyper-v"},
                                         {"VMwareVMware", "vmware"},
                                         {"XenVMMXenVMM", "xen"},
                                         {"TCGTCGTCGTCG", "qemu"},
                                         {"ACRNACRNACRN", "acrn"},
                                         {"bhyve bhyve ", "bhyve"},
                                         {"QNXQVMBSQG", "qnx"},
                                         {" lrpepyh  vr", "parallels"},
                                         {"VBoxVBoxVBox", "virtualbox"}}) {
    auto h = ReadCpuidHypervisor(FakeCpuid(c.sig));
    ASSERT_TRUE(h);
    EXPECT_TRUE(h->present);
    EXPECT_EQ(h->id, c.id) << c.sig;
  }
  // KVM offering Hyper-V's enlightenments: Hyper-V's leaf first, KVM's at 0x40000100.
  auto hv = ReadCpuidHypervisor(FakeCpuid("Microsoft Hv", true, "KVMKVMKVM"));
  EXPECT_EQ(hv->id, "kvm");
  EXPECT_NE(hv->source.find("0x40000100"), std::string::npos);
  // No hypervisor bit: the leaf is not read (an Intel CPU answers it with other data).
  auto metal = ReadCpuidHypervisor(FakeCpuid("KVMKVMKVM", false));
  EXPECT_FALSE(metal->present);
  EXPECT_EQ(metal->id, "");
  EXPECT_FALSE(ReadCpuidHypervisor([](uint32_t) { return std::optional<CpuidRegs>(); }));

  // CPUID wins over DMI; the source says which leaf.
  TempDir t;
  t.Write("proc/cpuinfo", kCpuinfo2Sockets);
  t.Write("sys/class/dmi/id/sys_vendor", "QEMU\n");
  t.Write("sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n");
  CollectOptions o;
  o.cpuid = FakeCpuid("VMwareVMware");
  Machine m = RunProbe(t, ProbeDmi, RunProbe(t, ProbeCpu));
  m = RunProbe(t, ProbeVirtualization, m, o);
  EXPECT_EQ(*m.virtualization.hypervisor, "vmware");
  EXPECT_EQ(m.virtualization.hypervisor.source, "CPUID 0x40000000 \"VMwareVMware\"");
}

TEST(VirtualizationProbe, KvmWithoutDmiIsAMicroVm) {
  // This machine's kind (and issue 26's H200 VM): no DMI, Cloud Hypervisor's host bridge.
  TempDir t;
  t.Write("proc/cpuinfo", kCpuinfo2Sockets);
  t.Write("sys/bus/pci/devices/0000:00:00.0/class", "0x060000\n");
  t.Write("sys/bus/pci/devices/0000:00:00.0/vendor", "0x8086\n");
  t.Write("sys/bus/pci/devices/0000:00:00.0/device", "0x0d57\n");
  CollectOptions o;
  o.cpuid = FakeCpuid("KVMKVMKVM");
  Machine m = RunProbe(t, ProbeVirtualization, RunProbe(t, ProbeDmi, RunProbe(t, ProbeCpu)), o);
  EXPECT_TRUE(*m.virtualization.guest);
  EXPECT_EQ(*m.virtualization.hypervisor, "kvm");
  ASSERT_TRUE(m.virtualization.platform.known());
  EXPECT_EQ(*m.virtualization.platform, "microvm");
  EXPECT_NE(m.virtualization.platform.source.find("0x8086:0x0d57 is not QEMU's"), std::string::npos)
      << m.virtualization.platform.source;

  // Firecracker: virtio-mmio on the platform bus, no PCI at all.
  TempDir fc;
  fc.Write("proc/cpuinfo", kCpuinfo2Sockets);
  fc.Write("sys/bus/platform/devices/virtio-mmio.0/modalias", "virtio:d00000002v0000\n");
  Machine f = RunProbe(fc, ProbeVirtualization, RunProbe(fc, ProbeDmi, RunProbe(fc, ProbeCpu)), o);
  EXPECT_EQ(*f.virtualization.platform, "microvm");
  EXPECT_NE(f.virtualization.platform.source.find("virtio-mmio.0"), std::string::npos);

  // QEMU's Q35 host bridge without DMI tables: KVM, but not a microVM.
  TempDir q;
  q.Write("proc/cpuinfo", kCpuinfo2Sockets);
  q.Write("sys/bus/pci/devices/0000:00:00.0/class", "0x060000\n");
  q.Write("sys/bus/pci/devices/0000:00:00.0/vendor", "0x8086\n");
  q.Write("sys/bus/pci/devices/0000:00:00.0/device", "0x29c0\n");
  Machine qm = RunProbe(q, ProbeVirtualization, RunProbe(q, ProbeDmi, RunProbe(q, ProbeCpu)), o);
  EXPECT_FALSE(qm.virtualization.platform.known());

  // The same microVM tree from --root: no CPU to ask, so the hypervisor is unknown and says why.
  Machine r = RunProbe(t, ProbeVirtualization, RunProbe(t, ProbeDmi, RunProbe(t, ProbeCpu)));
  EXPECT_TRUE(*r.virtualization.guest);  // the cpuinfo flag
  EXPECT_FALSE(r.virtualization.hypervisor.known());
  EXPECT_NE(r.virtualization.hypervisor.unknown.find("no DMI"), std::string::npos);
  EXPECT_NE(r.virtualization.hypervisor.unknown.find("a --root tree has only files"),
            std::string::npos)
      << r.virtualization.hypervisor.unknown;
}

TEST(IdentityProbe, OsReleaseAndRedactedCmdline) {
  TempDir t;
  t.Write("proc/sys/kernel/hostname", "glm5-vm\n");
  t.Write("proc/sys/kernel/random/boot_id", "8b1c0c9e-0000-4000-8000-000000000001\n");
  t.Write("proc/cmdline", "BOOT_IMAGE=/vmlinuz ro pci=realloc auth_token=abc\n");
  t.Write("usr/lib/os-release", "NAME=\"Ubuntu\"\nPRETTY_NAME=\"Ubuntu 24.04.1 LTS\"\nID=ubuntu\n");
  Machine m = RunProbe(t, ProbeIdentity);
  EXPECT_EQ(*m.hostname, "glm5-vm");
  EXPECT_EQ(*m.os.pretty_name, "Ubuntu 24.04.1 LTS");
  EXPECT_EQ(m.os.pretty_name.source, "/usr/lib/os-release:2");
  EXPECT_FALSE(m.os.version_id.known());
  EXPECT_EQ(*m.kernel.cmdline, "BOOT_IMAGE=/vmlinuz ro pci=realloc auth_token=<redacted>");
}

}  // namespace
}  // namespace dossier
