#include "measure/serve/openai_protocol.h"

#include <simdjson.h>

#include <nlohmann/json.hpp>

#include "util/text.h"
#include "util/utf8.h"

namespace dossier::serve {

using nlohmann::json;

namespace {

// One parser per thread, reused from event to event: its buffers are allocated once, so an event
// costs a validating scan of its bytes and no allocation (the client decodes up to 100,000 events
// per second on one core; nlohmann's SAX reader spent about 1 us and a malloc per event here,
// simdjson about a fifth of that).
constexpr size_t kMaxDepth = 64;

struct Decoder {
  simdjson::dom::parser parser;
  // Sets the depth limit (kept when the parser grows for a longer event); fails only when out of
  // memory, and then every event reports it.
  simdjson::error_code setup = parser.allocate(4096, kMaxDepth);
  std::string padded;  // the event, copied with the SIMDJSON_PADDING bytes simdjson reads past
};

// A non-empty string value (false for null, numbers, empty strings, …).
bool NonEmptyString(simdjson::dom::element e) {
  std::string_view v;
  return e.get(v) == simdjson::SUCCESS && !v.empty();
}

std::string StringOr(simdjson::dom::element e, std::string_view fallback) {
  std::string_view v;
  return e.get(v) == simdjson::SUCCESS ? Printable(v, 200) : std::string(fallback);
}

// usage counts: an integer that fits int64, else -1 (floats and huge numbers are not counts).
int64_t Count(simdjson::dom::element e) {
  int64_t v = 0;
  return e.get(v) == simdjson::SUCCESS ? v : -1;
}

void AppendText(simdjson::dom::element e, std::string* text) {
  std::string_view v;
  if (text && e.get(v) == simdjson::SUCCESS) text->append(v);
}

void ReadChoice(simdjson::dom::object choice, StreamEvent* ev, std::string* text) {
  for (auto [key, value] : choice) {
    if (key == "text") {
      if (NonEmptyString(value)) {
        ev->content = true;
        AppendText(value, text);
      }
    } else if (key == "finish_reason") {
      if (NonEmptyString(value)) ev->finished = true;
    } else if (key == "delta") {
      simdjson::dom::object delta;
      if (value.get(delta) != simdjson::SUCCESS) continue;
      for (auto [k, v] : delta) {
        if ((k == "content" || k == "reasoning_content" || k == "reasoning") && NonEmptyString(v)) {
          ev->content = true;
          AppendText(v, text);
        }
      }
    }
  }
}

void ReadRoot(simdjson::dom::object root, StreamEvent* ev, std::string* text) {
  bool error = false;
  std::string error_message, root_message;
  for (auto [key, value] : root) {
    if (key == "choices") {
      simdjson::dom::array choices;
      if (value.get(choices) != simdjson::SUCCESS) continue;
      for (simdjson::dom::element c : choices) {
        ev->choices = true;
        simdjson::dom::object choice;
        if (c.get(choice) == simdjson::SUCCESS) ReadChoice(choice, ev, text);
      }
    } else if (key == "usage") {
      simdjson::dom::object usage;
      if (value.get(usage) != simdjson::SUCCESS) continue;
      for (auto [k, v] : usage) {
        if (k == "prompt_tokens") ev->prompt_tokens = Count(v);
        if (k == "completion_tokens") ev->completion_tokens = Count(v);
      }
    } else if (key == "timings") {
      simdjson::dom::object timings;
      if (value.get(timings) != simdjson::SUCCESS) continue;
      for (auto [k, v] : timings) {
        double d = 0;
        if (k == "prompt_ms" && v.get(d) == simdjson::SUCCESS) ev->server_prompt_ms = d;
        if (k == "predicted_ms" && v.get(d) == simdjson::SUCCESS) ev->server_predicted_ms = d;
        if (k == "predicted_n") ev->server_predicted_n = Count(v);
      }
    } else if (key == "error") {
      simdjson::dom::object err;
      if (value.get(err) == simdjson::SUCCESS) {  // vLLM, SGLang: {"error": {"message": …}}
        error = true;
        for (auto [k, v] : err) {
          if (k == "message") error_message = StringOr(v, error_message);
        }
      } else if (value.is_string()) {  // TGI: {"error": "…"}
        error = true;
        error_message = StringOr(value, "");
      }
    } else if (key == "object") {
      std::string_view v;
      if (value.get(v) == simdjson::SUCCESS && v == "error") error = true;
    } else if (key == "message") {
      root_message = StringOr(value, root_message);
    }
  }
  if (!error) return;
  ev->kind = StreamEvent::kError;
  ev->message = !error_message.empty()  ? error_message
                : !root_message.empty() ? root_message
                                        : "error event without a message";
}

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
               {"stream_options", {{"include_usage", true}, {"continuous_usage_stats", true}}}};
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

StreamEvent DecodeEvent(std::string_view data, std::string* text) {
  StreamEvent ev;
  std::string_view trimmed = Trim(data);
  if (trimmed == "[DONE]") {
    ev.kind = StreamEvent::kDone;
    return ev;
  }
  thread_local Decoder d;
  d.padded.assign(trimmed);
  d.padded.append(simdjson::SIMDJSON_PADDING, '\0');
  simdjson::dom::element doc;
  auto err = d.setup;
  if (err == simdjson::SUCCESS)
    err = d.parser.parse(d.padded.data(), trimmed.size(), false).get(doc);
  simdjson::dom::object root;
  if (err == simdjson::SUCCESS) err = doc.get(root);
  if (err != simdjson::SUCCESS) {
    ev.kind = StreamEvent::kMalformed;
    ev.message = err == simdjson::DEPTH_ERROR
                     ? "JSON nested deeper than " + std::to_string(kMaxDepth) + " levels"
                 : err == simdjson::INCORRECT_TYPE
                     ? std::string("not a JSON object")
                     : std::string("not JSON (") + simdjson::error_message(err) + ")";
    return ev;
  }
  ReadRoot(root, &ev, text);
  return ev;
}

std::string BuildTokenizeBody(const std::string& model, const std::string& text) {
  json body = {{"model", model},
               {"prompt", text},
               {"add_special_tokens", false},
               {"content", text},
               {"inputs", text}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<int64_t> ParseTokenizeCount(std::string_view body) {
  json j = json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_array()) return static_cast<int64_t>(j.size());  // TGI: one object per token
  if (j.is_object()) {
    if (auto c = j.find("count");
        c != j.end() && c->is_number_integer() && c->get<int64_t>() >= 0) {
      return c->get<int64_t>();
    }
    if (auto t = j.find("tokens"); t != j.end() && t->is_array()) {
      return static_cast<int64_t>(t->size());
    }
  }
  return Error::Invalid("tokenizer answer has no \"count\" or \"tokens\": " + Printable(body, 100));
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
      // A server's text at the door: an id holding ESC sequences would reach the terminal and
      // the record raw (utf8.h).
      ids.push_back(MakeValidUtf8(m["id"].get<std::string>()));
    }
  }
  if (ids.empty()) return Error::Invalid("/v1/models: the server lists no model");
  return ids;
}

}  // namespace dossier::serve
