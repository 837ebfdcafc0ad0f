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
#include <utility>
#include <vector>

#include "measure/serve/prompt.h"

namespace dossier::serve {

// How lengths vary from prompt to prompt (--random-range-ratio R):
//  kVllm:   vLLM's bench serve: input and output lengths uniform integers in
//           [floor(L (1 - R)), ceil(L (1 + R))] (R in [0, 1); 0: exactly L, vLLM's default).
//  kSglang: SGLang's bench_serving: uniform integers in [max(floor(L R), 1), L] (R in [0, 1];
//           SGLang's default R is 0, which draws lengths in [1, L]: about half the tokens of the
//           same --random-input-len / --random-output-len in vLLM; R 1 is exactly L).
// prefix_len (vLLM's --random-prefix-len): that many words, the same in every prompt of the run,
// before the random part (so a prefix cache can share them); SGLang's random dataset has none.
enum class RangeStyle { kVllm, kSglang };

struct RandomSpec {
  int64_t input_len = 1024, output_len = 128;
  double range_ratio = 0;
  RangeStyle style = RangeStyle::kVllm;
  int64_t prefix_len = 0;
};

// Prompt number `index` of the dataset with this seed (each prompt is made on its own, so a run
// makes them as it sends them). input_tokens counts the prefix too.
Prompt RandomPrompt(int64_t index, const RandomSpec& spec, uint64_t seed);
inline Prompt RandomPrompt(int64_t index, int64_t input_len, int64_t output_len, uint64_t seed) {
  return RandomPrompt(index, RandomSpec{input_len, output_len, 0, RangeStyle::kVllm, 0}, seed);
}

// The [low, high] range of lengths for L under the spec's ratio and style.
std::pair<int64_t, int64_t> LengthRange(int64_t len, double ratio, RangeStyle style);

// Prompts 0..n-1.
std::vector<Prompt> RandomPrompts(int64_t n, int64_t input_len, int64_t output_len, uint64_t seed);

}  // namespace dossier::serve
