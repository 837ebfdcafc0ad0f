// PCI addresses as the GPU libraries write them ("00000000:01:00.0" from NVML, "0000:01:00.0" from
// CUDA, upper or lower case) turned into the form sysfs and the rest of dossier use: the full
// DDDD:BB:DD.F, lower case, with at least four domain digits.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace dossier::gpu {

// nullopt when `text` is not a PCI address (the caller keeps the raw text in its message).
std::optional<std::string> NormalizePciBusId(std::string_view text);
// The same from numbers; function 0 when the library gives none.
std::string FormatPciBusId(unsigned domain, unsigned bus, unsigned device, unsigned function = 0);

}  // namespace dossier::gpu
