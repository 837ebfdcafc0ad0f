// The Markdown document is a table of sections, each a function in the md_*.cc file of its
// subject, in the order of the discoveries: from the hardware up.
#pragma once

#include <string>
#include <vector>

#include "model/view.h"

namespace dossier {

struct MdSection {
  const char* title;
  void (*render)(const MachineView& mv, std::string* out);
};

const std::vector<MdSection>& MdMachineSections();

void MdIdentity(const MachineView& mv, std::string* out);        // md_system.cc
void MdCpuNuma(const MachineView& mv, std::string* out);         // md_system.cc
void MdVirtualization(const MachineView& mv, std::string* out);  // md_system.cc
void MdKernel(const MachineView& mv, std::string* out);          // md_system.cc
void MdGpus(const MachineView& mv, std::string* out);            // md_gpu.cc
void MdPciTree(const MachineView& mv, std::string* out);         // md_pci.cc
void MdIommuAcs(const MachineView& mv, std::string* out);        // md_pci.cc
void MdSoftware(const MachineView& mv, std::string* out);        // md_software.cc
void MdServers(const MachineView& mv, std::string* out);         // md_software.cc
void MdNvml(const MachineView& mv, std::string* out);            // md_nvml.cc

// Measurements (md_p2p.cc): one p2p sweep, with its pair matrices at `matrix_size` bytes; and the
// latest sweep of a machine (matrices at 16 MiB), in the shape of a section.
void MdP2pMeasurement(const P2pMeasurement& m, uint64_t matrix_size, std::string* out);
void MdP2p(const MachineView& mv, std::string* out);

}  // namespace dossier
