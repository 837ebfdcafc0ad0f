#include "measure/serve/curl_stream_client.h"

#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>

#include "util/text.h"

namespace dossier::serve {
namespace {

void GlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// The reason at the end of curl's message: "Failed to connect to h port 1 after 0 ms:
// Connection refused" -> "Connection refused" (the numbers before it differ per request).
std::string LastClause(const char* errbuf) {
  std::string_view s(errbuf);
  size_t colon = s.rfind(": ");
  if (colon != std::string_view::npos) s = s.substr(colon + 2);
  return std::string(Trim(s));
}

// os_errno: the system's reason (CURLINFO_OS_ERRNO), 0 when none; curl's own message for a
// refused connection only says "Couldn't connect to server".
TransferEnd MapEnd(CURLcode rc, const char* errbuf, long os_errno) {
  TransferEnd end;
  std::string detail = os_errno != 0 ? std::string(std::strerror(static_cast<int>(os_errno)))
                       : errbuf[0]   ? LastClause(errbuf)
                                     : std::string(curl_easy_strerror(rc));
  switch (rc) {
    case CURLE_OK:
      end.kind = TransferEnd::kOk;
      break;
    case CURLE_COULDNT_CONNECT:
      end.kind = os_errno == ECONNREFUSED ? TransferEnd::kRefused : TransferEnd::kConnect;
      end.detail = detail;
      break;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      end.kind = TransferEnd::kConnect;
      end.detail = curl_easy_strerror(rc);
      break;
    case CURLE_OPERATION_TIMEDOUT:
      end.kind = TransferEnd::kTimeout;
      break;
    case CURLE_PARTIAL_FILE:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
      end.kind = TransferEnd::kCut;
      end.detail = detail;
      break;
    case CURLE_WRITE_ERROR:
    case CURLE_ABORTED_BY_CALLBACK:
      end.kind = TransferEnd::kAborted;
      break;
    default:
      end.kind = TransferEnd::kOther;
      end.detail = curl_easy_strerror(rc);
      break;
  }
  return end;
}

}  // namespace

struct CurlStreamClient::Transfer {
  CurlStreamClient* client = nullptr;
  CURL* easy = nullptr;
  int64_t id = 0;
  void* user = nullptr;
  long status = 0;
  bool active = false;
  std::string id_header;
  curl_slist id_node{};  // this request's X-Request-Id in front of the shared headers
  char errbuf[CURL_ERROR_SIZE] = {};
};

CurlStreamClient::CurlStreamClient(ClientOptions options, Sink* sink)
    : options_(std::move(options)), sink_(sink) {}

CurlStreamClient::~CurlStreamClient() {
  for (Transfer* t : all_) {
    if (t->active) curl_multi_remove_handle(multi_, t->easy);
    curl_easy_cleanup(t->easy);
    delete t;
  }
  if (multi_) curl_multi_cleanup(multi_);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  curl_slist_free_all(headers_);
  // The key was in a header string: wipe our copy (curl's copies are freed above).
  std::fill(auth_header_.begin(), auth_header_.end(), '\0');
}

Status CurlStreamClient::Init() {
  if (!CurlMissing().empty())
    return Error::Unsupported(CurlNeeded("https://, credentials in the URL and proxies"));
  GlobalInit();
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) return Error::Io(std::string("epoll_create1: ") + std::strerror(errno));
  multi_ = curl_multi_init();
  if (!multi_) return Error::Io("curl_multi_init failed");
  curl_multi_setopt(multi_, CURLMOPT_SOCKETFUNCTION, &CurlStreamClient::OnSocket);
  curl_multi_setopt(multi_, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_TIMERFUNCTION, &CurlStreamClient::OnTimer);
  curl_multi_setopt(multi_, CURLMOPT_TIMERDATA, this);
  curl_multi_setopt(multi_, CURLMOPT_MAXCONNECTS, static_cast<long>(options_.max_connections));
  curl_multi_setopt(multi_, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_NOTHING));
  headers_ = curl_slist_append(headers_, "Content-Type: application/json");
  headers_ = curl_slist_append(headers_, "Accept: text/event-stream");
  // curl waits up to a second for "100 Continue" before sending a body over 1 KiB: that second
  // would land in every TTFT.
  headers_ = curl_slist_append(headers_, "Expect:");
  headers_ = curl_slist_append(headers_, "User-Agent: dossier-serve-bench/" DOSSIER_VERSION);
  if (!options_.api_key.empty()) {
    auth_header_ = "Authorization: Bearer " + options_.api_key;
    headers_ = curl_slist_append(headers_, auth_header_.c_str());
  }
  if (!headers_) return Error::Io("out of memory building the request headers");
  return OkStatus();
}

void CurlStreamClient::Start(int64_t id, void* user, const std::string& url,
                             std::string_view body) {
  Transfer* t;
  if (!free_.empty()) {
    t = free_.back();
    free_.pop_back();
  } else {
    t = new Transfer;
    t->client = this;
    t->easy = curl_easy_init();
    all_.push_back(t);
    CURL* e = t->easy;
    curl_easy_setopt(e, CURLOPT_PRIVATE, t);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &CurlStreamClient::OnWrite);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout_s * 1000));
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options_.connect_timeout_s * 1000));
    curl_easy_setopt(e, CURLOPT_POST, 1L);
  }
  t->id = id;
  t->user = user;
  t->status = 0;
  t->errbuf[0] = '\0';
  t->id_header = "X-Request-Id: " + options_.request_id_prefix + std::to_string(id);
  t->id_node.data = t->id_header.data();
  t->id_node.next = headers_;
  curl_easy_setopt(t->easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, &t->id_node);
  curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(t->easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  t->active = true;
  ++active_;
  curl_multi_add_handle(multi_, t->easy);
  // Start connecting now rather than at the next Poll: the request counts as sent from here.
  int running = 0;
  curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
  ReapFinished();
}

int CurlStreamClient::OnSocket(CURL*, curl_socket_t s, int what, void* userp, void*) {
  auto* self = static_cast<CurlStreamClient*>(userp);
  if (what == CURL_POLL_REMOVE) {
    ::epoll_ctl(self->epoll_fd_, EPOLL_CTL_DEL, s, nullptr);
    return 0;
  }
  epoll_event ev{};
  ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
  ev.data.fd = s;
  if (::epoll_ctl(self->epoll_fd_, EPOLL_CTL_MOD, s, &ev) != 0 && errno == ENOENT) {
    ::epoll_ctl(self->epoll_fd_, EPOLL_CTL_ADD, s, &ev);
  }
  return 0;
}

int CurlStreamClient::OnTimer(CURLM*, long timeout_ms, void* userp) {
  auto* self = static_cast<CurlStreamClient*>(userp);
  self->timer_deadline_ns_ = timeout_ms < 0 ? -1 : NowNs() + int64_t{timeout_ms} * 1000000;
  return 0;
}

size_t CurlStreamClient::OnWrite(char* data, size_t size, size_t n, void* userp) {
  int64_t now = NowNs();  // first thing: the arrival time of these bytes
  auto* t = static_cast<Transfer*>(userp);
  size_t len = size * n;
  if (t->status == 0) curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &t->status);
  return t->client->sink_->OnBody(t->id, t->user, now, t->status, std::string_view(data, len)) ? len
                                                                                               : 0;
}

void CurlStreamClient::Drive(curl_socket_t s, int events) {
  int flags = 0;
  if (events & EPOLLIN) flags |= CURL_CSELECT_IN;
  if (events & EPOLLOUT) flags |= CURL_CSELECT_OUT;
  if (events & (EPOLLERR | EPOLLHUP)) flags |= CURL_CSELECT_ERR;
  int running = 0;
  curl_multi_socket_action(multi_, s, flags, &running);
}

void CurlStreamClient::Poll(int64_t deadline_ns) {
  int64_t now = NowNs();
  int64_t wake = deadline_ns;
  if (timer_deadline_ns_ >= 0 && timer_deadline_ns_ < wake) wake = timer_deadline_ns_;
  int64_t wait = std::max<int64_t>(0, wake - now);
  epoll_event events[kMaxEvents];
  int n = WaitForEvents(epoll_fd_, events, kMaxEvents, wait);
  for (int i = 0; i < n; ++i) Drive(events[i].data.fd, static_cast<int>(events[i].events));
  if (timer_deadline_ns_ >= 0 && NowNs() >= timer_deadline_ns_) {
    timer_deadline_ns_ = -1;  // before the call: curl may set a new one inside it
    int running = 0;
    curl_multi_socket_action(multi_, CURL_SOCKET_TIMEOUT, 0, &running);
  }
  ReapFinished();
}

void CurlStreamClient::ReapFinished() {
  int queued = 0;
  while (CURLMsg* m = curl_multi_info_read(multi_, &queued)) {
    if (m->msg != CURLMSG_DONE) continue;
    CURL* easy = m->easy_handle;
    CURLcode rc = m->data.result;  // m is invalid once the handle is removed
    Transfer* t = nullptr;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, reinterpret_cast<char**>(&t));
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    long os_errno = 0;
    curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &os_errno);
    TransferEnd end = MapEnd(rc, t->errbuf, os_errno);
    int64_t now = NowNs();
    int64_t id = t->id;
    void* user = t->user;
    Release(t);
    sink_->OnEnd(id, user, now, status, end);
  }
}

void CurlStreamClient::Release(Transfer* t) {
  curl_multi_remove_handle(multi_, t->easy);
  t->active = false;
  --active_;
  free_.push_back(t);
}

void CurlStreamClient::CancelAll() {
  TransferEnd end{TransferEnd::kCancelled, "cancelled"};
  for (Transfer* t : all_) {
    if (!t->active) continue;
    Release(t);
    sink_->OnEnd(t->id, t->user, NowNs(), t->status, end);
  }
}

namespace {

struct GetBuffer {
  std::string body;
  static constexpr size_t kMax = 4 << 20;
};

size_t OnGetWrite(char* data, size_t size, size_t n, void* userp) {
  auto* b = static_cast<GetBuffer*>(userp);
  size_t len = size * n;
  if (b->body.size() + len > GetBuffer::kMax) return 0;
  b->body.append(data, len);
  return len;
}

}  // namespace

namespace {

Result<std::string> HttpRequest(const std::string& url, const std::string& api_key,
                                const std::string* post_body, double timeout_s) {
  if (!CurlMissing().empty())
    return Error::Unsupported(CurlNeeded("asking the server for its models or a token count"));
  GlobalInit();
  CURL* e = curl_easy_init();
  if (!e) return Error::Io("curl_easy_init failed");
  GetBuffer buf;
  char errbuf[CURL_ERROR_SIZE] = {};
  curl_slist* headers = curl_slist_append(nullptr, "Accept: application/json");
  if (post_body) headers = curl_slist_append(headers, "Content-Type: application/json");
  std::string auth;
  if (!api_key.empty()) {
    auth = "Authorization: Bearer " + api_key;
    headers = curl_slist_append(headers, auth.c_str());
    std::fill(auth.begin(), auth.end(), '\0');
  }
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
  if (post_body) {
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, post_body->data());
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(post_body->size()));
  }
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &OnGetWrite);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &buf);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_s * 1000));
  CURLcode rc = curl_easy_perform(e);
  long status = 0;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(e);
  if (rc != CURLE_OK) {
    return Error::Io(errbuf[0] ? std::string(errbuf) : std::string(curl_easy_strerror(rc)));
  }
  if (status != 200) {
    return Error::Io("HTTP " + std::to_string(status) + ": " + Printable(Trim(buf.body), 100));
  }
  return std::move(buf.body);
}

}  // namespace

Result<std::string> HttpGet(const std::string& url, const std::string& api_key, double timeout_s) {
  return HttpRequest(url, api_key, nullptr, timeout_s);
}

Result<std::string> HttpPost(const std::string& url, const std::string& api_key,
                             const std::string& json_body, double timeout_s) {
  return HttpRequest(url, api_key, &json_body, timeout_s);
}

}  // namespace dossier::serve
