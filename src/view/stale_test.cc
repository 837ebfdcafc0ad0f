// Staleness of facts: every fact marked once (a reason already there stays), and the facts the
// newest collect could not read filled from an older one with where they came from and why.
#include "view/stale.h"

#include <gtest/gtest.h>

#include <string>

#include "model/fact_paths.h"

namespace dossier {
namespace {

TEST(MarkAllStale, EveryFactKnownOrNotGetsTheReasonUnlessItHasOne) {
  Machine m;
  m.cpu.model.Set("EPYC", "/proc/cpuinfo");
  m.cpu.model.stale = "its own reason";
  m.hostname.Set("h1", "/etc/hostname");
  PciDevice d;
  d.address = "0000:01:00.0";
  d.numa_node.Set(0, "/sys/x/numa_node");  // a zero is a value like any other
  m.pci.devices.push_back(d);
  MarkAllStale(&m, "rebooted");
  EXPECT_EQ(m.cpu.model.stale, "its own reason");
  EXPECT_EQ(m.hostname.stale, "rebooted");
  EXPECT_EQ(m.pci.devices[0].numa_node.stale, "rebooted");
  EXPECT_EQ(m.memory.total_bytes.stale, "rebooted");  // unknown: marked as well
  int facts = 0, marked = 0;
  WalkPaths(m, [&](const std::string&, auto& leaf) {
    if constexpr (IsFactType<std::remove_reference_t<decltype(leaf)>>::value) {
      ++facts;
      marked += !leaf.stale.empty();
    }
  });
  EXPECT_EQ(marked, facts);
}

// Only unknown facts are filled, only from a known fact at the same path, with the older value
// and source; the reason the newest could not read it is kept in the stale text. The count is of
// facts filled.
TEST(FillFromOlder, FillsOnlyTheUnknownFromTheKnownAndCountsThem) {
  Machine older, latest;
  older.hostname.Set("old-name", "/etc/hostname");
  older.cpu.model.Set("EPYC 9654", "/proc/cpuinfo");
  older.cpu.vendor.Unknown("not read", "/proc/cpuinfo");
  PciDevice od;
  od.address = "0000:01:00.0";
  od.numa_node.Set(0, "/sys/bus/pci/devices/0000:01:00.0/numa_node");
  od.acs.control.Set({"SrcValid+"}, "config space");
  older.pci.devices.push_back(od);

  latest.hostname.Set("new-name", "/etc/hostname");    // known: stays
  latest.cpu.model.Unknown("needs root", "/dev/cpu");  // unknown with a reason: filled
  PciDevice ld;
  ld.address = "0000:01:00.0";
  ld.acs.control.Unknown("needs root", "config space");
  latest.pci.devices.push_back(ld);  // numa_node never read, acs needs root

  EXPECT_EQ(FillFromOlder(&latest, older, "from the older record r1"), 3);
  EXPECT_EQ(*latest.hostname, "new-name");
  EXPECT_EQ(latest.hostname.stale, "");
  EXPECT_EQ(*latest.cpu.model, "EPYC 9654");
  EXPECT_EQ(latest.cpu.model.source, "/proc/cpuinfo");
  EXPECT_EQ(latest.cpu.model.stale, "from the older record r1 (needs root)");
  EXPECT_EQ(latest.cpu.model.unknown, "");
  EXPECT_FALSE(latest.cpu.vendor.known());  // unknown in both
  EXPECT_EQ(latest.cpu.vendor.stale, "");
  const PciDevice& d = latest.pci.devices[0];
  EXPECT_EQ(d.numa_node.value_or(-1), 0);
  EXPECT_EQ(d.numa_node.stale, "from the older record r1");  // no reason to add
  ASSERT_TRUE(d.acs.control.known());
  EXPECT_EQ(*d.acs.control, std::vector<std::string>{"SrcValid+"});
  // A second pass finds nothing left to fill.
  EXPECT_EQ(FillFromOlder(&latest, older, "again"), 0);
  EXPECT_EQ(latest.cpu.model.stale, "from the older record r1 (needs root)");
}

}  // namespace
}  // namespace dossier
