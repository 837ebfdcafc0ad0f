#include "measure/serve/load_generator.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <unordered_map>

namespace dossier::serve {
namespace {

constexpr int64_t kSecond = 1000000000;
constexpr int kStartBatch = 16;

// Receives the client's callbacks and keeps, per request in flight, its trace and its body (curl
// sends the body from our buffer).
class Tracker : public StreamClient::Sink {
 public:
  explicit Tracker(double timeout_s) : timeout_s_(timeout_s) {}

  struct Slot {
    RequestTrace trace;
    std::string body;
  };

  // The request's state, held until it ends (the body too: curl sends it from there).
  Slot* Begin(int64_t id, int64_t start_ns, LoadItem item) {
    auto slot = std::make_unique<Slot>(
        Slot{RequestTrace(id, start_ns, item.prompt_tokens, timeout_s_), std::move(item.body)});
    Slot* s = slot.get();
    slots_[id] = std::move(slot);
    return s;
  }
  bool OnBody(int64_t, void* user, int64_t now_ns, long status, std::string_view bytes) override {
    RequestTrace& t = static_cast<Slot*>(user)->trace;
    int64_t before = t.content_events();
    bool go_on = t.OnBody(now_ns, status, bytes);
    output_events_ += t.content_events() - before;
    return go_on;
  }
  void OnEnd(int64_t id, void* user, int64_t now_ns, long status, const TransferEnd& end) override {
    RequestResult r = static_cast<Slot*>(user)->trace.Finish(now_ns, status, end);
    slots_.erase(id);
    if (r.ok) {
      ++completed_;
      consecutive_failures_ = 0;
    } else if (!r.cancelled) {
      ++failed_;
      ++consecutive_failures_;
      last_failure_ = r.failure;
    }
    results_.push_back(std::move(r));
  }

  std::vector<RequestResult> results_;
  int64_t completed_ = 0, failed_ = 0, consecutive_failures_ = 0, output_events_ = 0;
  std::string last_failure_;

 private:
  std::unordered_map<int64_t, std::unique_ptr<Slot>> slots_;
  double timeout_s_;
};

}  // namespace

std::vector<int64_t> PoissonOffsets(int64_t n, double rate, uint64_t seed) {
  std::vector<int64_t> out(static_cast<size_t>(std::max<int64_t>(n, 0)), 0);
  if (!(rate > 0) || std::isinf(rate)) return out;  // infinite rate: everything at once
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(rate);
  double t = 0;
  for (auto& o : out) {
    o = static_cast<int64_t>(t * 1e9);
    t += gap(rng);
  }
  return out;
}

ItemSource Cycle(std::vector<LoadItem> items) {
  return [items = std::move(items)](int64_t i) {
    return items[static_cast<size_t>(i % static_cast<int64_t>(items.size()))];
  };
}

Result<LoadOutcome> RunLoad(const LoadSpec& spec, const ItemSource& items,
                            const std::function<void(const LoadProgress&)>& progress,
                            const std::atomic<bool>* stop) {
  if (!items) return Error::Invalid("no prompts to send");
  const int64_t n = std::max<int64_t>(spec.num_prompts, 0);
  const bool open_loop = spec.request_rate > 0;
  const int64_t cap = spec.concurrency > 0 ? spec.concurrency : INT64_MAX;
  Tracker tracker(spec.client.timeout_s);
  StreamClient client(spec.client, &tracker);
  if (auto s = client.Init(); !s) return s.error();
  std::vector<int64_t> offsets;
  if (open_loop) offsets = PoissonOffsets(n, spec.request_rate, spec.seed);

  LoadOutcome out;
  const int64_t start = NowNs();
  out.start_ns = start;
  const int64_t send_until =
      spec.duration_s > 0 ? start + static_cast<int64_t>(spec.duration_s * kSecond) : INT64_MAX;
  // The whole run is bounded: after --duration, what is in flight gets one timeout to finish.
  const int64_t hard_end =
      spec.duration_s > 0 ? send_until + static_cast<int64_t>((spec.client.timeout_s + 1) * kSecond)
                          : INT64_MAX;
  int64_t next = 0;
  int64_t next_progress = start + kSecond;
  int64_t last_events = 0, last_progress_ns = start;

  for (;;) {
    int64_t now = NowNs();
    if (stop && stop->load(std::memory_order_relaxed)) {
      out.interrupted = true;
      client.CancelAll();
      break;
    }
    if (now >= hard_end) {
      client.CancelAll();
      break;
    }
    bool may_send = next < n && now < send_until && out.stopped_early.empty();
    if (may_send && spec.max_consecutive_failures > 0 &&
        tracker.consecutive_failures_ >= spec.max_consecutive_failures) {
      out.stopped_early = "stopped sending after " + std::to_string(tracker.consecutive_failures_) +
                          " failures in a row (last: " + tracker.last_failure_ + ")";
      may_send = false;
    }
    int64_t wake = std::min(now + kSecond / 5, next_progress);
    if (may_send) {
      // Send what is due: all free slots in the closed loop; arrivals whose time has come in the
      // open loop (a waiting arrival goes out as soon as a slot frees).
      // At most kStartBatch at a time, then a look at the sockets: starting 1,024 requests
      // (connect, build, send) takes long enough that answers to the first must not wait for
      // the last to be sent, or their TTFT would hold the client's own work.
      int started = 0;
      auto due = [&] {
        return next < n && static_cast<int64_t>(client.active()) < cap &&
               (!open_loop || start + offsets[static_cast<size_t>(next)] <= NowNs());
      };
      while (started < kStartBatch && due()) {
        LoadItem item = items(next);
        Tracker::Slot* slot = tracker.Begin(next, NowNs(), std::move(item));
        client.Start(next, slot, spec.url, slot->body);
        ++next;
        ++started;
      }
      if (due()) wake = now;  // more to send: poll without waiting
      if (open_loop && next < n) wake = std::min(wake, start + offsets[static_cast<size_t>(next)]);
    }
    if (client.active() == 0 && !(next < n && now < send_until && out.stopped_early.empty())) {
      break;
    }
    wake = std::min(wake, hard_end);
    client.Poll(wake);
    now = NowNs();
    if (now >= next_progress) {
      next_progress = now + kSecond;  // also without a callback: it bounds the wait above
      if (progress) {
        LoadProgress p;
        p.completed = tracker.completed_;
        p.failed = tracker.failed_;
        p.in_flight = static_cast<int64_t>(client.active());
        p.elapsed_s = static_cast<double>(now - start) / 1e9;
        // Events per second over the last interval: what the server is doing now.
        p.output_events_per_s = static_cast<double>(tracker.output_events_ - last_events) * 1e9 /
                                static_cast<double>(std::max<int64_t>(1, now - last_progress_ns));
        progress(p);
      }
      last_events = tracker.output_events_;
      last_progress_ns = now;
    }
  }
  out.results = std::move(tracker.results_);
  out.end_ns = start;
  for (const auto& r : out.results) out.end_ns = std::max(out.end_ns, r.end_ns);
  return out;
}

}  // namespace dossier::serve
