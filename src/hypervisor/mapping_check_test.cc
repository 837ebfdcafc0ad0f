// The Proxmox mapping check field by field: an entry and the device it names agree in everything
// but one field, once per field, and the check must name that field alone (in Proxmox's words),
// or, for a field Proxmox does not compare, stay "ok". IOMMU group 0 is a group like any other
// (a legitimate value, not "none").
#include <gtest/gtest.h>

#include <functional>
#include <iterator>
#include <type_traits>

#include "hypervisor/mapping_check.h"

namespace dossier::hypervisor {
namespace {

PciMappingEntry MapAgreeingEntry() {
  PciMappingEntry e;
  e.path = Known(std::string("0000:41:00.0"), "pci.cfg:2");
  e.id = Known(std::string("10de:2bb1"), "pci.cfg:2");
  e.subsystem_id = Known(std::string("10de:204b"), "pci.cfg:2");
  e.node = Known(std::string("pve1"), "pci.cfg:2");
  e.iommugroup = Known<int64_t>(0, "pci.cfg:2");
  return e;
}

PciDevice MapAgreeingDevice() {
  PciDevice d;
  d.address = "0000:41:00.0";
  d.vendor_id = Known(std::string("0x10de"), "vendor");
  d.device_id = Known(std::string("0x2bb1"), "device");
  d.subsystem_vendor_id = Known(std::string("0x10de"), "subsystem_vendor");
  d.subsystem_device_id = Known(std::string("0x204b"), "subsystem_device");
  d.iommu_group = Known<int64_t>(0, "iommu_group");
  return d;
}

struct MapChecked {
  std::string status;  // or "unknown: REASON"
  std::string problem;
  std::string group_now;
};

MapChecked MapCheck(const std::function<void(PciMappingEntry*, PciDevice*)>& change,
                    const std::string& node = "pve1") {
  std::vector<PciMapping> maps(1);
  maps[0].name = "gpu";
  maps[0].entries.push_back(MapAgreeingEntry());
  PciInfo pci;
  pci.devices.push_back(MapAgreeingDevice());
  change(&maps[0].entries[0], &pci.devices[0]);
  CheckPciMappings(node, pci, "/sys/bus/pci/devices", &maps);
  const auto& e = maps[0].entries[0];
  auto text = [](const auto& f) -> std::string {
    if (!f.known()) return "unknown: " + f.unknown;
    if constexpr (std::is_same_v<std::decay_t<decltype(*f)>, std::string>)
      return *f;
    else
      return std::to_string(*f);
  };
  return {text(e.status), e.problem.known() ? *e.problem : "", text(e.iommu_group_now)};
}

TEST(MappingCheckField, AgreeingEntryIsOkWithGroupZero) {
  MapChecked c = MapCheck([](PciMappingEntry*, PciDevice*) {});
  EXPECT_EQ(c.status, "ok");
  EXPECT_EQ(c.problem, "");
  EXPECT_EQ(c.group_now, "0");
}

TEST(MappingCheckField, EachComparedFieldThatDiffersAloneIsNamedAlone) {
  struct Case {
    const char* field;
    std::function<void(PciMappingEntry*, PciDevice*)> change;
    const char* problem;
  };
  const Case cases[] = {
      {"vendor", [](auto*, PciDevice* d) { d->vendor_id = Known(std::string("0x1002"), "v"); },
       "'id' does not match for 'gpu' (10de:2bb1 != 1002:2bb1)"},
      {"device", [](auto*, PciDevice* d) { d->device_id = Known(std::string("0x2bb5"), "v"); },
       "'id' does not match for 'gpu' (10de:2bb1 != 10de:2bb5)"},
      {"subsystem vendor",
       [](auto*, PciDevice* d) { d->subsystem_vendor_id = Known(std::string("0x17aa"), "v"); },
       "'subsystem-id' does not match for 'gpu' (10de:204b != 17aa:204b)"},
      {"subsystem device",
       [](auto*, PciDevice* d) { d->subsystem_device_id = Known(std::string("0x204c"), "v"); },
       "'subsystem-id' does not match for 'gpu' (10de:204b != 10de:204c)"},
      {"group now", [](auto*, PciDevice* d) { d->iommu_group = Known<int64_t>(1, "g"); },
       "'iommugroup' does not match for 'gpu' (0 != 1)"},
      {"group configured",
       [](PciMappingEntry* e, auto*) { e->iommugroup = Known<int64_t>(7, "c"); },
       "'iommugroup' does not match for 'gpu' (7 != 0)"},
      {"group unknown now", [](auto*, PciDevice* d) { d->iommu_group.Unknown("IOMMU off", "g"); },
       "'iommugroup' does not match for 'gpu' (0 != none: IOMMU off)"},
  };
  for (const auto& c : cases) {
    MapChecked r = MapCheck(c.change);
    EXPECT_EQ(r.status, "stale") << c.field;
    EXPECT_EQ(r.problem, c.problem) << c.field;
  }
}

TEST(MappingCheckField, AllThreeDifferingAreNamedInProxmoxsOrder) {
  MapChecked r = MapCheck([](PciMappingEntry*, PciDevice* d) {
    d->device_id = Known(std::string("0x2bb5"), "v");
    d->subsystem_device_id = Known(std::string("0x204c"), "v");
    d->iommu_group = Known<int64_t>(3, "g");
  });
  EXPECT_EQ(r.problem,
            "'id' does not match for 'gpu' (10de:2bb1 != 10de:2bb5); 'subsystem-id' does not "
            "match for 'gpu' (10de:204b != 10de:204c); 'iommugroup' does not match for 'gpu' "
            "(0 != 3)");
  EXPECT_EQ(r.group_now, "3");
}

TEST(MappingCheckField, FieldsProxmoxDoesNotCompareLeaveItOk) {
  // Case and the 0x prefix of the ids, an id or group the entry does not set, a second path
  // (only the first is checked), a device's unknown subsystem id.
  const std::function<void(PciMappingEntry*, PciDevice*)> same[] = {
      [](auto*, PciDevice* d) { d->device_id = Known(std::string("0x2BB1"), "v"); },
      [](PciMappingEntry* e, auto*) { e->id = Fact<std::string>(); },
      [](PciMappingEntry* e, PciDevice* d) {
        e->iommugroup = Fact<int64_t>();
        d->iommu_group = Known<int64_t>(9, "g");
      },
      [](PciMappingEntry* e, auto*) {
        e->path = Known(std::string("0000:41:00.0;0000:99:00.0"), "p");
      },
      [](auto*, PciDevice* d) { d->subsystem_device_id.Unknown("not read", "v"); },
  };
  for (size_t i = 0; i < std::size(same); ++i) {
    MapChecked r = MapCheck(same[i]);
    EXPECT_EQ(r.status, "ok") << i << ": " << r.problem;
  }
}

TEST(MappingCheckField, NodePathAndDeviceDecideBeforeAnyField) {
  MapChecked other = MapCheck([](auto*, auto*) {}, "pve2");
  EXPECT_EQ(other.status, "other-node");
  EXPECT_EQ(other.group_now, "unknown: an entry for node 'pve1', not this one");

  MapChecked moved = MapCheck([](auto*, PciDevice* d) { d->address = "0000:42:00.0"; });
  EXPECT_EQ(moved.status, "missing");
  EXPECT_EQ(moved.problem, "no device at 0000:41:00.0 on this machine");

  MapChecked first = MapCheck([](PciMappingEntry* e, auto*) {
    e->path = Known(std::string("0000:99:00.0;0000:41:00.0"), "p");
  });
  EXPECT_EQ(first.status, "missing");  // the first path is the one checked

  MapChecked short_form = MapCheck([](PciMappingEntry* e, auto*) {
    e->path = Known(std::string("41:00.0"), "p");  // Proxmox accepts the domain left out
  });
  EXPECT_EQ(short_form.status, "ok");

  MapChecked no_host = MapCheck([](auto*, auto*) {}, "");
  EXPECT_EQ(no_host.status, "unknown: this machine's Proxmox node name is unknown (no hostname)");

  MapChecked not_pci =
      MapCheck([](PciMappingEntry* e, auto*) { e->path = Known(std::string("gpu0"), "p"); });
  EXPECT_EQ(not_pci.status, "unknown: path 'gpu0' is not a PCI address");
}

}  // namespace
}  // namespace dossier::hypervisor
