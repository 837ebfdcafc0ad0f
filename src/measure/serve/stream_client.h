// StreamClient: many concurrent streaming HTTP/1.1 POSTs on one thread, with libcurl's multi
// interface driven by its socket API over epoll (only the sockets that have bytes are touched,
// so 1,000+ streams cost what their bytes cost, not what their number costs).
//
// Body bytes go to the Sink the moment curl hands them over, with a steady-clock timestamp taken
// in curl's write callback: that is "when the bytes arrived" for every latency the benchmark
// reports. Not thread-safe: one thread calls everything. Connections are kept alive and reused.
#pragma once

#include <curl/curl.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "measure/serve/request_trace.h"
#include "util/result.h"

namespace dossier::serve {

struct ClientOptions {
  std::string api_key;  // sent as "Authorization: Bearer …"; never logged
  double timeout_s = 300;
  double connect_timeout_s = 10;
  int64_t max_connections = 64;  // connections kept open for reuse: at least the concurrency
  // X-Request-Id is this plus the request's id: servers log it, and a test server matches its
  // own records to the client's with it.
  std::string request_id_prefix = "dossier-";
};

class StreamClient {
 public:
  class Sink {
   public:
    virtual ~Sink() = default;
    // Response body bytes of request `id` (with the `user` pointer given to Start, so the sink
    // finds its state without a lookup per chunk); false stops the transfer.
    virtual bool OnBody(int64_t id, void* user, int64_t now_ns, long status,
                        std::string_view bytes) = 0;
    // The transfer ended (called once per Start; with kCancelled after CancelAll).
    virtual void OnEnd(int64_t id, void* user, int64_t now_ns, long status,
                       const TransferEnd& end) = 0;
  };

  StreamClient(ClientOptions options, Sink* sink);
  ~StreamClient();
  StreamClient(const StreamClient&) = delete;
  StreamClient& operator=(const StreamClient&) = delete;

  // Sets up curl and epoll; everything else needs this to have succeeded.
  Status Init();

  // Sends a POST of `body` (which must outlive the transfer) to `url`. The request starts
  // connecting at once.
  void Start(int64_t id, void* user, const std::string& url, std::string_view body);

  // Waits for bytes or curl's timers until `deadline_ns` at the latest, then handles what is
  // ready (Sink callbacks run inside). Returns early when something happened.
  void Poll(int64_t deadline_ns);

  // Stops every transfer; the Sink hears OnEnd with kCancelled for each.
  void CancelAll();

  size_t active() const { return active_; }

 private:
  struct Transfer;
  static int OnSocket(CURL* easy, curl_socket_t s, int what, void* userp, void* socketp);
  static int OnTimer(CURLM* multi, long timeout_ms, void* userp);
  static size_t OnWrite(char* data, size_t size, size_t n, void* userp);
  void Drive(curl_socket_t s, int events);
  void ReapFinished();
  void Release(Transfer* t);

  ClientOptions options_;
  Sink* sink_;
  CURLM* multi_ = nullptr;
  int epoll_fd_ = -1;
  int64_t timer_deadline_ns_ = -1;  // curl's next timeout; -1: none
  curl_slist* headers_ = nullptr;   // shared by every request
  std::string auth_header_;
  std::vector<Transfer*> free_;  // finished transfers kept for reuse (easy handles keep caches)
  std::vector<Transfer*> all_;
  size_t active_ = 0;
};

// Raises the soft limit on open files toward `need` (up to the hard limit): 1,024 streams need
// more than the usual default of 1,024 descriptors. Returns the limit now in force.
int64_t RaiseFileLimit(int64_t need);

// One blocking GET (for /v1/models), bounded by timeout_s. Returns the body of a 200 answer.
Result<std::string> HttpGet(const std::string& url, const std::string& api_key, double timeout_s);

}  // namespace dossier::serve
