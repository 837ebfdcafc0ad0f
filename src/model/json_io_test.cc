#include "model/json_io.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dossier {
namespace {

Machine Sample() {
  Machine m;
  m.name = "guest";
  m.hostname.Set("glm5-vm", "/proc/sys/kernel/hostname");
  m.cpu.model.Set("AMD EPYC 9335", "/proc/cpuinfo:5");
  m.cpu.sockets.Unknown("no 'physical id' lines", "/proc/cpuinfo");
  PciDevice d;
  d.address = "0000:01:00.0";
  d.numa_node.Unknown("not an integer: 'abc'", "/sys/bus/pci/devices/0000:01:00.0/numa_node");
  d.link.current.gen.Set(5, "/sys/bus/pci/devices/0000:01:00.0/current_link_speed");
  d.acs.control.Set({"SV", "RR"}, "config space");
  m.pci.devices.push_back(d);
  m.topology.gpu_levels = {{"X", "PHB"}, {"PHB", "X"}};
  m.software.env["NCCL_DEBUG"] = "INFO";
  return m;
}

TEST(JsonIo, UnknownIsNullWithItsReasonInProvenance) {
  nlohmann::json j = MachineToJson(Sample());
  EXPECT_TRUE(j["cpu"]["sockets"].is_null());
  EXPECT_EQ(j["provenance"]["/cpu/sockets"]["unknown"], "no 'physical id' lines");
  EXPECT_EQ(j["cpu"]["model"], "AMD EPYC 9335");
  EXPECT_EQ(j["provenance"]["/cpu/model"]["from"], "/proc/cpuinfo:5");
  EXPECT_TRUE(j["pci"]["devices"][0]["numa_node"].is_null());
  EXPECT_EQ(j["provenance"]["/pci/devices/0/numa_node"]["unknown"], "not an integer: 'abc'");
  EXPECT_EQ(j["pci"]["devices"][0]["link"]["current"]["gen"], 5);
  EXPECT_EQ(j["pci"]["devices"][0]["acs"]["control"][1], "RR");
}

TEST(JsonIo, RoundTripKeepsValuesSourcesAndReasons) {
  std::vector<std::string> warnings;
  Machine back = MachineFromJson(MachineToJson(Sample()), &warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(*back.hostname, "glm5-vm");
  EXPECT_EQ(back.cpu.model.source, "/proc/cpuinfo:5");
  EXPECT_FALSE(back.cpu.sockets.known());
  EXPECT_EQ(back.cpu.sockets.unknown, "no 'physical id' lines");
  ASSERT_EQ(back.pci.devices.size(), 1u);
  EXPECT_EQ(back.pci.devices[0].numa_node.unknown, "not an integer: 'abc'");
  EXPECT_EQ(*back.pci.devices[0].link.current.gen, 5);
  EXPECT_EQ(back.topology.gpu_levels[0][1], "PHB");
  EXPECT_EQ(back.software.env.at("NCCL_DEBUG"), "INFO");
  EXPECT_EQ(MachineToJson(back), MachineToJson(Sample()));
}

TEST(JsonIo, OlderOrDamagedRecordsReadAsUnknownNotCrash) {
  nlohmann::json j = MachineToJson(Sample());
  j["cpu"].erase("model");          // a field an older writer did not have
  j["hostname"] = 42;               // wrong type
  j["pci"]["devices"] = "garbage";  // wrong shape
  std::vector<std::string> warnings;
  Machine back = MachineFromJson(j, &warnings);
  EXPECT_FALSE(back.cpu.model.known());
  EXPECT_NE(back.cpu.model.unknown.find("not in this record"), std::string::npos);
  EXPECT_FALSE(back.hostname.known());
  EXPECT_TRUE(back.pci.devices.empty());
  EXPECT_GE(warnings.size(), 2u);
}

// A number outside its field's domain is unknown with a warning naming the key, as a wrong type
// is: never a wrong fact (-1 bytes read as 16384 PiB, 1e30 as 0, 1.5 as 1, -7 threads kept).
TEST(JsonIo, NumbersOutsideTheirDomainAreUnknownWithAWarning) {
  nlohmann::json j = MachineToJson(Sample());
  j["memory"]["total_bytes"] = -1;
  j["cpu"]["threads"] = -7;
  j["cpu"]["cores"] = 1.5;
  j["cpu"]["sockets"] = 1e30;
  j["pci"]["devices"][0]["link"]["current"]["gen"] = -5;
  j["pci"]["devices"][0]["numa_node"] = -1;  // -1 is "none": kept
  j["numa"]["nodes"] = nlohmann::json::array({{{"id", 0}, {"memory_bytes", 2.0}}});
  std::vector<std::string> warnings;
  Machine m = MachineFromJson(j, &warnings);
  EXPECT_FALSE(m.memory.total_bytes.known());
  EXPECT_FALSE(m.cpu.threads.known());
  EXPECT_FALSE(m.cpu.cores.known());
  EXPECT_FALSE(m.cpu.sockets.known());
  EXPECT_FALSE(m.pci.devices[0].link.current.gen.known());
  EXPECT_EQ(m.pci.devices[0].numa_node.value_or(0), -1);
  ASSERT_EQ(m.numa.nodes.size(), 1u);
  EXPECT_EQ(m.numa.nodes[0].memory_bytes.value_or(0), 2u);  // a whole number written as 2.0
  std::string all;
  for (const auto& w : warnings) all += w + "\n";
  for (const char* key : {"/memory/total_bytes", "/cpu/threads", "/cpu/cores", "/cpu/sockets",
                          "/pci/devices/0/link/current/gen"})
    EXPECT_NE(all.find(std::string("outside its domain at ") + key), std::string::npos)
        << key << "\n"
        << all;
  EXPECT_EQ(all.find("numa_node"), std::string::npos) << all;
  EXPECT_NE(m.cpu.threads.unknown.find("outside its domain"), std::string::npos);
  EXPECT_NE(all.find("1.5 is not a whole number"), std::string::npos) << all;
}

// What an imported NCCL log said comes back from the record whole: each rank's fields, each
// connection, each refused pair with the GPUs it names.
TEST(JsonIo, NcclFactsRoundTrip) {
  Machine m;
  m.name = "n";
  NcclRank r;
  r.rank = 1;
  r.nranks = Known<int64_t>(2, "imported: a.log:3 (nccl-log)");
  r.cuda_device = Known<int64_t>(1, "imported: a.log:3 (nccl-log)");
  r.bus_id = Known(std::string("0000:81:00.0"), "imported: a.log:3 (nccl-log)");
  m.nccl.ranks = {r};
  m.nccl.connections = {{0, 1, 0, "SHM/direct/direct", "imported: a.log:5 (nccl-log)"}};
  m.nccl.p2p_refused = {{"Could not enable P2P between dev 1(=81000) and dev 0(=1000)",
                         "imported: a.log:4 (nccl-log)",
                         {1, 0},
                         {"0000:81:00.0", "0000:01:00.0"}}};
  std::vector<std::string> warnings;
  Machine back = MachineFromJson(MachineToJson(m), &warnings);
  ASSERT_EQ(back.nccl.ranks.size(), 1u);
  EXPECT_EQ(back.nccl.ranks[0].rank, 1);
  EXPECT_EQ(back.nccl.ranks[0].nranks.value_or(0), 2);
  EXPECT_EQ(back.nccl.ranks[0].nranks.source, "imported: a.log:3 (nccl-log)");
  EXPECT_EQ(back.nccl.ranks[0].cuda_device.value_or(0), 1);
  EXPECT_EQ(back.nccl.ranks[0].bus_id.value_or(""), "0000:81:00.0");
  ASSERT_EQ(back.nccl.connections.size(), 1u);
  EXPECT_EQ(back.nccl.connections[0].from_rank, 1);
  EXPECT_EQ(back.nccl.connections[0].transport, "SHM/direct/direct");
  ASSERT_EQ(back.nccl.p2p_refused.size(), 1u);
  EXPECT_EQ(back.nccl.p2p_refused[0].devices, (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(back.nccl.p2p_refused[0].bus_ids[1], "0000:01:00.0");
}

// Past the ceiling the hardware or the kernel sets: a damaged record, not a fact (an x64 link, a
// generation 99, NUMA node 5000); at the ceiling, kept.
TEST(JsonIo, NumbersAboveTheirCeilingAreUnknown) {
  nlohmann::json j = MachineToJson(Sample());
  j["pci"]["devices"][0]["link"]["current"]["width"] = 64;
  j["pci"]["devices"][0]["link"]["current"]["gen"] = 99;
  j["pci"]["devices"][0]["numa_node"] = 5000;
  j["cpu"]["threads"] = 65536;  // the ceiling itself
  std::vector<std::string> warnings;
  Machine m = MachineFromJson(j, &warnings);
  EXPECT_FALSE(m.pci.devices[0].link.current.width.known());
  EXPECT_FALSE(m.pci.devices[0].link.current.gen.known());
  EXPECT_FALSE(m.pci.devices[0].numa_node.known());
  EXPECT_EQ(m.cpu.threads.value_or(0), 65536);
  std::string all;
  for (const auto& w : warnings) all += w + "\n";
  EXPECT_NE(all.find("64 is above 32 (a PCIe link is at most x32)"), std::string::npos) << all;
  EXPECT_NE(all.find("99 is above 10"), std::string::npos) << all;
  EXPECT_NE(all.find("5000 is above 1023"), std::string::npos) << all;
}

}  // namespace
}  // namespace dossier
