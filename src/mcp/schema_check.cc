#include "mcp/schema_check.h"

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

namespace dossier::mcp {

struct SchemaCheck::Impl {
  valijson::Schema schema;
  nlohmann::json source;
};

namespace {

// What the schema wants at a top-level property, for messages: valijson says a type was not
// permitted but not which one was.
std::string Wanted(const nlohmann::json& schema, const std::string& property) {
  auto props = schema.find("properties");
  if (props == schema.end() || !props->contains(property)) return "";
  const auto& p = (*props)[property];
  if (p.contains("enum")) return "one of " + p["enum"].dump();
  if (p.contains("type") && p["type"].is_string())
    return "a value of type " + p["type"].get<std::string>();
  return "";
}

}  // namespace

SchemaCheck::SchemaCheck(const nlohmann::json& schema) : impl_(std::make_unique<Impl>()) {
  valijson::SchemaParser parser;
  valijson::adapters::NlohmannJsonAdapter adapter(schema);
  parser.populateSchema(adapter, impl_->schema);  // throws on a malformed schema: ours, tested
  impl_->source = schema;
}

SchemaCheck::~SchemaCheck() = default;
SchemaCheck::SchemaCheck(SchemaCheck&&) noexcept = default;
SchemaCheck& SchemaCheck::operator=(SchemaCheck&&) noexcept = default;

std::vector<std::string> SchemaCheck::Problems(const nlohmann::json& value) const {
  valijson::Validator validator;
  valijson::ValidationResults results;
  valijson::adapters::NlohmannJsonAdapter adapter(value);
  if (validator.validate(impl_->schema, adapter, &results)) return {};
  std::vector<std::string> out;
  valijson::ValidationResults::Error e;
  while (results.popError(e) && out.size() < 8) {
    // Valijson also reports each failure's parent ("Failed to validate against schema associated
    // with property name 'x'") after the failure itself: only the failures are useful.
    if (e.description.starts_with("Failed to validate against")) continue;
    std::string where = "arguments", top;
    for (size_t i = 1; i < e.context.size(); ++i) {
      const std::string& c = e.context[i];  // "[name]" or "[3]"
      if (c.size() >= 2 && c.front() == '[' && c.back() == ']') {
        std::string inner = c.substr(1, c.size() - 2);
        bool index = !inner.empty() && inner.find_first_not_of("0123456789") == std::string::npos;
        where += index ? c : "." + inner;
        if (i == 1 && !index) top = inner;
      } else {
        where += c;
      }
    }
    std::string msg = where + ": " + e.description;
    if (e.context.size() == 2 && !top.empty() &&
        (e.description.find("'type'") != std::string::npos ||
         e.description.find("enum") != std::string::npos)) {
      if (std::string want = Wanted(impl_->source, top); !want.empty())
        msg += " (" + top + " takes " + want + ")";
    }
    out.push_back(std::move(msg));
  }
  if (out.empty()) out.push_back("arguments: do not match the tool's input schema");
  return out;
}

}  // namespace dossier::mcp
