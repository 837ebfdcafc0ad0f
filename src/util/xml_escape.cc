#include "util/xml_escape.h"

#include <fmt/format.h>

namespace dossier {

std::string XmlEscape(std::string_view s, bool literal_whitespace) {
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\t':
      case '\n':
      case '\r':
        out += literal_whitespace ? std::string(1, c) : fmt::format("&#{};", static_cast<int>(u));
        break;
      default:
        // XML 1.0 has no other control characters, not even as references: shown as text.
        out += u < 0x20 || u == 0x7f ? fmt::format("\\x{:02x}", u) : std::string(1, c);
    }
  }
  return out;
}

}  // namespace dossier
