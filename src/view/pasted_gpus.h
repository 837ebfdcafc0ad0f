// The compute GPUs of a machine known only from pasted outputs, from every paste that names
// them: PCI devices of `lspci -nn`/`-vvv` (class 0300/0302, vendor 10de), of an IOMMU group
// listing's `lspci -nns` lines and of `lspci -tv` (by name), `nvidia-smi -q` bus ids, and the
// paths of a Proxmox pci.cfg mapping whose id is a GPU; merged with what `nvidia-smi topo -m`
// said per GPU index (NUMA node, CPU affinity). Then the GPU pair levels from the PCI walk, as a
// collect derives them, so the topology rules run on a pasted machine as on a collected one.
#pragma once

#include "model/machine.h"

namespace dossier {

void GpusFromPastes(Machine* m);

}  // namespace dossier
