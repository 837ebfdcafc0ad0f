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
  Tracker(double timeout_s, TtftFrom ttft_from, const EchoRedactor* echo)
      : timeout_s_(timeout_s), ttft_from_(ttft_from), echo_(echo) {}

  struct Slot {
    RequestTrace trace;
    std::string body;
  };

  // The request's state, held until it ends (the body too: curl sends it from there).
  Slot* Begin(int64_t id, int64_t start_ns, LoadItem item) {
    auto slot = std::make_unique<Slot>(
        Slot{RequestTrace(id, start_ns, item.prompt_tokens, timeout_s_, ttft_from_),
             std::move(item.body)});
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
    // The one place every failure text passes (HTTP error bodies, error events, transfer
    // errors): what the server wrote is redacted before anything keeps or prints it.
    if (echo_ && !r.failure.empty()) r.failure = echo_->Redact(r.failure);
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
  TtftFrom ttft_from_;
  const EchoRedactor* echo_;
};

}  // namespace

std::vector<int64_t> ArrivalOffsets(int64_t n, double rate, double burstiness, uint64_t seed) {
  std::vector<int64_t> out(static_cast<size_t>(std::max<int64_t>(n, 0)), 0);
  if (!(rate > 0) || std::isinf(rate) || out.empty()) return out;  // infinite rate: all at once
  std::vector<double> t(out.size());
  if (std::isinf(burstiness)) {  // vLLM: constant gaps of 1/rate
    for (size_t i = 0; i < t.size(); ++i) t[i] = static_cast<double>(i + 1) / rate;
  } else {
    std::mt19937_64 rng(seed);
    std::gamma_distribution<double> gap(burstiness, 1.0 / (rate * burstiness));
    double sum = 0;
    for (double& v : t) v = sum += gap(rng);
  }
  double scale = t.back() > 0 ? (static_cast<double>(n) / rate) / t.back() : 1.0;
  for (size_t i = 0; i < t.size(); ++i) out[i] = static_cast<int64_t>(t[i] * scale * 1e9);
  return out;
}

ItemSource Cycle(std::vector<LoadItem> items) {
  return [items = std::move(items)](int64_t i) {
    return items[static_cast<size_t>(i % static_cast<int64_t>(items.size()))];
  };
}

namespace {

// One run's loop: send what is due, wait for bytes, report progress, until the run ends.
class LoadRun {
 public:
  LoadRun(const LoadSpec& spec, const ItemSource& items,
          const std::function<void(const LoadProgress&)>& progress)
      : spec_(spec),
        items_(items),
        progress_(progress),
        n_(std::max<int64_t>(spec.num_prompts, 0)),
        open_loop_(spec.request_rate > 0),
        cap_(spec.concurrency > 0 ? spec.concurrency : INT64_MAX),
        tracker_(spec.client.timeout_s, spec.ttft_from, spec.echo) {}

  Status Init() {
    if (open_loop_) offsets_ = ArrivalOffsets(n_, spec_.request_rate, spec_.burstiness, spec_.seed);
    auto client = MakeStreamClient(spec_.client, spec_.url, &tracker_);
    if (!client) return client.error();
    client_ = std::move(*client);
    return client_->Init();
  }

  LoadOutcome Run(const std::atomic<bool>* stop) {
    start_ = NowNs();
    out_.start_ns = start_;
    send_until_ = spec_.duration_s > 0 ? start_ + static_cast<int64_t>(spec_.duration_s * kSecond)
                                       : INT64_MAX;
    // The whole run is bounded: after --duration, what is in flight gets one timeout to finish.
    const int64_t hard_end =
        spec_.duration_s > 0
            ? send_until_ + static_cast<int64_t>((spec_.client.timeout_s + 1) * kSecond)
            : INT64_MAX;
    next_progress_ = last_progress_ns_ = start_;
    next_progress_ += kSecond;
    for (;;) {
      int64_t now = NowNs();
      if (stop && stop->load(std::memory_order_relaxed)) {
        out_.interrupted = true;
        client_->CancelAll();
        break;
      }
      if (now >= hard_end) {
        client_->CancelAll();
        break;
      }
      int64_t wake = std::min(now + kSecond / 5, next_progress_);
      if (MaySend(now)) wake = std::min(wake, SendDue(now));
      if (client_->active() == 0 && !MaySend(now)) break;
      client_->Poll(std::min(wake, hard_end));
      Progress(NowNs());
    }
    out_.results = std::move(tracker_.results_);
    out_.end_ns = start_;
    for (const auto& r : out_.results) out_.end_ns = std::max(out_.end_ns, r.end_ns);
    return std::move(out_);
  }

 private:
  bool MaySend(int64_t now) {
    if (next_ >= n_ || now >= send_until_ || !out_.stopped_early.empty()) return false;
    if (spec_.max_consecutive_failures > 0 &&
        tracker_.consecutive_failures_ >= spec_.max_consecutive_failures) {
      out_.stopped_early = "stopped sending after " +
                           std::to_string(tracker_.consecutive_failures_) +
                           " failures in a row (last: " + tracker_.last_failure_ + ")";
      return false;
    }
    return true;
  }

  // Whether the next request may start at time t: the same reading the request is stamped with,
  // so none starts after --duration's deadline (the loop's first check can be a batch earlier).
  bool Due(int64_t t) {
    return next_ < n_ && t < send_until_ && static_cast<int64_t>(client_->active()) < cap_ &&
           (!open_loop_ || start_ + offsets_[static_cast<size_t>(next_)] <= t);
  }

  // Sends what is due: free slots in the closed loop; arrivals whose time has come in the open
  // loop (one waiting for a slot goes out as soon as one frees). At most kStartBatch at a time,
  // then a look at the sockets: starting 1,024 requests (build, connect, send) takes long enough
  // that answers to the first must not wait for the last to be sent, or their TTFT would hold
  // the client's own work. Returns when to wake up next.
  int64_t SendDue(int64_t now) {
    for (int started = 0; started < kStartBatch; ++started) {
      const int64_t t = NowNs();
      if (!Due(t)) break;
      LoadItem item = items_(next_);
      Tracker::Slot* slot = tracker_.Begin(next_, t, std::move(item));
      client_->Start(next_, slot, spec_.url, slot->body);
      ++next_;
    }
    if (Due(NowNs())) return now;  // more to send: poll without waiting
    if (open_loop_ && next_ < n_) return start_ + offsets_[static_cast<size_t>(next_)];
    return INT64_MAX;
  }

  // About once a second: the callback, and the bound on the wait above.
  void Progress(int64_t now) {
    if (now < next_progress_) return;
    next_progress_ = now + kSecond;
    if (progress_) {
      LoadProgress p;
      p.completed = tracker_.completed_;
      p.failed = tracker_.failed_;
      p.in_flight = static_cast<int64_t>(client_->active());
      p.elapsed_s = static_cast<double>(now - start_) / 1e9;
      // Events per second over the last interval: what the server is doing now.
      p.output_events_per_s = static_cast<double>(tracker_.output_events_ - last_events_) * 1e9 /
                              static_cast<double>(std::max<int64_t>(1, now - last_progress_ns_));
      progress_(p);
    }
    last_events_ = tracker_.output_events_;
    last_progress_ns_ = now;
  }

  const LoadSpec& spec_;
  const ItemSource& items_;
  const std::function<void(const LoadProgress&)>& progress_;
  const int64_t n_;
  const bool open_loop_;
  const int64_t cap_;
  Tracker tracker_;
  std::unique_ptr<StreamClient> client_;
  std::vector<int64_t> offsets_;
  LoadOutcome out_;
  int64_t start_ = 0, send_until_ = 0, next_ = 0;
  int64_t next_progress_ = 0, last_events_ = 0, last_progress_ns_ = 0;
};

}  // namespace

Result<LoadOutcome> RunLoad(const LoadSpec& spec, const ItemSource& items,
                            const std::function<void(const LoadProgress&)>& progress,
                            const std::atomic<bool>* stop) {
  if (!items) return Error::Invalid("no prompts to send");
  LoadRun run(spec, items, progress);
  if (auto s = run.Init(); !s) return s.error();
  return run.Run(stop);
}

}  // namespace dossier::serve
