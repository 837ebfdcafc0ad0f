#include "fleet/fleet_json.h"

#include <simdjson.h>

#include <algorithm>

#include "util/text.h"

namespace dossier::fleet {
namespace {

nlohmann::json Convert(simdjson::dom::element e);

// {"/cpu/model": {"from": "/proc/cpuinfo:5"}, "/x": {"from": …, "unknown": "needs root"}}
// -> {"/x": {"unknown": "needs root"}}: sources are not compared across nodes; reasons are
// (an unknown fact's value is "unknown: REASON").
nlohmann::json UnknownReasonsOnly(simdjson::dom::object prov) {
  nlohmann::json out = nlohmann::json::object();
  for (auto field : prov) {
    simdjson::dom::object entry;
    if (field.value.get(entry) != simdjson::SUCCESS) continue;
    std::string_view reason;
    if (entry["unknown"].get(reason) != simdjson::SUCCESS) continue;
    out[std::string(field.key)] = {{"unknown", std::string(reason)}};
  }
  return out;
}

nlohmann::json Convert(simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      nlohmann::json a = nlohmann::json::array();
      simdjson::dom::array arr;
      if (e.get(arr) == simdjson::SUCCESS)
        for (auto x : arr) a.push_back(Convert(x));
      return a;
    }
    case simdjson::dom::element_type::OBJECT: {
      nlohmann::json o = nlohmann::json::object();
      simdjson::dom::object obj;
      if (e.get(obj) != simdjson::SUCCESS) return o;
      for (auto field : obj) {
        simdjson::dom::object prov;
        if (field.key == "provenance" && field.value.get(prov) == simdjson::SUCCESS)
          o["provenance"] = UnknownReasonsOnly(prov);
        else
          o[std::string(field.key)] = Convert(field.value);
      }
      return o;
    }
    // The type was just checked: get() cannot fail on these.
    case simdjson::dom::element_type::INT64:
      return e.get_int64().value_unsafe();
    case simdjson::dom::element_type::UINT64:
      return e.get_uint64().value_unsafe();
    case simdjson::dom::element_type::DOUBLE:
      return e.get_double().value_unsafe();
    case simdjson::dom::element_type::STRING:
      return std::string(e.get_string().value_unsafe());
    case simdjson::dom::element_type::BOOL:
      return e.get_bool().value_unsafe();
    case simdjson::dom::element_type::NULL_VALUE:
      return nullptr;
  }
  return nullptr;
}

}  // namespace

std::optional<nlohmann::json> ParseFleetJson(const std::string& text, std::string* problem) {
  // One parser per thread, reused: its buffers grow to the largest file once.
  thread_local simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (parser.parse(padded).get(root) == simdjson::SUCCESS) return Convert(root);
  // Damaged: nlohmann's parser says where (the byte it stopped at, as a line).
  try {
    return nlohmann::json::parse(text);  // it may accept what simdjson did not (deep nesting)
  } catch (const nlohmann::json::parse_error& e) {
    size_t byte = std::min(e.byte, text.size());
    size_t line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(byte), '\n');
    *problem = ":" + std::to_string(line) + ": not valid JSON (truncated or damaged)";
  } catch (const nlohmann::json::exception& e) {
    // out_of_range 406: a number past a double's range ("1e309"), which has no position.
    *problem = ": not valid JSON (" + Printable(e.what(), 120) + ")";
  }
  return std::nullopt;
}

}  // namespace dossier::fleet
