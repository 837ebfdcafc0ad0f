#include "generate/generator.h"

namespace dossier {

const std::vector<GeneratorEntry>& GeneratorTable() {
  static const std::vector<GeneratorEntry> kTable = {
      {"pve-mapping",
       "the host's /etc/pve/mapping/pci.cfg with stale IOMMU groups corrected (--diff; pvesh)",
       GeneratePveMapping},
      {"nccl-topo",
       "NCCL topology file giving a guest's GPUs the host's real tree (NCCL_TOPO_FILE)",
       GenerateNcclTopo},
      {"numa-affinity",
       "systemd unit + script setting each guest GPU's numa_node to its host node at boot",
       GenerateNumaAffinity},
      {"qemu-args",
       "the args: line (Proxmox) or <qemu:override> / <qemu:commandline> (libvirt) setting "
       "x-nv-gpudirect-clique where the host can route P2P",
       GenerateQemuArgs},
      {"prometheus",
       "metrics in Prometheus text format for node_exporter's textfile collector "
       "(--textfile-dir DIR)",
       GeneratePrometheus},
  };
  return kTable;
}

const GeneratorEntry* FindGenerator(std::string_view name) {
  for (const auto& g : GeneratorTable())
    if (name == g.name) return &g;
  return nullptr;
}

}  // namespace dossier
