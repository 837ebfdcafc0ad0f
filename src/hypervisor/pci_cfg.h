// Proxmox VE's PCI resource mappings (/etc/pve/mapping/pci.cfg, pve-guest-common
// PVE/Mapping/PCI.pm): a section per mapping name (an unindented line), its properties indented
// beneath ("map id=10de:2bb1,iommugroup=44,node=pve,path=0000:f1:00.0,subsystem-id=10de:204b",
// one map line per node entry; "description …"), '#' comment lines, blank lines between sections.
// Pure: text in, mappings out, with the line of every entry and the byte range of each
// iommugroup value, so a corrected file can be written changing nothing else.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/hypervisor.h"

namespace dossier::hypervisor {

// Where Proxmox keeps it on every node (pmxcfs: one file for the whole cluster).
inline constexpr const char* kPciCfgPath = "/etc/pve/mapping/pci.cfg";

struct PciCfgEntry {
  size_t mapping = 0;  // index into PciCfgParse::mappings
  size_t entry = 0;    // index into that mapping's entries
  int64_t line = 0;
  // Where the iommugroup value sits in the text (npos when the line has none).
  size_t group_offset = std::string::npos, group_length = 0;
};

struct PciCfgParse {
  std::vector<PciMapping> mappings;    // facts: path, id, subsystem_id, node, iommugroup
  std::vector<PciCfgEntry> positions;  // one per map line, in file order
  std::vector<std::string> problems;   // "NAME:LINE: …"
};

PciCfgParse ParsePciCfg(std::string_view text, const std::string& name);

}  // namespace dossier::hypervisor
