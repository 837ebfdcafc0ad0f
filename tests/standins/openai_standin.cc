#include "standins/openai_standin.h"

#include <arpa/inet.h>
#include <linux/net_tstamp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>
#include <queue>
#include <random>

namespace dossier::testing {
namespace {

using nlohmann::json;

constexpr size_t kMaxRequestBytes = 8u << 20;
constexpr int64_t kCreated = 1700000000;

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string ToLower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int64_t CountWords(const std::string& s) {
  int64_t n = 0;
  bool in_word = false;
  for (char c : s) {
    bool space = c == ' ' || c == '\n' || c == '\t';
    if (!space && !in_word) ++n;
    in_word = !space;
  }
  return n;
}

// One HTTP/1.1 chunk of a chunked body.
void AppendChunk(std::string* out, const std::string& payload) {
  char size[24];
  std::snprintf(size, sizeof size, "%zx\r\n", payload.size());
  out->append(size);
  out->append(payload);
  out->append("\r\n");
}

struct Timer {
  int64_t due;
  int fd;
  uint64_t gen;
  bool operator>(const Timer& o) const { return due > o.due; }
};

struct Conn {
  int fd = -1;
  uint64_t gen = 0;
  std::string in, out;
  int64_t arrived_ns = 0;  // kernel receive time of the first bytes of the request in `in`
  bool out_armed = false, close_after_flush = false;
  bool busy = false;  // a response is streaming, or stalled on purpose
  bool dead = false;  // closed; freed at the end of the loop iteration
  bool recorded = true;
  ServedRequest rec;
  bool chat = false, include_usage = false, continuous_usage = false;
  int64_t total = 0, next_token = 0, due_ns = 0, sent_tokens = 0;
  std::string token_event;  // "data: {…}\n\n" of an ordinary token, built once per stream
};

}  // namespace

class StandinServer::Loop {
 public:
  explicit Loop(StandinServer* s) : s_(s), cfg_(s->config_) {}

  void Run() {
    ep_ = ::epoll_create1(EPOLL_CLOEXEC);
    Watch(s_->listen_fd_, EPOLLIN);
    Watch(s_->stop_fd_, EPOLLIN);
    const int64_t end = NowNs() + static_cast<int64_t>(cfg_.lifetime_s * 1e9);
    epoll_event evs[512];
    bool stop = false;
    while (!stop) {
      int64_t now = NowNs();
      if (now >= end) break;
      // Sleep until the next token is due (nanosecond timeout: no timerfd to re-arm per token,
      // which would double the system calls per token).
      int64_t wake = std::min(end, now + 1000000000);
      if (!heap_.empty()) wake = std::min(wake, heap_.top().due);
      int64_t wait = std::max<int64_t>(0, wake - now);
      timespec ts{static_cast<time_t>(wait / 1000000000), static_cast<long>(wait % 1000000000)};
      int n = ::epoll_pwait2(ep_, evs, 512, &ts, nullptr);
      for (int i = 0; i < n; ++i) {
        int fd = evs[i].data.fd;
        if (fd == s_->stop_fd_) {
          stop = true;
        } else if (fd == s_->listen_fd_) {
          AcceptAll();
        } else {
          OnConnEvent(fd, evs[i].events);
        }
      }
      FireTimers();
      graveyard_.clear();
    }
    std::vector<int> fds;
    for (auto& c : conns_) {
      if (c) fds.push_back(c->fd);
    }
    for (int fd : fds) Close(conns_[static_cast<size_t>(fd)].get());
    graveyard_.clear();
    ::close(ep_);
  }

 private:
  void Watch(int fd, uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = fd;
    ::epoll_ctl(ep_, EPOLL_CTL_ADD, fd, &ev);
  }

  void AcceptAll() {
    for (;;) {
      int fd = ::accept4(s_->listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // each token leaves at once
      int stamp = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
      ::setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &stamp, sizeof stamp);
      auto c = std::make_unique<Conn>();
      c->fd = fd;
      c->gen = next_gen_++;
      Watch(fd, EPOLLIN | EPOLLRDHUP);
      if (conns_.size() <= static_cast<size_t>(fd)) conns_.resize(static_cast<size_t>(fd) + 1);
      conns_[static_cast<size_t>(fd)] = std::move(c);
      s_->accepted_.fetch_add(1);
    }
  }

  void OnConnEvent(int fd, uint32_t events) {
    Conn* c = Find(fd);
    if (!c) return;
    if (events & EPOLLOUT) {
      if (!Flush(c)) return;
    }
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP)) OnReadable(c);
  }

  void OnReadable(Conn* c) {
    char buf[65536];
    for (;;) {
      bool first = c->in.empty();
      ssize_t n = first ? ReadStamped(c, buf, sizeof buf) : ::read(c->fd, buf, sizeof buf);
      if (n == 0) return Close(c);  // the client went away (or cancelled its stream)
      if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) break;
        return Close(c);
      }
      c->in.append(buf, static_cast<size_t>(n));
      if (c->in.size() > kMaxRequestBytes) {
        c->in.clear();
        SendSimple(c, 413, "Payload Too Large", R"({"error":{"message":"request too large"}})",
                   true);
        return;
      }
    }
    ProcessRequests(c);
  }

  // A read that also takes the kernel's receive time of the bytes (SO_TIMESTAMPING, enabled at
  // accept): when a request reached this server, whatever this loop was busy with then.
  ssize_t ReadStamped(Conn* c, char* buf, size_t len) {
    char control[256];
    iovec iov{buf, len};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = ::recvmsg(c->fd, &msg, 0);
    if (n <= 0) return n;
    c->arrived_ns = NowNs();
    for (cmsghdr* cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
      if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SO_TIMESTAMPING) continue;
      timespec ts[3];
      std::memcpy(ts, CMSG_DATA(cm), sizeof ts);
      if (ts[0].tv_sec == 0 && ts[0].tv_nsec == 0) break;
      // CLOCK_REALTIME -> the steady clock everything else is on (offset taken now).
      timespec real{}, mono{};
      ::clock_gettime(CLOCK_REALTIME, &real);
      ::clock_gettime(CLOCK_MONOTONIC, &mono);
      int64_t offset = (real.tv_sec - mono.tv_sec) * 1000000000LL + (real.tv_nsec - mono.tv_nsec);
      c->arrived_ns = ts[0].tv_sec * 1000000000LL + ts[0].tv_nsec - offset;
    }
    return n;
  }

  void ProcessRequests(Conn* c) {
    while (!c->dead && !c->busy && !c->close_after_flush) {
      size_t hdr_end = c->in.find("\r\n\r\n");
      if (hdr_end == std::string::npos) return;
      std::string head = c->in.substr(0, hdr_end);
      size_t line_end = head.find("\r\n");
      std::string request_line = head.substr(0, line_end);
      std::string method = request_line.substr(0, request_line.find(' '));
      size_t p1 = request_line.find(' ');
      size_t p2 = request_line.find(' ', p1 + 1);
      std::string path = p1 == std::string::npos ? "" : request_line.substr(p1 + 1, p2 - p1 - 1);
      size_t content_length = 0;
      bool close = false, chunked = false;
      std::string auth, request_id;
      size_t pos = line_end == std::string::npos ? head.size() : line_end + 2;
      while (pos < head.size()) {
        size_t e = head.find("\r\n", pos);
        if (e == std::string::npos) e = head.size();
        std::string line = head.substr(pos, e - pos);
        pos = e + 2;
        size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        std::string name = ToLower(line.substr(0, colon));
        std::string value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.erase(0, 1);
        if (name == "content-length") content_length = std::strtoull(value.c_str(), nullptr, 10);
        if (name == "authorization") auth = value;
        if (name == "x-request-id") request_id = value;
        if (name == "connection" && ToLower(value) == "close") close = true;
        if (name == "transfer-encoding") chunked = true;
      }
      if (chunked) {
        SendSimple(c, 411, "Length Required", R"({"error":{"message":"send Content-Length"}})",
                   true);
        return;
      }
      if (c->in.size() < hdr_end + 4 + content_length) return;  // body still coming
      std::string body = c->in.substr(hdr_end + 4, content_length);
      c->in.erase(0, hdr_end + 4 + content_length);
      Handle(c, method, path, auth, request_id, body, close);
    }
  }

  void Handle(Conn* c, const std::string& method, const std::string& path, const std::string& auth,
              const std::string& request_id, const std::string& body, bool close) {
    if (method == "GET" && path == "/v1/models") {
      json models = {{"object", "list"},
                     {"data", json::array({{{"id", cfg_.model}, {"object", "model"}}})}};
      SendSimple(c, 200, "OK", models.dump(), close);
      return;
    }
    if (method == "POST" && path == "/tokenize" && cfg_.tokenize_endpoint) {
      // As llama.cpp answers: {"tokens": [ids]}; a token per word of "content" (or "prompt").
      json j = json::parse(body, nullptr, false);
      std::string text;
      if (j.is_object() && j.contains("content") && j["content"].is_string()) {
        text = j["content"].get<std::string>();
      } else if (j.is_object() && j.contains("prompt") && j["prompt"].is_string()) {
        text = j["prompt"].get<std::string>();
      } else {
        SendSimple(c, 400, "Bad Request", R"({"error":{"message":"no content"}})", close);
        return;
      }
      s_->tokenize_calls_.fetch_add(1);
      json ids = json::array();
      for (int64_t i = 0, n = CountWords(text); i < n; ++i) ids.push_back(1000 + i);
      SendSimple(c, 200, "OK", json{{"tokens", ids}}.dump(), close);
      return;
    }
    bool chat = path == "/v1/chat/completions";
    if (method != "POST" || (!chat && path != "/v1/completions")) {
      SendSimple(c, 404, "Not Found", R"({"error":{"message":"no such route"}})", close);
      return;
    }
    ServedRequest rec;
    rec.received_ns = NowNs();
    rec.arrived_ns = c->arrived_ns > 0 ? c->arrived_ns : rec.received_ns;
    c->arrived_ns = 0;  // a request already waiting behind this one has no time of its own
    rec.request_id = request_id;
    rec.path = path;
    rec.authorization = auth;
    rec.body = body;
    if (!cfg_.api_key.empty() && auth != "Bearer " + cfg_.api_key) {
      SendSimple(c, 401, "Unauthorized", R"({"error":{"message":"invalid API key"}})", close);
      s_->Record(std::move(rec));
      return;
    }
    json j = json::parse(body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      SendSimple(c, 400, "Bad Request", R"({"error":{"message":"body is not JSON"}})", close);
      s_->Record(std::move(rec));
      return;
    }
    int64_t n = posts_++;
    rec.fault = (cfg_.fault != Fault::kNone && cfg_.fault_every > 0 &&
                 n % cfg_.fault_every == cfg_.fault_every - 1)
                    ? cfg_.fault
                    : Fault::kNone;
    int64_t max_tokens = 16;
    if (j.contains("max_tokens") && j["max_tokens"].is_number_integer()) {
      max_tokens = j["max_tokens"].get<int64_t>();
    }
    if (chat && j.contains("messages") && j["messages"].is_array()) {
      for (const auto& m : j["messages"]) {
        if (m.is_object() && m.contains("content") && m["content"].is_string()) {
          rec.prompt_words += CountWords(m["content"].get<std::string>());
        }
      }
    } else if (j.contains("prompt") && j["prompt"].is_string()) {
      rec.prompt_words = CountWords(j["prompt"].get<std::string>());
    }
    c->include_usage = j.contains("stream_options") && j["stream_options"].is_object() &&
                       j["stream_options"].value("include_usage", false);
    c->continuous_usage = cfg_.continuous_usage && j.contains("stream_options") &&
                          j["stream_options"].is_object() &&
                          j["stream_options"].value("continuous_usage_stats", false);
    if (rec.fault == Fault::kHttp500) {
      SendSimple(
          c, 500, "Internal Server Error",
          R"({"error":{"message":"stand-in fault: internal error","type":"InternalServerError","code":500}})",
          close);
      s_->Record(std::move(rec));
      return;
    }
    c->rec = std::move(rec);
    c->recorded = false;
    c->busy = true;
    c->close_after_flush = close;
    if (c->rec.fault == Fault::kStall) return;  // never answers; recorded when the client leaves
    c->chat = chat;
    c->total = cfg_.output_len > 0 ? cfg_.output_len : std::max<int64_t>(1, max_tokens);
    c->next_token = 0;
    c->sent_tokens = 0;
    std::string out =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
        "Transfer-Encoding: chunked\r\n\r\n";
    if (chat) {  // vLLM and SGLang open a chat stream with the role and no content
      AppendChunk(&out,
                  "data: " + Chunk(c, "", false, true, c->continuous_usage ? 0 : -1) + "\n\n");
    }
    c->token_event = "data: " + Chunk(c, ChunkText(cfg_.tokens_per_chunk), false) + "\n\n";
    c->rec.token_sent_ns.reserve(static_cast<size_t>(c->total));
    if (!Send(c, out)) return;
    c->due_ns = c->rec.received_ns + static_cast<int64_t>(cfg_.ttft_ms * 1e6);
    if (cfg_.ttft_jitter_ms > 0) {
      std::uniform_int_distribution<int64_t> jitter(
          0, static_cast<int64_t>(cfg_.ttft_jitter_ms * 1e6));
      c->due_ns += jitter(rng_);
    }
    heap_.push({c->due_ns, c->fd, c->gen});
  }

  static std::string ChunkText(int64_t tokens) {
    std::string t;
    for (int64_t i = 0; i < tokens; ++i) t += " tok";
    return t;
  }

  // vLLM's continuous_usage_stats: the running counts inside a chunk.
  std::string UsageJson(const Conn* c, int64_t completion) const {
    return R"("usage":{"prompt_tokens":)" + std::to_string(c->rec.prompt_words) +
           R"(,"completion_tokens":)" + std::to_string(completion) + R"(,"total_tokens":)" +
           std::to_string(c->rec.prompt_words + completion) + "}";
  }

  std::string Chunk(const Conn* c, const std::string& text, bool last, bool role = false,
                    int64_t usage_tokens = -1) {
    std::string s;
    s.reserve(256);
    if (c->chat) {
      s += R"({"id":"chatcmpl-)" + c->rec.request_id + R"(","object":"chat.completion.chunk",)";
      s += R"("created":)" + std::to_string(kCreated) + R"(,"model":)" + json(cfg_.model).dump() +
           R"(,)";
      s += R"("choices":[{"index":0,"delta":{)";
      s +=
          role ? R"("role":"assistant","content":"")" : std::string(R"("content":")") + text + "\"";
      s += R"(},"logprobs":null,"finish_reason":)";
    } else {
      s += R"({"id":"cmpl-)" + c->rec.request_id + R"(","object":"text_completion",)";
      s += R"("created":)" + std::to_string(kCreated) + R"(,"model":)" + json(cfg_.model).dump() +
           R"(,)";
      s += R"("choices":[{"index":0,"text":")" + std::string(text) + R"(","logprobs":null,)";
      s += R"("finish_reason":)";
    }
    s += last ? R"("length"}])" : R"(null}])";
    if (usage_tokens >= 0) s += "," + UsageJson(c, usage_tokens);
    s += "}";
    return s;
  }

  void FireTimers() {
    int64_t now = NowNs();
    while (!heap_.empty() && heap_.top().due <= now) {
      Timer t = heap_.top();
      heap_.pop();
      Conn* c = Find(t.fd);
      if (!c || c->gen != t.gen) continue;  // closed meanwhile
      SendToken(c);
    }
  }

  void SendToken(Conn* c) {
    int64_t i = c->next_token;
    Fault f = c->rec.fault;
    bool at_fault = i == cfg_.fault_after_tokens;
    if (f == Fault::kCutStream && at_fault) return Close(c);
    std::string& out = scratch_;  // reused: no allocation per token
    out.clear();
    if (f == Fault::kBadJson && at_fault) {
      AppendChunk(&out, "data: {\"choices\": [{\"text\": \"oops\"\n\n");
      if (!Send(c, out)) return;
      out.clear();
    }
    if (f == Fault::kErrorEvent && at_fault) {
      AppendChunk(&out,
                  "data: {\"error\": {\"object\": \"error\", \"message\": \"stand-in fault: out "
                  "of memory\", \"type\": \"InternalServerError\", \"code\": 500}}\n\n"
                  "data: [DONE]\n\n");
      out += "0\r\n\r\n";
      return EndStream(c, out);
    }
    int64_t n = std::min(std::max<int64_t>(cfg_.tokens_per_chunk, 1), c->total - c->sent_tokens);
    c->sent_tokens += n;
    c->rec.tokens = c->sent_tokens;
    bool last = c->sent_tokens >= c->total;
    if (!last) {
      if (c->continuous_usage) {
        AppendChunk(&out, "data: " + Chunk(c, ChunkText(n), false, false, c->sent_tokens) + "\n\n");
      } else {
        AppendChunk(&out, c->token_event);
      }
      c->rec.token_sent_ns.push_back(NowNs());
      s_->tokens_sent_.fetch_add(1, std::memory_order_relaxed);
      if (!Send(c, out)) return;
      c->next_token = i + 1;
      c->due_ns += static_cast<int64_t>(cfg_.itl_ms * 1e6);
      heap_.push({c->due_ns, c->fd, c->gen});
      return;
    }
    // The last token carries the finish reason; usage (when asked for) and [DONE] follow in the
    // same write, as vLLM sends them.
    std::string payload =
        "data: " + Chunk(c, ChunkText(n), true, false, c->continuous_usage ? c->total : -1) +
        "\n\n";
    if (c->include_usage && f != Fault::kNoUsage) {
      payload +=
          "data: {\"id\":\"cmpl-" + c->rec.request_id +
          "\",\"object\":\"text_completion\",\"created\":" + std::to_string(kCreated) +
          ",\"model\":" + json(cfg_.model).dump() +
          ",\"choices\":[],\"usage\":{\"prompt_tokens\":" + std::to_string(c->rec.prompt_words) +
          ",\"completion_tokens\":" + std::to_string(c->total) +
          ",\"total_tokens\":" + std::to_string(c->rec.prompt_words + c->total) + "}}\n\n";
    }
    payload += "data: [DONE]\n\n";
    AppendChunk(&out, payload);
    out += "0\r\n\r\n";
    c->rec.token_sent_ns.push_back(NowNs());
    s_->tokens_sent_.fetch_add(1, std::memory_order_relaxed);
    c->rec.completed = true;
    EndStream(c, out);
  }

  void EndStream(Conn* c, const std::string& out) {
    s_->Record(std::move(c->rec));
    c->rec = {};
    c->recorded = true;
    c->busy = false;
    if (!Send(c, out)) return;
    if (c->close_after_flush && c->out.empty()) return Close(c);
    ProcessRequests(c);
  }

  void SendSimple(Conn* c, int status, const char* text, const std::string& body, bool close) {
    std::string out =
        "HTTP/1.1 " + std::to_string(status) + " " + text +
        "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n" + body;
    c->close_after_flush = close;
    if (!Send(c, out)) return;
    if (close && c->out.empty()) Close(c);
  }

  // Writes now, or queues what the socket does not take. False when the connection is gone.
  bool Send(Conn* c, const std::string& data) {
    if (c->dead) return false;
    size_t off = 0;
    if (c->out.empty()) {
      while (off < data.size()) {
        ssize_t n = ::send(c->fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
        if (n < 0) {
          if (errno == EINTR) continue;
          if (errno == EAGAIN) break;
          Close(c);
          return false;
        }
        off += static_cast<size_t>(n);
      }
    }
    if (off < data.size()) {
      c->out.append(data, off, std::string::npos);
      if (!c->out_armed) {
        epoll_event ev{};
        ev.events = EPOLLIN | EPOLLRDHUP | EPOLLOUT;
        ev.data.fd = c->fd;
        ::epoll_ctl(ep_, EPOLL_CTL_MOD, c->fd, &ev);
        c->out_armed = true;
      }
    }
    return true;
  }

  bool Flush(Conn* c) {
    while (!c->out.empty()) {
      ssize_t n = ::send(c->fd, c->out.data(), c->out.size(), MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN) return true;
        Close(c);
        return false;
      }
      c->out.erase(0, static_cast<size_t>(n));
    }
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.fd = c->fd;
    ::epoll_ctl(ep_, EPOLL_CTL_MOD, c->fd, &ev);
    c->out_armed = false;
    if (c->close_after_flush && !c->busy) {
      Close(c);
      return false;
    }
    return true;
  }

  // Closes now; the Conn itself lives until the end of this loop iteration, so callers up the
  // stack may still look at c->dead.
  void Close(Conn* c) {
    if (c->dead) return;
    if (!c->recorded) s_->Record(std::move(c->rec));  // cut, stalled, or left by the client
    c->recorded = true;
    c->dead = true;
    ::epoll_ctl(ep_, EPOLL_CTL_DEL, c->fd, nullptr);
    ::close(c->fd);
    graveyard_.push_back(std::move(conns_[static_cast<size_t>(c->fd)]));
  }

  StandinServer* s_;
  const StandinConfig& cfg_;
  int ep_ = -1;
  uint64_t next_gen_ = 1;
  int64_t posts_ = 0;
  std::mt19937_64 rng_{12345};
  Conn* Find(int fd) {
    return fd >= 0 && static_cast<size_t>(fd) < conns_.size()
               ? conns_[static_cast<size_t>(fd)].get()
               : nullptr;
  }

  std::vector<std::unique_ptr<Conn>> conns_;  // by fd
  std::string scratch_;
  std::vector<std::unique_ptr<Conn>> graveyard_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> heap_;
};

StandinServer::StandinServer(StandinConfig config) : config_(std::move(config)) {}

StandinServer::~StandinServer() {
  Stop();
}

Status StandinServer::Start(int port) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return Error::Io(std::string("socket: ") + std::strerror(errno));
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 4096) != 0) {
    std::string why = std::strerror(errno);
    ::close(listen_fd_);
    listen_fd_ = -1;
    return Error::Io("bind/listen on 127.0.0.1: " + why);
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  stop_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  thread_ = std::thread([this] {
    Loop loop(this);
    loop.Run();
  });
  return OkStatus();
}

void StandinServer::Stop() {
  if (thread_.joinable()) {
    uint64_t one = 1;
    ssize_t w = ::write(stop_fd_, &one, sizeof one);
    (void)w;
    thread_.join();
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
  listen_fd_ = stop_fd_ = -1;
}

void StandinServer::Record(ServedRequest r) {
  std::lock_guard<std::mutex> lock(mu_);
  served_.push_back(std::move(r));
}

std::vector<ServedRequest> StandinServer::Served() const {
  std::lock_guard<std::mutex> lock(mu_);
  return served_;
}

int ClosedPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

}  // namespace dossier::testing
