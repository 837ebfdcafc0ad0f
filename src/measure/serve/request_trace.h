// RequestTrace: what happened to one streaming request, built as its bytes arrive. It holds the
// request's SSE parser, takes the arrival time of each content event (the time the bytes came
// out of the socket, given by the caller), and at the end says whether the request succeeded or
// why not, in a short reason that is the same for every request that failed the same way (the
// failure counts are keyed by it).
//
// Times are nanoseconds on the steady clock (CLOCK_MONOTONIC): the same clock in every process
// of the machine, so a stand-in server's own timestamps can be compared with them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "measure/serve/sse_parser.h"

namespace dossier::serve {

int64_t NowNs();  // steady clock

// How the transfer ended, as the HTTP client saw it.
struct TransferEnd {
  enum Kind {
    kOk,         // the response ended normally
    kRefused,    // connection refused
    kConnect,    // could not connect otherwise (DNS, unreachable, connect timeout)
    kTimeout,    // the per-request timeout fired
    kCut,        // the connection closed or broke in the middle of the response
    kAborted,    // the trace asked to stop (a bad event); its reason stands
    kCancelled,  // the run ended (Ctrl-C, the run's time bound) before the request did
    kOther,
  };
  Kind kind = kOk;
  std::string detail;  // the client library's message
};

struct RequestResult {
  int64_t index = 0;  // order of sending within the run
  bool ok = false;
  std::string failure;  // the reason, when !ok
  int64_t start_ns = 0, end_ns = 0;
  int64_t first_token_ns = -1;
  std::vector<int64_t> token_ns;  // arrival of each event that carried content
  int64_t usage_prompt_tokens = -1, usage_completion_tokens = -1;  // from the server, or -1
  int64_t prompt_tokens_estimate = 0;                              // from the dataset
  bool cancelled = false;  // ended by the run, not by the server: counted neither way

  int64_t output_tokens() const {
    return usage_completion_tokens >= 0 ? usage_completion_tokens
                                        : static_cast<int64_t>(token_ns.size());
  }
  int64_t input_tokens() const {
    return usage_prompt_tokens >= 0 ? usage_prompt_tokens : prompt_tokens_estimate;
  }
};

class RequestTrace {
 public:
  RequestTrace(int64_t index, int64_t start_ns, int64_t prompt_tokens_estimate, double timeout_s);

  // Response body bytes arrived at `now_ns`, with the HTTP status of the response. Returns false
  // when the transfer should be stopped (an unusable event); the reason is kept.
  bool OnBody(int64_t now_ns, long status, std::string_view bytes);

  // The transfer ended at `now_ns`. Returns the result; the trace is spent.
  RequestResult Finish(int64_t now_ns, long status, const TransferEnd& end);

  int64_t content_events() const { return static_cast<int64_t>(r_.token_ns.size()); }

  static constexpr size_t kErrorBodyBytes = 160;
  // A response may hold this much at most: a server that streams without end (or a 1 GB
  // answer) stops the request with a failure instead of growing the trace. 64 MiB is some
  // 500,000 tokens of streamed JSON, beyond any output length a benchmark asks for.
  static constexpr size_t kMaxResponseBytes = 64u << 20;

 private:
  void Fail(std::string reason);

  RequestResult r_;
  double timeout_s_;
  SseParser sse_;
  long status_ = 0;
  size_t body_bytes_ = 0;
  std::string error_body_;  // first bytes of a non-200 answer
  bool done_ = false;       // "[DONE]" seen
  bool finished_ = false;   // a finish_reason seen
  bool events_seen_ = false;
  bool stopped_ = false;  // a failure was decided while bytes still came
};

}  // namespace dossier::serve
