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

// Where TTFT starts and which events are "chunks" for ITL: kFirstContent (dossier, SGLang): the
// events that carry generated text; kFirstChunk (vLLM): every event with a non-empty "choices"
// array, so a chat stream's role-only opening chunk is the first token and an empty-text chunk
// adds a gap.
enum class TtftFrom { kFirstContent, kFirstChunk };

struct RequestResult {
  int64_t index = 0;  // order of sending within the run
  bool ok = false;
  std::string failure;  // the reason, when !ok
  int64_t start_ns = 0, end_ns = 0;
  int64_t first_token_ns = -1;
  std::vector<int64_t> token_ns;  // arrival of each chunk (see TtftFrom)
  // The server's running completion_tokens carried by each chunk of token_ns (vLLM's
  // continuous_usage_stats), -1 where the chunk had none.
  std::vector<int64_t> chunk_usage;
  int64_t usage_prompt_tokens = -1, usage_completion_tokens = -1;  // from the server, or -1
  int64_t tokenized_tokens = -1;
  // The server's own account where it gives one (llama.cpp's "timings"); -1 when absent.
  double server_prompt_ms = -1, server_predicted_ms = -1;
  int64_t server_predicted_n = -1;  // the server's tokenizer on `text`, when it was asked
  std::string text;                 // generated text; kept only while no usage count was reported
  int64_t prompt_tokens_estimate = 0;  // from the dataset
  bool cancelled = false;              // ended by the run, not by the server: counted neither way

  // How output tokens were counted, best first. kChunks means every chunk counted as one token:
  // wrong for multi-token chunks, so it is shown as "chunks (not tokens)" and gives no TPOT.
  enum class Count { kChunkUsage, kUsage, kTokenizer, kChunks };
  bool has_chunk_usage() const {
    if (chunk_usage.empty()) return false;
    for (int64_t u : chunk_usage) {
      if (u < 0) return false;
    }
    return true;
  }
  Count counted_by() const {
    if (has_chunk_usage()) return Count::kChunkUsage;
    if (usage_completion_tokens >= 0) return Count::kUsage;
    if (tokenized_tokens >= 0) return Count::kTokenizer;
    return Count::kChunks;
  }
  int64_t output_tokens() const {
    switch (counted_by()) {
      case Count::kChunkUsage:
        return usage_completion_tokens >= 0 ? usage_completion_tokens : chunk_usage.back();
      case Count::kUsage:
        return usage_completion_tokens;
      case Count::kTokenizer:
        return tokenized_tokens;
      case Count::kChunks:
        break;
    }
    return static_cast<int64_t>(token_ns.size());
  }
  int64_t input_tokens() const {
    return usage_prompt_tokens >= 0 ? usage_prompt_tokens : prompt_tokens_estimate;
  }
};

class RequestTrace {
 public:
  RequestTrace(int64_t index, int64_t start_ns, int64_t prompt_tokens_estimate, double timeout_s,
               TtftFrom ttft_from = TtftFrom::kFirstContent);

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
  TtftFrom ttft_from_;
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
