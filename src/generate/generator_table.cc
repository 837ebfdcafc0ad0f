#include "generate/generator.h"

namespace dossier {

const std::vector<GeneratorEntry>& GeneratorTable() {
  static const std::vector<GeneratorEntry> kTable = {
      {"numa-affinity",
       "systemd unit + script setting each guest GPU's numa_node to its host node at boot",
       GenerateNumaAffinity},
  };
  return kTable;
}

const GeneratorEntry* FindGenerator(std::string_view name) {
  for (const auto& g : GeneratorTable())
    if (name == g.name) return &g;
  return nullptr;
}

}  // namespace dossier
