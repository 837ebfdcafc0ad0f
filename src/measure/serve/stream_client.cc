#include "measure/serve/stream_client.h"

#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "measure/serve/curl_stream_client.h"
#include "measure/serve/endpoint.h"
#include "measure/serve/http_stream_client.h"

namespace dossier::serve {

// What the native transport cannot do: TLS, credentials in the URL (curl turns them into Basic
// authentication), and the proxies curl would honour from the environment.
std::string WhyNotNative(std::string_view url) {
  auto parts = SplitUrl(url);
  std::string why;
  if (!parts) {
    why = "the URL does not parse";
  } else if (parts->scheme != "http") {
    why = "it speaks plain http:// only";
  } else if (parts->has_credentials) {
    why = "the URL carries credentials";
  }
  if (why.empty()) {
    for (const char* var : {"http_proxy", "all_proxy", "ALL_PROXY"}) {
      const char* v = std::getenv(var);
      if (v && *v) why = std::string("a proxy is set in the environment (") + var + ")";
    }
  }
  return why;
}

std::string_view TransportName(Transport t) {
  switch (t) {
    case Transport::kNative:
      return "native";
    case Transport::kCurl:
      return "curl";
    case Transport::kAuto:
      break;
  }
  return "auto";
}

Result<Transport> ParseTransport(std::string_view name) {
  for (Transport t : {Transport::kAuto, Transport::kNative, Transport::kCurl}) {
    if (name == TransportName(t)) return t;
  }
  return Error::Invalid("unknown HTTP client '" + std::string(name) +
                        "': use auto, native or curl");
}

Transport ChooseTransport(Transport wanted, std::string_view url) {
  if (wanted != Transport::kAuto) return wanted;
  return WhyNotNative(url).empty() ? Transport::kNative : Transport::kCurl;
}

Result<std::unique_ptr<StreamClient>> MakeStreamClient(const ClientOptions& options,
                                                       std::string_view url, StreamSink* sink) {
  Transport t = ChooseTransport(options.transport, url);
  if (t == Transport::kCurl) {
    // The native client cannot serve it (or --http-client curl asked for libcurl).
    if (!CurlMissing().empty()) {
      std::string scheme(url.substr(0, url.find("://")));
      return Error::Invalid(
          CurlNeeded(scheme == "https" ? "an https:// endpoint" : "this endpoint through libcurl"));
    }
    return std::unique_ptr<StreamClient>(new CurlStreamClient(options, sink));
  }
  if (std::string why = WhyNotNative(url); !why.empty()) {
    return Error::Invalid("the native HTTP client cannot serve this endpoint: " + why +
                          "; use --http-client curl (or auto)");
  }
  return std::unique_ptr<StreamClient>(new HttpStreamClient(options, sink));
}

int WaitForEvents(int epoll_fd, epoll_event* events, int max_events, int64_t wait_ns) {
  wait_ns = std::max<int64_t>(0, wait_ns);
  timespec ts{static_cast<time_t>(wait_ns / 1000000000), static_cast<long>(wait_ns % 1000000000)};
  // The system call, not glibc's wrapper: the wrapper appeared in glibc 2.35, and the portable
  // binary runs on glibc 2.34 (RHEL 9). The kernel's sigmask size argument is ignored for a null
  // mask.
  int n = static_cast<int>(
      ::syscall(SYS_epoll_pwait2, epoll_fd, events, max_events, &ts, nullptr, size_t{8}));
  if (n < 0 && errno == ENOSYS) {
    n = ::epoll_wait(epoll_fd, events, max_events, static_cast<int>((wait_ns + 999999) / 1000000));
  }
  return n;
}

int64_t RaiseFileLimit(int64_t need) {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
  if (rl.rlim_cur != RLIM_INFINITY && static_cast<int64_t>(rl.rlim_cur) < need) {
    rlim_t want = static_cast<rlim_t>(need);
    if (rl.rlim_max != RLIM_INFINITY && want > rl.rlim_max) want = rl.rlim_max;
    rl.rlim_cur = want;
    ::setrlimit(RLIMIT_NOFILE, &rl);
    ::getrlimit(RLIMIT_NOFILE, &rl);
  }
  return rl.rlim_cur == RLIM_INFINITY ? INT64_MAX : static_cast<int64_t>(rl.rlim_cur);
}

}  // namespace dossier::serve
