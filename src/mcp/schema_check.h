// Checking a tool's arguments against its JSON Schema before anything runs: an assistant's
// arguments are untrusted input. Valijson (Debian's libvalijson-dev, header-only) does the
// checking over nlohmann::json; the schemas are the tools' own (mcp/tools.cc) and never contain
// `pattern` (std::regex on a 16 MiB string is the denial of service this guards against):
// names are checked by util/machine_name.h after the schema passes.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dossier::mcp {

class SchemaCheck {
 public:
  explicit SchemaCheck(const nlohmann::json& schema);
  ~SchemaCheck();
  SchemaCheck(SchemaCheck&&) noexcept;
  SchemaCheck& operator=(SchemaCheck&&) noexcept;

  // Empty when `value` is valid; else one line per problem, each naming where
  // ("arguments.reps: …"), the first few only.
  std::vector<std::string> Problems(const nlohmann::json& value) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dossier::mcp
