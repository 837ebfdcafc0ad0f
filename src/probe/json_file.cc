#include "probe/json_file.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "util/text.h"

namespace dossier {

Result<nlohmann::json> ParseJsonText(std::string_view text, std::string_view name) {
  using nlohmann::json;
  // The callback drops containers that open deeper than the bound; the parser still walks them
  // (iteratively) but builds nothing, so memory stays proportional to the kept part.
  json::parser_callback_t keep = [](int depth, json::parse_event_t event, json&) {
    if (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start)
      return depth <= kMaxJsonDepth;
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), keep, /*allow_exceptions=*/true,
                       /*ignore_comments=*/false);
  } catch (const json::parse_error& e) {
    // e.byte is 1-based and may point one past the end; count the lines before it.
    size_t upto = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + upto, '\n'));
    std::string what = e.what();
    // nlohmann's message: "[json.exception.parse_error.101] parse error at line 3, column 1:
    // syntax error ..." — keep what follows the position, it says what was expected.
    size_t colon = what.find(": ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    return Error::Invalid(std::string(name) + ":" + std::to_string(line) +
                          ": invalid JSON: " + Printable(what, 160));
  } catch (const json::exception& e) {
    return Error::Invalid(std::string(name) + ": invalid JSON: " + Printable(e.what(), 160));
  }
}

Result<nlohmann::json> ReadJsonFile(const RootFs& fs, std::string_view path, size_t max_bytes) {
  auto text = fs.Read(path, max_bytes);
  if (!text) return text.error();
  return ParseJsonText(*text, path);
}

}  // namespace dossier
