// Reading a JSON file of foreign origin (config.json, version.json, hf_quant_config.json) through
// RootFs with nlohmann-json: bounded in size and nesting, and every failure an Error naming the
// file and line ("/models/x/config.json:12: invalid JSON: ...").
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <string_view>

#include "fs/root_fs.h"
#include "util/result.h"

namespace dossier {

// Nesting deeper than this is dropped while parsing: no config file needs it, and it bounds the
// memory and recursion a hostile file can cause.
inline constexpr int kMaxJsonDepth = 64;

// Parses text; `name` is used in messages. Containers nested deeper than kMaxJsonDepth are
// discarded (they come back as null).
Result<nlohmann::json> ParseJsonText(std::string_view text, std::string_view name);

// Reads at most max_bytes (more is an error saying so) and parses.
Result<nlohmann::json> ReadJsonFile(const RootFs& fs, std::string_view path, size_t max_bytes);

}  // namespace dossier
