// Which process on this machine serves the benchmarked port, and with which flags, so a
// serve-bench record says what configuration produced its numbers.
//
// HOOK for the servers probe: this finds the listening process itself (/proc/net/tcp{,6} socket
// inodes -> /proc/PID/fd links) and splits its command line into flags with a simple rule. When
// src/probe/servers.cc (the inference-server probe) is on main, its flag parser and engine
// detection should replace FlagsFromArgv, so collect and serve-bench record flags alike.
//
// Reads go through RootFs, so tests run it against a fake /proc. Processes of other users whose
// fds cannot be read are skipped (unprivileged runs see only their own servers).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fs/root_fs.h"
#include "measure/serve/endpoint.h"

namespace dossier::serve {

struct LocalServer {
  int64_t pid = 0;
  std::string command;                       // the command line, secrets redacted
  std::map<std::string, std::string> flags;  // "--tp-size" -> "8"; bare flags -> "true"
};

// Loopback names and addresses, and this machine's own host name.
bool IsLocalHost(std::string_view host);

// The process listening on TCP `port` (IPv4 or IPv6), if one can be seen.
std::optional<LocalServer> FindLocalServer(const RootFs& fs, int port);

// The server behind a benchmarked endpoint when that endpoint is this machine: `why` says why
// there is none for a local endpoint whose listener cannot be seen (another user's process), and
// stays empty for a remote one (nothing here could say which process serves it).
std::optional<LocalServer> ServerOfEndpoint(const RootFs& fs, const Endpoint& e, std::string* why);

// "--a=1 --b 2 --c" -> {--a: 1, --b: 2, --c: true}; positional words are not flags. The argv must
// already be redacted.
std::map<std::string, std::string> FlagsFromArgv(const std::vector<std::string>& argv);

}  // namespace dossier::serve
