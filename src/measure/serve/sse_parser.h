// SseParser: an incremental parser of a server-sent-events stream (the WHATWG "event stream
// interpretation"), fed bytes as they arrive from the network in pieces of any size.
//
// Lines end in CRLF, LF or CR (a CR at the end of one piece and an LF at the start of the next
// are one line end). "data:" lines are joined with "\n"; a blank line dispatches the event;
// lines starting with ':' are comments; "event:" names the event; "id:" and "retry:" are
// accepted and ignored (a benchmark never reconnects). A UTF-8 byte-order mark at the very start
// is skipped. Hand-written because no Debian package offers an incremental SSE parser, and the
// format is small.
//
// The input is foreign: memory is bounded by max_event_bytes. A line or event larger than that
// turns the parser into the failed state (Feed returns false, error() says why) and it ignores
// everything after; a benchmark treats that stream as failed.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <type_traits>

namespace dossier::serve {

struct SseEvent {
  std::string_view type;  // "message" unless an "event:" line named it
  std::string_view data;  // the data lines joined with "\n"; valid only during the callback
};

class SseParser {
 public:
  static constexpr size_t kDefaultMaxEventBytes = 1 << 20;

  explicit SseParser(size_t max_event_bytes = kDefaultMaxEventBytes)
      : max_event_bytes_(max_event_bytes) {}

  // Feeds the next bytes; calls on_event(const SseEvent&) for each complete event. Returns false
  // once the stream is unusable (then and ever after), true otherwise.
  template <class F>
  bool Feed(std::string_view bytes, F&& on_event) {
    using Fn = std::remove_reference_t<F>;
    sink_ = const_cast<void*>(static_cast<const void*>(&on_event));
    dispatch_ = [](void* sink, const SseEvent& e) { (*static_cast<Fn*>(sink))(e); };
    return FeedImpl(bytes);
  }

  bool failed() const { return !error_.empty(); }
  const std::string& error() const { return error_; }
  // Bytes held for an incomplete line or event: what a stream cut now would lose.
  size_t pending_bytes() const { return line_.size() + data_.size(); }
  size_t events() const { return events_; }

 private:
  bool FeedImpl(std::string_view bytes);
  void Line(std::string_view line);
  void Dispatch();
  void Fail(std::string why);

  size_t max_event_bytes_;
  std::string line_;  // an incomplete line carried to the next Feed
  std::string data_;  // data lines of the event being read
  std::string type_;
  bool has_data_ = false;
  bool skip_lf_ = false;  // the last piece ended in CR: an LF that starts the next one is its pair
  bool at_start_ = true;  // a BOM may only appear here
  size_t events_ = 0;
  std::string error_;
  void* sink_ = nullptr;
  void (*dispatch_)(void*, const SseEvent&) = nullptr;
};

}  // namespace dossier::serve
