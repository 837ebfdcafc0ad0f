// A bound on nesting checked before TOML text reaches toml++. toml++ builds one table per part
// of a dotted key and walks (and destroys) them recursively, so a notes file with a 40,000-part
// key (`a.a.a.….a = 1`) overflows the stack: SIGSEGV in `note` and `report`. Its own limit
// (TOML_MAX_NESTED_VALUES) covers arrays and inline tables only. This scan counts, outside
// strings and comments, the parts of every key and the depth of brackets and braces, and names
// the first line that goes past the limits. No notes file a person writes comes near them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dossier {

inline constexpr size_t kMaxTomlKeyParts = 64;
inline constexpr size_t kMaxTomlNesting = 64;

struct TomlNestingProblem {
  uint32_t line = 0;  // from 1
  std::string what;
};

// The first place the text nests deeper than the limits above, or nullopt.
std::optional<TomlNestingProblem> CheckTomlNesting(std::string_view text);

}  // namespace dossier
