#include "store/toml_depth.h"

namespace dossier {

std::optional<TomlNestingProblem> CheckTomlNesting(std::string_view text) {
  // TOML's lexical states (TOML 1.0: comments, basic, literal and multi-line strings); only
  // what lies outside strings and comments can nest.
  enum State { kCode, kComment, kBasic, kLiteral, kMlBasic, kMlLiteral } st = kCode;
  uint32_t line = 1;
  size_t dots = 0, depth = 0;
  auto at = [&](size_t i, std::string_view s) { return text.substr(i, s.size()) == s; };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') ++line;
    switch (st) {
      case kComment:
        if (c == '\n') st = kCode, dots = 0;
        continue;
      case kBasic:
        if (c == '\\') {
          if (i + 1 < text.size() && text[i + 1] == '\n') ++line;
          ++i;
        } else if (c == '"' || c == '\n') {
          st = kCode;
        }
        continue;
      case kLiteral:
        if (c == '\'' || c == '\n') st = kCode;
        continue;
      case kMlBasic:
        if (c == '\\') {
          if (i + 1 < text.size() && text[i + 1] == '\n') ++line;
          ++i;
        } else if (at(i, "\"\"\"")) {
          st = kCode, i += 2;
        }
        continue;
      case kMlLiteral:
        if (at(i, "'''")) st = kCode, i += 2;
        continue;
      case kCode:
        break;
    }
    switch (c) {
      case '#':
        st = kComment;
        break;
      case '"':
        if (at(i, "\"\"\"")) {
          st = kMlBasic, i += 2;
        } else {
          st = kBasic;
        }
        break;
      case '\'':
        if (at(i, "'''")) {
          st = kMlLiteral, i += 2;
        } else {
          st = kLiteral;
        }
        break;
      case '.':
        if (++dots + 1 > kMaxTomlKeyParts)
          return TomlNestingProblem{
              line, "a key of more than " + std::to_string(kMaxTomlKeyParts) + " dotted parts"};
        break;
      case '[':
      case '{':
        dots = 0;
        if (++depth > kMaxTomlNesting)
          return TomlNestingProblem{line, "brackets or braces nested more than " +
                                              std::to_string(kMaxTomlNesting) + " deep"};
        break;
      case ']':
      case '}':
        dots = 0;
        if (depth > 0) --depth;
        break;
      case '=':
      case ',':
      case '\n':
        dots = 0;
        break;
      default:
        break;
    }
  }
  return std::nullopt;
}

}  // namespace dossier
