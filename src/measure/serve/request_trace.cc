#include "measure/serve/request_trace.h"

#include <chrono>
#include <cstdio>

#include "measure/serve/openai_protocol.h"
#include "util/text.h"

namespace dossier::serve {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

RequestTrace::RequestTrace(int64_t index, int64_t start_ns, int64_t prompt_tokens_estimate,
                           double timeout_s)
    : timeout_s_(timeout_s) {
  r_.index = index;
  r_.start_ns = start_ns;
  r_.prompt_tokens_estimate = prompt_tokens_estimate;
}

void RequestTrace::Fail(std::string reason) {
  if (r_.failure.empty()) r_.failure = std::move(reason);
  stopped_ = true;
}

bool RequestTrace::OnBody(int64_t now_ns, long status, std::string_view bytes) {
  if (stopped_) return false;
  status_ = status;
  body_bytes_ += bytes.size();
  if (body_bytes_ > kMaxResponseBytes) {
    Fail("response larger than " + std::to_string(kMaxResponseBytes >> 20) + " MiB; stopped");
    return false;
  }
  if (error_body_.size() < kErrorBodyBytes) {
    error_body_.append(bytes.substr(0, kErrorBodyBytes - error_body_.size()));
  }
  // A non-200 answer is an error page, not a stream: only its first bytes are kept (above).
  if (status != 200) return true;
  bool usable = sse_.Feed(bytes, [&](const SseEvent& e) {
    events_seen_ = true;
    if (stopped_ || done_) return;
    StreamEvent ev = DecodeEvent(e.data);
    switch (ev.kind) {
      case StreamEvent::kDone:
        done_ = true;
        r_.end_ns = now_ns;
        return;
      case StreamEvent::kMalformed:
        return Fail("malformed JSON in an event");
      case StreamEvent::kError:
        return Fail("server error in the stream: " + Printable(ev.message, 100));
      case StreamEvent::kData:
        break;
    }
    if (ev.content) {
      if (r_.first_token_ns < 0) r_.first_token_ns = now_ns;
      r_.token_ns.push_back(now_ns);
    }
    if (ev.finished) finished_ = true;
    if (ev.prompt_tokens >= 0) r_.usage_prompt_tokens = ev.prompt_tokens;
    if (ev.completion_tokens >= 0) r_.usage_completion_tokens = ev.completion_tokens;
  });
  if (!usable) Fail(sse_.error());
  return !stopped_;
}

RequestResult RequestTrace::Finish(int64_t now_ns, long status, const TransferEnd& end) {
  if (!done_) r_.end_ns = now_ns;
  if (status != 0) status_ = status;
  char timeout[32];
  std::snprintf(timeout, sizeof timeout, "%g s", timeout_s_);
  if (end.kind == TransferEnd::kCancelled) {
    r_.cancelled = true;
    r_.failure = "cancelled when the run ended";
  } else if (!r_.failure.empty()) {
    // decided while reading: the first reason stands
  } else if (status_ != 0 && status_ != 200) {
    r_.failure = "HTTP " + std::to_string(status_) + ": " + Printable(Trim(error_body_), 100);
  } else {
    switch (end.kind) {
      case TransferEnd::kRefused:
        r_.failure = "connection refused";
        break;
      case TransferEnd::kConnect:
        r_.failure = "could not connect: " + end.detail;
        break;
      case TransferEnd::kTimeout:
        r_.failure = r_.token_ns.empty()
                         ? std::string("timeout: no token within ") + timeout
                         : std::string("timeout: the stream did not end within ") + timeout;
        break;
      case TransferEnd::kCut:
        r_.failure = status_ == 0 ? "connection closed without a response"
                                  : "stream cut: connection closed before the end";
        break;
      case TransferEnd::kAborted:
        r_.failure = "aborted";
        break;
      case TransferEnd::kOther:
      case TransferEnd::kCancelled:
        r_.failure = "transfer error: " + end.detail;
        break;
      case TransferEnd::kOk:
        if (!events_seen_) {
          r_.failure = "response is not an event stream: " + Printable(Trim(error_body_), 100);
        } else if (!done_ && !finished_) {
          r_.failure = "stream cut: ended without [DONE] or a finish reason";
        } else if (r_.token_ns.empty()) {
          r_.failure = "stream ended with no tokens";
        }
        break;
    }
  }
  r_.ok = r_.failure.empty();
  return std::move(r_);
}

}  // namespace dossier::serve
