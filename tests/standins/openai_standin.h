// A stand-in OpenAI-compatible streaming server for tests and the client benchmark: it answers
// GET /v1/models and streaming POST /v1/completions and /v1/chat/completions over HTTP/1.1
// (chunked server-sent events, keep-alive) on 127.0.0.1 at an ephemeral port, with a
// configurable time to first token, gap between tokens and output length, and faults on demand.
// It records, per request, when it received it and when it wrote each token (steady clock, so the
// client's measurements can be checked against what the server really did).
//
// Hand-written on epoll, one thread, because the tests need exact control of when each
// byte is written and of how a stream breaks; cpp-httplib's server (the Debian build) runs an
// 8-thread pool with a listen backlog of 5, which neither holds 1,024 streams nor times tokens.
// Loopback only; it stops by itself after `lifetime_s`.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "util/result.h"

namespace dossier::testing {

enum class Fault {
  kNone,
  kHttp500,     // answer 500 with a JSON error body
  kCutStream,   // close the connection after fault_after_tokens tokens, mid-stream
  kBadJson,     // send an event whose JSON is broken after fault_after_tokens tokens
  kStall,       // read the request and never answer
  kNoUsage,     // ignore stream_options.include_usage (no usage event)
  kErrorEvent,  // send {"error": {...}} in the stream after fault_after_tokens tokens
};

struct StandinConfig {
  double ttft_ms = 10;  // request received -> first content token written
  // Adds a uniform random 0..ttft_jitter_ms to each request's TTFT (seeded), which spreads the
  // token times of streams started together (else every stream's token is due at one instant).
  double ttft_jitter_ms = 0;
  double itl_ms = 2;       // between content tokens
  int64_t output_len = 0;  // tokens per answer; 0: the request's max_tokens (16 if absent)
  Fault fault = Fault::kNone;
  int64_t fault_every = 1;  // the fault hits POST number k where k % fault_every == fault_every-1
  int64_t fault_after_tokens = 3;
  std::string model = "standin-model";
  // Tokens per content chunk (speculative decoding, llama.cpp's batching and some proxies send
  // several): each chunk's text is that many " tok" words; the last chunk may carry fewer.
  int64_t tokens_per_chunk = 1;
  // Honour stream_options.continuous_usage_stats (vLLM): every chunk carries the running usage.
  bool continuous_usage = false;
  // Answer POST /tokenize ({"content"|"prompt"} -> {"tokens": [...]}, one token per word).
  bool tokenize_endpoint = true;
  std::string api_key;     // when set, a POST without "Authorization: Bearer <key>" gets 401
  double lifetime_s = 30;  // the server stops by itself after this
};

// What the server did with one POST.
struct ServedRequest {
  std::string request_id;  // X-Request-Id header
  std::string path;
  std::string authorization;  // the Authorization header as received
  std::string body;
  Fault fault = Fault::kNone;
  int64_t arrived_ns = 0;   // its first bytes reached the server's socket (kernel time)
  int64_t received_ns = 0;  // whole request read by the server loop (TTFT counts from here)
  std::vector<int64_t> token_sent_ns;  // just before each content chunk's write
  int64_t tokens = 0;                  // tokens sent in those chunks
  int64_t prompt_words = 0;            // usage.prompt_tokens reported
  bool completed = false;              // the stream ended normally
};

class StandinServer {
 public:
  explicit StandinServer(StandinConfig config);
  ~StandinServer();
  StandinServer(const StandinServer&) = delete;
  StandinServer& operator=(const StandinServer&) = delete;

  // Binds 127.0.0.1 at `port` (0: ephemeral) and starts serving on a thread of its own.
  Status Start(int port = 0);
  void Stop();  // idempotent; also called by the destructor

  int port() const { return port_; }
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Requests whose stream has ended (or that failed on purpose), in the order they ended.
  std::vector<ServedRequest> Served() const;
  int64_t tokens_sent() const { return tokens_sent_.load(); }  // content chunks, all requests
  int64_t tokenize_calls() const { return tokenize_calls_.load(); }
  int64_t connections_accepted() const { return accepted_.load(); }

 private:
  class Loop;
  friend class Loop;
  void Record(ServedRequest r);

  StandinConfig config_;
  int port_ = 0;
  int listen_fd_ = -1, stop_fd_ = -1;
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<ServedRequest> served_;
  std::atomic<int64_t> tokens_sent_{0}, accepted_{0}, tokenize_calls_{0};
};

// A loopback port with nothing listening on it (bound, then closed): connecting is refused.
int ClosedPort();

}  // namespace dossier::testing
