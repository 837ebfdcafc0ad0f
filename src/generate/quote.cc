#include "generate/quote.h"

#include <fmt/format.h>

#include <pugixml.hpp>

namespace dossier::generate {
namespace {

bool Alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool Hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool Control(unsigned char c) {
  return c < 0x20 || c == 0x7f;
}

std::string HexByte(unsigned char c) {
  return fmt::format("\\x{:02x}", c);
}

}  // namespace

std::string ShellWord(std::string_view s) {
  bool plain = !s.empty();
  for (char c : s)
    if (!Alnum(c) && std::string_view("_.,/:=+-@%").find(c) == std::string_view::npos)
      plain = false;
  return plain ? std::string(s) : ShellQuote(s);
}

std::string ShellQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string CommentText(std::string_view s) {
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    out += Control(u) || c == '\\' ? HexByte(u) : std::string(1, c);
  }
  return out;
}

std::string SystemdExecArg(std::string_view s) {
  // Single quotes where nothing needs escaping (the usual case: it reads as a shell line would).
  bool plain = true;
  for (char c : s)
    if (Control(static_cast<unsigned char>(c)) ||
        std::string_view("'\"\\%$").find(c) != std::string_view::npos)
      plain = false;
  if (plain) return "'" + std::string(s) + "'";
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\\' || c == '"')
      out += std::string("\\") + c;
    else if (c == '%')
      out += "%%";
    else if (c == '$')
      out += "$$";
    else if (Control(u))
      out += HexByte(u);
    else
      out += c;
  }
  return out + "\"";
}

std::string XmlCommentText(std::string_view s) {
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (Control(u)) {
      out += HexByte(u);
      continue;
    }
    if (c == '-' && !out.empty() && out.back() == '-') out += ' ';
    out += c;
  }
  if (!out.empty() && out.back() == '-') out += ' ';
  return out;
}

std::string XmlProblem(std::string_view xml) {
  pugi::xml_document doc;
  auto r = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default | pugi::parse_comments);
  if (r) return "";
  return fmt::format("{} at byte {}", r.description(), r.offset);
}

bool ValidPciAddress(std::string_view s) {
  // DDDD:BB:DD.F, the domain possibly longer (VMD domains have 5 digits).
  size_t colon = s.find(':');
  if (colon == std::string_view::npos || colon < 4 || colon > 8) return false;
  std::string_view rest = s.substr(colon + 1);
  if (rest.size() != 7 || rest[2] != ':' || rest[5] != '.') return false;
  for (size_t i = 0; i < colon; ++i)
    if (!Hex(s[i])) return false;
  for (size_t i : {0, 1, 3, 4})
    if (!Hex(rest[i])) return false;
  return rest[6] >= '0' && rest[6] <= '7';
}

bool ValidQemuId(std::string_view s) {
  if (s.empty() || s.size() > 128) return false;
  if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return false;
  for (char c : s)
    if (!Alnum(c) && c != '-' && c != '.' && c != '_') return false;
  return true;
}

bool ValidLibvirtAlias(std::string_view s) {
  if (!ValidQemuId(s)) return false;
  for (char c : s)
    if (c == '.') return false;  // libvirt's alias syntax: letters, digits, '-', '_'
  return true;
}

}  // namespace dossier::generate
