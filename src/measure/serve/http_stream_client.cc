#include "measure/serve/http_stream_client.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "measure/serve/endpoint.h"
namespace dossier::serve {
namespace {

constexpr size_t kReadBytes = 64 * 1024;

}  // namespace

struct HttpStreamClient::Target {
  std::string url;
  std::string path;         // "/v1/completions" (with the query, if any)
  std::string host_header;  // "127.0.0.1:30000"
  std::vector<sockaddr_storage> addrs;
  std::vector<socklen_t> lens;
  size_t preferred = 0;  // the address that last took a connection
};

struct HttpStreamClient::Conn {
  enum State { kClosed, kConnecting, kSending, kReceiving, kIdle };
  HttpStreamClient* client = nullptr;
  int fd = -1;
  State state = kClosed;
  uint32_t watched = 0;  // the events registered with epoll; 0: not registered
  size_t addr = 0;       // the address being tried
  // The request on this connection (request == 0: none).
  uint64_t request = 0;
  int64_t id = 0;
  void* user = nullptr;
  long status = 0;
  bool reused = false;        // sent on a kept-alive connection
  bool got_response = false;  // a byte of the answer has come
  bool message_done = false, stopped = false;
  std::string out;  // the request, head and body
  size_t out_off = 0;
  http_parser parser{};
};

HttpStreamClient::HttpStreamClient(ClientOptions options, Sink* sink)
    : options_(std::move(options)), sink_(sink) {}

HttpStreamClient::~HttpStreamClient() {
  for (auto& c : conns_) {
    if (c->fd >= 0) ::close(c->fd);
    std::fill(c->out.begin(), c->out.end(), '\0');  // it held the key
  }
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  std::fill(fixed_headers_.begin(), fixed_headers_.end(), '\0');
}

Status HttpStreamClient::Init() {
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) return Error::Io(std::string("epoll_create1: ") + std::strerror(errno));
  buf_.resize(kReadBytes);
  http_parser_settings_init(&settings_);
  settings_.on_headers_complete = &HttpStreamClient::OnHeadersComplete;
  settings_.on_body = &HttpStreamClient::OnBody;
  settings_.on_message_complete = &HttpStreamClient::OnMessageComplete;
  return OkStatus();
}

const HttpStreamClient::Target* HttpStreamClient::Resolve(const std::string& url,
                                                          std::string* error) {
  if (target_ && target_->url == url) return target_.get();
  if (url == failed_url_) {  // no second lookup per request: a hanging resolver would bound nothing
    *error = failed_why_;
    return nullptr;
  }
  // A new endpoint: connections kept for the old one are of no use.
  while (!idle_.empty()) Close(idle_.back());
  target_.reset();
  auto t = std::make_unique<Target>();
  t->url = url;
  auto parts = SplitUrl(url);
  if (!parts) {
    *error = "not a URL: " + parts.error().message;
    failed_url_ = url;
    failed_why_ = *error;
    return nullptr;
  }
  const std::string& host = parts->host;
  const std::string& port = parts->port;
  t->path = parts->path;
  if (!parts->query.empty()) t->path += "?" + parts->query;
  bool explicit_port = parts->explicit_port;
  if (t->path.empty()) t->path = "/";
  t->host_header = explicit_port ? host + ":" + port : host;
  std::string name = host;  // "[::1]" -> "::1"
  if (name.size() > 2 && name.front() == '[' && name.back() == ']') {
    name = name.substr(1, name.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  // Once per endpoint, before the load: the blocking lookup costs no request its latency.
  if (int rc = ::getaddrinfo(name.c_str(), port.c_str(), &hints, &res); rc != 0) {
    *error = "could not resolve host " + name + ": " + ::gai_strerror(rc);
    failed_url_ = url;
    failed_why_ = *error;
    return nullptr;
  }
  for (addrinfo* a = res; a; a = a->ai_next) {
    sockaddr_storage ss{};
    std::memcpy(&ss, a->ai_addr, a->ai_addrlen);
    t->addrs.push_back(ss);
    t->lens.push_back(a->ai_addrlen);
  }
  ::freeaddrinfo(res);
  fixed_headers_ = "Host: " + t->host_header +
                   "\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n"
                   "User-Agent: dossier-serve-bench/" DOSSIER_VERSION "\r\n";
  if (!options_.api_key.empty()) {
    fixed_headers_ += "Authorization: Bearer " + options_.api_key + "\r\n";
  }
  target_ = std::move(t);
  return target_.get();
}

HttpStreamClient::Conn* HttpStreamClient::NewConn() {
  if (!spare_.empty()) {
    Conn* c = spare_.back();
    spare_.pop_back();
    return c;
  }
  conns_.push_back(std::make_unique<Conn>());
  conns_.back()->client = this;
  return conns_.back().get();
}

void HttpStreamClient::Start(int64_t id, void* user, const std::string& url,
                             std::string_view body) {
  ++active_;
  std::string error;
  const Target* t = Resolve(url, &error);
  if (!t) {
    --active_;
    sink_->OnEnd(id, user, NowNs(), 0, {TransferEnd::kConnect, error});
    return;
  }
  Conn* c;
  if (!idle_.empty()) {  // the most recently used: the likeliest to be still open
    c = idle_.back();
    idle_.pop_back();
    c->reused = true;
  } else {
    c = NewConn();
    c->reused = false;
    c->state = Conn::kConnecting;  // no socket yet: Connect makes one
  }
  c->request = next_request_++;
  c->id = id;
  c->user = user;
  c->out.clear();
  c->out.append("POST ").append(t->path).append(" HTTP/1.1\r\n").append(fixed_headers_);
  c->out.append("X-Request-Id: ").append(options_.request_id_prefix).append(std::to_string(id));
  c->out.append("\r\nContent-Length: ").append(std::to_string(body.size())).append("\r\n\r\n");
  c->out.append(body);
  in_flight_[c->request] = c;
  int64_t now = NowNs();
  deadlines_.push({now + static_cast<int64_t>(options_.timeout_s * 1e9), c->request, false});
  if (c->reused) {
    BeginRequest(c);
  } else {
    deadlines_.push(
        {now + static_cast<int64_t>(options_.connect_timeout_s * 1e9), c->request, true});
    c->addr = t->preferred;
    Connect(c);
  }
}

// Opens a socket to the target, from address c->addr on: a refused or unreachable address passes
// to the next ("localhost" is ::1 and 127.0.0.1; the server may listen on one only).
void HttpStreamClient::Connect(Conn* c) {
  int last = 0;
  for (; c->addr < target_->addrs.size(); ++c->addr) {
    const auto* sa = reinterpret_cast<const sockaddr*>(&target_->addrs[c->addr]);
    int fd = ::socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      last = errno;
      break;  // out of descriptors: another address does not help
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (::connect(fd, sa, target_->lens[c->addr]) == 0 || errno == EINPROGRESS) {
      c->fd = fd;
      c->state = Conn::kConnecting;
      Watch(c, EPOLLOUT);
      return;
    }
    last = errno;
    ::close(fd);
  }
  TransferEnd end{last == ECONNREFUSED ? TransferEnd::kRefused : TransferEnd::kConnect,
                  std::strerror(last)};
  Finish(c, end, false);
}

void HttpStreamClient::OnConnected(Conn* c) {
  int err = 0;
  socklen_t len = sizeof err;
  ::getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
  if (err == EINPROGRESS) return;
  if (err != 0) {
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, c->fd, nullptr);
    ::close(c->fd);
    c->fd = -1;
    c->watched = 0;
    ++c->addr;
    if (c->addr < target_->addrs.size()) return Connect(c);
    TransferEnd end{err == ECONNREFUSED ? TransferEnd::kRefused : TransferEnd::kConnect,
                    std::strerror(err)};
    return Finish(c, end, false);
  }
  target_->preferred = c->addr;
  BeginRequest(c);
}

void HttpStreamClient::BeginRequest(Conn* c) {
  c->state = Conn::kSending;
  c->out_off = 0;
  c->status = 0;
  c->got_response = c->message_done = c->stopped = false;
  http_parser_init(&c->parser, HTTP_RESPONSE);
  c->parser.data = c;
  Send(c);
}

void HttpStreamClient::Send(Conn* c) {
  while (c->out_off < c->out.size()) {
    ssize_t n = ::send(c->fd, c->out.data() + c->out_off, c->out.size() - c->out_off, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) return Watch(c, EPOLLIN | EPOLLOUT);
      return OnClosed(c, errno);
    }
    c->out_off += static_cast<size_t>(n);
  }
  c->state = Conn::kReceiving;
  Watch(c, EPOLLIN);
}

// One recv per readiness (epoll is level-triggered: what is left is reported again), then the
// parser, whose body callback hands the bytes to the sink with the time they were read.
void HttpStreamClient::Receive(Conn* c) {
  ssize_t n = ::recv(c->fd, buf_.data(), buf_.size(), 0);
  now_ns_ = NowNs();
  if (n == 0) return OnClosed(c, 0);
  if (n < 0) {
    if (errno == EAGAIN || errno == EINTR) return;
    return OnClosed(c, errno);
  }
  c->got_response = true;
  const char* at = buf_.data();
  size_t left = static_cast<size_t>(n);
  size_t used = http_parser_execute(&c->parser, &settings_, at, left);
  while (c->message_done && c->status >= 100 && c->status < 200 && !c->stopped) {
    // An interim answer ("100 Continue", "103 Early Hints") comes before the real one.
    at += used;
    left -= used;
    c->message_done = false;
    c->status = 0;
    http_parser_init(&c->parser, HTTP_RESPONSE);
    c->parser.data = c;
    used = left > 0 ? http_parser_execute(&c->parser, &settings_, at, left) : 0;
    if (left == 0) return;
  }
  if (c->stopped) return Finish(c, {TransferEnd::kAborted, "stopped by the reader"}, false);
  if (c->message_done) {
    // Bytes after the answer would be a reply to nothing: do not keep such a connection.
    bool keep = http_should_keep_alive(&c->parser) && used == left && c->out_off == c->out.size();
    return Finish(c, {TransferEnd::kOk, ""}, keep);
  }
  if (HTTP_PARSER_ERRNO(&c->parser) != HPE_OK) {
    std::string why =
        std::string("bad HTTP response: ") + http_errno_description(HTTP_PARSER_ERRNO(&c->parser));
    return Finish(c, {TransferEnd::kOther, why}, false);
  }
}

// The connection ended (err 0: closed by the server) before the answer did.
void HttpStreamClient::OnClosed(Conn* c, int err) {
  if (c->reused && !c->got_response) {
    // A kept-alive connection the server closed meanwhile (its idle timeout): the request never
    // reached it. Again on a new connection, as curl and browsers do.
    ::close(c->fd);
    c->fd = -1;
    c->watched = 0;
    c->reused = false;
    c->state = Conn::kConnecting;
    c->addr = target_->preferred;
    deadlines_.push(
        {NowNs() + static_cast<int64_t>(options_.connect_timeout_s * 1e9), c->request, true});
    return Connect(c);
  }
  if (err == 0 && c->got_response) {
    http_parser_execute(&c->parser, &settings_, nullptr, 0);  // ends a close-delimited body
    if (c->stopped) return Finish(c, {TransferEnd::kAborted, "stopped by the reader"}, false);
    if (c->message_done) return Finish(c, {TransferEnd::kOk, ""}, false);
  }
  Finish(c, {TransferEnd::kCut, err == 0 ? "connection closed" : std::strerror(err)}, false);
}

void HttpStreamClient::Finish(Conn* c, const TransferEnd& end, bool keep_connection) {
  int64_t id = c->id;
  void* user = c->user;
  long status = c->status;
  in_flight_.erase(c->request);
  c->request = 0;
  --active_;
  if (keep_connection && static_cast<int64_t>(idle_.size()) < options_.max_connections) {
    c->state = Conn::kIdle;
    Watch(c, EPOLLIN);  // to see the server close it
    idle_.push_back(c);
  } else {
    Close(c);
  }
  sink_->OnEnd(id, user, end.kind == TransferEnd::kOk ? now_ns_ : NowNs(), status, end);
}

void HttpStreamClient::Close(Conn* c) {
  if (c->state == Conn::kClosed) return;  // already in the graveyard
  if (c->state == Conn::kIdle) idle_.erase(std::find(idle_.begin(), idle_.end(), c));
  if (c->fd >= 0) ::close(c->fd);  // also leaves the epoll set
  c->fd = -1;
  c->watched = 0;
  c->state = Conn::kClosed;
  graveyard_.push_back(c);
}

void HttpStreamClient::Watch(Conn* c, uint32_t events) {
  if (c->watched == events) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.ptr = c;
  ::epoll_ctl(epoll_fd_, c->watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &ev);
  c->watched = events;
}

void HttpStreamClient::OnEvent(Conn* c, uint32_t events) {
  switch (c->state) {
    case Conn::kClosed:
      return;  // closed earlier in this batch
    case Conn::kIdle:
      return Close(c);  // the server closed it, or sent what nobody asked for
    case Conn::kConnecting:
      return OnConnected(c);
    case Conn::kSending:
      if (events & EPOLLOUT) Send(c);
      if (c->state != Conn::kSending && c->state != Conn::kReceiving) return;
      if (!(events & (EPOLLIN | EPOLLERR | EPOLLHUP))) return;
      return Receive(c);  // an early answer (an error page before the body was taken)
    case Conn::kReceiving:
      return Receive(c);
  }
}

void HttpStreamClient::ExpireDeadlines(int64_t now) {
  while (!deadlines_.empty() && deadlines_.top().at_ns <= now) {
    Deadline d = deadlines_.top();
    deadlines_.pop();
    auto it = in_flight_.find(d.request);
    if (it == in_flight_.end()) continue;  // ended meanwhile
    Conn* c = it->second;
    if (d.connect) {
      if (c->state != Conn::kConnecting) continue;
      char why[64];
      std::snprintf(why, sizeof why, "connection timed out after %g s", options_.connect_timeout_s);
      Finish(c, {TransferEnd::kConnect, why}, false);
    } else {
      Finish(c, {TransferEnd::kTimeout, ""}, false);
    }
  }
}

void HttpStreamClient::Poll(int64_t deadline_ns) {
  int64_t now = NowNs();
  int64_t wake = deadline_ns;
  if (!deadlines_.empty()) wake = std::min(wake, deadlines_.top().at_ns);
  int64_t wait = std::max<int64_t>(0, wake - now);
  epoll_event events[kMaxEvents];
  int n = WaitForEvents(epoll_fd_, events, kMaxEvents, wait);
  for (int i = 0; i < n; ++i) OnEvent(static_cast<Conn*>(events[i].data.ptr), events[i].events);
  ExpireDeadlines(NowNs());
  // Only now may a closed Conn take a new socket: an event of this batch may still name it.
  spare_.insert(spare_.end(), graveyard_.begin(), graveyard_.end());
  graveyard_.clear();
}

void HttpStreamClient::CancelAll() {
  std::vector<Conn*> live;
  for (auto& [request, c] : in_flight_) live.push_back(c);
  for (Conn* c : live) Finish(c, {TransferEnd::kCancelled, "cancelled"}, false);
}

int HttpStreamClient::OnHeadersComplete(http_parser* p) {
  static_cast<Conn*>(p->data)->status = p->status_code;
  return 0;
}

int HttpStreamClient::OnBody(http_parser* p, const char* at, size_t len) {
  auto* c = static_cast<Conn*>(p->data);
  HttpStreamClient* self = c->client;
  if (!self->sink_->OnBody(c->id, c->user, self->now_ns_, c->status, std::string_view(at, len))) {
    c->stopped = true;
    return 1;  // stops the parser (HPE_CB_body)
  }
  return 0;
}

int HttpStreamClient::OnMessageComplete(http_parser* p) {
  static_cast<Conn*>(p->data)->message_done = true;
  http_parser_pause(p, 1);  // nothing after the answer belongs to this request
  return 0;
}

}  // namespace dossier::serve
