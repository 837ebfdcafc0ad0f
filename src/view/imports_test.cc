#include "view/imports.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "model/fact_paths.h"
#include "model/json_io.h"
#include "model/visit.h"
#include "tests/filled_machine.h"
#include "tests/temp_dir.h"

namespace dossier {
namespace {

using testing::FilledMachine;

// Every topology matrix of an import reaches the machine: into an empty one always, over one it
// has only from a newer import (an older import does not replace it).
TEST(OverlayImport, EveryTopologyMatrixIsTakenAndOnlyANewerOneReplaces) {
  using M = std::vector<std::vector<std::string>>;
  const std::vector<std::pair<const char*, M Topology::*>> top = {
      {"nvml_levels", &Topology::nvml_levels},
      {"gpu_nic_levels", &Topology::gpu_nic_levels},
      {"nic_levels", &Topology::nic_levels}};
  const std::vector<std::pair<const char*, M P2pStatusMatrices::*>> p2p = {
      {"read", &P2pStatusMatrices::read},     {"write", &P2pStatusMatrices::write},
      {"nvlink", &P2pStatusMatrices::nvlink}, {"atomics", &P2pStatusMatrices::atomics},
      {"pci", &P2pStatusMatrices::pci},       {"unstated", &P2pStatusMatrices::unstated}};
  const M old_m = {{"X", "NS"}, {"NS", "X"}}, new_m = {{"X", "OK"}, {"OK", "X"}};
  auto check = [&](const char* name, auto get) {
    SCOPED_TRACE(name);
    for (bool newer : {false, true}) {
      Machine empty, im;
      get(im) = new_m;
      std::vector<FactDisagreement> d;
      OverlayImport(&empty, im, "collect", {"import", newer}, "older", &d);
      EXPECT_EQ(get(empty), new_m) << newer;  // nothing there: taken either way
      Machine has;
      get(has) = old_m;
      OverlayImport(&has, im, "collect", {"import", newer}, "older", &d);
      EXPECT_EQ(get(has), newer ? new_m : old_m) << newer;
    }
  };
  for (const auto& [name, f] : top)
    check(name, [f = f](Machine& m) -> M& { return m.topology.*f; });
  for (const auto& [name, f] : p2p)
    check(name, [f = f](Machine& m) -> M& { return m.topology.p2p_status.*f; });
}

// Each NCCL list of an import (ranks, connections, refused P2P) reaches the machine: into an
// empty one always, over one it has only from a newer import.
TEST(OverlayImport, EveryNcclListIsTakenAndOnlyANewerOneReplaces) {
  auto check = [](const char* name, auto get, auto key, auto old_v, auto new_v) {
    SCOPED_TRACE(name);
    for (bool newer : {false, true}) {
      Machine empty, im;
      get(im) = {new_v};
      std::vector<FactDisagreement> d;
      OverlayImport(&empty, im, "collect", {"import", newer}, "older", &d);
      ASSERT_EQ(get(empty).size(), 1u) << newer;  // nothing there: taken either way
      EXPECT_EQ(key(get(empty)[0]), key(new_v)) << newer;
      Machine has;
      get(has) = {old_v};
      OverlayImport(&has, im, "collect", {"import", newer}, "older", &d);
      ASSERT_EQ(get(has).size(), 1u) << newer;
      EXPECT_EQ(key(get(has)[0]), key(newer ? new_v : old_v)) << newer;
    }
  };
  NcclRank r0, r1;
  r0.rank = 0;
  r1.rank = 1;
  check(
      "ranks", [](Machine & m) -> auto& { return m.nccl.ranks; },
      [](const NcclRank& r) { return std::to_string(r.rank); }, r0, r1);
  NcclConnection c0, c1;
  c0.transport = "SHM/direct/direct";
  c1.transport = "P2P/IPC/read";
  check(
      "connections", [](Machine & m) -> auto& { return m.nccl.connections; },
      [](const NcclConnection& c) { return c.transport; }, c0, c1);
  NcclP2pRefused p0, p1;
  p0.message = "Could not enable P2P between dev 1(=81000) and dev 0(=1000)";
  p1.message = "Custom allreduce is disabled";
  check(
      "p2p_refused", [](Machine & m) -> auto& { return m.nccl.p2p_refused; },
      [](const NcclP2pRefused& p) { return p.message; }, p0, p1);
}

// Lists an import adds to: only the elements the machine lacks (by address, VM id, mapping name)
// are added, none twice (a fact of an element it has is replaced only by a newer import); an
// element from an older import is marked stale.
TEST(OverlayImport, ListsTakeOnlyTheElementsTheMachineLacks) {
  for (bool newer : {false, true}) {
    SCOPED_TRACE(newer);
    Machine base, im;
    PciDevice a, a2, b;
    a.address = a2.address = "0000:01:00.0";
    b.address = "0000:02:00.0";
    a.name.Set("collected A", "/sys");
    a2.name.Set("pasted A", "imported: p.txt:3 (lspci)");
    b.name.Set("pasted B", "imported: p.txt:4 (lspci)");
    base.pci.devices = {a};
    im.pci.devices = {a2, b};
    Vm v100, v101;
    v100.id = "100";
    v101.id = "101";
    base.hypervisor.vms = {v100};
    im.hypervisor.vms = {v100, v101};
    PciMapping m0, m1;
    m0.name = "gpu0";
    m1.name = "gpu1";
    base.hypervisor.pci_mappings = {m0};
    im.hypervisor.pci_mappings = {m0, m1};
    std::vector<FactDisagreement> d;
    OverlayImport(&base, im, "collect", {"import", newer}, "older than the collect", &d);
    ASSERT_EQ(base.pci.devices.size(), 2u);
    EXPECT_EQ(*base.pci.devices[0].name, newer ? "pasted A" : "collected A");  // a fact: newer wins
    EXPECT_EQ(*base.pci.devices[1].name, "pasted B");
    EXPECT_EQ(base.pci.devices[1].name.stale, newer ? "" : "older than the collect");
    ASSERT_EQ(base.hypervisor.vms.size(), 2u);
    EXPECT_EQ(base.hypervisor.vms[1].id, "101");
    ASSERT_EQ(base.hypervisor.pci_mappings.size(), 2u);
    EXPECT_EQ(base.hypervisor.pci_mappings[1].name, "gpu1");
  }
}

// A machine of every family, as the report writes it (the golden of a fixture tree's collect).
Machine GoldenMachine(const char* name) {
  nlohmann::json doc = nlohmann::json::parse(
      testing::Slurp(std::string(DOSSIER_SOURCE_DIR) + "/tests/golden/" + name + ".json"));
  std::vector<std::string> w;
  return MachineFromJson(doc.at("machines").at(0), &w);
}

// Everything an import says reaches a machine that knew nothing: every leaf of a full machine (the
// seed guest's and host's collects: devices, GPUs, matrices, NUMA, software, servers, VMs,
// mappings, the driver's library), older or newer, arrives with its value and source (an
// unknown leaf's reason is the importing record's own and is not carried). A leaf the
// overlay forgot (one field of one struct) is one path missing here.
TEST(OverlayImport, EveryLeafOfAFullMachineReachesAnEmptyOne) {
  for (const char* golden : {"filled", "seed-guest", "seed-host", "libvirt-host"}) {
    const Machine imported =
        std::string(golden) == "filled" ? FilledMachine() : GoldenMachine(golden);
    const auto want = Flatten(imported);
    ASSERT_GT(want.size(), 200u) << golden;
    for (bool newer : {false, true}) {
      SCOPED_TRACE(std::string(golden) + (newer ? " newer" : " older"));
      Machine base;
      base.name = imported.name;
      std::vector<FactDisagreement> d;
      OverlayImport(&base, imported, "collect", {"import", newer}, "older", &d);
      for (const auto& x : d) ADD_FAILURE() << "disagreement: " << x.path << ": " << x.kept;
      const auto got = Flatten(base);
      int missing = 0;
      for (const auto& [path, f] : want) {
        if (!f.known) continue;  // an unknown says why this record could not read it: not news
        // Why a collect could not load the driver's library is that collect's own; an import
        // never loads one.
        if (path == "/nvml/error") continue;
        auto it = got.find(path);
        if (it == got.end()) {
          if (++missing < 20) ADD_FAILURE() << "not overlaid: " << path << " = " << f.value;
          continue;
        }
        EXPECT_EQ(it->second.value, f.value) << path;
        EXPECT_EQ(it->second.source, f.source) << path;
        EXPECT_TRUE(it->second.known) << path;
      }
      EXPECT_EQ(missing, 0);
    }
  }
}

PciMappingEntry Entry(const char* path, const char* node, int64_t group) {
  PciMappingEntry e;
  e.path.Set(path, "imported: p.txt:4 (pci-cfg)");
  e.node.Set(node, "imported: p.txt:4 (pci-cfg)");
  e.iommugroup.Set(group, "imported: p.txt:4 (pci-cfg)");
  return e;
}

// A pasted pci.cfg is checked against the pasted devices as Proxmox checks it at VM start. The
// node is the machine's, else the only one the entries name; a device's group comes from a pasted
// group listing; an entry that is stale only because its device's group was never pasted is
// unknown with what to paste, not stale.
TEST(CheckImportedMappings, EachEntryCheckedAgainstWhatWasPasted) {
  auto machine = [] {
    Machine m;
    PciDevice a, b;
    a.address = "0000:01:00.0";
    b.address = "0000:02:00.0";
    a.iommu_group.Set(7, "imported: p.txt:20 (lspci)");  // b's group comes from a listing, or not
    m.pci.devices = {a, b};
    PciMapping mp;
    mp.name = "gpu0";
    mp.entries = {Entry("0000:01:00.0", "pve", 9), Entry("0000:02:00.0", "pve", 8)};
    m.hypervisor.pci_mappings = {mp};
    return m;
  };
  {
    SCOPED_TRACE("node from the entries; b's group not pasted");
    Machine m = machine();
    CheckImportedMappings(&m);
    const auto& e = m.hypervisor.pci_mappings[0].entries;
    EXPECT_EQ(e[0].status.value_or(""), "stale");
    EXPECT_EQ(e[0].problem.value_or(""), "'iommugroup' does not match for 'gpu0' (9 != 7)");
    EXPECT_EQ(e[0].iommu_group_now.value_or(-1), 7);
    EXPECT_FALSE(e[1].status.known());
    EXPECT_EQ(e[1].status.unknown,
              "the IOMMU group of 0000:02:00.0 is not in the pasted outputs (paste: for d in "
              "/sys/kernel/iommu_groups/*/devices/*; do echo $d; done)");
    EXPECT_EQ(e[1].status.source, "imported: p.txt:4 (pci-cfg)");
    EXPECT_FALSE(e[1].problem.known());
    EXPECT_EQ(e[1].problem.unknown, "see status");
  }
  {
    SCOPED_TRACE("b's group from a pasted listing");
    Machine m = machine();
    IommuGroup g;
    g.id = 8;
    g.devices = {"0000:02:00.0"};
    m.iommu.groups = {g};
    CheckImportedMappings(&m);
    const auto& e = m.hypervisor.pci_mappings[0].entries;
    EXPECT_EQ(m.pci.devices[1].iommu_group.value_or(-1), 8);
    EXPECT_EQ(m.pci.devices[1].iommu_group.source, "IOMMU group listing");
    EXPECT_EQ(e[1].status.value_or(""), "ok");
    EXPECT_EQ(m.pci.devices[0].iommu_group.source, "imported: p.txt:20 (lspci)");  // kept
  }
  {
    SCOPED_TRACE("entries of two nodes and no node of its own: not checked");
    Machine m = machine();
    m.hypervisor.pci_mappings[0].entries[1].node.Set("pve2", "x");
    CheckImportedMappings(&m);
    for (const auto& e : m.hypervisor.pci_mappings[0].entries) EXPECT_FALSE(e.status.known());
  }
  {
    SCOPED_TRACE("the machine's own node: the other node's entry is another node's");
    Machine m = machine();
    m.hypervisor.node.Set("pve", "hostname");
    m.hypervisor.pci_mappings[0].entries[1].node.Set("pve2", "x");
    CheckImportedMappings(&m);
    const auto& e = m.hypervisor.pci_mappings[0].entries;
    EXPECT_EQ(e[0].status.value_or(""), "stale");
    EXPECT_EQ(e[1].status.value_or(""), "other-node");
  }
  {
    SCOPED_TRACE("a stale entry with a second reason stays stale");
    Machine m = machine();
    m.pci.devices[1].vendor_id.Set("0x10de", "x");
    m.pci.devices[1].device_id.Set("0x2bb1", "x");
    m.hypervisor.pci_mappings[0].entries[1].id.Set("10de:2330", "x");
    CheckImportedMappings(&m);
    const auto& e = m.hypervisor.pci_mappings[0].entries[1];
    EXPECT_EQ(e.status.value_or(""), "stale");
    EXPECT_NE(e.problem.value_or("").find("'id' does not match"), std::string::npos);
  }
  {
    SCOPED_TRACE("no pasted devices: nothing checked");
    Machine m = machine();
    m.pci.devices.clear();
    CheckImportedMappings(&m);
    for (const auto& e : m.hypervisor.pci_mappings[0].entries) {
      EXPECT_FALSE(e.status.known());
      EXPECT_EQ(e.status.unknown, "");
    }
  }
}

// An import that says nothing changes nothing, older or newer: every leaf of a full machine
// stays as it was (no list emptied because the import's was empty).
TEST(OverlayImport, AnImportThatSaysNothingChangesNothing) {
  for (const char* golden : {"filled", "seed-guest", "seed-host", "libvirt-host"}) {
    const Machine full = std::string(golden) == "filled" ? FilledMachine() : GoldenMachine(golden);
    for (bool newer : {false, true}) {
      SCOPED_TRACE(std::string(golden) + (newer ? " newer" : " older"));
      Machine base = full;
      Machine nothing;
      nothing.name = full.name;
      std::vector<FactDisagreement> d;
      OverlayImport(&base, nothing, "collect", {"import", newer}, "older", &d);
      EXPECT_TRUE(d.empty());
      const auto want = Flatten(full), got = Flatten(base);
      for (const auto& [path, f] : want) {
        auto it = got.find(path);
        if (it == got.end()) {
          ADD_FAILURE() << "lost: " << path << " = " << f.value;
          continue;
        }
        EXPECT_EQ(it->second.value, f.value) << path;
      }
      EXPECT_EQ(got.size(), want.size());
    }
  }
}

// Where both know a fact and disagree, both are kept with where each came from: the newer stands.
// Facts that agree, or that one side does not know, are no disagreement.
TEST(OverlayImport, ADisagreementKeepsBothSidesAndTheNewerStands) {
  for (bool newer : {false, true}) {
    SCOPED_TRACE(newer);
    Machine base, im;
    base.cpu.model.Set("EPYC 9654", "/proc/cpuinfo");
    im.cpu.model.Set("EPYC 9655", "imported: p.txt:3 (lscpu)");
    base.hostname.Set("pve", "/etc/hostname");
    im.hostname.Set("pve", "imported: p.txt:1 (lscpu)");           // agrees
    im.kernel.release.Set("6.8.12", "imported: p.txt:9 (uname)");  // the base does not know it
    std::vector<FactDisagreement> d;
    OverlayImport(&base, im, "collect 2026-12-01T10:00:00Z", {"import 2026-12-02", newer}, "older",
                  &d);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].path, "/cpu/model");
    const std::string col = "EPYC 9654", imp = "EPYC 9655";
    EXPECT_EQ(d[0].kept, newer ? imp : col);
    EXPECT_EQ(d[0].kept_source, newer ? "imported: p.txt:3 (lscpu)" : "/proc/cpuinfo");
    EXPECT_EQ(d[0].kept_record, newer ? "import 2026-12-02" : "collect 2026-12-01T10:00:00Z");
    EXPECT_EQ(d[0].other, newer ? col : imp);
    EXPECT_EQ(d[0].other_source, newer ? "/proc/cpuinfo" : "imported: p.txt:3 (lscpu)");
    EXPECT_EQ(d[0].other_record, newer ? "collect 2026-12-01T10:00:00Z" : "import 2026-12-02");
    EXPECT_EQ(*base.cpu.model, newer ? imp : col);
    EXPECT_EQ(*base.kernel.release, "6.8.12");
    EXPECT_EQ(base.kernel.release.stale, newer ? "" : "older");
  }
}

}  // namespace
}  // namespace dossier
