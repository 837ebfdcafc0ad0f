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

}  // namespace
}  // namespace dossier
