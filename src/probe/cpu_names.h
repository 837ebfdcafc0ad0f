// Names for the codes /proc/cpuinfo gives instead of a model name on ARM64 ("CPU implementer",
// "CPU part": the MIDR fields) and s390 ("machine" type), from the vendors' published tables.
// A small table of the parts people run inference hosts on, not every part ever made: an
// unknown code stays a code ("ARM part 0xd99"), never a guess.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dossier {

// "ARM", "NVIDIA", "Ampere", …; nullopt for an implementer not in the table.
std::optional<std::string> ArmImplementerName(uint64_t implementer);
// "Neoverse-V2" (Grace), "Cortex-X925" (GB10), …; nullopt when not in the table.
std::optional<std::string> ArmPartName(uint64_t implementer, uint64_t part);
// IBM Z machine type ("3931") -> "IBM z16"; nullopt when not in the table.
std::optional<std::string> S390MachineName(std::string_view type);

}  // namespace dossier
