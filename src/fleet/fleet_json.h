// The fleet's JSON reader: simdjson parses a record (about 140 KB for an 8-GPU guest) several
// times faster than nlohmann's parser, and the document is then built as nlohmann::json (what
// the model's reader, model/json_io.h, takes) without what the fleet never reads: of the
// machine's "provenance" only the reasons facts are unknown are kept (two thirds of a record
// is provenance). At 10,000 nodes this is most of the difference between minutes and seconds.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace dossier::fleet {

// nullopt when the text is not JSON, with what is wrong in *problem: ":LINE: ..." where it breaks
// (from nlohmann's parser, which re-reads only a damaged file), or ": ..." when there is no line
// to name (a number too large for a double).
std::optional<nlohmann::json> ParseFleetJson(const std::string& text, std::string* problem);

}  // namespace dossier::fleet
