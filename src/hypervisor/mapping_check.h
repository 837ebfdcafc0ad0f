// Checking Proxmox PCI mapping entries against a machine, as Proxmox checks them when a VM that
// uses the mapping starts (pve-guest-common PVE/Mapping/PCI.pm): the entry for this node, its
// first path's vendor:device, subsystem id and IOMMU group. Sets each entry's iommu_group_now,
// status ("ok", "stale", "missing", "other-node") and problem, in Proxmox's own words where
// Proxmox says it ("'iommugroup' does not match for 'gpu0' (44 != 3)"). Pure.
#pragma once

#include <string>
#include <vector>

#include "model/hypervisor.h"
#include "model/pci.h"

namespace dossier::hypervisor {

void CheckPciMappings(const std::string& node, const PciInfo& pci, const std::string& pci_source,
                      std::vector<PciMapping>* mappings);

}  // namespace dossier::hypervisor
