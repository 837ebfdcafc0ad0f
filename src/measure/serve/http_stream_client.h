// HttpStreamClient: the StreamClient for plain http:// on our own non-blocking sockets and a
// level-triggered epoll, with responses framed (status, headers, chunked or sized or
// close-delimited bodies, keep-alive) by libhttp-parser.
//
// Why not libcurl here: at 100,000 tokens/s over 1,024 streams every token is an event of its own
// socket, and libcurl 7.88 spends on each one a curl_multi_socket_action pass, a recv and a poll()
// (it asks whether more bytes wait after every read): about 9 us of CPU per token on the 2-core
// reference VM, so its one thread saturated before 100,000 tokens/s and the tokens queued, which
// showed up as several milliseconds of timing error. This client does one recv per arrival and
// hands the bytes straight to the parser (bench/serve_client_bench.cc has both side by side).
// What it does not do, libcurl still does: https, credentials in the URL, proxies
// (MakeStreamClient picks).
#pragma once

#include <http_parser.h>
#include <netdb.h>

#include <cstdint>
#include <memory>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "measure/serve/stream_client.h"

namespace dossier::serve {

class HttpStreamClient final : public StreamClient {
 public:
  HttpStreamClient(ClientOptions options, Sink* sink);
  ~HttpStreamClient() override;
  HttpStreamClient(const HttpStreamClient&) = delete;
  HttpStreamClient& operator=(const HttpStreamClient&) = delete;

  Status Init() override;
  void Start(int64_t id, void* user, const std::string& url, std::string_view body) override;
  void Poll(int64_t deadline_ns) override;
  void CancelAll() override;
  size_t active() const override { return active_; }

 private:
  struct Conn;
  struct Target;  // a URL, parsed and resolved once
  struct Deadline {
    int64_t at_ns;
    uint64_t request;  // the request it bounds; stale once that has ended
    bool connect;      // the connect timeout (else the whole request's)
    bool operator>(const Deadline& o) const { return at_ns > o.at_ns; }
  };

  static int OnHeadersComplete(http_parser* p);
  static int OnBody(http_parser* p, const char* at, size_t len);
  static int OnMessageComplete(http_parser* p);

  const Target* Resolve(const std::string& url, std::string* error);
  Conn* NewConn();
  void Connect(Conn* c);
  void BeginRequest(Conn* c);
  void OnEvent(Conn* c, uint32_t events);
  void OnConnected(Conn* c);
  void Send(Conn* c);
  void Receive(Conn* c);
  void OnClosed(Conn* c, int err);
  void Finish(Conn* c, const TransferEnd& end, bool keep_connection);
  void Close(Conn* c);
  void Watch(Conn* c, uint32_t events);
  void ExpireDeadlines(int64_t now);

  ClientOptions options_;
  Sink* sink_;
  int epoll_fd_ = -1;
  http_parser_settings settings_{};
  std::unique_ptr<Target> target_;
  std::string failed_url_, failed_why_;  // the last URL that did not resolve, and why
  std::string fixed_headers_;            // every request's headers but the path, id and length
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<Conn*> idle_;       // connected, kept alive, no request
  std::vector<Conn*> spare_;      // closed, ready for a new socket
  std::vector<Conn*> graveyard_;  // closed during this Poll: spare after it (stale events)
  std::unordered_map<uint64_t, Conn*> in_flight_;  // request serial -> its connection
  std::priority_queue<Deadline, std::vector<Deadline>, std::greater<>> deadlines_;
  std::vector<char> buf_;
  uint64_t next_request_ = 1;
  int64_t now_ns_ = 0;  // the arrival time of the bytes being parsed
  size_t active_ = 0;
};

}  // namespace dossier::serve
