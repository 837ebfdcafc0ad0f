// `dossier diff` field by field: two records of one machine that differ in one field, once per
// field. The diff must hold that one change alone, of the right kind, with the value before and
// after; a field the diff reports elsewhere (group numbers, boot id) or forgives (memory the
// kernel reports a little differently each boot) must not show up as a fact change. Zero is a
// value (NUMA node 0, group 0), unknown is another.
#include <gtest/gtest.h>

#include <functional>

#include "../tests/model_builders.h"
#include "analyze/diff.h"

namespace dossier {
namespace {

PciDevice* DfDevice(Machine* m, const std::string& addr) {
  for (auto& d : m->pci.devices)
    if (d.address == addr) return &d;
  ADD_FAILURE() << "no device " << addr;
  static PciDevice none;
  return &none;
}

Machine DfBase() {
  Machine m = testing::SwitchBox();
  m.kernel.release = Known(std::string("6.1.0-40-amd64"), "osrelease");
  m.os.pretty_name = Known(std::string("Debian GNU/Linux 12 (bookworm)"), "os-release");
  m.dmi.bios_version = Known(std::string("1.16.3"), "dmi");
  m.software.nvidia_driver = Known(std::string("580.95.05"), "version");
  m.cpu.threads = Known<int64_t>(128, "cpuinfo");
  m.memory.total_bytes = Known(uint64_t{540000000000}, "/proc/meminfo:1");
  m.topology.gpu_levels = {{"X", "PXB"}, {"PXB", "X"}};
  return m;
}

struct DfField {
  const char* what;
  std::function<void(Machine*)> change;
  const char* kind;
  const char* subject;
  const char* before;
  const char* after;
  const char* detail;  // nullptr: not checked
};

TEST(DiffFieldAlone, EachFieldThatDiffersAloneIsTheOneChange) {
  const DfField fields[] = {
      {"link current gen",
       [](Machine* m) { testing::SetLink(DfDevice(m, "0000:03:00.0"), 3, 16, 4, 16); }, "link",
       "0000:03:00.0 link/current/gen", "4", "3", nullptr},
      {"link max width",
       [](Machine* m) { testing::SetLink(DfDevice(m, "0000:04:00.0"), 4, 16, 4, 8); }, "link",
       "0000:04:00.0 link/max/width", "16", "8", nullptr},
      {"driver",
       [](Machine* m) {
         DfDevice(m, "0000:05:00.0")->driver = Known(std::string("vfio-pci"), "d");
       },
       "driver", "0000:05:00.0 driver", "mlx5_core", "vfio-pci",
       "driver rebound: mlx5_core -> vfio-pci"},
      {"kernel command line",
       [](Machine* m) { m->kernel.cmdline = Known(std::string("BOOT_IMAGE=/vmlinuz"), "c"); },
       "kernel-cmdline", "/kernel/cmdline", "BOOT_IMAGE=/vmlinuz quiet", "BOOT_IMAGE=/vmlinuz",
       "removed: quiet"},
      {"kernel release", [](Machine* m) { m->kernel.release = Known(std::string("6.12.48"), "k"); },
       "software", "/kernel/release", "6.1.0-40-amd64", "6.12.48", nullptr},
      {"OS", [](Machine* m) { m->os.pretty_name = Known(std::string("Ubuntu 24.04.3 LTS"), "o"); },
       "software", "/os/pretty_name", "Debian GNU/Linux 12 (bookworm)", "Ubuntu 24.04.3 LTS",
       nullptr},
      {"BIOS version", [](Machine* m) { m->dmi.bios_version = Known(std::string("1.17.0"), "d"); },
       "software", "/dmi/bios_version", "1.16.3", "1.17.0", nullptr},
      {"NVIDIA driver",
       [](Machine* m) { m->software.nvidia_driver = Known(std::string("575.57.08"), "d"); },
       "software", "/software/nvidia_driver", "580.95.05", "575.57.08", nullptr},
      {"one PCI level", [](Machine* m) { m->topology.gpu_levels[0][1] = "PHB"; }, "p2p",
       "/topology/gpu_levels[0][1]", "PXB", "PHB", nullptr},
      {"GPU NUMA node 0 -> 1", [](Machine* m) { m->gpus[0].numa_node = Known<int64_t>(1, "n"); },
       "fact", "/gpus[0000:03:00.0]/numa_node", "0", "1", nullptr},
      {"GPU NUMA node 0 -> unknown",
       [](Machine* m) { m->gpus[1].numa_node.Unknown("no numa_node file", "n"); }, "fact",
       "/gpus[0000:04:00.0]/numa_node", "0", "unknown (no numa_node file)", nullptr},
      {"CPU threads", [](Machine* m) { m->cpu.threads = Known<int64_t>(64, "c"); }, "fact",
       "/cpu/threads", "128", "64", nullptr},
      {"memory, a DIMM less",
       [](Machine* m) { m->memory.total_bytes = Known(uint64_t{470000000000}, "m"); }, "fact",
       "/memory/total_bytes", "540000000000", "470000000000", nullptr},
      {"IOMMU group renumbered",
       [](Machine* m) {
         DfDevice(m, "0000:03:00.0")->iommu_group = Known<int64_t>(0, "g");
         m->iommu.groups[0].id = 0;
       },
       "iommu-renumbered", "IOMMU group 5", "group 5", "group 0", nullptr},
      {"device under another bridge",
       [](Machine* m) {
         DfDevice(m, "0000:05:00.0")->parent = Known(std::string("0000:02:01.0"), "p");
       },
       "device-moved", "0000:05:00.0", "0000:05:00.0 under 0000:02:02.0",
       "0000:05:00.0 under 0000:02:01.0", "0x15b3:0x1021 now sits under another bridge"},
      {"device gone", [](Machine* m) { m->pci.devices.pop_back(); }, "device-removed",
       "0000:05:00.0", "0000:05:00.0 under 0000:02:02.0", "", nullptr},
  };
  for (const auto& f : fields) {
    SCOPED_TRACE(f.what);
    Machine a = DfBase(), b = DfBase();
    f.change(&b);
    MachineDiff d = DiffMachines(a, b);
    ASSERT_EQ(d.changes.size(), 1u) << d.changes[0].kind << " " << d.changes[0].subject << " / "
                                    << d.changes.back().kind << " " << d.changes.back().subject;
    const Change& c = d.changes[0];
    EXPECT_EQ(c.kind, f.kind);
    EXPECT_EQ(c.subject, f.subject);
    EXPECT_EQ(c.before, f.before);
    EXPECT_EQ(c.after, f.after);
    if (f.detail) {
      EXPECT_EQ(c.detail, f.detail);
    }
    EXPECT_FALSE(d.rebooted);

    // And the other way round: the same field back is the one change, before and after swapped.
    MachineDiff back = DiffMachines(b, a);
    ASSERT_EQ(back.changes.size(), 1u);
    if (std::string(f.kind) != "device-removed" && std::string(f.kind) != "iommu-renumbered") {
      EXPECT_EQ(back.changes[0].before, f.after);
      EXPECT_EQ(back.changes[0].after, f.before);
    }
  }
}

TEST(DiffFieldAlone, FieldsReportedElsewhereOrForgivenAreNoFactChange) {
  Machine a = DfBase();
  Machine reboot = DfBase();
  reboot.boot_id = Known(std::string("44444444-next-boot"), "boot_id");
  MachineDiff d = DiffMachines(a, reboot);
  EXPECT_TRUE(d.changes.empty());
  EXPECT_TRUE(d.rebooted);

  Machine jitter = DfBase();
  jitter.memory.total_bytes = Known(uint64_t{539990000000}, "/proc/meminfo:1");  // 0.002 % less
  EXPECT_TRUE(DiffMachines(a, jitter).changes.empty());
}

}  // namespace
}  // namespace dossier
