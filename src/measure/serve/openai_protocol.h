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
// its own token counts in the last event, and temperature 0 as the serving benchmarks use.
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
  bool finished = false;  // a choice has a finish_reason
  int64_t prompt_tokens = -1, completion_tokens = -1;  // from "usage"; -1 when absent
  std::string message;  // kError: the server's message; kMalformed: what was wrong
};

StreamEvent DecodeEvent(std::string_view data);

// The model ids listed by GET /v1/models ({"data": [{"id": …}, …]}).
Result<std::vector<std::string>> ParseModelList(std::string_view body);

}  // namespace dossier::serve
