// `dossier mcp`: a Model Context Protocol server over stdio (newline-delimited JSON-RPC 2.0 on
// stdin and stdout; stdout carries nothing else, logs go to stderr). One thread, one poll loop:
// requests are answered in the order their work ends, tools run as child processes (child.h)
// so a long measurement never blocks a ping, a cancellation or another call.
#pragma once

#include "mcp/tools.h"

namespace dossier::mcp {

// The protocol revisions this server speaks, newest first (the specification's dated versions).
inline constexpr const char* kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26",
                                                    "2024-11-05"};

// JSON-RPC error codes (JSON-RPC 2.0 and MCP's resource-not-found).
enum RpcError {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kResourceNotFound = -32002,
};

// A message longer than this is refused unread (its id cannot be known): 64 MiB holds the
// largest argument any tool takes (8 MiB of pasted text) many times over.
inline constexpr size_t kMaxMessage = 64u << 20;
// Children at once; more calls wait their turn.
inline constexpr size_t kMaxRunning = 4;
// After a child's time limit and SIGINT, how long before SIGKILL.
inline constexpr double kKillGrace = 15;

// Serves until `in_fd` ends (or SIGTERM/SIGINT), then stops what runs (SIGINT: measurements
// keep what they measured) and returns the exit code.
int Serve(const ServerOptions& opts, int in_fd, int out_fd);

}  // namespace dossier::mcp
