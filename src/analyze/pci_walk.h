// Walking the PCI tree of a Machine for the rules: which functions are GPUs and NICs, the chain of
// bridges above a device, and where two devices' paths meet. Reads the model only; a parent that is
// unknown or missing from the device list ends a chain (the walk never loops).
#pragma once

#include <string>
#include <vector>

#include "model/machine.h"

namespace dossier {

bool IsNvidiaGpu(const PciDevice& d);  // vendor 0x10de, class VGA (0x0300) or 3D (0x0302)
bool IsNic(const PciDevice& d);        // class Ethernet (0x0200) or InfiniBand (0x0207)
bool IsBridge(const PciDevice& d);     // class PCI bridge (0x0604)

// The GPUs for compute: the model's gpus list when filled, else NVIDIA display functions.
std::vector<const PciDevice*> GpuDevices(const Machine& m);
std::vector<const PciDevice*> NicDevices(const Machine& m);

// Bridges above d, nearest first (root port last). Stops at an unknown or absent parent.
std::vector<const PciDevice*> UpstreamChain(const Machine& m, const PciDevice& d);

// "pci0000:00" from the device's own fact, else from the top of its chain; "" when unknown.
std::string RootComplexOf(const Machine& m, const PciDevice& d);

struct PairPath {
  enum Kind {
    kUnknown,          // a root complex is unknown
    kSharedBridge,     // the paths meet at a bridge (a switch port or a root port)
    kSameRootComplex,  // they meet only at the host bridge, through different root ports
    kAcrossRootComplexes,
  };
  Kind kind = kUnknown;
  const PciDevice* ancestor = nullptr;    // the meeting bridge for kSharedBridge
  std::string root_complex;               // for kSharedBridge and kSameRootComplex
  std::vector<const PciDevice*> below_a;  // bridges on a's side, below the meeting point
  std::vector<const PciDevice*> below_b;
};
PairPath PathBetween(const Machine& m, const PciDevice& a, const PciDevice& b);

// "0000:01:00.0 (NVIDIA … [RTX PRO 6000])", or the address alone when the name is unknown.
std::string Describe(const PciDevice& d);

}  // namespace dossier
