// The load of one benchmark run: a closed loop that keeps N requests in flight, or an open loop
// that sends requests at Poisson arrival times (exponential gaps with the given mean rate,
// seeded), optionally capped at N in flight (a request due while the cap is reached waits, and its
// latencies count from when it is really sent, as in vLLM's bench serve).
//
// A run ends when every request has been sent and has ended, when --duration has passed and the
// requests in flight have ended (or, at the latest, one timeout later, when they are cancelled),
// when the server has failed too many requests in a row, or when *stop becomes true (Ctrl-C): then
// what is in flight is cancelled and the outcome holds what finished.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "measure/serve/request_trace.h"
#include "measure/serve/stream_client.h"
#include "util/redact.h"
#include "util/result.h"

namespace dossier::serve {

struct LoadSpec {
  std::string url;  // the endpoint: http://host:port/v1/completions
  ClientOptions client;
  int64_t concurrency = 1;  // closed loop: in flight; open loop: cap (0: none)
  double request_rate = 0;  // > 0: open loop at this rate (requests/s; infinity: all at once)
  int64_t num_prompts = 1;  // requests to send
  double duration_s = 0;    // > 0: no request starts after this many seconds
  uint64_t seed = 0;        // for the arrival times
  int64_t max_consecutive_failures = 0;  // > 0: stop sending after that many failures in a row
  // What the server sends back (error bodies, error events) passes through this before it is
  // kept in a result: a server or proxy that echoes the request must not make us store the key.
  const EchoRedactor* echo = nullptr;
};

// One request to send: its JSON body and the dataset's idea of its prompt length.
struct LoadItem {
  std::string body;
  int64_t prompt_tokens = 0;
};

struct LoadProgress {
  int64_t completed = 0, failed = 0, in_flight = 0;
  double output_events_per_s = 0;  // content events over the last interval
  double elapsed_s = 0;
};

struct LoadOutcome {
  std::vector<RequestResult> results;  // every request that was sent, in the order they ended
  int64_t start_ns = 0, end_ns = 0;    // first request sent .. last request ended
  bool interrupted = false;            // *stop ended it
  std::string stopped_early;           // why sending stopped before num_prompts, if it did
};

// Makes request number `index` when it is about to be sent (so a long --duration run does not
// build millions of prompts up front).
using ItemSource = std::function<LoadItem(int64_t index)>;

// Runs the load. `progress` is called about once a second (may be empty).
Result<LoadOutcome> RunLoad(const LoadSpec& spec, const ItemSource& items,
                            const std::function<void(const LoadProgress&)>& progress,
                            const std::atomic<bool>* stop);

// Request i sends items[i % size] (items must be non-empty).
ItemSource Cycle(std::vector<LoadItem> items);

// The send offsets (ns after the start) of n Poisson arrivals at `rate` per second.
std::vector<int64_t> PoissonOffsets(int64_t n, double rate, uint64_t seed);

}  // namespace dossier::serve
