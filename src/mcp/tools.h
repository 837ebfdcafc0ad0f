// The MCP tools: one table (tools.cc), one row per tool. A row declares the tool's input and
// output schemas, what it needs the server to allow (--allow-write, --allow-measure), how its
// validated arguments become a dossier subcommand's argv (`plan`), and how that command's output
// becomes the tool's result (`finish`). The server (server.cc) checks arguments against the
// schema before `plan` runs, and runs the command as a child (child.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "util/result.h"

namespace dossier::mcp {

// What the person who started `dossier mcp` allowed; nothing here comes from the client.
struct ServerOptions {
  std::string self;                        // the dossier binary the children run
  std::string dossier_dir;                 // --dossier
  bool allow_write = false;                // --allow-write: records and notes may be written
  bool allow_measure = false;              // --allow-measure: p2p and serve_bench may run
  std::vector<std::string> allowed_roots;  // --allow-root, resolved: trees `collect` may read
  std::string cuda_lib, nvml_lib;          // --cuda-lib, --nvml-lib for the measurement
};

// One run of a subcommand.
struct Invocation {
  std::vector<std::string> argv;  // after the program
  std::string input;              // on its stdin
  double limit_s = 300;           // then SIGINT; SIGKILL kKillGrace later
};

struct Ran {
  int exit_code = -1;  // -1: killed by a signal
  std::string out, err;
  bool truncated = false;
  bool timed_out = false;
};

// A tools/call result: structured content (checked by the client against the output schema),
// its text, and whether the tool failed.
struct ToolResult {
  nlohmann::json structured;  // null when is_error
  std::string text;
  bool is_error = false;
};

struct Tool {
  enum Needs { kRead, kWrite, kMeasure };
  const char* name;
  const char* title;
  const char* description;
  Needs needs;
  nlohmann::json (*input_schema)();
  nlohmann::json (*output_schema)();
  // Error::kInvalid: the arguments cannot be used (JSON-RPC invalid params); kPermission: the
  // server was not started with what the call needs (a tool error naming the flag).
  Result<Invocation> (*plan)(const nlohmann::json& args, const ServerOptions& opts);
  ToolResult (*finish)(const nlohmann::json& args, const ServerOptions& opts, const Ran& ran);
};

const std::vector<Tool>& ToolTable();
const Tool* FindTool(std::string_view name);

// Every string in `j` through the redaction rules (util/redact.h), keys kept: children redact
// what they print; this is the second wall, for what they print from elsewhere.
nlohmann::json RedactJson(const nlohmann::json& j);

}  // namespace dossier::mcp
