// The ShareGPT dataset: a JSON file holding a list of conversations,
//   [{"id": "…", "conversations": [{"from": "human", "value": "…"}, {"from": "gpt", …}, …]}, …]
// (ShareGPT_V3_unfiltered_cleaned_split.json, the file vLLM and SGLang benchmarks use). Like
// them, a conversation's first turn is the prompt and its second turn's length sets how many
// tokens to ask for; conversations with fewer than two turns are skipped, and, without a fixed
// output length, so are prompts or answers under 4 tokens, prompts over 1,024 and pairs over 2,048.
//
// Token counts are estimates (bytes / 4: no tokenizer here); the server's usage counts, when it
// reports them, are what the results show. The file (670 MB for ShareGPT V3) is read as a stream
// with a SAX parser and sampled with a seeded reservoir, so memory grows with the number of
// prompts kept, not with the file. Turns longer than 1 MiB are skipped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/serve/prompt.h"
#include "util/result.h"

namespace dossier::serve {

struct ShareGptStats {
  int64_t conversations = 0;  // conversations in the file
  int64_t eligible = 0;       // after the filters
};

// Up to n prompts sampled with `seed`. output_len, when given, replaces the answer's length and
// asks for it exactly. A file that is not such JSON is an error naming the file and the byte.
Result<std::vector<Prompt>> LoadShareGpt(const std::string& path, int64_t n, uint64_t seed,
                                         std::optional<int64_t> output_len,
                                         ShareGptStats* stats = nullptr);

// Token estimate for text without a tokenizer: about 4 bytes per token in English text.
int64_t EstimateTokens(size_t bytes);

}  // namespace dossier::serve
