// The Proxmox importers: a pasted `qm config` and pci.cfg become the host's VM and mappings, each
// fact on its pasted line; a paste without the command says the VM id is missing.
#include <gtest/gtest.h>

#include "import/import_test_util.h"
#include "import/importer.h"

namespace dossier::import {
namespace {

using testing::Formats;
using testing::ImportString;

// What the run says about each file (a part's notes are reported per file).
std::string AllNotes(const ImportRun& run) {
  std::string all;
  for (const auto& f : run.files)
    for (const auto& n : f.notes) all += n + "\n";
  return all;
}

const char kQmConfig[] =
    "root@pve:~# qm config 100\n"
    "bios: ovmf\n"
    "cores: 32\n"
    "hostpci0: mapping=gpu0,pcie=1\n"
    "hostpci1: 0000:e1:00,pcie=1,x-vga=1\n"
    "machine: q35\n"
    "memory: 491520\n"
    "numa: 1\n"
    "numa0: cpus=0-31,hostnodes=0,memory=245760,policy=bind\n"
    "smbios1: uuid=6F1C9E2A-4B7D-4C83-9A0E-2D5F8B1C7E64\n"
    "sockets: 2\n"
    "frobnicate: 1\n";

TEST(ProxmoxImport, QmConfigIsTheVmWithEachFactOnItsLine) {
  ImportRun run = ImportString(kQmConfig);
  EXPECT_EQ(Formats(run), std::vector<std::string>{"qemu-server-conf"});
  const HypervisorInfo& h = run.imported.machine.hypervisor;
  EXPECT_EQ(h.kind.value_or(""), "proxmox");
  ASSERT_EQ(h.vms.size(), 1u);
  const Vm& vm = h.vms[0];
  EXPECT_EQ(vm.id, "100");
  EXPECT_EQ(vm.machine.value_or(""), "q35");
  EXPECT_EQ(vm.smbios_uuid.value_or(""), "6f1c9e2a-4b7d-4c83-9a0e-2d5f8b1c7e64");
  ASSERT_EQ(vm.hostpci.size(), 2u);
  EXPECT_EQ(vm.hostpci[0].mapping.value_or(""), "gpu0");
  EXPECT_EQ(vm.hostpci[0].mapping.source, "imported: paste.txt:4 (qemu-server-conf)");
  EXPECT_EQ(vm.hostpci[1].host.value_or(""), "0000:e1:00");
  EXPECT_TRUE(vm.hostpci[1].x_vga.value_or(false));
  ASSERT_EQ(vm.numa_nodes.size(), 1u);
  EXPECT_FALSE(vm.running.known());  // a configuration does not say whether it runs
  // The key Proxmox knows and dossier does not is a note with its line, never fatal.
  EXPECT_NE(AllNotes(run).find("frobnicate"), std::string::npos) << AllNotes(run);
}

TEST(ProxmoxImport, WithoutTheCommandTheVmIdIsSaidMissing) {
  std::string body = kQmConfig;
  body = body.substr(body.find('\n') + 1);
  ImportRun run = ImportString(body, "qemu-server-conf");
  ASSERT_EQ(run.imported.machine.hypervisor.vms.size(), 1u);
  EXPECT_EQ(run.imported.machine.hypervisor.vms[0].id, "?");
  EXPECT_NE(AllNotes(run).find("VM id"), std::string::npos) << AllNotes(run);
}

TEST(ProxmoxImport, PciCfgMappingsKeepTheirTextForTheGenerator) {
  const std::string cfg =
      "gpu0\n"
      "\tmap id=10de:2bb1,iommugroup=44,node=pve,path=0000:f1:00.0,subsystem-id=10de:204b\n"
      "\n"
      "gpu1\n"
      "\tmap id=10de:2bb1,iommugroup=40,node=pve,path=0000:e1:00.0,subsystem-id=10de:204b\n"
      "\tmap id=10de:2bb1,iommugroup=7,node=other,path=0000:01:00.0\n";
  ImportRun run = ImportString("$ cat /etc/pve/mapping/pci.cfg\n" + cfg);
  EXPECT_EQ(Formats(run), std::vector<std::string>{"pci-cfg"});
  const HypervisorInfo& h = run.imported.machine.hypervisor;
  ASSERT_EQ(h.pci_mappings.size(), 2u);
  EXPECT_EQ(h.pci_mappings[1].entries.size(), 2u);
  EXPECT_EQ(h.pci_mappings[0].entries[0].iommugroup.value_or(0), 44);
  EXPECT_EQ(h.pci_mappings[0].entries[0].iommugroup.source, "imported: paste.txt:3 (pci-cfg)");
  EXPECT_EQ(h.pci_cfg.value_or(""), cfg);
}

// A parser's problems name the pasted file and its line, as every other note does (they once
// carried the parser's internal name, a control byte, and a line of the part, not the paste).
// The pci-cfg entry of the importer table: a pasted file begins at a mapping name with a map line
// within its next three lines (a description may come first), not at a name whose map lines
// are further or absent; one map line is a likely pci.cfg (80), two or more all but certain (95).
TEST(ProxmoxImport, PciCfgStartsAtAMappingNameAndIsSureFromTwoMapLines) {
  const Importer* imp = FindImporter("pci-cfg");
  ASSERT_NE(imp, nullptr);
  auto lines = [](std::vector<std::string> texts) {
    Lines out;
    for (auto& t : texts) out.push_back({out.size() + 1, std::move(t)});
    return out;
  };
  const std::string map = "\tmap id=10de:2bb1,iommugroup=44,node=pve,path=0000:f1:00.0";
  Lines l = lines({"uptime 3 days", "gpu0", "\tdescription one", "\tdescription two", map, "gpu1",
                   "\tdescription", "\tdescription", "\tdescription", map});
  EXPECT_FALSE(imp->starts(l, 0));                // a line with a blank in it is no mapping name
  EXPECT_TRUE(imp->starts(l, 1));                 // map line three lines on
  EXPECT_FALSE(imp->starts(l, 5));                // map line four lines on
  EXPECT_FALSE(imp->starts(lines({"gpu0"}), 0));  // nothing after it
  EXPECT_EQ(imp->detect(lines({"gpu0"})), 0);
  EXPECT_EQ(imp->detect(lines({"gpu0", map})), 80);
  EXPECT_EQ(imp->detect(lines({"gpu0", map, map})), 95);
  EXPECT_EQ(imp->detect(lines({"gpu0", map, map, map})), 95);
}

TEST(ProxmoxImport, ProblemsNameThePastedLine) {
  ImportRun run = ImportString(
      "intro text\n$ cat /etc/pve/mapping/pci.cfg\nnic0\n"
      "\tmap id=8086:1572,iommugroup=x,node=pve,path=0000:01:00.0\n"
      "\tmap id=8086:1572,iommugroup=7,node=pve,path=0000:02:00.0\n");
  std::string notes = AllNotes(run);
  EXPECT_NE(notes.find("paste.txt:4: iommugroup 'x' is not a number"), std::string::npos) << notes;
  ImportRun qm = ImportString("intro\n\n" + std::string(kQmConfig));
  std::string qn = AllNotes(qm);
  EXPECT_NE(qn.find("paste.txt:14:"), std::string::npos) << qn;  // frobnicate: its pasted line
  for (const std::string& n : {notes, qn}) EXPECT_EQ(n.find('\x01'), std::string::npos) << n;
}

// A paste of hundreds of outputs (past the point where each part is read into a copy of all
// before it): every part is still read, in context, and one that is not its format adds nothing
// and is said, as for a short paste. (The time is linear: bench/import_bench.cc.)
TEST(ProxmoxImport, HundredsOfPartsAreReadLikeAFew) {
  std::string text;
  for (int i = 0; i < 300; ++i)
    text += "root@pve:~# cat /etc/pve/mapping/pci.cfg\ngpu" + std::to_string(i) +
            "\n\tmap id=10de:2bb1,iommugroup=" + std::to_string(i) +
            ",node=pve,path=0000:01:00.0\n";
  // pci.cfg by its content, but a map line outside any mapping: nothing to take.
  text +=
      "root@pve:~# cat /etc/pve/mapping/pci.cfg\n\tmap id=10de:2bb1,node=pve,path=0000:01:00.0\n";
  ImportRun run = ImportString(text, "pci-cfg");
  const HypervisorInfo& h = run.imported.machine.hypervisor;
  ASSERT_EQ(h.pci_mappings.size(), 300u);
  EXPECT_EQ(h.pci_mappings[299].name, "gpu299");
  EXPECT_EQ(h.pci_mappings[299].entries[0].iommugroup.value_or(-1), 299);
  EXPECT_EQ(h.pci_mappings[299].entries[0].iommugroup.source, "imported: paste.txt:900 (pci-cfg)");
  EXPECT_EQ(run.recognised_parts, 300u);
  ASSERT_EQ(run.files[0].parts.size(), 301u);
  EXPECT_EQ(run.files[0].parts[250].took, run.files[0].parts[1].took);  // "1 PCI mapping, …"
  EXPECT_FALSE(run.files[0].parts[300].error.empty());
  EXPECT_NE(AllNotes(run).find("lines 902-902: read as pci-cfg but: no mapping"), std::string::npos)
      << AllNotes(run).substr(0, 2000);
}

// Past those hundreds of parts, what an importer says as it gives up still names its line.
TEST(ProxmoxImport, AfterHundredsOfPartsAFailingPartStillSaysWhy) {
  std::string text;
  for (int i = 0; i < 250; ++i)
    text += "root@pve:~# cat /etc/pve/mapping/pci.cfg\ngpu" + std::to_string(i) +
            "\n\tmap id=10de:2bb1,iommugroup=1,node=pve,path=0000:01:00.0\n";
  text +=
      "$ python3 -m sglang.bench_serving\n"
      "============ Serving Benchmark Result ============\n"
      "Successful requests:                     n/a\n"
      "Benchmark duration (s):                  12.5\n"
      "==================================================\n";
  ImportRun run = ImportString(text);
  EXPECT_EQ(run.recognised_parts, 250u);
  EXPECT_TRUE(run.imported.serve.empty());
  EXPECT_NE(AllNotes(run).find("paste.txt:753: a serving benchmark result block without a "
                               "readable 'Successful requests'"),
            std::string::npos)
      << AllNotes(run).substr(AllNotes(run).size() - 800);
}

}  // namespace
}  // namespace dossier::import
