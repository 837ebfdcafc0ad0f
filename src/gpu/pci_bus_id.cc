#include "gpu/pci_bus_id.h"

#include <fmt/format.h>

#include "util/text.h"

namespace dossier::gpu {

std::optional<std::string> NormalizePciBusId(std::string_view text) {
  text = Trim(text);
  // DOMAIN:BUS:DEVICE.FUNCTION; the domain may be 4 or 8 hex digits (NVML pads to 8).
  auto parts = Split(text, ':');
  if (parts.size() != 3) return std::nullopt;
  size_t dot = parts[2].find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto hex = [](std::string_view s, size_t max_digits) -> std::optional<uint64_t> {
    if (s.empty() || s.size() > max_digits) return std::nullopt;
    return ParseUint(s, 16);
  };
  auto domain = hex(parts[0], 8);
  auto bus = hex(parts[1], 2);
  auto device = hex(parts[2].substr(0, dot), 2);
  auto function = hex(parts[2].substr(dot + 1), 1);
  if (!domain || !bus || !device || !function || *device > 0x1f || *function > 7)
    return std::nullopt;
  return FormatPciBusId(static_cast<unsigned>(*domain), static_cast<unsigned>(*bus),
                        static_cast<unsigned>(*device), static_cast<unsigned>(*function));
}

std::string FormatPciBusId(unsigned domain, unsigned bus, unsigned device, unsigned function) {
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

}  // namespace dossier::gpu
