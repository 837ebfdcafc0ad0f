// Which PCI functions are compute GPUs, and what the device-id table says of one; what it does
// not say stays unknown with the reason, at the device id's source.
#include "gpu/compute_gpu.h"

#include <gtest/gtest.h>

namespace dossier {
namespace {

PciDevice Fn(const char* vendor, const char* device, const char* cls) {
  PciDevice d;
  d.address = "0000:41:00.0";
  const std::string at = "/sys/bus/pci/devices/0000:41:00.0/";
  if (vendor) d.vendor_id.Set(vendor, at + "vendor");
  if (device) d.device_id.Set(device, at + "device");
  if (cls) d.class_id.Set(cls, at + "class");
  return d;
}

TEST(ComputeGpu, NvidiaDisplayAnd3dControllersOnly) {
  EXPECT_TRUE(IsComputeGpu(Fn("0x10de", "0x2bb1", "0x030000")));   // a workstation board: VGA
  EXPECT_TRUE(IsComputeGpu(Fn("0x10de", "0x2335", "0x030200")));   // a data-center board: 3D
  EXPECT_TRUE(IsComputeGpu(Fn("10de", "2335", "030200")));         // an import, without 0x
  EXPECT_FALSE(IsComputeGpu(Fn("0x10de", "0x22e8", "0x040300")));  // its HDMI audio function
  EXPECT_FALSE(IsComputeGpu(Fn("0x10de", "0x22a3", "0x068000")));  // an NVSwitch bridge
  EXPECT_FALSE(IsComputeGpu(Fn("0x1a03", "0x2000", "0x030000")));  // a BMC's ASPEED VGA
  EXPECT_FALSE(IsComputeGpu(Fn("0x10de", "0x2335", "0x0302")));    // not a whole class code
  EXPECT_FALSE(IsComputeGpu(Fn("0x10de", "0x2335", nullptr)));     // class not known: not said
  EXPECT_FALSE(IsComputeGpu(Fn(nullptr, "0x2335", "0x030200")));
}

TEST(ComputeGpu, TheTableNamesAKnownDevice) {
  Gpu g;
  IdentifyGpu(Fn("0x10de", "0x2bb1", "0x030000"), &g);
  EXPECT_EQ(g.name.value_or("?"), "NVIDIA RTX PRO 6000 Blackwell Workstation Edition");
  EXPECT_EQ(g.compute_capability.value_or("?"), "12.0");
  EXPECT_EQ(g.compute_capability.source.rfind("dossier device-id table, 10de:2bb1 (", 0), 0u)
      << g.compute_capability.source;
}

TEST(ComputeGpu, WhatTheTableDoesNotSayIsUnknownAtTheDeviceIdsSource) {
  const std::string src = "/sys/bus/pci/devices/0000:41:00.0/device";
  PciDevice d = Fn("0x10de", "0x1234", "0x030200");
  d.name.Set("GB999 [Future GPU]", "pci.ids");
  Gpu g;
  IdentifyGpu(d, &g);
  EXPECT_FALSE(g.compute_capability.known());
  EXPECT_EQ(g.compute_capability.unknown, "device id 0x1234 not in dossier's table");
  EXPECT_EQ(g.compute_capability.source, src);
  EXPECT_EQ(g.architecture.unknown, "device id 0x1234 not in dossier's table");
  EXPECT_EQ(g.architecture.source, src);
  EXPECT_EQ(g.name.value_or("?"), "GB999 [Future GPU]");  // the PCI name, where there is one
  EXPECT_EQ(g.name.source, "pci.ids");

  Gpu bad;
  IdentifyGpu(Fn("0x10de", "zz", "0x030200"), &bad);
  EXPECT_EQ(bad.compute_capability.unknown, "PCI device id 'zz' is not a hex id");
  EXPECT_EQ(bad.name.unknown, "PCI device id 'zz' is not a hex id");
  EXPECT_EQ(bad.name.source, src);

  PciDevice none = Fn("0x10de", nullptr, "0x030200");
  none.device_id.Unknown("permission denied", src);
  Gpu n;
  IdentifyGpu(none, &n);
  EXPECT_EQ(n.compute_capability.unknown, "PCI device id unknown (permission denied)");
  EXPECT_EQ(n.compute_capability.source, src);
}

}  // namespace
}  // namespace dossier
