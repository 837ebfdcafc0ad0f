// The random dataset: prompts of an exact length in tokens, answers of an exact length.
//
// Without the server's tokenizer the prompt is built from common English words that are one token
// each in the tokenizers of the usual model families (GPT-2/tiktoken BPE, SentencePiece Llama,
// Qwen, Mistral) when preceded by a space, picked at random, so `input_len` words are `input_len`
// tokens (a chat template adds its own; the server's usage count, when it reports one, is what
// the results show). Prompts differ from their first word on, so a prefix cache does not turn
// the benchmark into a cache benchmark. Output length is exact by asking the server to ignore EOS
// (ignore_eos, min_tokens = max_tokens).
#pragma once

#include <cstdint>
#include <vector>

#include "measure/serve/prompt.h"

namespace dossier::serve {

// Prompt number `index` of the dataset with this seed (each prompt is made on its own, so a run
// makes them as it sends them).
Prompt RandomPrompt(int64_t index, int64_t input_len, int64_t output_len, uint64_t seed);

// Prompts 0..n-1.
std::vector<Prompt> RandomPrompts(int64_t n, int64_t input_len, int64_t output_len, uint64_t seed);

}  // namespace dossier::serve
