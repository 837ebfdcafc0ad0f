// Which guest GPU is which host GPU (a link between machines, so it belongs to the view): per GPU
// of the guest, its root port, the QEMU port number (Link Capabilities Port Number; without root
// the port's address in Proxmox's Q35 layout), the VM slot behind it (Proxmox ich9-pcie-port-N
// carries hostpci(N-1); libvirt by guest address), the host address (running command line, else
// the VM config, else the mapping's first path, and which), and the host GPU's NUMA node, root
// complex, IOMMU group and link. Pure: reads the two machines and the VM.
#pragma once

#include <vector>

#include "view/view.h"

namespace dossier {

std::vector<PassthroughGpu> MapPassthrough(const Machine& guest, const Machine& host, const Vm& vm);

}  // namespace dossier
