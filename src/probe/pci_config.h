// PCI configuration space, decoded: the capability lists, the PCI Express port type and link
// registers, Access Control Services and Resizable BAR. A pure function over the bytes of a
// device's sysfs `config` file, so a captured tree, a test's hand-built array and the live
// machine are read alike.
//
// What the bytes can say depends on how many there are, and the kernel decides that:
//   64 bytes    an unprivileged reader gets only the standard header: everything read from a
//               capability is unknown ("needs root");
//   256 bytes   the bus has no extended configuration space (conventional PCI, an i440FX guest):
//               the PCI Express capability may be there, ACS and Resizable BAR cannot be read;
//   4096 bytes  all of it.
// Anything else (truncated copies, garbage, loops in a capability list) is bounded: every read
// is checked against the length, every walk has a step limit and remembers where it has been.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/pci.h"

namespace dossier {

// One entry of a capability list: its id and where its header lies in configuration space.
struct PciCapability {
  uint16_t id = 0;
  uint16_t offset = 0;
};

// How a capability-list walk ended, for the reason of an unknown.
enum class PciWalkEnd {
  kComplete,   // reached the end of the list
  kNone,       // the device has no list (status bit 4 clear, or no extended header)
  kTruncated,  // a pointer led past the bytes read
  kLoop,       // a pointer led back to an entry already seen, or the step limit was hit
};

struct PciCapabilityList {
  std::vector<PciCapability> caps;
  PciWalkEnd end = PciWalkEnd::kNone;
};

// The standard list (pointer at 0x34, entries in the first 256 bytes).
PciCapabilityList WalkPciCapabilities(std::string_view config);
// The extended list (from 0x100, in the 4096-byte space).
PciCapabilityList WalkPciExtendedCapabilities(std::string_view config);

// Standard and extended capability ids used here.
constexpr uint16_t kPciCapExpress = 0x10;
constexpr uint16_t kPciExtCapAcs = 0x000D;
constexpr uint16_t kPciExtCapRebar = 0x0015;

// Everything decoded from one device's configuration space. `source` of each fact is the path
// given to DecodePciConfig, with the register named.
struct PciConfig {
  Fact<std::string> port_type;  // "endpoint", "root_port", …
  Fact<int64_t> port_number;    // Link Capabilities bits 31:24, for root and downstream ports
  PciLink link;                 // from Link Capabilities (max) and Link Status (current)
  PciAcs acs;
  PciRebar rebar;
};

// `config` is the content of the `config` file (any length; only the first 4096 bytes count);
// `path` names it in the facts' sources. `header_only` is the reason given when the file holds
// only the 64-byte header: "needs root" on the live machine, where rerunning as root helps;
// kCaptureHeaderOnly for a captured tree, where it does not.
PciConfig DecodePciConfig(std::string_view config, std::string_view path,
                          std::string_view header_only = "needs root");
inline constexpr const char* kCaptureHeaderOnly =
    "the capture holds only the first 64 bytes of config space";
// Every fact unknown for one reason: the `config` file could not be read at all.
PciConfig UnknownPciConfig(const std::string& reason, std::string_view path);

// The short ACS bit names, low bit first: SV TB RR CR UF EC DT (lspci's SrcValid TransBlk
// ReqRedir CmpltRedir UpstreamFwd EgressCtrl DirectTrans).
std::vector<std::string> AcsBitNames(uint16_t bits);

}  // namespace dossier
