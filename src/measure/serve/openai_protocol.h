// The OpenAI-compatible streaming protocol as SGLang, vLLM, TensorRT-LLM, TGI and the llama.cpp
// server speak it: the request body of /v1/completions and /v1/chat/completions, and what one
// streamed event ("data: {...}") says: content arrived, the stream finished, the usage counts,
// an error, or the final "[DONE]".
//
// Event payloads are foreign text: DecodeEvent never throws and never allocates in proportion to
// anything but the payload; a payload that is not JSON is reported as malformed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"

namespace dossier::serve {

enum class Api { kCompletions, kChat };

std::string_view ApiName(Api api);  // "completions" / "chat"
std::string_view ApiPath(Api api);  // "/v1/completions" / "/v1/chat/completions"

struct RequestParams {
  std::string model;
  std::string prompt;
  int64_t max_tokens = 0;
  // Ask for exactly max_tokens tokens: ignore_eos and min_tokens (vLLM, SGLang, TensorRT-LLM
  // accept both; servers that do not know them ignore them or stop early, which the measured
  // output token count shows).
  bool exact_output = false;
};

// The JSON body of a streaming request, with stream_options.include_usage so the server reports
// its own token counts in the last event, stream_options.continuous_usage_stats so a server that
// knows it (vLLM, SGLang) also puts the running count in every chunk (others ignore the key), and
// temperature 0 as the serving benchmarks use.
std::string BuildRequestBody(Api api, const RequestParams& p);

struct StreamEvent {
  enum Kind {
    kData,       // a JSON chunk (may carry content, a finish reason, usage, or nothing)
    kDone,       // "[DONE]"
    kError,      // the server reported an error inside the stream
    kMalformed,  // not JSON, or not an object
  };
  Kind kind = kData;
  bool content = false;   // carries generated text (text, delta.content or reasoning)
  bool choices = false;   // has a non-empty "choices" array (vLLM's test for a chunk, role-only
                          // and empty-text chunks included)
  bool finished = false;  // a choice has a finish_reason
  int64_t prompt_tokens = -1, completion_tokens = -1;  // from "usage"; -1 when absent
  // llama.cpp's own "timings" (prompt_ms, predicted_ms, predicted_n) in its last chunk; -1 absent.
  double server_prompt_ms = -1, server_predicted_ms = -1;
  int64_t server_predicted_n = -1;
  std::string message;  // kError: the server's message; kMalformed: what was wrong
};

// When `text` is given, the generated text of the event is appended to it (for counting its
// tokens with the server's tokenizer when the server reports no usage).
StreamEvent DecodeEvent(std::string_view data, std::string* text = nullptr);

// The token count in the answer of a tokenizer endpoint: {"count": N} (vLLM, SGLang),
// {"tokens": [...]} (llama.cpp, vLLM), or a bare array of tokens (TGI). Error: none of these.
Result<int64_t> ParseTokenizeCount(std::string_view body);

// The body of POST /tokenize for `text`, in the spellings of vLLM and SGLang ("prompt",
// "add_special_tokens": false), llama.cpp ("content"; adds no BOS by default) and TGI ("inputs").
std::string BuildTokenizeBody(const std::string& model, const std::string& text);

// The model ids listed by GET /v1/models ({"data": [{"id": …}, …]}).
Result<std::vector<std::string>> ParseModelList(std::string_view body);

}  // namespace dossier::serve
