// SHA-256 (FIPS 180-4), for the HTML page's Content-Security-Policy, which allows its one inline
// style by hash ('sha256-BASE64'). Not for anything secret.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace dossier {

std::array<uint8_t, 32> Sha256(std::string_view data);
// Standard base64 with padding (RFC 4648), as CSP hash sources are written.
std::string Base64(const uint8_t* data, size_t size);

}  // namespace dossier
