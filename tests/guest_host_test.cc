// Guest and host as one system, end to end through the binary: the seed story's guest and host
// collected into one dossier link by SMBIOS UUID (or by a note), the passthrough map follows the
// running QEMU command line, the stale mapping is a critical finding, and the generators act on it.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "fixture_trees.h"
#include "golden.h"
#include "hypervisor/pci_cfg.h"
#include "run_process.h"
#include "temp_dir.h"

namespace dossier {
namespace {

using nlohmann::json;
using testing::FixtureTree;
using testing::ProcessResult;
using testing::ReadWholeFile;
using testing::RunProcess;
using testing::TempDir;

ProcessResult RunDossier(std::vector<std::string> args) {
  args.insert(args.begin(), DOSSIER_BINARY);
  return RunProcess(args);
}

struct SeedDossier {
  TempDir tmp;
  std::string dir = tmp.path() + "/dossier";
  explicit SeedDossier(const std::string& guest_tree = "seed-guest",
                       const std::string& host_tree = "seed-host") {
    for (const std::string& t : {guest_tree, host_tree}) {
      auto r = RunDossier({"collect", "-q", "--root", FixtureTree(t), "--dossier", dir});
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
  }
};

const json* GhMachine(const json& report, const std::string& name) {
  for (const auto& m : report["machines"])
    if (m["name"] == name) return &m;
  return nullptr;
}

TEST(GuestHost, LinkedBySmbiosUuidWithThePassthroughMapFromTheRunningVm) {
  SeedDossier d;
  auto r = RunDossier({"report", "--dossier", d.dir, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  const json* g = GhMachine(j, "gpu-vm");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ((*g)["host_link"]["how"], "smbios-uuid");
  EXPECT_EQ((*g)["host_link"]["vm_id"], "100");
  const json& pt = (*g)["passthrough"];
  ASSERT_EQ(pt.size(), 8u);
  // Bus 01 is behind 00:10.0 = port 5 = hostpci4, which the running VM has at 71:00.0 (NUMA 0);
  // bus 05 behind 00:1c.0 = port 1 = hostpci0 = f1:00.0 (NUMA 1).
  EXPECT_EQ(pt[0]["guest_address"], "0000:01:00.0");
  EXPECT_EQ(pt[0]["guest_port"], "0000:00:10.0");
  EXPECT_EQ(pt[0]["guest_port_number"], 5);
  EXPECT_EQ(pt[0]["slot"], "hostpci4");
  EXPECT_EQ(pt[0]["host_address"], "0000:71:00.0");
  EXPECT_EQ(pt[0]["source"], "qemu-cmdline");
  EXPECT_EQ(pt[0]["host_numa_node"], 0);
  EXPECT_EQ(pt[0]["host_root_complex"], "pci0000:70");
  EXPECT_EQ(pt[4]["slot"], "hostpci0");
  EXPECT_EQ(pt[4]["host_address"], "0000:f1:00.0");
  EXPECT_EQ(pt[4]["host_numa_node"], 1);
  const json* h = GhMachine(j, "pve");
  ASSERT_NE(h, nullptr);
  EXPECT_TRUE((*h)["passthrough"].is_null());
  EXPECT_EQ((*h)["hypervisor"]["kind"], "proxmox");
  EXPECT_EQ((*h)["hypervisor"]["vms"][0]["running"], true);
  EXPECT_EQ((*h)["hypervisor"]["vms"][0]["hostpci"][4]["running_host_address"], "0000:71:00.0");
}

TEST(GuestHost, StaleMappingIsCriticalInProxmoxsOwnWords) {
  SeedDossier d;
  auto r = RunDossier({"report", "--dossier", d.dir, "--format", "json"});
  json j = json::parse(r.out);
  const json* h = GhMachine(j, "pve");
  ASSERT_NE(h, nullptr);
  const json& e = (*h)["hypervisor"]["pci_mappings"][7]["entries"][0];
  EXPECT_EQ(e["status"], "stale");
  EXPECT_EQ(e["iommugroup"], 8);
  const json* f = nullptr;
  for (const auto& x : (*h)["findings"])
    if (x["id"] == "vm.mapping-stale") f = &x;
  ASSERT_NE(f, nullptr);
  EXPECT_EQ((*f)["severity"], "critical");
  EXPECT_NE((*f)["title"].get<std::string>().find("VM 100 will not start"), std::string::npos);
  EXPECT_NE(
      (*f)["explanation"].get<std::string>().find("'iommugroup' does not match for 'gpu7' (8 != "),
      std::string::npos);
}

TEST(GuestHost, PveMappingChangesOnlyTheStaleGroupNumbers) {
  SeedDossier d;
  TempDir out;
  const std::string file = out.path() + "/pci.cfg";
  auto r = RunDossier({"generate", "pve-mapping", "--dossier", d.dir, "--output", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string before =
      ReadWholeFile(std::string(DOSSIER_SOURCE_DIR) +
                    "/tests/fixtures/trees/seed-host/files/etc/pve/mapping/pci.cfg");
  std::string after = ReadWholeFile(file);
  auto pb = hypervisor::ParsePciCfg(before, "before"), pa = hypervisor::ParsePciCfg(after, "after");
  ASSERT_EQ(pb.positions.size(), pa.positions.size());
  // Everything outside the group values is byte for byte the same.
  std::string sb = before, sa = after;
  for (size_t i = pb.positions.size(); i-- > 0;) {
    sb.erase(pb.positions[i].group_offset, pb.positions[i].group_length);
    sa.erase(pa.positions[i].group_offset, pa.positions[i].group_length);
  }
  EXPECT_EQ(sa, sb);
  EXPECT_NE(after, before);
  EXPECT_NE(r.err.find("pvesh set /cluster/mapping/pci/gpu7 --map 'id=10de:2bb1,iommugroup="),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("verify: qm start 100"), std::string::npos) << r.err;
  auto diff = RunDossier({"generate", "pve-mapping", "--dossier", d.dir, "--diff"});
  ASSERT_EQ(diff.exit_code, 0) << diff.err;
  EXPECT_NE(diff.out.find("-\tmap id=10de:2bb1,iommugroup=8,node=pve,path=0000:01:00.0"),
            std::string::npos)
      << diff.out;
}

TEST(GuestHost, NcclTopoGivesGuestGpusTheHostTree) {
  SeedDossier d;
  auto r = RunDossier({"generate", "nccl-topo", "--dossier", d.dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(r.out.c_str())) << r.out;
  pugi::xml_node sys = doc.child("system");
  EXPECT_STREQ(sys.attribute("version").value(), "1");
  std::map<std::string, std::string> gpu_node;  // guest busid -> numaid
  int cpus = 0;
  for (auto cpu : sys.children("cpu")) {
    ++cpus;
    EXPECT_STRNE(cpu.attribute("affinity").value(), "");
    for (auto port : cpu.children("pci")) {
      // Each GPU alone under its own host root port (separate root complexes).
      EXPECT_STREQ(port.attribute("class").value(), "0x060400");
      auto gpu = port.child("pci");
      ASSERT_TRUE(gpu);
      EXPECT_STREQ(gpu.attribute("link_speed").value(), "32.0 GT/s PCIe");
      EXPECT_STREQ(gpu.attribute("link_width").value(), "16");
      gpu_node[gpu.attribute("busid").value()] = cpu.attribute("numaid").value();
    }
  }
  EXPECT_EQ(cpus, 2);
  ASSERT_EQ(gpu_node.size(), 8u);
  EXPECT_EQ(gpu_node["0000:01:00.0"], "0");  // host 71:00.0
  EXPECT_EQ(gpu_node["0000:05:00.0"], "1");  // host f1:00.0
}

TEST(GuestHost, NumaAffinityUnitOneLinePerGpu) {
  SeedDossier d;
  auto r = RunDossier({"generate", "numa-affinity", "--dossier", d.dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find("ExecStart=/bin/sh -c 'echo 0 > /sys/bus/pci/devices/0000:01:00.0/numa_node'"),
      std::string::npos)
      << r.out;
  EXPECT_NE(
      r.out.find("ExecStart=/bin/sh -c 'echo 1 > /sys/bus/pci/devices/0000:05:00.0/numa_node'"),
      std::string::npos);
  EXPECT_NE(r.out.find("NOT where memory lives"), std::string::npos);
  EXPECT_NE(r.out.find("numa0: cpus=0-31,hostnodes=0"), std::string::npos) << r.out;
}

TEST(GuestHost, WithoutRootTheGuestLinksByANoteAndSaysSo) {
  SeedDossier d("seed-guest-unprivileged");
  auto none = RunDossier({"generate", "nccl-topo", "--dossier", d.dir});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no host is linked"), std::string::npos) << none.err;
  auto n =
      RunDossier({"note", "--dossier", d.dir, "machine", "gpu-vm", "--host", "pve", "--vm", "100"});
  ASSERT_EQ(n.exit_code, 0) << n.err;
  auto r = RunDossier({"report", "--dossier", d.dir, "--format", "json"});
  json j = json::parse(r.out);
  const json* g = GhMachine(j, "gpu-vm");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ((*g)["host_link"]["how"], "note");
  const json& pt = (*g)["passthrough"];
  ASSERT_EQ(pt.size(), 8u);
  // No port number without root: the root port's place in Proxmox's Q35 layout says it.
  EXPECT_TRUE(pt[0]["guest_port_number"].is_null());
  EXPECT_EQ(pt[0]["slot"], "hostpci4");
  EXPECT_EQ(pt[0]["host_address"], "0000:71:00.0");
}

// Every generator's artifact for the seed story, as a person would review it (stdout), and what
// it says on stderr; the dossier path is replaced by <dir>.
TEST(GuestHost, GeneratorGoldens) {
  SeedDossier d;
  struct Case {
    std::vector<std::string> args;
    const char* golden;
    int exit_code;
  };
  const std::vector<Case> cases = {
      {{"pve-mapping"}, "generate-pve-mapping.txt", 0},
      {{"pve-mapping", "--diff"}, "generate-pve-mapping-diff.txt", 0},
      {{"nccl-topo"}, "generate-nccl-topo.txt", 0},
      {{"numa-affinity"}, "generate-numa-affinity.txt", 0},
      // The seed host's GPUs are bound to vfio-pci on separate root complexes: no P2P status, so
      // no clique is advertised, and the refusal says what to run.
      {{"qemu-args"}, "generate-qemu-args.txt", 2},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.golden);
    std::vector<std::string> args = {"generate"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), {"--dossier", d.dir});
    auto r = RunDossier(args);
    EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
    std::string text = "--- stdout\n" + r.out + "--- stderr\n" + r.err;
    for (size_t at; (at = text.find(d.dir)) != std::string::npos;)
      text.replace(at, d.dir.size(), "<dir>");
    testing::ExpectMatchesGolden(c.golden, text);
  }
}

// A libvirt host and its guest: the domain's <uuid> links them, the hostdevs (aliases from the
// running state) are the slots, the running QEMU's JSON -device arguments confirm the host
// addresses, and the host's tree (a switch for two GPUs, separate root complexes for the others)
// is what the guest's flat PHB matrix, p2p.vm-isolated and qemu-args are told.
TEST(GuestHost, LibvirtHostAndGuestLinkedBySmbiosUuid) {
  SeedDossier d("libvirt-guest", "libvirt-host");
  auto r = RunDossier({"report", "--dossier", d.dir, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  const json* h = GhMachine(j, "kvm1");
  ASSERT_NE(h, nullptr);
  const json& hv = (*h)["hypervisor"];
  EXPECT_EQ(hv["kind"], "libvirt");
  EXPECT_EQ(hv["problems"], json::array()) << hv["problems"].dump();
  ASSERT_EQ(hv["vms"].size(), 1u);
  const json& vm = hv["vms"][0];
  EXPECT_EQ(vm["id"], "gpuvm");
  EXPECT_EQ(vm["running"], true);
  EXPECT_EQ(vm["pid"], 41877);
  EXPECT_EQ(vm["smbios_uuid"], "8e4c2f1a-7d3b-4a96-b5e0-1c9f6a2d4e87");
  EXPECT_EQ(vm["qemu_json_devices"], true);
  EXPECT_EQ(vm["numa_nodes"][1]["hostnodes"], "1");
  // The USB hostdev is hostdev0: the GPUs are hostdev1-4, as the running state's aliases say.
  ASSERT_EQ(vm["hostpci"].size(), 4u);
  EXPECT_EQ(vm["hostpci"][0]["slot"], "hostdev1");
  EXPECT_EQ(vm["hostpci"][0]["host"], "0000:43:00.0");
  EXPECT_EQ(vm["hostpci"][0]["guest_bus"], "0000:05:00.0");
  EXPECT_EQ(vm["hostpci"][3]["running_host_address"], "0000:e1:00.0");
  EXPECT_EQ((*h)["provenance"]["/hypervisor/vms/0/hostpci/3/running_host_address"]["from"],
            "/proc/41877/cmdline");

  const json* g = GhMachine(j, "gpuvm");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ((*g)["host_link"]["how"], "smbios-uuid");
  EXPECT_EQ((*g)["host_link"]["host"], "kvm1");
  EXPECT_EQ((*g)["host_link"]["vm_id"], "gpuvm");
  const json& pt = (*g)["passthrough"];
  ASSERT_EQ(pt.size(), 4u);
  const char* host[] = {"0000:43:00.0", "0000:44:00.0", "0000:c1:00.0", "0000:e1:00.0"};
  const int node[] = {0, 0, 1, 1};
  for (size_t i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(pt[i]["guest_address"], "0000:0" + std::to_string(i + 5) + ":00.0");
    EXPECT_EQ(pt[i]["slot"], "hostdev" + std::to_string(i + 1));
    EXPECT_EQ(pt[i]["host_address"], host[i]);
    EXPECT_EQ(pt[i]["source"], "qemu-cmdline");
    EXPECT_EQ(pt[i]["host_numa_node"], node[i]);
  }
  EXPECT_EQ(pt[0]["host_root_complex"], "pci0000:40");
  EXPECT_EQ(pt[3]["host_root_complex"], "pci0000:e0");
  // The host's level per guest pair: the switch pair can form a clique; across root complexes,
  // with no P2P status from the host's driver, whether one can is not known (null, not false).
  const json& pairs = (*g)["host_link"]["pairs"];
  ASSERT_EQ(pairs.size(), 6u);
  std::map<std::string, json> by;
  for (const auto& p : pairs)
    by[p["guest_a"].get<std::string>() + "-" + p["guest_b"].get<std::string>()] = p;
  const json& sw = by["0000:05:00.0-0000:06:00.0"];
  EXPECT_TRUE(sw["host_level"] == "PIX" || sw["host_level"] == "PXB") << sw.dump();
  EXPECT_EQ(sw["clique"], true);
  EXPECT_EQ(by["0000:05:00.0-0000:07:00.0"]["host_level"], "SYS");
  EXPECT_TRUE(by["0000:05:00.0-0000:07:00.0"]["clique"].is_null());
  EXPECT_EQ(by["0000:07:00.0-0000:08:00.0"]["host_level"], "NODE");
  EXPECT_TRUE(by["0000:07:00.0-0000:08:00.0"]["clique"].is_null());

  // The rule names the host level per group of pairs and where a clique can help.
  const json* f = nullptr;
  for (const auto& x : (*g)["findings"])
    if (x["id"] == "p2p.vm-isolated") f = &x;
  ASSERT_NE(f, nullptr);
  std::string ev = (*f)["evidence"].dump();
  EXPECT_NE(ev.find("host level SYS, 4 guest GPU pair(s)"), std::string::npos) << ev;
  EXPECT_NE(ev.find("host level NODE, 1 guest GPU pair(s) GPU2-GPU3"), std::string::npos) << ev;
  EXPECT_NE(ev.find("x-nv-gpudirect-clique can help: they share a PCIe switch on the host"),
            std::string::npos)
      << ev;
  EXPECT_NE((*f)["actions"].dump().find("dossier generate qemu-args --machine gpuvm"),
            std::string::npos)
      << (*f)["actions"].dump();

  // The report's matrix: the guest's flat PHB beside the host's real level.
  auto md = RunDossier({"report", "--dossier", d.dir});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  EXPECT_NE(md.out.find("PHB (host: SYS)"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("PHB (host: NODE)"), std::string::npos);
  EXPECT_NE(md.out.find(", P2P)"), std::string::npos);
}

// qemu-args for the libvirt guest: a <qemu:override> (its QEMU got JSON -device) for the one
// pair under the host's switch, the others said with their reason.
TEST(GuestHost, LibvirtQemuArgsGolden) {
  SeedDossier d("libvirt-guest", "libvirt-host");
  auto r = RunDossier({"generate", "qemu-args", "--machine", "gpuvm", "--dossier", d.dir});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string text = "--- stdout\n" + r.out + "--- stderr\n" + r.err;
  for (size_t at; (at = text.find(d.dir)) != std::string::npos;)
    text.replace(at, d.dir.size(), "<dir>");
  testing::ExpectMatchesGolden("generate-qemu-args-libvirt.txt", text);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(r.out.c_str())) << r.out;
  int devices = 0;
  for (auto dev : doc.child("qemu:override").children("qemu:device")) {
    ++devices;
    EXPECT_STREQ(dev.child("qemu:frontend").child("qemu:property").attribute("value").value(), "0");
  }
  EXPECT_EQ(devices, 2);
  EXPECT_STREQ(doc.child("qemu:override").first_child().attribute("alias").value(), "hostdev1");
}

}  // namespace
}  // namespace dossier
