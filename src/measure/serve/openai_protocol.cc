#include "measure/serve/openai_protocol.h"

#include <nlohmann/json.hpp>

#include "util/text.h"

namespace dossier::serve {
namespace {

using nlohmann::json;

// Where a SAX value sits, as far as a stream chunk goes. Everything else is kOther.
enum class Frame { kRoot, kChoices, kChoice, kDelta, kUsage, kError, kOther };

constexpr size_t kMaxDepth = 64;

// Reads one chunk with nlohmann's SAX interface: no document is built, so the per-event cost
// stays at a scan of the bytes (the client decodes up to 100,000 events per second on one core).
// Reused from event to event (Reset), so its buffers are allocated once.
class ChunkSax {
 public:
  using string_t = json::string_t;

  void Reset(StreamEvent* out) {
    out_ = out;
    frames_.clear();
    saw_root_object_ = saw_error_object_ = error_ = false;
    error_message_.clear();
    root_message_.clear();
    why_.clear();
  }

  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t v) { return Integer(v); }
  bool number_unsigned(json::number_unsigned_t v) {
    return Integer(v > static_cast<uint64_t>(INT64_MAX) ? -1 : static_cast<int64_t>(v));
  }
  bool number_float(json::number_float_t, const string_t&) { return true; }
  bool binary(json::binary_t&) { return true; }
  bool string(string_t& s) {
    Frame f = frames_.empty() ? Frame::kOther : frames_.back();
    const std::string& k = frames_.empty() ? kNone : Key();
    if (f == Frame::kChoice) {
      if (k == "text" && !s.empty()) out_->content = true;
      if (k == "finish_reason" && !s.empty()) out_->finished = true;
    } else if (f == Frame::kDelta) {
      if ((k == "content" || k == "reasoning_content" || k == "reasoning") && !s.empty()) {
        out_->content = true;
      }
    } else if (f == Frame::kError) {
      if (k == "message") error_message_ = Printable(s, 200);
    } else if (f == Frame::kRoot && frames_.size() == 1) {
      if (k == "error") {
        error_ = true;
        error_message_ = Printable(s, 200);
      } else if (k == "object" && s == "error") {
        error_ = true;
      } else if (k == "message") {
        root_message_ = Printable(s, 200);
      }
    }
    return true;
  }
  bool start_object(size_t) { return Push(true); }
  bool start_array(size_t) { return Push(false); }
  bool end_object() { return Pop(); }
  bool end_array() { return Pop(); }
  bool key(string_t& k) {
    if (!frames_.empty()) Key() = k;
    return true;
  }
  bool parse_error(size_t position, const std::string&, const nlohmann::detail::exception&) {
    if (why_.empty()) why_ = "not JSON (error at byte " + std::to_string(position) + ")";
    return false;
  }

  // After the parse: the kind of event.
  void Finish(bool parsed) {
    if (!parsed || !saw_root_object_) {
      out_->kind = StreamEvent::kMalformed;
      out_->message = !why_.empty() ? why_ : saw_root_object_ ? "not JSON" : "not a JSON object";
      out_->content = out_->finished = false;
      return;
    }
    if (error_ || saw_error_object_) {
      out_->kind = StreamEvent::kError;
      out_->message = !error_message_.empty()  ? error_message_
                      : !root_message_.empty() ? root_message_
                                               : "error event without a message";
    }
  }

 private:
  bool Integer(int64_t v) {
    if (!frames_.empty() && frames_.back() == Frame::kUsage) {
      if (Key() == "prompt_tokens") out_->prompt_tokens = v;
      if (Key() == "completion_tokens") out_->completion_tokens = v;
    }
    return true;
  }

  bool Push(bool object) {
    if (frames_.size() >= kMaxDepth) {
      why_ = "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels";
      return false;
    }
    Frame child = Frame::kOther;
    if (frames_.empty()) {
      if (object) {
        child = Frame::kRoot;
        saw_root_object_ = true;
      }
    } else {
      Frame f = frames_.back();
      const std::string& k = Key();
      if (f == Frame::kRoot && frames_.size() == 1) {
        if (!object && k == "choices") child = Frame::kChoices;
        if (object && k == "usage") child = Frame::kUsage;
        if (object && k == "error") {
          child = Frame::kError;
          saw_error_object_ = true;
        }
      } else if (f == Frame::kChoices && object) {
        child = Frame::kChoice;
      } else if (f == Frame::kChoice && object && k == "delta") {
        child = Frame::kDelta;
      }
    }
    frames_.push_back(child);
    if (keys_.size() < frames_.size()) keys_.emplace_back();
    Key().clear();
    return true;
  }
  bool Pop() {
    if (!frames_.empty()) frames_.pop_back();
    return true;
  }
  // The current key of the innermost open object ("" in arrays). keys_ only grows, so the
  // strings keep their capacity across events.
  std::string& Key() { return keys_[frames_.size() - 1]; }

  static inline const std::string kNone;
  StreamEvent* out_ = nullptr;
  std::vector<Frame> frames_;
  std::vector<std::string> keys_;
  bool saw_root_object_ = false, saw_error_object_ = false, error_ = false;
  std::string error_message_, root_message_, why_;
};

}  // namespace

std::string_view ApiName(Api api) {
  return api == Api::kChat ? "chat" : "completions";
}

std::string_view ApiPath(Api api) {
  return api == Api::kChat ? "/v1/chat/completions" : "/v1/completions";
}

std::string BuildRequestBody(Api api, const RequestParams& p) {
  json body = {{"model", p.model},
               {"max_tokens", p.max_tokens},
               {"temperature", 0.0},
               {"stream", true},
               {"stream_options", {{"include_usage", true}}}};
  if (api == Api::kChat) {
    body["messages"] = json::array({{{"role", "user"}, {"content", p.prompt}}});
  } else {
    body["prompt"] = p.prompt;
  }
  if (p.exact_output) {
    body["ignore_eos"] = true;
    body["min_tokens"] = p.max_tokens;
  }
  // Prompts from a dataset file may hold invalid UTF-8: replace it rather than fail the run.
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

StreamEvent DecodeEvent(std::string_view data) {
  StreamEvent ev;
  std::string_view trimmed = Trim(data);
  if (trimmed == "[DONE]") {
    ev.kind = StreamEvent::kDone;
    return ev;
  }
  thread_local ChunkSax sax;
  sax.Reset(&ev);
  bool parsed = json::sax_parse(trimmed.begin(), trimmed.end(), &sax);
  sax.Finish(parsed);
  return ev;
}

Result<std::vector<std::string>> ParseModelList(std::string_view body) {
  json j = json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_discarded())
    return Error::Invalid("/v1/models: the answer is not JSON: " + Printable(body));
  auto data = j.find("data");
  if (!j.is_object() || data == j.end() || !data->is_array()) {
    return Error::Invalid("/v1/models: no \"data\" list in the answer: " + Printable(body));
  }
  std::vector<std::string> ids;
  for (const auto& m : *data) {
    if (m.is_object() && m.contains("id") && m["id"].is_string()) {
      ids.push_back(m["id"].get<std::string>());
    }
  }
  if (ids.empty()) return Error::Invalid("/v1/models: the server lists no model");
  return ids;
}

}  // namespace dossier::serve
