// StreamClient: many concurrent streaming HTTP/1.1 POSTs on one thread, event-driven over epoll
// (only the sockets that have bytes are touched, so 1,000+ streams cost what their bytes cost,
// not what their number costs).
//
// Body bytes go to the Sink the moment they come out of the socket, with a steady-clock timestamp
// taken right after the read: that is "when the bytes arrived" for every latency the benchmark
// reports. Not thread-safe: one thread calls everything. Connections are kept alive and reused.
//
// Two transports share this interface (MakeStreamClient picks one):
//   native  plain http:// on our own sockets, responses framed by libhttp-parser: one recv per
//           arrival and nothing else (http_stream_client.h);
//   curl    libcurl's multi interface: https, URL credentials and proxies (curl_stream_client.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "measure/serve/request_trace.h"
#include "util/result.h"

struct epoll_event;

namespace dossier::serve {

enum class Transport { kAuto, kNative, kCurl };

std::string_view TransportName(Transport t);  // "auto", "native", "curl"
Result<Transport> ParseTransport(std::string_view name);

struct ClientOptions {
  std::string api_key;  // sent as "Authorization: Bearer …"; never logged
  double timeout_s = 300;
  double connect_timeout_s = 10;
  int64_t max_connections = 64;  // connections kept open for reuse: at least the concurrency
  // X-Request-Id is this plus the request's id: servers log it, and a test server matches its
  // own records to the client's with it.
  std::string request_id_prefix = "dossier-";
  Transport transport = Transport::kAuto;
};

class StreamSink {
 public:
  virtual ~StreamSink() = default;
  // Response body bytes of request `id` (with the `user` pointer given to Start, so the sink
  // finds its state without a lookup per chunk); false stops the transfer.
  virtual bool OnBody(int64_t id, void* user, int64_t now_ns, long status,
                      std::string_view bytes) = 0;
  // The transfer ended (called once per Start; with kCancelled after CancelAll).
  virtual void OnEnd(int64_t id, void* user, int64_t now_ns, long status,
                     const TransferEnd& end) = 0;
};

class StreamClient {
 public:
  using Sink = StreamSink;
  virtual ~StreamClient() = default;

  // Sets up the event loop; everything else needs this to have succeeded.
  virtual Status Init() = 0;

  // Sends a POST of `body` (which must outlive the transfer) to `url`. The request starts
  // connecting (or is written on a kept-alive connection) at once.
  virtual void Start(int64_t id, void* user, const std::string& url, std::string_view body) = 0;

  // Waits for bytes or timers until `deadline_ns` at the latest, then handles what is ready
  // (Sink callbacks run inside). Returns early when something happened.
  virtual void Poll(int64_t deadline_ns) = 0;

  // Stops every transfer; the Sink hears OnEnd with kCancelled for each.
  virtual void CancelAll() = 0;

  virtual size_t active() const = 0;
};

// Why the native transport cannot serve `url` (TLS, credentials in the URL, a proxy in the
// environment, a URL that does not parse); "" when it can.
std::string WhyNotNative(std::string_view url);

// The transport `options.transport` names; kAuto: native where WhyNotNative is "", else curl.
Transport ChooseTransport(Transport wanted, std::string_view url);
// An error when the native transport is asked for a URL it cannot serve.
Result<std::unique_ptr<StreamClient>> MakeStreamClient(const ClientOptions& options,
                                                       std::string_view url, StreamSink* sink);

// epoll_wait with a timeout in nanoseconds (epoll_pwait2: Poisson arrivals are scheduled finer
// than milliseconds; milliseconds on kernels before 5.11). Returns the number of events, or -1.
inline constexpr int kMaxEvents = 256;
int WaitForEvents(int epoll_fd, epoll_event* events, int max_events, int64_t wait_ns);

// Raises the soft limit on open files toward `need` (up to the hard limit): 1,024 streams need
// more than the usual default of 1,024 descriptors. Returns the limit now in force.
int64_t RaiseFileLimit(int64_t need);

// One blocking GET (for /v1/models), bounded by timeout_s. Returns the body of a 200 answer.
Result<std::string> HttpGet(const std::string& url, const std::string& api_key, double timeout_s);
// POST a JSON body; the answer's body when the status is 200, else an error with the status.
Result<std::string> HttpPost(const std::string& url, const std::string& api_key,
                             const std::string& json_body, double timeout_s);

}  // namespace dossier::serve
