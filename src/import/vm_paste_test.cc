// The QEMU command line and libvirt domain importers: `qm showcmd` (the next start, so running is
// unknown), a `ps -ef` row (a running process), a `qm config` of the same VM getting the running
// facts, and `virsh dumpxml` with a cut-off paste.
#include <gtest/gtest.h>

#include "import/import_test_util.h"

namespace dossier::import {
namespace {

using testing::Formats;
using testing::ImportString;

std::string VmCorpus(const std::string& dir, const std::string& f) {
  return dossier::testing::Slurp(std::string(DOSSIER_SOURCE_DIR) + "/tests/corpus/" + dir + "/" +
                                 f);
}

bool VmNoted(const ImportRun& run, const std::string& what) {
  for (const auto& f : run.files)
    for (const auto& n : f.notes)
      if (n.find(what) != std::string::npos) return true;
  return false;
}

TEST(QemuCmdlineImport, QmShowcmdIsTheNextStartWithSlotsAndCliques) {
  ImportRun run = ImportString(VmCorpus("import-qemu-cmdline", "qm-showcmd-pretty-clique.txt"));
  EXPECT_EQ(Formats(run), std::vector<std::string>{"qemu-cmdline"});
  const HypervisorInfo& h = run.imported.machine.hypervisor;
  EXPECT_EQ(h.kind.value_or(""), "proxmox");
  ASSERT_EQ(h.vms.size(), 1u);
  const Vm& vm = h.vms[0];
  EXPECT_EQ(vm.id, "100");
  EXPECT_EQ(vm.name.value_or(""), "llm");
  EXPECT_EQ(vm.machine.value_or(""), "q35+pve0");
  EXPECT_EQ(vm.smbios_uuid.value_or(""), "6f1c9e2a-4b7d-4c83-9a0e-2d5f8b1c7e64");
  EXPECT_FALSE(vm.running.known());
  EXPECT_NE(vm.running.unknown.find("next start"), std::string::npos);
  ASSERT_EQ(vm.hostpci.size(), 2u);
  EXPECT_EQ(vm.hostpci[0].slot, "hostpci0");
  EXPECT_EQ(vm.hostpci[0].host.value_or(""), "0000:41:00.0");
  EXPECT_EQ(vm.hostpci[0].host.source, "imported: paste.txt:16 (qemu-cmdline)");
  EXPECT_EQ(vm.hostpci[1].guest_bus.value_or(""), "ich9-pcie-port-2");
  EXPECT_EQ(vm.hostpci[1].gpudirect_clique.value_or(""), "0");
  EXPECT_FALSE(vm.hostpci[0].running_host_address.known());
  ASSERT_EQ(vm.numa_nodes.size(), 2u);
  EXPECT_EQ(vm.numa_nodes[1].hostnodes.value_or(""), "1");
}

TEST(QemuCmdlineImport, OneLineCrlfAndTheRealPrettySample) {
  ImportRun one = ImportString(VmCorpus("import-qemu-cmdline", "qm-showcmd-oneline.txt"));
  ASSERT_EQ(one.imported.machine.hypervisor.vms.size(), 1u);
  EXPECT_EQ(one.imported.machine.hypervisor.vms[0].hostpci.size(), 2u);
  EXPECT_FALSE(one.imported.machine.hypervisor.vms[0].running.known());
  ImportRun crlf = ImportString(VmCorpus("import-qemu-cmdline", "qm-showcmd-crlf.txt"));
  ASSERT_EQ(crlf.imported.machine.hypervisor.vms.size(), 1u);
  EXPECT_EQ(crlf.imported.machine.hypervisor.vms[0].hostpci.size(), 2u);
  // The shared sample (asokolsky, `qm show 400 --pretty`): hostpci0.0 and .1 are one slot.
  ImportRun real = testing::ImportSample("proxmox/asokolsky-duo-qm-show-400-vfio-gpu-cmdline.txt");
  EXPECT_EQ(Formats(real), std::vector<std::string>{"qemu-cmdline"});
  ASSERT_EQ(real.imported.machine.hypervisor.vms.size(), 1u);
  const Vm& vm = real.imported.machine.hypervisor.vms[0];
  EXPECT_EQ(vm.id, "400");
  EXPECT_EQ(vm.name.value_or(""), "htpc");
  ASSERT_EQ(vm.hostpci.size(), 1u);
  EXPECT_EQ(vm.hostpci[0].slot, "hostpci0");
  EXPECT_EQ(vm.hostpci[0].host.value_or(""), "0000:01:00.0");
  EXPECT_EQ(vm.hostpci[0].guest_bus.value_or(""), "ich9-pcie-port-1");
  EXPECT_FALSE(vm.hostpci[0].gpudirect_clique.known());
}

TEST(QemuCmdlineImport, PsRowIsARunningProcessWithItsPid) {
  ImportRun run = ImportString(VmCorpus("import-qemu-cmdline", "ps-ef-running.txt"));
  EXPECT_EQ(Formats(run), std::vector<std::string>{"qemu-cmdline"});
  ASSERT_EQ(run.imported.machine.hypervisor.vms.size(), 1u);
  const Vm& vm = run.imported.machine.hypervisor.vms[0];
  EXPECT_TRUE(vm.running.value_or(false));
  EXPECT_EQ(vm.pid.value_or(0), 424242);
  ASSERT_EQ(vm.hostpci.size(), 2u);
  EXPECT_EQ(vm.hostpci[1].running_host_address.value_or(""), "0000:c1:00.0");
  EXPECT_EQ(vm.hostpci[1].running_host_address.source, "imported: paste.txt:2 (qemu-cmdline)");
}

TEST(QemuCmdlineImport, QmConfigThenShowcmdOfTheSameVmIsOneVm) {
  std::string paste =
      "root@pve:~# qm config 100\n"
      "hostpci0: mapping=gpu0,pcie=1\n"
      "hostpci1: 0000:c1:00,pcie=1\n"
      "hostpci2: 0000:e1:00,pcie=1\n"
      "machine: q35\n"
      "smbios1: uuid=6f1c9e2a-4b7d-4c83-9a0e-2d5f8b1c7e64\n" +
      VmCorpus("import-qemu-cmdline", "qm-showcmd-pretty-clique.txt");
  ImportRun run = ImportString(paste);
  EXPECT_EQ(Formats(run), (std::vector<std::string>{"qemu-server-conf", "qemu-cmdline"}));
  const HypervisorInfo& h = run.imported.machine.hypervisor;
  ASSERT_EQ(h.vms.size(), 1u);
  const Vm& vm = h.vms[0];
  ASSERT_EQ(vm.hostpci.size(), 3u);
  // The mapping resolved to the address the next start would use.
  EXPECT_EQ(vm.hostpci[0].mapping.value_or(""), "gpu0");
  EXPECT_EQ(vm.hostpci[0].host.value_or(""), "0000:41:00.0");
  EXPECT_EQ(vm.hostpci[1].host.value_or(""), "0000:c1:00");  // as configured
  EXPECT_EQ(vm.hostpci[1].gpudirect_clique.value_or(""), "0");
  EXPECT_NE(vm.hostpci[2].running_host_address.unknown.find("no vfio-pci device id=hostpci2"),
            std::string::npos);
}

TEST(QemuCmdlineImport, CutOffAndDamagedLinesAreNotesNotFailures) {
  ImportRun cut = ImportString(VmCorpus("import-qemu-cmdline", "qm-showcmd-cut.txt"));
  ASSERT_EQ(cut.imported.machine.hypervisor.vms.size(), 1u);
  EXPECT_EQ(cut.imported.machine.hypervisor.vms[0].hostpci.size(), 1u);
  EXPECT_TRUE(VmNoted(cut, "unbalanced"));
  ImportRun bad =
      ImportString(VmCorpus("import-qemu-cmdline", "unbalanced-quotes.txt"), "qemu-cmdline");
  EXPECT_TRUE(VmNoted(bad, "is not a PCI address"));
  EXPECT_TRUE(VmNoted(bad, "names no vfio-pci device"));
}

TEST(VirshDumpxmlImport, DomainWithHostdevsUuidNumaAndClique) {
  ImportRun run = ImportString(VmCorpus("import-virsh-dumpxml", "dumpxml-defined.txt"));
  EXPECT_EQ(Formats(run), std::vector<std::string>{"virsh-dumpxml"});
  const HypervisorInfo& h = run.imported.machine.hypervisor;
  EXPECT_EQ(h.kind.value_or(""), "libvirt");
  ASSERT_EQ(h.vms.size(), 1u);
  const Vm& vm = h.vms[0];
  EXPECT_EQ(vm.id, "llm-guest");
  EXPECT_EQ(vm.smbios_uuid.value_or(""), "3b2f5c6e-8a1d-4e2b-9c7f-1a2b3c4d5e6f");
  EXPECT_EQ(vm.smbios_uuid.source, "imported: paste.txt:4 (virsh-dumpxml)");
  EXPECT_FALSE(vm.running.known());
  ASSERT_EQ(vm.hostpci.size(), 2u);
  EXPECT_EQ(vm.hostpci[0].host.value_or(""), "0000:41:00.0");
  EXPECT_EQ(vm.hostpci[0].guest_bus.value_or(""), "0000:05:00.0");
  EXPECT_EQ(vm.hostpci[1].gpudirect_clique.value_or(""), "2");
  ASSERT_EQ(vm.numa_nodes.size(), 2u);
  EXPECT_EQ(vm.numa_nodes[0].hostnodes.value_or(""), "0");
  EXPECT_FALSE(vm.numa_nodes[1].hostnodes.known());
}

TEST(VirshDumpxmlImport, RunningStateCrlfAndGluedPrompt) {
  ImportRun run = ImportString(VmCorpus("import-virsh-dumpxml", "running-domstatus.xml"));
  ASSERT_EQ(run.imported.machine.hypervisor.vms.size(), 1u);
  EXPECT_TRUE(run.imported.machine.hypervisor.vms[0].running.value_or(false));
  EXPECT_EQ(run.imported.machine.hypervisor.vms[0].pid.value_or(0), 4242);
  for (const char* f : {"dumpxml-crlf.txt", "dumpxml-glued.txt"}) {
    ImportRun r = ImportString(VmCorpus("import-virsh-dumpxml", f));
    ASSERT_EQ(r.imported.machine.hypervisor.vms.size(), 1u) << f;
    EXPECT_EQ(r.imported.machine.hypervisor.vms[0].hostpci.size(), 2u) << f;
  }
}

TEST(VirshDumpxmlImport, CutOffKeepsWhatIsCompleteAndSaysWhere) {
  ImportRun run = ImportString(VmCorpus("import-virsh-dumpxml", "dumpxml-cut.txt"));
  ASSERT_EQ(run.imported.machine.hypervisor.vms.size(), 1u);
  const Vm& vm = run.imported.machine.hypervisor.vms[0];
  EXPECT_EQ(vm.smbios_uuid.value_or(""), "3b2f5c6e-8a1d-4e2b-9c7f-1a2b3c4d5e6f");
  ASSERT_EQ(vm.hostpci.size(), 1u);  // the second <hostdev> was cut before its address
  EXPECT_EQ(vm.hostpci[0].host.value_or(""), "0000:41:00.0");
  EXPECT_TRUE(VmNoted(run, "stops here (cut off) inside <domain/devices/hostdev/source>"));
}

}  // namespace
}  // namespace dossier::import
