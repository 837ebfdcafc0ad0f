// pve-mapping on a built view: each entry as the mapping check left it (stale group, ok, another
// node's, another device at the path, no device at the path), what the corrected file, the notes
// and the verify line say about each, the corrected text read back by the project's own parser.
#include <gtest/gtest.h>

#include <string>

#include "generate/generator.h"
#include "hypervisor/mapping_check.h"
#include "hypervisor/pci_cfg.h"

namespace dossier {
namespace {

const char* kCfg =
    "gpu0\n"
    "\tmap id=10de:2bb1,iommugroup=44,node=pve,path=0000:01:00.0\n"
    "\n"
    "gpu1\n"
    "\tmap id=10de:2bb1,iommugroup=45,node=pve,path=0000:02:00.0\n"
    "\tmap id=10de:2bb1,iommugroup=9,node=pve2,path=0000:02:00.0\n"
    "\n"
    "gpu2\n"
    "\tmap id=10de:2330,iommugroup=46,node=pve,path=0000:03:00.0\n"
    "\n"
    "gpu3\n"
    "\tmap id=10de:2bb1,iommugroup=47,node=pve,path=0000:09:00.0\n";

View MappingView(const std::string& cfg, const std::string& cfg_source) {
  MachineView host;
  Machine& m = host.machine;
  m.name = "pve";
  m.hypervisor.kind.Set("proxmox", "/etc/pve");
  m.hypervisor.node.Set("pve", "/etc/hostname");
  m.hypervisor.pci_cfg.Set(cfg, cfg_source);
  const int groups[] = {3, 45, 7};
  for (int i = 0; i < 3; ++i) {
    PciDevice d;
    d.address = "0000:0" + std::to_string(i + 1) + ":00.0";
    d.vendor_id.Set("0x10de", "/sys");
    d.device_id.Set("0x2bb1", "/sys");
    d.iommu_group.Set(groups[i], "/sys");
    m.pci.devices.push_back(d);
  }
  m.hypervisor.pci_mappings = hypervisor::ParsePciCfg(cfg, hypervisor::kPciCfgPath).mappings;
  hypervisor::CheckPciMappings("pve", m.pci, "/sys/bus/pci/devices", &m.hypervisor.pci_mappings);
  for (const char* id : {"100", "101", "102"}) {
    Vm vm;
    vm.id = id;
    VmHostPci h;
    h.slot = "hostpci0";
    h.mapping.Set(std::string(id) == "100"   ? "gpu0"
                  : std::string(id) == "101" ? "gpu1"
                                             : "gpu2",
                  "conf");
    vm.hostpci.push_back(h);
    m.hypervisor.vms.push_back(vm);
  }
  View v;
  v.machines = {host};
  return v;
}

TEST(PveMapping, EachEntryAsTheCheckLeftItIsCorrectedOrSaid) {
  View v = MappingView(kCfg, hypervisor::kPciCfgPath);
  auto a = GeneratePveMapping({}, v, Analysis{});
  ASSERT_TRUE(a.ok()) << a.error().message;
  // Only the stale groups change, byte for byte elsewhere; another node's entry is left alone.
  std::string want = kCfg;
  want.replace(want.find("iommugroup=44"), 13, "iommugroup=3");
  want.replace(want.find("iommugroup=46"), 13, "iommugroup=7");
  EXPECT_EQ(a->text, want);
  auto back = hypervisor::ParsePciCfg(a->text, "out");
  ASSERT_EQ(back.mappings.size(), 4u);
  EXPECT_EQ(*back.mappings[0].entries[0].iommugroup, 3);
  EXPECT_EQ(*back.mappings[1].entries[0].iommugroup, 45);
  EXPECT_EQ(*back.mappings[1].entries[1].iommugroup, 9);
  EXPECT_EQ(*back.mappings[2].entries[0].iommugroup, 7);
  EXPECT_EQ(*back.mappings[3].entries[0].iommugroup, 47);
  EXPECT_EQ(a->notes,
            "Corrected in /etc/pve/mapping/pci.cfg (node 'pve'):\n"
            "  gpu0 (line 2, 0000:01:00.0): iommugroup 44 -> 3\n"
            "  gpu2 (line 9, 0000:03:00.0): iommugroup 46 -> 7\n"
            "Apply: review, then write it over /etc/pve/mapping/pci.cfg on the host (it is on "
            "pmxcfs: the change reaches the whole cluster), or set each changed mapping with "
            "pvesh, which replaces the mapping's whole map list (every node's entry):\n"
            "  pvesh set /cluster/mapping/pci/gpu0 --map "
            "'id=10de:2bb1,iommugroup=3,node=pve,path=0000:01:00.0'\n"
            "  pvesh set /cluster/mapping/pci/gpu2 --map "
            "'id=10de:2330,iommugroup=7,node=pve,path=0000:03:00.0'\n"
            "Not corrected: gpu2 (line 9): 'id' does not match for 'gpu2' (10de:2330 != "
            "10de:2bb1); 'iommugroup' does not match for 'gpu2' (46 != 7): another device is at "
            "the path now; not corrected\n"
            "Not corrected: gpu3 (line 12): no device at 0000:09:00.0 on this machine: fix the "
            "path by hand\n");
  EXPECT_EQ(a->verify,
            "qm start 100 && qm showcmd 100 --pretty | grep vfio-pci; qm start 102 && qm showcmd "
            "102 --pretty | grep vfio-pci   # the VM starts; each vfio-pci host= is the mapped "
            "device");
  // As a diff: the two changed lines.
  GenerateArgs diff;
  diff.diff = true;
  auto d = GeneratePveMapping(diff, v, Analysis{});
  ASSERT_TRUE(d.ok());
  EXPECT_NE(d->text.find("-\tmap id=10de:2bb1,iommugroup=44,node=pve,path=0000:01:00.0\n"
                         "+\tmap id=10de:2bb1,iommugroup=3,node=pve,path=0000:01:00.0\n"),
            std::string::npos)
      << d->text;
  EXPECT_EQ(d->notes, a->notes);
}

// Nothing stale: the file unchanged (or an empty diff), said with the node; a pasted copy named.
TEST(PveMapping, NothingToCorrectSaysSoAndNamesThePaste) {
  const std::string ok = "gpu1\n\tmap id=10de:2bb1,iommugroup=45,node=pve,path=0000:02:00.0\n";
  View v = MappingView(ok, "imported: host.txt:40 (pve-pci-cfg)");
  auto a = GeneratePveMapping({}, v, Analysis{});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->text, ok);
  EXPECT_EQ(a->notes,
            "Read from imported: host.txt:40 (pve-pci-cfg).\n"
            "Nothing to correct in /etc/pve/mapping/pci.cfg: no entry of node 'pve' has a stale "
            "IOMMU group; the file is printed unchanged.\n");
  // No mapping changed: every VM using a mapping is the check.
  EXPECT_EQ(a->verify.rfind("qm start 100 && ", 0), 0u) << a->verify;
  GenerateArgs diff;
  diff.diff = true;
  auto d = GeneratePveMapping(diff, v, Analysis{});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->text, "");
  EXPECT_NE(d->notes.find("(empty diff).\n"), std::string::npos);
  // No pci.cfg at all: refused with what to do.
  v.machines[0].machine.hypervisor.pci_cfg = {};
  v.machines[0].machine.hypervisor.pci_cfg.Unknown("needs root", "/etc/pve");
  auto none = GeneratePveMapping({}, v, Analysis{});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "no /etc/pve/mapping/pci.cfg in the facts of 'pve' (needs root): collect the Proxmox "
            "host, or import its pci.cfg");
}

}  // namespace
}  // namespace dossier
