// The theoretical limit of the PCIe path a copy crosses, to say how close a measured bandwidth
// comes to it. A GPU's path is its link and every link above it up to the root port; the
// narrowest one bounds the copy. For a pair, both GPUs' paths are crossed.
//
// Per link: the generation the link can run (its maximum: idle GPUs drop their current speed to
// save power, FIELD_NOTES item 7, so the current speed at collection time says little) and the
// lanes it trained to (current width; a narrower width is a real fault). From the PCI walk where
// the model has the GPU's PCI device, else from NVML's answer for the GPU's own link.
#pragma once

#include <string>
#include <vector>

#include "model/fact.h"
#include "model/machine.h"

namespace dossier::p2p {

// GB/s per direction (GB = 1e9 bytes) of `lanes` lanes of PCIe generation `gen` after line
// encoding: 8b/10b up to Gen2, 128b/130b for Gen3 to Gen5, 242B/256B FLITs for Gen6.
// Gen5 x16 = 63.0, Gen4 x16 = 31.5. 0 for an unknown generation or width.
double PcieGbps(int64_t gen, int64_t lanes);

// The narrowest link between the GPU at `address` and its root port, per direction; unknown with
// the reason when neither the PCI walk nor NVML tells. Source names the link: "0000:00:01.1 Gen5
// x16 (PCI walk)".
Fact<double> GpuPathLimit(const Machine& m, const std::string& address);
// The narrowest over several GPUs' paths (a peer copy crosses both).
Fact<double> PathLimit(const Machine& m, const std::vector<std::string>& addresses);

}  // namespace dossier::p2p
