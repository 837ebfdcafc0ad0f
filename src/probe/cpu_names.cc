#include "probe/cpu_names.h"

namespace dossier {
namespace {

struct ArmImplementer {
  uint64_t id;
  const char* name;
};
constexpr ArmImplementer kArmImplementers[] = {
    {0x41, "ARM"},       {0x42, "Broadcom"}, {0x43, "Cavium"}, {0x46, "Fujitsu"},
    {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},   {0x50, "APM"},    {0x51, "Qualcomm"},
    {0x53, "Samsung"},   {0x56, "Marvell"},  {0x61, "Apple"},  {0x6d, "Microsoft"},
    {0xc0, "Ampere"},
};

struct ArmPart {
  uint64_t implementer, part;
  const char* name;
};
// Servers and the GPU hosts' CPUs first: Grace is Neoverse-V2 (as are AWS Graviton4 and Google
// Axion), Graviton3 Neoverse-V1, Ampere Altra and Graviton2 Neoverse-N1, DGX Spark's GB10 pairs
// Cortex-X925 with Cortex-A725 cores, Jetson Xavier is NVIDIA Carmel.
constexpr ArmPart kArmParts[] = {
    {0x41, 0xd0c, "Neoverse-N1"},    {0x41, 0xd40, "Neoverse-V1"}, {0x41, 0xd49, "Neoverse-N2"},
    {0x41, 0xd4f, "Neoverse-V2"},    {0x41, 0xd84, "Neoverse-V3"}, {0x41, 0xd8e, "Neoverse-N3"},
    {0x41, 0xd4a, "Neoverse-E1"},    {0x41, 0xd03, "Cortex-A53"},  {0x41, 0xd04, "Cortex-A35"},
    {0x41, 0xd05, "Cortex-A55"},     {0x41, 0xd07, "Cortex-A57"},  {0x41, 0xd08, "Cortex-A72"},
    {0x41, 0xd09, "Cortex-A73"},     {0x41, 0xd0a, "Cortex-A75"},  {0x41, 0xd0b, "Cortex-A76"},
    {0x41, 0xd0d, "Cortex-A77"},     {0x41, 0xd41, "Cortex-A78"},  {0x41, 0xd42, "Cortex-A78AE"},
    {0x41, 0xd44, "Cortex-X1"},      {0x41, 0xd46, "Cortex-A510"}, {0x41, 0xd47, "Cortex-A710"},
    {0x41, 0xd48, "Cortex-X2"},      {0x41, 0xd4d, "Cortex-A715"}, {0x41, 0xd4e, "Cortex-X3"},
    {0x41, 0xd80, "Cortex-A520"},    {0x41, 0xd81, "Cortex-A720"}, {0x41, 0xd82, "Cortex-X4"},
    {0x41, 0xd85, "Cortex-X925"},    {0x41, 0xd87, "Cortex-A725"}, {0x4e, 0x000, "Denver"},
    {0x4e, 0x003, "Denver 2"},       {0x4e, 0x004, "Carmel"},      {0x43, 0x0a1, "ThunderX 88XX"},
    {0x43, 0x0af, "ThunderX2 99xx"}, {0x48, 0xd01, "Kunpeng-920"}, {0x46, 0x001, "A64FX"},
    {0x50, 0x000, "X-Gene"},         {0xc0, 0xac3, "Ampere-1"},    {0xc0, 0xac4, "Ampere-1a"},
};

struct S390Machine {
  const char* type;
  const char* name;
};
constexpr S390Machine kS390Machines[] = {
    {"2964", "IBM z13"}, {"2965", "IBM z13s"},    {"3906", "IBM z14"},   {"3907", "IBM z14 ZR1"},
    {"8561", "IBM z15"}, {"8562", "IBM z15 T02"}, {"3931", "IBM z16"},   {"3932", "IBM z16 A02"},
    {"9175", "IBM z17"}, {"2827", "IBM zEC12"},   {"2828", "IBM zBC12"},
};

}  // namespace

std::optional<std::string> ArmImplementerName(uint64_t implementer) {
  for (const auto& i : kArmImplementers)
    if (i.id == implementer) return i.name;
  return std::nullopt;
}

std::optional<std::string> ArmPartName(uint64_t implementer, uint64_t part) {
  for (const auto& p : kArmParts)
    if (p.implementer == implementer && p.part == part) return p.name;
  return std::nullopt;
}

std::optional<std::string> S390MachineName(std::string_view type) {
  for (const auto& m : kS390Machines)
    if (type == m.type) return m.name;
  return std::nullopt;
}

}  // namespace dossier
