#include "probe/pci_config.h"

#include <gtest/gtest.h>

#include <random>

namespace dossier {
namespace {

// Configuration space built by hand, little-endian as the hardware lays it out.
class Config {
 public:
  explicit Config(size_t size = 4096) : b_(size, '\0') {
    Set16(0x00, 0x10de);  // vendor
    Set16(0x02, 0x2230);  // device
  }
  void Set8(size_t at, uint8_t v) { b_.at(at) = static_cast<char>(v); }
  void Set16(size_t at, uint16_t v) {
    Set8(at, v & 0xff);
    Set8(at + 1, v >> 8);
  }
  void Set32(size_t at, uint32_t v) {
    Set16(at, v & 0xffff);
    Set16(at + 2, v >> 16);
  }
  // Turns on the capability list (status bit 4) and points it at `first`.
  void CapList(uint8_t first) {
    Set16(0x06, 0x0010);
    Set8(0x34, first);
  }
  void Cap(size_t at, uint8_t id, uint8_t next) {
    Set8(at, id);
    Set8(at + 1, next);
  }
  // PCI Express capability: port type, Link Capabilities (max) and Link Status (current).
  void Express(size_t at, uint8_t next, unsigned type, unsigned max_speed, unsigned max_width,
               unsigned cur_speed, unsigned cur_width) {
    Cap(at, 0x10, next);
    Set16(at + 2, static_cast<uint16_t>(0x2 | type << 4));
    Set32(at + 0x0c, max_speed | max_width << 4);
    Set16(at + 0x12, static_cast<uint16_t>(cur_speed | cur_width << 4));
  }
  void Ext(size_t at, uint16_t id, uint16_t next) {
    Set32(at, id | 1u << 16 | uint32_t{next} << 20);
  }
  std::string bytes() const { return b_; }
  std::string first(size_t n) const { return b_.substr(0, n); }

 private:
  std::string b_;
};

constexpr const char* kPath = "/sys/bus/pci/devices/0000:01:00.0/config";
constexpr const char* kNoExtended =
    "no extended configuration space (conventional PCI bus, e.g. an i440FX guest)";

// A GPU like the RTX 6000 Ada sample: legacy endpoint, Gen4 x16 trained down to Gen1 at idle,
// extended list VC -> LTR -> Resizable BAR, no ACS.
Config GpuConfig() {
  Config c;
  c.CapList(0x60);
  c.Cap(0x60, 0x01, 0x68);  // power management
  c.Cap(0x68, 0x05, 0x78);  // MSI
  c.Express(0x78, 0xb4, 1, 4, 16, 1, 16);
  c.Cap(0xb4, 0x09, 0x00);  // vendor specific, end
  c.Ext(0x100, 0x0002, 0x250);
  c.Ext(0x250, 0x0018, 0xbb0);
  c.Ext(0xbb0, 0x0015, 0x000);
  // BAR 1: 64 MiB .. 64 GiB supported (bits 10..20), currently 64 GiB (n = 16), one BAR.
  uint32_t supported = 0;
  for (int bit = 10; bit <= 20; ++bit) supported |= 1u << bit;
  c.Set32(0xbb4, supported);
  c.Set32(0xbb8, 1 | 1u << 5 | 16u << 8);
  return c;
}

// A root port with ACS: capability SV TB RR CR UF, control SV RR CR.
Config RootPortWithAcs() {
  Config c;
  c.Set8(0x0e, 0x01);  // bridge header
  c.CapList(0x40);
  c.Express(0x40, 0x00, 4, 5, 16, 5, 16);
  c.Ext(0x100, 0x0001, 0x148);  // AER
  c.Ext(0x148, 0x000d, 0x000);
  c.Set16(0x14c, 0x001f);
  c.Set16(0x14e, 0x000d);
  return c;
}

TEST(PciConfigTest, GpuPortTypeLinkAndResizableBar) {
  PciConfig c = DecodePciConfig(GpuConfig().bytes(), kPath);
  ASSERT_TRUE(c.port_type.known()) << c.port_type.unknown;
  EXPECT_EQ(*c.port_type, "legacy_endpoint");
  EXPECT_NE(c.port_type.source.find(kPath), std::string::npos);
  EXPECT_EQ(c.link.max.gen.value_or(0), 4);
  EXPECT_EQ(c.link.max.width.value_or(0), 16);
  EXPECT_EQ(c.link.current.gen.value_or(0), 1);
  EXPECT_EQ(c.link.current.width.value_or(0), 16);

  ASSERT_TRUE(c.acs.present.known());
  EXPECT_FALSE(*c.acs.present);
  ASSERT_TRUE(c.acs.capability.known());  // empty but known: the device has none
  EXPECT_TRUE(c.acs.capability->empty());
  ASSERT_TRUE(c.acs.control.known());

  ASSERT_TRUE(c.rebar.present.known());
  EXPECT_TRUE(*c.rebar.present);
  ASSERT_EQ(c.rebar.bars.size(), 1u);
  EXPECT_EQ(c.rebar.bars[0].bar, 1);
  EXPECT_EQ(c.rebar.bars[0].current_bytes, 64ull << 30);
  ASSERT_EQ(c.rebar.bars[0].supported_bytes.size(), 11u);
  EXPECT_EQ(c.rebar.bars[0].supported_bytes.front(), 64ull << 20);
  EXPECT_EQ(c.rebar.bars[0].supported_bytes.back(), 64ull << 30);
}

TEST(PciConfigTest, RootPortAcsBits) {
  PciConfig c = DecodePciConfig(RootPortWithAcs().bytes(), kPath);
  EXPECT_EQ(c.port_type.value_or(""), "root_port");
  EXPECT_EQ(c.link.max.gen.value_or(0), 5);
  ASSERT_TRUE(c.acs.present.known());
  EXPECT_TRUE(*c.acs.present);
  EXPECT_EQ(c.acs.capability.value_or({}),
            (std::vector<std::string>{"SV", "TB", "RR", "CR", "UF"}));
  EXPECT_EQ(c.acs.control.value_or({}), (std::vector<std::string>{"SV", "RR", "CR"}));
  EXPECT_NE(c.acs.present.source.find("ACS capability at 0x148"), std::string::npos);
  EXPECT_EQ(c.rebar.present.value_or(true), false);
}

TEST(PciConfigTest, PortTypeNames) {
  const std::pair<unsigned, const char*> kTypes[] = {
      {0, "endpoint"},           {1, "legacy_endpoint"},
      {4, "root_port"},          {5, "upstream"},
      {6, "downstream"},         {7, "pcie_to_pci_bridge"},
      {8, "pci_to_pcie_bridge"}, {9, "rc_integrated_endpoint"},
      {10, "rc_event_collector"}};
  for (auto [type, name] : kTypes) {
    Config c;
    c.CapList(0x40);
    c.Express(0x40, 0, type, 3, 8, 3, 8);
    EXPECT_EQ(DecodePciConfig(c.bytes(), kPath).port_type.value_or("?"), name) << type;
  }
  Config reserved;
  reserved.CapList(0x40);
  reserved.Express(0x40, 0, 3, 3, 8, 3, 8);
  PciConfig r = DecodePciConfig(reserved.bytes(), kPath);
  EXPECT_FALSE(r.port_type.known());
  EXPECT_EQ(r.port_type.unknown, "reserved port type 3");
}

TEST(PciConfigTest, IntegratedEndpointHasNoLink) {
  Config c;
  c.CapList(0x40);
  c.Express(0x40, 0, 9, 0, 0, 0, 0);
  PciConfig p = DecodePciConfig(c.bytes(), kPath);
  EXPECT_EQ(p.port_type.value_or(""), "rc_integrated_endpoint");
  EXPECT_FALSE(p.link.current.gen.known());
  EXPECT_EQ(p.link.current.gen.unknown, "no link (integrated into the root complex)");
}

TEST(PciConfigTest, LinkDownIsUnknownNotZero) {
  Config c;
  c.CapList(0x40);
  c.Express(0x40, 0, 6, 5, 16, 0, 0);  // a downstream port with nothing behind it
  PciConfig p = DecodePciConfig(c.bytes(), kPath);
  EXPECT_EQ(p.link.max.gen.value_or(0), 5);
  EXPECT_FALSE(p.link.current.gen.known());
  EXPECT_FALSE(p.link.current.width.known());
  EXPECT_EQ(p.link.current.width.unknown, "link width field is 0 (link down)");
}

TEST(PciConfigTest, UnprivilegedSixtyFourBytesNeedRoot) {
  PciConfig c = DecodePciConfig(GpuConfig().first(64), kPath);
  EXPECT_FALSE(c.port_type.known());
  EXPECT_EQ(c.port_type.unknown, "needs root");
  EXPECT_EQ(c.acs.present.unknown, "needs root");
  EXPECT_EQ(c.acs.capability.unknown, "needs root");
  EXPECT_EQ(c.acs.control.unknown, "needs root");
  EXPECT_EQ(c.rebar.present.unknown, "needs root");
  EXPECT_EQ(c.link.current.gen.unknown, "needs root");
}

TEST(PciConfigTest, TwoHundredFiftySixBytesHaveNoExtendedSpace) {
  PciConfig c = DecodePciConfig(GpuConfig().first(256), kPath);
  EXPECT_EQ(c.port_type.value_or(""), "legacy_endpoint");  // still in the first 256 bytes
  EXPECT_EQ(c.link.max.gen.value_or(0), 4);
  EXPECT_FALSE(c.acs.present.known());
  EXPECT_EQ(c.acs.present.unknown, kNoExtended);
  EXPECT_EQ(c.acs.capability.unknown, kNoExtended);
  EXPECT_FALSE(c.rebar.present.known());
  EXPECT_EQ(c.rebar.present.unknown, kNoExtended);
}

TEST(PciConfigTest, ShortHeaderAndEmpty) {
  PciConfig c = DecodePciConfig(GpuConfig().first(20), kPath);
  EXPECT_FALSE(c.port_type.known());
  EXPECT_NE(c.port_type.unknown.find("truncated at 20 bytes"), std::string::npos);
  PciConfig e = DecodePciConfig("", kPath);
  EXPECT_EQ(e.port_type.unknown, "configuration space empty");
  EXPECT_FALSE(e.acs.present.known());
}

TEST(PciConfigTest, TruncatedInsideTheCapabilityList) {
  // 0x60 -> 0x68 -> 0x78 (Express): cut at 0x70, before the PCI Express capability.
  PciConfig c = DecodePciConfig(GpuConfig().first(0x70), kPath);
  EXPECT_FALSE(c.port_type.known());
  EXPECT_EQ(c.port_type.unknown, "configuration space truncated at 112 bytes");
  // Cut inside the Express capability: the type is there, Link Status is not.
  PciConfig d = DecodePciConfig(GpuConfig().first(0x80), kPath);
  EXPECT_EQ(d.port_type.value_or(""), "legacy_endpoint");
  EXPECT_FALSE(d.link.current.gen.known());
  // Cut inside the extended list, before Resizable BAR.
  PciConfig e = DecodePciConfig(GpuConfig().first(0x300), kPath);
  EXPECT_FALSE(e.rebar.present.known());
  EXPECT_EQ(e.rebar.present.unknown, "configuration space truncated at 768 bytes");
  EXPECT_FALSE(e.acs.present.known());
}

TEST(PciConfigTest, ConventionalDeviceHasNoExpressAndNoAcs) {
  Config c;
  c.CapList(0x40);
  c.Cap(0x40, 0x01, 0x00);  // power management only
  PciConfig p = DecodePciConfig(c.bytes(), kPath);
  EXPECT_FALSE(p.port_type.known());
  EXPECT_EQ(p.port_type.unknown, "no PCI Express capability (conventional PCI device)");
  EXPECT_EQ(p.acs.present.value_or(true), false);
  EXPECT_TRUE(p.acs.capability.known());
  EXPECT_EQ(p.rebar.present.value_or(true), false);

  Config none;  // status bit 4 clear: no list at all
  PciConfig q = DecodePciConfig(none.bytes(), kPath);
  EXPECT_EQ(q.port_type.unknown, "no PCI Express capability (conventional PCI device)");
}

TEST(PciConfigTest, StandardListThatLoopsEnds) {
  Config c;
  c.CapList(0x40);
  c.Cap(0x40, 0x01, 0x50);
  c.Cap(0x50, 0x05, 0x40);  // back to the first
  PciCapabilityList l = WalkPciCapabilities(c.bytes());
  EXPECT_EQ(l.end, PciWalkEnd::kLoop);
  EXPECT_EQ(l.caps.size(), 2u);
  PciConfig p = DecodePciConfig(c.bytes(), kPath);
  EXPECT_FALSE(p.port_type.known());
  EXPECT_EQ(p.port_type.unknown, "standard capability list loops (garbage configuration space)");
  EXPECT_FALSE(p.acs.present.known());

  Config self;  // a capability pointing at itself, after the Express capability
  self.CapList(0x40);
  self.Express(0x40, 0x60, 0, 4, 16, 4, 16);
  self.Cap(0x60, 0x05, 0x60);
  PciConfig s = DecodePciConfig(self.bytes(), kPath);
  EXPECT_EQ(s.port_type.value_or(""), "endpoint");  // found before the loop
}

TEST(PciConfigTest, ExtendedListThatLoopsEnds) {
  Config c = RootPortWithAcs();
  c.Ext(0x148, 0x0001, 0x100);  // replace ACS with an AER pointing back to the start
  PciCapabilityList l = WalkPciExtendedCapabilities(c.bytes());
  EXPECT_EQ(l.end, PciWalkEnd::kLoop);
  PciConfig p = DecodePciConfig(c.bytes(), kPath);
  EXPECT_FALSE(p.acs.present.known());
  EXPECT_EQ(p.acs.present.unknown, "extended capability list loops (garbage configuration space)");

  Config self = RootPortWithAcs();
  self.Ext(0x100, 0x000d, 0x100);  // ACS pointing at itself: found, then the loop is noticed
  self.Set16(0x104, 0x0003);
  PciConfig q = DecodePciConfig(self.bytes(), kPath);
  EXPECT_EQ(q.acs.capability.value_or({}), (std::vector<std::string>{"SV", "TB"}));
}

TEST(PciConfigTest, NoExtendedHeader) {
  Config c;
  c.CapList(0x40);
  c.Express(0x40, 0, 0, 4, 16, 4, 16);
  c.Set32(0x100, 0xffffffff);  // what a bus without extended space reads
  PciConfig p = DecodePciConfig(c.bytes(), kPath);
  EXPECT_EQ(p.acs.present.value_or(true), false);
  EXPECT_EQ(p.rebar.present.value_or(true), false);
}

TEST(PciConfigTest, AllOnesIsUnknown) {
  std::string ones(4096, '\xff');
  PciConfig p = DecodePciConfig(ones, kPath);
  EXPECT_FALSE(p.port_type.known());
  EXPECT_NE(p.port_type.unknown.find("all ones"), std::string::npos);
}

TEST(PciConfigTest, ResizableBarGarbageIsBounded) {
  Config c = GpuConfig();
  c.Set32(0xbb8, 5 | 7u << 5 | 63u << 8);  // 7 BARs (max 6), index 5, size 1 MiB << 63
  PciConfig p = DecodePciConfig(c.bytes(), kPath);
  EXPECT_TRUE(p.rebar.present.value_or(false));
  EXPECT_LE(p.rebar.bars.size(), 6u);
  for (const auto& b : p.rebar.bars) {
    EXPECT_LE(b.bar, 5);
    EXPECT_GT(b.current_bytes, 0u);
  }
}

TEST(PciConfigTest, AcsBitNamesIgnoreUnknownBits) {
  EXPECT_EQ(AcsBitNames(0x007f),
            (std::vector<std::string>{"SV", "TB", "RR", "CR", "UF", "EC", "DT"}));
  EXPECT_TRUE(AcsBitNames(0xff80).empty());
}

// Every unknown says why; nothing read past the bytes (ASan checks the reads).
void ExpectExplained(const PciConfig& c) {
  auto check = [](const auto& f, const char* what) {
    if (!f.known()) {
      EXPECT_FALSE(f.unknown.empty()) << what;
    }
  };
  check(c.port_type, "port_type");
  check(c.link.current.gen, "current gen");
  check(c.link.current.width, "current width");
  check(c.link.max.gen, "max gen");
  check(c.link.max.width, "max width");
  check(c.acs.present, "acs");
  check(c.acs.capability, "acs cap");
  check(c.acs.control, "acs ctl");
  check(c.rebar.present, "rebar");
  EXPECT_LE(c.rebar.bars.size(), 6u);
}

// Fuzz-style: random bytes, random lengths, and random mutations of real layouts, from a fixed
// seed so a failure reproduces.
TEST(PciConfigTest, RandomAndMutatedBytesNeverCrash) {
  std::mt19937 rng(20240601);
  const std::string seeds[] = {GpuConfig().bytes(), RootPortWithAcs().bytes()};
  const size_t kLengths[] = {0, 1, 63, 64, 65, 255, 256, 257, 0x104, 0x300, 4095, 4096, 5000};
  for (int i = 0; i < 4000; ++i) {
    std::string b;
    if (i % 2 == 0) {
      size_t n = (i % 4 == 0) ? kLengths[rng() % std::size(kLengths)] : rng() % 4200;
      b.resize(n);
      for (char& ch : b) ch = static_cast<char>(rng());
      if (b.size() > 0x34) {  // make it look like a header with a list, to walk deeper
        b[0x06] = 0x10;
        b[0x34] = static_cast<char>(0x40 + rng() % 0xc0);
      }
    } else {
      b = seeds[rng() % 2];
      for (int k = 0; k < 8; ++k) b[rng() % b.size()] = static_cast<char>(rng());
      b.resize(kLengths[rng() % std::size(kLengths)], '\0');
    }
    PciConfig c = DecodePciConfig(b, kPath);
    ExpectExplained(c);
    EXPECT_LE(WalkPciCapabilities(b).caps.size(), 48u);
    EXPECT_LE(WalkPciExtendedCapabilities(b).caps.size(), 480u);
  }
}

}  // namespace
}  // namespace dossier
