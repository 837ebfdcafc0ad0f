// The MCP resources: the report (Markdown and JSON), the notes, and one resource per record.
// Reading is always allowed. The report is rendered by a child (`dossier report`, as a tool
// is); the notes and records are files of the dossier, found by name in its directory listing:
// a URI never becomes a path, so no URI reaches outside the dossier.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "mcp/tools.h"
#include "util/result.h"

namespace dossier::mcp {

// resources/list's `resources`.
nlohmann::json ListResources(const ServerOptions& opts);

struct ResourcePlan {
  std::string uri, mime;
  std::optional<Invocation> run;  // the text is this command's stdout
  std::string text;               // else the text itself
};

// Error::kNotFound for a URI that names nothing (JSON-RPC's "resource not found").
Result<ResourcePlan> PlanResource(const std::string& uri, const ServerOptions& opts);

}  // namespace dossier::mcp
