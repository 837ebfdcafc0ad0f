#include "measure/serve/random_dataset.h"

#include <random>
#include <string_view>

namespace dossier::serve {
namespace {

// Lower-case function and common words: single tokens (with their leading space) in every
// widely used LLM vocabulary.
constexpr std::string_view kWords[] = {
    "the",   "of",      "and",   "to",     "in",    "is",    "that",  "for",   "it",    "as",
    "was",   "with",    "be",    "by",     "on",    "not",   "he",    "this",  "are",   "or",
    "his",   "from",    "at",    "which",  "but",   "have",  "an",    "had",   "they",  "you",
    "were",  "their",   "one",   "all",    "we",    "can",   "her",   "has",   "there", "been",
    "if",    "more",    "when",  "will",   "would", "who",   "so",    "no",    "she",   "other",
    "its",   "may",     "these", "about",  "some",  "into",  "than",  "them",  "only",  "time",
    "new",   "like",    "then",  "two",    "first", "also",  "after", "any",   "could", "made",
    "over",  "such",    "what",  "out",    "up",    "my",    "do",    "most",  "many",  "where",
    "well",  "between", "each",  "people", "state", "world", "year",  "water", "house", "city",
    "under", "day",     "work",  "small",  "long",  "great", "place", "high",  "same",  "right",
};
constexpr size_t kWordCount = sizeof(kWords) / sizeof(kWords[0]);

// SplitMix64's finalizer: independent-looking seeds for neighbouring indices.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

Prompt RandomPrompt(int64_t index, int64_t input_len, int64_t output_len, uint64_t seed) {
  std::mt19937_64 rng(Mix(seed ^ Mix(static_cast<uint64_t>(index))));
  std::uniform_int_distribution<size_t> pick(0, kWordCount - 1);
  Prompt p;
  p.text.reserve(static_cast<size_t>(std::max<int64_t>(input_len, 0)) * 6);
  for (int64_t w = 0; w < input_len; ++w) {
    if (w > 0) p.text.push_back(' ');
    p.text.append(kWords[pick(rng)]);
  }
  p.input_tokens = input_len;
  p.output_tokens = output_len;
  p.exact_output = true;
  return p;
}

std::vector<Prompt> RandomPrompts(int64_t n, int64_t input_len, int64_t output_len, uint64_t seed) {
  std::vector<Prompt> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(RandomPrompt(i, input_len, output_len, seed));
  return out;
}

}  // namespace dossier::serve
