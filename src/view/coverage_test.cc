#include "view/coverage.h"

#include <gtest/gtest.h>

#include <set>

#include <fmt/format.h>

#include "model/json_io.h"
#include "store/dossier_dir.h"
#include "view/build_view.h"
#include "view/host_p2p.h"
#include "view/imports.h"
#include "view/passthrough.h"
#include "view/pasted_gpus.h"
#include "view/view.h"

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

PciDevice PastedDevice(const std::string& address, const std::string& name) {
  PciDevice d;
  d.address = address;
  d.name.Set(name, "imported: t.txt:3 (lspci-tree)");
  if (name.rfind("NVIDIA", 0) == 0) d.vendor_id.Set("0x10de", "imported: t.txt:3 (lspci-tree)");
  return d;
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
  PciMappingEntry e;
  e.path.Set("0000:f1:00.0", "imported: t.txt:20 (pci-cfg)");
  e.id.Set("10de:2bb1", "imported: t.txt:20 (pci-cfg)");
  mp.entries.push_back(e);
  PciMappingEntry nic = e;
  nic.path.Set("0000:c1:00.0", "imported: t.txt:23 (pci-cfg)");
  nic.id.Set("15b3:1021", "imported: t.txt:23 (pci-cfg)");
  mp.entries.push_back(nic);
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

// A machine known only from imports is in the view under the name its records carry (also when
// the record's machine object has none), and reads as pasted (not collected); beside it a
// collected machine reads as collected. A family whose facts carry no source is cited by the
// pasted file the record names; what its machine object holds wrongly is a warning naming the
// record.
TEST(BuildView, AMachineKnownOnlyFromImportsIsNamedAndReadsAsPasted) {
  auto record = [](const std::string& kind, const std::string& machine, int seq) {
    Machine m;
    m.name = machine;
    m.kernel.cmdline.Set("ro quiet", kind == "import" ? "imported: s.txt:2 (cmdline)" : "/proc");
    if (kind == "import") m.topology.p2p_status.read = {{"X", "NS"}, {"NS", "X"}};
    Record r;
    r.kind = kind;
    r.time = "2026-12-03T09:00:0" + std::to_string(seq) + "Z";
    r.machine = machine;
    r.file = "records/00000" + std::to_string(seq) + "-" + kind + ".json";
    r.doc = {
        {"schema", "dossier/1"}, {"kind", kind}, {"time", r.time}, {"machine", MachineToJson(m)}};
    FillHeaderFromDoc(&r);
    return r;
  };
  Record imported = record("import", "guest", 2);
  imported.doc["machine"].erase("name");
  imported.doc["machine"]["kernel"]["release"] = 42;  // a string in the schema
  imported.doc["files"] = {{{"file", "host-paste.txt"}}};
  View v = BuildView({record("collect", "host", 1), imported}, Notes{}, {});
  ASSERT_EQ(v.machines.size(), 2u);
  const MachineView* guest = v.Find("guest");
  ASSERT_NE(guest, nullptr);
  EXPECT_FALSE(guest->coverage.collected);
  EXPECT_EQ(guest->coverage.From(Family::kKernelCmdline), "pasted: s.txt:2 (cmdline)");
  EXPECT_EQ(guest->coverage.From(Family::kP2pRead), "pasted: host-paste.txt");
  bool warned = false;
  for (const auto& w : v.warnings)
    warned = warned || (w.rfind(imported.file + ": wrong type at ", 0) == 0 &&
                        w.find("/kernel/release") != std::string::npos);
  EXPECT_TRUE(warned) << ::testing::PrintToString(v.warnings);
  EXPECT_FALSE(guest->coverage.Covers(Family::kNuma));
  const MachineView* host = v.Find("host");
  ASSERT_NE(host, nullptr);
  EXPECT_TRUE(host->coverage.collected);
}

// The host side of a passed-through GPU read from a Proxmox resource mapping: the first entry of
// this node with a path; an entry without node= or path= (a damaged mapping) is passed over, not
// taken as "no device".
TEST(MapPassthrough, AMappingEntryWithoutNodeOrPathIsPassedOver) {
  Machine guest;
  guest.gpus.emplace_back().address = "0000:01:00.0";
  PciDevice port;
  port.address = "0000:00:10.0";
  port.port_number.Set(1, "/sys/bus/pci/devices/0000:00:10.0/config");
  PciDevice gpu;
  gpu.address = "0000:01:00.0";
  gpu.parent.Set("0000:00:10.0", "/sys");
  guest.pci.devices = {port, gpu};
  Vm vm;
  vm.id = "100";
  VmHostPci slot;
  slot.slot = "hostpci0";
  slot.mapping.Set("gpus", "/etc/pve/qemu-server/100.conf:7");
  vm.hostpci = {slot};
  auto entry = [](const char* node, const char* path) {
    PciMappingEntry e;
    if (node) e.node.Set(node, "/etc/pve/mapping/pci.cfg:2");
    if (path) e.path.Set(path, "/etc/pve/mapping/pci.cfg:2");
    return e;
  };
  for (bool node_known : {true, false}) {
    SCOPED_TRACE(node_known);
    Machine host;
    host.name = "pve1";
    host.hypervisor.kind.Set("proxmox", "/etc/pve");
    if (node_known) host.hypervisor.node.Set("pve1", "/etc/hostname");
    PciMapping m;
    m.name = "gpus";
    m.entries = {entry(nullptr, "0000:41:00.0"), entry("pve1", nullptr),
                 entry("pve1", "0000:81:00.0;0000:82:00.0"), entry("pve1", "0000:c1:00.0")};
    host.hypervisor.pci_mappings = {m};
    auto out = MapPassthrough(guest, host, vm);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].slot, "hostpci0");
    EXPECT_EQ(out[0].host_address, "0000:81:00.0") << out[0].why;
    EXPECT_EQ(out[0].source, "mapping-order");
  }
}

// A guest root port whose port number cannot be read is placed by Proxmox's Q35 layout: every
// port of it gives its hostpci slot (port N carries hostpci(N-1)), any other address none.
TEST(MapPassthrough, EveryProxmoxQ35PortGivesItsSlotAndNoOtherAddressDoes) {
  std::vector<std::pair<std::string, int>> layout;
  for (int f = 0; f < 4; ++f) layout.push_back({"0000:00:1c." + std::to_string(f), 1 + f});
  for (int f = 0; f < 8; ++f) layout.push_back({"0000:00:10." + std::to_string(f), 5 + f});
  for (int f = 0; f < 4; ++f) layout.push_back({"0000:00:11." + std::to_string(f), 13 + f});
  for (const char* a : {"0000:00:1c.4", "0000:00:11.4", "0000:00:12.0", "0000:00:1b.0",
                        "0000:01:1c.0", "0001:00:1c.0", "0000:00:1c.00"})
    layout.push_back({a, -1});
  Vm vm;
  vm.id = "100";
  for (int i = 0; i < 16; ++i) {
    VmHostPci h;
    h.slot = "hostpci" + std::to_string(i);
    h.host.Set("0000:" + fmt::format("{:02x}", 0x40 + i) + ":00.0", "100.conf");
    vm.hostpci.push_back(h);
  }
  Machine host;
  host.hypervisor.kind.Set("proxmox", "/etc/pve");
  for (const auto& [address, n] : layout) {
    SCOPED_TRACE(address);
    Machine guest;
    guest.gpus.emplace_back().address = "0000:0a:00.0";
    PciDevice port;
    port.address = address;
    port.port_number.Unknown("needs root", "/sys");
    PciDevice gpu;
    gpu.address = "0000:0a:00.0";
    gpu.parent.Set(address, "/sys");
    guest.pci.devices = {port, gpu};
    auto out = MapPassthrough(guest, host, vm);
    ASSERT_EQ(out.size(), 1u);
    if (n < 0) {
      EXPECT_EQ(out[0].slot, "");
      EXPECT_NE(out[0].why.find("not in Proxmox's Q35 layout"), std::string::npos) << out[0].why;
      continue;
    }
    EXPECT_EQ(out[0].slot, "hostpci" + std::to_string(n - 1)) << out[0].why;
    EXPECT_EQ(out[0].host_address, "0000:" + fmt::format("{:02x}", 0x40 + n - 1) + ":00.0");
    EXPECT_EQ(out[0].source, "vm-config");
    EXPECT_NE(out[0].why.find("ich9-pcie-port-" + std::to_string(n)), std::string::npos)
        << out[0].why;
  }
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

// A pair of host GPUs is looked up only when both are the host's: one the host lacks says which,
// a host whose GPUs are not known at all says so and what to paste.
TEST(HostP2pBetween, AGpuTheHostLacksIsNamedNotLookedUp) {
  Machine host;
  host.gpus.resize(2);
  host.gpus[0].address = "0000:41:00.0";
  host.gpus[1].address = "0000:c1:00.0";
  host.topology.p2p_status.read = {{"X", "OK"}, {"OK", "X"}};
  EXPECT_EQ(HostP2pBetween(host, "0000:41:00.0", "0000:c1:00.0").why.find("no GPU"),
            std::string::npos);
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
           {"0000:81:00.0", "0000:c1:00.0"}, {"0000:41:00.0", "0000:81:00.0"}}) {
    HostP2p p = HostP2pBetween(host, a, b);
    EXPECT_EQ(p.why, "the host's facts list no GPU at 0000:81:00.0") << a << " " << b;
    EXPECT_FALSE(p.decided);
  }
  HostP2p none = HostP2pBetween(Machine{}, "0000:41:00.0", "0000:c1:00.0");
  EXPECT_NE(none.why.find("the host's GPUs are not known"), std::string::npos) << none.why;
  EXPECT_FALSE(none.decided);
}

}  // namespace
}  // namespace dossier
