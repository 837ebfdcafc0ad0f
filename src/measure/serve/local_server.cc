#include "measure/serve/local_server.h"

#include <unistd.h>

#include <set>

#include "util/redact.h"
#include "util/text.h"

namespace dossier::serve {
namespace {

constexpr const char* kTcpListen = "0A";

// Inodes of the sockets listening on `port` in one /proc/net/tcp-format table.
void ListeningInodes(const RootFs& fs, const char* table, int port, std::set<std::string>* out) {
  auto text = fs.Read(table, 64u << 20);
  if (!text) return;
  bool header = true;
  for (std::string_view line : SplitLines(*text)) {
    if (header) {  // "  sl  local_address rem_address   st tx_queue rx_queue …"
      header = false;
      continue;
    }
    auto f = SplitAny(line, " \t");
    if (f.size() < 10 || f[3] != kTcpListen) continue;
    size_t colon = f[1].rfind(':');
    if (colon == std::string_view::npos) continue;
    auto p = ParseUint(f[1].substr(colon + 1), 16);
    if (p && static_cast<int>(*p) == port && f[9] != "0") out->emplace(f[9]);
  }
}

}  // namespace

bool IsLocalHost(std::string_view host) {
  if (host.starts_with('[') && host.ends_with(']')) host = host.substr(1, host.size() - 2);
  if (host == "localhost" || host == "::1" || host == "0.0.0.0" || host == "::" ||
      host.starts_with("127.")) {
    return true;
  }
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) == 0 && ToLower(host) == ToLower(name)) return true;
  return false;
}

std::map<std::string, std::string> FlagsFromArgv(const std::vector<std::string>& argv) {
  std::map<std::string, std::string> flags;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (!a.starts_with("-") || a == "-" || a == "--") continue;
    size_t eq = a.find('=');
    if (eq != std::string::npos) {
      flags[a.substr(0, eq)] = a.substr(eq + 1);
    } else if (i + 1 < argv.size() && !argv[i + 1].starts_with("-")) {
      flags[a] = argv[++i];
    } else {
      flags[a] = "true";
    }
  }
  return flags;
}

std::optional<LocalServer> FindLocalServer(const RootFs& fs, int port) {
  std::set<std::string> inodes;
  ListeningInodes(fs, "/proc/net/tcp", port, &inodes);
  ListeningInodes(fs, "/proc/net/tcp6", port, &inodes);
  if (inodes.empty()) return std::nullopt;
  auto procs = fs.List("/proc");
  if (!procs) return std::nullopt;
  for (const std::string& pid : *procs) {
    if (!ParseInt(pid)) continue;
    std::string fd_dir = "/proc/" + pid + "/fd";
    auto fds = fs.List(fd_dir);
    if (!fds) continue;  // another user's process: not readable
    for (const std::string& fd : *fds) {
      auto target = fs.ReadLink(fd_dir + "/" + fd);
      if (!target || !target->starts_with("socket:[")) continue;
      std::string inode = target->substr(8, target->size() - 9);
      if (!inodes.count(inode)) continue;
      LocalServer s;
      s.pid = *ParseInt(pid);
      auto cmdline = fs.Read("/proc/" + pid + "/cmdline", 1 << 20);
      if (cmdline) {
        std::vector<std::string> argv;
        for (std::string_view w : Split(*cmdline, '\0')) {
          if (!w.empty()) argv.emplace_back(w);
        }
        argv = RedactArgv(argv);
        for (const auto& w : argv) s.command += (s.command.empty() ? "" : " ") + w;
        if (argv.size() > 1) {
          s.flags = FlagsFromArgv(std::vector<std::string>(argv.begin() + 1, argv.end()));
        }
      }
      return s;
    }
  }
  return std::nullopt;
}

std::optional<LocalServer> ServerOfEndpoint(const RootFs& fs, const Endpoint& e, std::string* why) {
  why->clear();
  if (!IsLocalHost(e.host) || e.port <= 0) return std::nullopt;
  auto s = FindLocalServer(fs, e.port);
  if (!s)
    *why = "no process listening on port " + std::to_string(e.port) +
           " is visible (another user's? run as that user or root to record the server's flags)";
  return s;
}

}  // namespace dossier::serve
