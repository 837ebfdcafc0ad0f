#include "measure/serve/random_dataset.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
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

std::pair<int64_t, int64_t> LengthRange(int64_t len, double ratio, RangeStyle style) {
  double l = static_cast<double>(len);
  if (style == RangeStyle::kSglang) {
    return {std::max<int64_t>(static_cast<int64_t>(std::floor(l * ratio)), 1), len};
  }
  return {std::max<int64_t>(static_cast<int64_t>(std::floor(l * (1 - ratio))), 1),
          static_cast<int64_t>(std::ceil(l * (1 + ratio)))};
}

namespace {

void AppendWords(std::mt19937_64& rng, int64_t n, std::string* text) {
  std::uniform_int_distribution<size_t> pick(0, kWordCount - 1);
  for (int64_t w = 0; w < n; ++w) {
    if (!text->empty()) text->push_back(' ');
    text->append(kWords[pick(rng)]);
  }
}

int64_t Draw(std::mt19937_64& rng, int64_t len, const RandomSpec& spec) {
  auto [lo, hi] = LengthRange(len, spec.range_ratio, spec.style);
  if (lo >= hi) return hi;
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

}  // namespace

Prompt RandomPrompt(int64_t index, const RandomSpec& spec, uint64_t seed) {
  std::mt19937_64 rng(Mix(seed ^ Mix(static_cast<uint64_t>(index))));
  Prompt p;
  int64_t input_len = Draw(rng, spec.input_len, spec);
  int64_t output_len = Draw(rng, spec.output_len, spec);
  p.text.reserve(static_cast<size_t>(std::max<int64_t>(input_len + spec.prefix_len, 0)) * 6);
  if (spec.prefix_len > 0) {
    std::mt19937_64 shared(Mix(seed ^ 0x5052454649ull));  // one prefix for the whole run
    AppendWords(shared, spec.prefix_len, &p.text);
  }
  AppendWords(rng, input_len, &p.text);
  p.input_tokens = spec.prefix_len + input_len;
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
