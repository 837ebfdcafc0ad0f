#include "mcp/server.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>

#include "mcp/child.h"
#include "mcp/resources.h"
#include "mcp/schema_check.h"
#include "util/redact.h"
#include "util/utf8.h"

namespace dossier::mcp {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_stop = 0;
void OnStop(int) {
  g_stop = 1;
}

// The tools' schemas, checked once per server (valijson parses a schema into its own form).
struct CheckedTool {
  const Tool* tool;
  json input, output;
  SchemaCheck check;
};

struct Job {
  json id;
  const CheckedTool* tool = nullptr;  // null: a resource read
  json args;
  std::optional<ResourcePlan> resource;
  Invocation inv;
  json progress_token;  // null when the client asked for no progress
  double progress = 0;
  std::unique_ptr<Child> child;
  Clock::time_point deadline, kill_at;
  bool interrupted = false, cancelled = false, timed_out = false;
  size_t err_scanned = 0;
};

std::string IdKey(const json& id) {
  return id.dump();
}

class Server {
 public:
  Server(const ServerOptions& o, int in, int out) : opts_(o), in_(in), out_(out) {
    for (const auto& t : ToolTable()) {
      json in_schema = t.input_schema(), out_schema = t.output_schema();
      tools_.push_back(std::make_unique<CheckedTool>(
          CheckedTool{&t, in_schema, out_schema, SchemaCheck(in_schema)}));
    }
  }

  int Run() {
    Log(fmt::format("dossier {} MCP server on stdio: dossier {}, writing {}, measuring {}",
                    DOSSIER_VERSION, opts_.dossier_dir, opts_.allow_write ? "allowed" : "off",
                    opts_.allow_measure ? "allowed" : "off"));
    // Shutdown (stdin closed, SIGTERM or SIGINT): what was asked is still answered; a running
    // measurement is stopped (SIGINT: it keeps what it measured) and answered with that. When
    // stdout is gone there is no one to answer: everything stops.
    bool draining = false;
    for (;;) {
      if ((g_stop || in_ < 0 || broken_) && !draining) {
        draining = true;
        auto grace =
            std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kKillGrace));
        if (broken_) queued_.clear();
        for (auto& j : running_) {
          if (broken_) j->cancelled = true;
          if (broken_ || (j->tool && j->tool->tool->needs == Tool::kMeasure)) {
            j->interrupted = true;
            j->child->Signal(SIGINT);
            j->kill_at = std::min(j->kill_at, Clock::now() + grace);
          }
        }
      }
      if (draining && running_.empty() && queued_.empty()) break;
      std::vector<pollfd> fds;
      if (in_ >= 0 && !draining) fds.push_back({in_, POLLIN, 0});
      for (auto& j : running_) {
        for (int fd : {j->child->out_fd(), j->child->err_fd()})
          if (fd >= 0) fds.push_back({fd, POLLIN, 0});
        if (j->child->in_fd() >= 0) fds.push_back({j->child->in_fd(), POLLOUT, 0});
      }
      // 100 ms ticks for deadlines while children run; 2 ms once a child has closed its output
      // and only its exit is awaited, so an answer is not held back by a tick.
      int timeout = running_.empty() ? (draining ? 0 : 1000) : 100;
      for (auto& j : running_)
        if (j->child->out_fd() < 0 && j->child->err_fd() < 0) timeout = 2;
      int n = ::poll(fds.data(), fds.size(), timeout);
      if (n < 0 && errno != EINTR) {
        Log(std::string("poll: ") + std::strerror(errno));
        return 1;
      }
      if (in_ >= 0 && !draining && !fds.empty() && fds[0].fd == in_ && fds[0].revents) ReadInput();
      Pump();
      StartQueued();
    }
    Log(broken_ ? "stdout closed: stopped" : "stdin closed: stopped");
    return 0;
  }

 private:
  void Log(const std::string& s) { std::fprintf(stderr, "dossier mcp: %s\n", s.c_str()); }

  // ---- stdin: newline-delimited messages --------------------------------------------------
  void ReadInput() {
    char buf[1 << 16];
    for (;;) {
      ssize_t n = ::read(in_, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0) {
        if (!line_.empty() && !discarding_) OnLine(line_);  // a last message without '\n'
        line_.clear();
        in_ = -1;
        return;
      }
      size_t start = 0;
      for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
        if (buf[i] != '\n') continue;
        Append(buf + start, i - start);
        if (!discarding_) OnLine(line_);
        discarding_ = false;
        line_.clear();
        start = i + 1;
      }
      Append(buf + start, static_cast<size_t>(n) - start);
      if (static_cast<size_t>(n) < sizeof buf) return;  // drained for now (blocking fd)
    }
  }
  void Append(const char* p, size_t n) {
    if (discarding_) return;
    if (line_.size() + n > kMaxMessage) {
      discarding_ = true;
      line_.clear();
      Fail(nullptr, kInvalidRequest,
           fmt::format("a message of more than {} MiB; it was not read (split the pasted text "
                       "into several imports)",
                       kMaxMessage >> 20));
      return;
    }
    line_.append(p, n);
  }

  void OnLine(std::string line) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) return;
    json msg = json::parse(line, nullptr, false);
    if (msg.is_discarded()) {
      Fail(nullptr, kParseError, "not JSON: each message is one JSON-RPC object on one line");
      return;
    }
    if (msg.is_array()) {
      Fail(nullptr, kInvalidRequest, "JSON-RPC batches are not supported: one message per line");
      return;
    }
    if (!msg.is_object() || msg.value("jsonrpc", json()) != "2.0") {
      Fail(msg.is_object() && msg.contains("id") ? msg["id"] : json(), kInvalidRequest,
           "not a JSON-RPC 2.0 message (\"jsonrpc\": \"2.0\" and a method)");
      return;
    }
    if (!msg.contains("method")) return;  // a response to nothing we asked: ignored
    if (!msg["method"].is_string()) {
      Fail(msg.value("id", json()), kInvalidRequest, "\"method\" is not a string");
      return;
    }
    std::string method = msg["method"];
    json params = msg.contains("params") ? msg["params"] : json::object();
    if (!msg.contains("id")) {
      OnNotification(method, params);
      return;
    }
    const json& id = msg["id"];
    if (!id.is_string() && !id.is_number_integer()) {
      Fail(nullptr, kInvalidRequest, "a request's id is a string or an integer");
      return;
    }
    if (!params.is_object()) {
      Fail(id, kInvalidParams, "\"params\" is not an object");
      return;
    }
    OnRequest(id, method, params);
  }

  // ---- requests ------------------------------------------------------------------------------
  void OnRequest(const json& id, const std::string& method, const json& params) {
    if (method == "ping") return Respond(id, json::object());
    if (method == "initialize") return Initialize(id, params);
    if (!initialized_) return Fail(id, kInvalidRequest, "not initialized: send initialize first");
    if (method == "tools/list") return ToolsList(id);
    if (method == "tools/call") return ToolsCall(id, params);
    if (method == "resources/list") return Respond(id, {{"resources", ListResources(opts_)}});
    if (method == "resources/templates/list")
      return Respond(id, {{"resourceTemplates",
                           json::array({{{"uriTemplate", "dossier://records/{sequence}"},
                                         {"name", "record"},
                                         {"title", "A record of the dossier by sequence number"},
                                         {"mimeType", "application/json"}}})}});
    if (method == "resources/read") return ResourcesRead(id, params);
    Fail(id, kMethodNotFound, fmt::format("method not found: {}", method));
  }

  void Initialize(const json& id, const json& params) {
    std::string asked = params.contains("protocolVersion") && params["protocolVersion"].is_string()
                            ? params["protocolVersion"].get<std::string>()
                            : "";
    // The version the client asked for when this server speaks it, else the newest this server
    // speaks (the client then decides whether it can go on).
    std::string version = kProtocolVersions[0];
    for (const char* v : kProtocolVersions)
      if (asked == v) version = v;
    initialized_ = true;
    Respond(id, {{"protocolVersion", version},
                 {"capabilities",
                  {{"tools", {{"listChanged", false}}},
                   {"resources", {{"subscribe", false}, {"listChanged", false}}}}},
                 {"serverInfo",
                  {{"name", "dossier"}, {"title", "dossier"}, {"version", DOSSIER_VERSION}}},
                 {"instructions",
                  "dossier keeps the state of a multi-GPU inference deployment: machines, wiring, "
                  "software, measurements, notes. Start with the summary tool (goal, blockers with "
                  "their fix, next steps, what will not help); findings and facts give the "
                  "evidence, each fact with its source. Record what you try with the note tool "
                  "instead of retyping it. Unknown values are null with a reason: never read them "
                  "as false or zero."}});
  }

  void ToolsList(const json& id) {
    json list = json::array();
    for (const auto& t : tools_) {
      list.push_back({{"name", t->tool->name},
                      {"title", t->tool->title},
                      {"description", t->tool->description},
                      {"inputSchema", t->input},
                      {"outputSchema", t->output}});
    }
    Respond(id, {{"tools", list}});
  }

  void ToolsCall(const json& id, const json& params) {
    if (!params.contains("name") || !params["name"].is_string())
      return Fail(id, kInvalidParams, "tools/call needs \"name\", the tool's name");
    std::string name = params["name"];
    const CheckedTool* tool = nullptr;
    for (const auto& t : tools_)
      if (name == t->tool->name) tool = t.get();
    if (!tool)
      return Fail(id, kInvalidParams,
                  fmt::format("unknown tool '{}' (tools/list names them)",
                              MakeValidUtf8(name.substr(0, 64))));
    json args = params.contains("arguments") ? params["arguments"] : json::object();
    if (args.is_null()) args = json::object();
    if (auto problems = tool->check.Problems(args); !problems.empty()) {
      std::string text = fmt::format("invalid arguments for {}: ", name);
      for (size_t i = 0; i < problems.size(); ++i) text += (i ? "; " : "") + problems[i];
      return Fail(id, kInvalidParams, text, {{"problems", problems}});
    }
    Result<Invocation> inv = Error::Invalid("");
    try {
      inv = tool->tool->plan(args, opts_);
    } catch (const std::exception& e) {
      return Fail(id, kInternalError, fmt::format("{}: {}", name, e.what()));
    }
    if (!inv) {
      if (inv.error().kind == Error::kPermission) {
        // A tool-level error, for the assistant to read and tell the person.
        return Respond(
            id, {{"content", json::array({{{"type", "text"}, {"text", inv.error().message}}})},
                 {"isError", true}});
      }
      return Fail(id, kInvalidParams, inv.error().message);
    }
    auto job = std::make_unique<Job>();
    job->tool = tool;
    job->args = std::move(args);
    job->inv = std::move(*inv);
    Enqueue(id, params, std::move(job));
  }

  void ResourcesRead(const json& id, const json& params) {
    if (!params.contains("uri") || !params["uri"].is_string())
      return Fail(id, kInvalidParams, "resources/read needs \"uri\"");
    std::string uri = params["uri"];
    if (uri.size() > 4096) return Fail(id, kInvalidParams, "a URI of more than 4096 bytes");
    auto plan = PlanResource(uri, opts_);
    if (!plan) {
      if (plan.error().kind == Error::kNotFound)
        return Fail(id, kResourceNotFound, plan.error().message, {{"uri", uri}});
      return Fail(id, kInternalError, plan.error().message, {{"uri", uri}});
    }
    if (!plan->run) {
      return Respond(
          id,
          {{"contents",
            json::array({{{"uri", plan->uri}, {"mimeType", plan->mime}, {"text", plan->text}}})}});
    }
    auto job = std::make_unique<Job>();
    job->inv = *plan->run;
    job->resource = std::move(*plan);
    Enqueue(id, params, std::move(job));
  }

  void Enqueue(const json& id, const json& params, std::unique_ptr<Job> job) {
    if (InFlight(id)) return Fail(id, kInvalidRequest, "a request with this id is still running");
    job->id = id;
    if (params.contains("_meta") && params["_meta"].is_object() &&
        params["_meta"].contains("progressToken")) {
      const json& t = params["_meta"]["progressToken"];
      if (t.is_string() || t.is_number_integer()) job->progress_token = t;
    }
    queued_.push_back(std::move(job));
    StartQueued();
  }

  bool InFlight(const json& id) {
    for (const auto& j : running_)
      if (j->id == id) return true;
    for (const auto& j : queued_)
      if (j->id == id) return true;
    return false;
  }

  // ---- notifications -------------------------------------------------------------------------
  void OnNotification(const std::string& method, const json& params) {
    if (method == "notifications/cancelled" && params.is_object() && params.contains("requestId")) {
      const json& rid = params["requestId"];
      for (auto it = queued_.begin(); it != queued_.end(); ++it) {
        if ((*it)->id == rid) {
          queued_.erase(it);
          return;
        }
      }
      for (auto& j : running_) {
        if (j->id == rid && !j->cancelled) {
          // SIGINT: a measurement stops and keeps what it measured, as on a person's Ctrl-C.
          // No response follows (the specification: the cancelled request is not answered).
          j->cancelled = true;
          j->child->Signal(SIGINT);
          j->kill_at = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(kKillGrace));
        }
      }
    }
    // notifications/initialized and others need nothing.
  }

  // ---- children ------------------------------------------------------------------------------
  void StartQueued() {
    while (!queued_.empty() && running_.size() < kMaxRunning && !broken_) {
      auto job = std::move(queued_.front());
      queued_.pop_front();
      std::vector<std::string> argv{opts_.self};
      argv.insert(argv.end(), job->inv.argv.begin(), job->inv.argv.end());
      job->child = std::make_unique<Child>(argv, std::move(job->inv.input));
      if (job->child->pid() < 0) {
        Fail(job->id, kInternalError, job->child->error());
        continue;
      }
      job->deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                         std::chrono::duration<double>(job->inv.limit_s));
      job->kill_at = Clock::time_point::max();
      if (g_stop || in_ < 0) {  // started while shutting down: a measurement stops at once
        if (job->tool && job->tool->tool->needs == Tool::kMeasure) {
          job->interrupted = true;
          job->child->Signal(SIGINT);
        }
      }
      running_.push_back(std::move(job));
    }
  }

  void Pump() {
    auto now = Clock::now();
    for (size_t i = 0; i < running_.size();) {
      Job& j = *running_[i];
      Child& c = *j.child;
      c.WriteIn();
      c.ReadOut();
      c.ReadErr();
      ScanProgress(j);
      if (!j.interrupted && now > j.deadline) {
        j.interrupted = j.timed_out = true;
        c.Signal(SIGINT);
        j.kill_at = now + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(kKillGrace));
      }
      if (now > j.kill_at) c.Signal(SIGKILL);
      bool closed = c.out_fd() < 0 && c.err_fd() < 0;
      if ((closed || now > j.kill_at) && c.Reap()) {
        Finish(j);
        running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      ++i;
    }
  }

  // Each line a measurement prints on stderr is a progress notification, when asked for.
  void ScanProgress(Job& j) {
    const std::string& err = j.child->err();
    for (;;) {
      size_t nl = err.find('\n', j.err_scanned);
      if (nl == std::string::npos) return;
      std::string line = err.substr(j.err_scanned, nl - j.err_scanned);
      j.err_scanned = nl + 1;
      if (j.progress_token.is_null() || j.cancelled) continue;
      if (size_t k = line.rfind("\033[K"); k != std::string::npos) line = line.substr(k + 3);
      if (line.find_first_not_of(" \r") == std::string::npos) continue;
      if (line.size() > 512) line = line.substr(0, 512);
      j.progress += 1;
      Send({{"jsonrpc", "2.0"},
            {"method", "notifications/progress"},
            {"params",
             {{"progressToken", j.progress_token},
              {"progress", j.progress},
              {"message", RedactText(MakeValidUtf8(line))}}}});
    }
  }

  void Finish(Job& j) {
    Child& c = *j.child;
    if (j.cancelled) {
      Log(fmt::format("request {} cancelled; its command stopped (exit {})", IdKey(j.id),
                      c.exit_code()));
      return;
    }
    Ran ran{c.exit_code(), MakeValidUtf8(c.out()), MakeValidUtf8(c.err()), c.truncated(),
            j.timed_out};
    if (j.resource) {
      if (ran.exit_code != 0 || ran.truncated) {
        std::string why = ran.err.empty() ? fmt::format("exit code {}", ran.exit_code) : ran.err;
        return Fail(j.id, kInternalError,
                    fmt::format("{} could not be rendered: {}", j.resource->uri, RedactText(why)));
      }
      return Respond(j.id, {{"contents", json::array({{{"uri", j.resource->uri},
                                                       {"mimeType", j.resource->mime},
                                                       {"text", RedactText(ran.out)}}})}});
    }
    ToolResult r;
    try {
      r = j.tool->tool->finish(j.args, opts_, ran);
    } catch (const std::exception& e) {
      // A command's output of an unexpected shape is the call's failure, not the server's.
      r = ToolResult{nullptr,
                     fmt::format("{}: unexpected output ({})", j.tool->tool->name, e.what()), true};
    }
    json result = {{"content", json::array({{{"type", "text"}, {"text", RedactText(r.text)}}})},
                   {"isError", r.is_error}};
    if (!r.is_error) result["structuredContent"] = RedactJson(r.structured);
    Respond(j.id, std::move(result));
  }

  // ---- stdout --------------------------------------------------------------------------------
  void Send(const json& msg) {
    if (broken_) return;
    std::string s = msg.dump(-1, ' ', false, json::error_handler_t::replace);
    s += '\n';
    size_t off = 0;
    while (off < s.size()) {
      ssize_t n = ::write(out_, s.data() + off, s.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        broken_ = true;  // the client is gone: stop
        return;
      }
      off += static_cast<size_t>(n);
    }
  }
  void Respond(const json& id, json result) {
    Send({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
  }
  void Fail(const json& id, int code, std::string message, json data = nullptr) {
    json err = {{"code", code}, {"message", RedactText(MakeValidUtf8(message))}};
    if (!data.is_null()) err["data"] = RedactJson(data);
    Send({{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}});
  }

  const ServerOptions& opts_;
  int in_, out_;
  std::vector<std::unique_ptr<CheckedTool>> tools_;
  std::deque<std::unique_ptr<Job>> queued_;
  std::vector<std::unique_ptr<Job>> running_;
  std::string line_;
  bool discarding_ = false, initialized_ = false, broken_ = false;
};

}  // namespace

int Serve(const ServerOptions& opts, int in_fd, int out_fd) {
  // A client that goes away must not kill the server mid-write (EPIPE is handled); SIGINT and
  // SIGTERM stop it the way a closed stdin does, without SA_RESTART so poll returns at once.
  struct sigaction sa {
  }, old_pipe{}, old_int{}, old_term{};
  sa.sa_handler = SIG_IGN;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGPIPE, &sa, &old_pipe);
  sa.sa_handler = OnStop;
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  g_stop = 0;
  ::fcntl(in_fd, F_SETFL, ::fcntl(in_fd, F_GETFL) | O_NONBLOCK);
  int rc = Server(opts, in_fd, out_fd).Run();
  ::sigaction(SIGPIPE, &old_pipe, nullptr);  // a test or a fuzz run goes on after it
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  return rc;
}

}  // namespace dossier::mcp
