// A `dossier mcp` server for a test: started with pipes on its stdin and stdout, spoken to one
// JSON-RPC message per line, as an MCP client does over stdio.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dossier::testing {

class McpSession {
 public:
  // `args` after "dossier mcp"; `env` NAME=value entries added to the server's environment.
  explicit McpSession(const std::vector<std::string>& args,
                      const std::vector<std::string>& env = {}) {
    int in[2], out[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::close(in[1]);
      ::close(out[0]);
      int devnull = ::open("/dev/null", O_WRONLY);
      ::dup2(devnull, 2);  // the server's log lines
      for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
      std::vector<char*> argv{const_cast<char*>(DOSSIER_BINARY), const_cast<char*>("mcp")};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(DOSSIER_BINARY, argv.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
    ::signal(SIGPIPE, SIG_IGN);
  }
  ~McpSession() {
    CloseInput();
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    if (from_ >= 0) ::close(from_);
  }

  void SendRaw(const std::string& line) {
    size_t off = 0;
    while (off < line.size()) {
      ssize_t n = ::write(to_, line.data() + off, line.size() - off);
      if (n <= 0) return;
      off += static_cast<size_t>(n);
    }
  }
  void Send(const nlohmann::json& msg) { SendRaw(msg.dump() + "\n"); }
  void Request(int id, const std::string& method,
               nlohmann::json params = nlohmann::json::object()) {
    Send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  }

  // The next message, or null after `seconds` without one.
  nlohmann::json Next(double seconds = 60) {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    for (;;) {
      if (size_t nl = buf_.find('\n'); nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return nlohmann::json::parse(line, nullptr, false);
      }
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      end - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) return nullptr;
      pollfd p{from_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      char b[65536];
      ssize_t n = ::read(from_, b, sizeof b);
      if (n <= 0) return nullptr;
      buf_.append(b, static_cast<size_t>(n));
    }
  }
  // The response to request `id`, setting aside notifications (kept in `notifications`).
  nlohmann::json Response(const nlohmann::json& id, double seconds = 60) {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      nlohmann::json m =
          Next(std::chrono::duration<double>(end - std::chrono::steady_clock::now()).count());
      if (m.is_null()) return m;
      if (m.is_object() && m.contains("id") && m["id"] == id) return m;
      notifications.push_back(std::move(m));
    }
    return nullptr;
  }
  nlohmann::json Call(int id, const std::string& method,
                      nlohmann::json params = nlohmann::json::object()) {
    Request(id, method, std::move(params));
    return Response(id);
  }
  nlohmann::json Initialize(const std::string& version = "2025-06-18") {
    auto r = Call(0, "initialize",
                  {{"protocolVersion", version},
                   {"capabilities", nlohmann::json::object()},
                   {"clientInfo", {{"name", "dossier-test"}, {"version", "1"}}}});
    Send({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
    return r;
  }
  nlohmann::json Tool(int id, const std::string& name, nlohmann::json args) {
    return Call(id, "tools/call", {{"name", name}, {"arguments", std::move(args)}});
  }

  void CloseInput() {
    if (to_ >= 0) ::close(to_);
    to_ = -1;
  }
  // The exit code once the server ends (-1 killed, -2 still running after `seconds`).
  int Wait(double seconds = 30) {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      ::usleep(20000);
    }
    return -2;
  }

  std::vector<nlohmann::json> notifications;

 private:
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buf_;
};

}  // namespace dossier::testing
