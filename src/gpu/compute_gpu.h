// Which PCI functions are compute GPUs, and a GPU's identity from dossier's device-id table.
// Shared by the collect (probe/gpus.cc, from sysfs) and the view (view/pasted_gpus.cc, from what
// a person pasted), so a GPU is recognised the same way whatever the machine is known from.
//
// A compute GPU is an NVIDIA (0x10de) function of class 0x0300xx (VGA compatible: GeForce and
// workstation boards) or 0x0302xx (3D controller: data-center boards, the RTX PRO Server
// Edition). Left out: their HDMI/DP audio functions (class 0x0403), NVSwitch bridges (0x0680),
// and any other vendor's VGA, such as a server BMC's ASPEED (0x1a03) or Matrox (0x102b) display.
#pragma once

#include "model/gpu.h"
#include "model/pci.h"

namespace dossier {

// Vendor "0x10de" and class "0x030200" as sysfs writes them (an import without the "0x" too).
bool IsComputeGpu(const PciDevice& d);

// A pasted device whose class the paste did not show (`lspci -tv` draws names only; a pci.cfg
// mapping gives vendor:device): NVIDIA, and its device id is a GPU in dossier's table, or with no
// id its name starts with a GPU chip ("GB202GL [RTX PRO 6000 …]", not "… Audio Controller").
bool IsComputeGpuWithoutClass(const PciDevice& d);

// Name, architecture and compute capability from the table; what is not there stays unknown
// with the reason, and the name falls back to the PCI name when there is one.
void IdentifyGpu(const PciDevice& d, Gpu* g);

}  // namespace dossier
