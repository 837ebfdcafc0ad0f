#include "measure/serve/sharegpt_dataset.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

namespace dossier::serve {
namespace {

using nlohmann::json;

constexpr size_t kMaxTurnBytes = 1 << 20;
constexpr size_t kMaxJsonNesting = 64;

struct Pair {
  std::string prompt, answer;
};

// Walks the file: depth 1 is the list, 2 a conversation, 3 its "conversations" list, 4 a turn.
class ShareGptSax {
 public:
  using string_t = json::string_t;

  ShareGptSax(int64_t n, uint64_t seed, std::optional<int64_t> output_len)
      : n_(n), rng_(seed), output_len_(output_len) {}

  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t) { return true; }
  bool number_unsigned(json::number_unsigned_t) { return true; }
  bool number_float(json::number_float_t, const string_t&) { return true; }
  bool binary(json::binary_t&) { return true; }
  bool string(string_t& s) {
    if (depth_ == 4 && in_turns_ && key_[4] == "value") {
      if (s.size() > kMaxTurnBytes) {
        too_long_ = true;
      } else if (turn_ == 0) {
        cur_.prompt = std::move(s);
      } else if (turn_ == 1) {
        cur_.answer = std::move(s);
      }
    }
    return true;
  }
  bool start_object(size_t) {
    if (!Push()) return false;
    if (depth_ == 1) return Fail("the file is an object, not a list of conversations");
    if (depth_ == 2) {
      cur_ = {};
      turns_ = 0;
      too_long_ = false;
    }
    if (depth_ == 4 && in_turns_) turn_ = turns_++;
    return true;
  }
  bool start_array(size_t) {
    if (!Push()) return false;
    if (depth_ == 3 && (key_[2] == "conversations" || key_[2] == "conversation")) in_turns_ = true;
    if (depth_ == 1) top_is_list_ = true;
    return true;
  }
  bool end_object() {
    if (depth_ == 2) EndConversation();
    return Pop();
  }
  bool end_array() {
    if (depth_ == 3) in_turns_ = false;
    return Pop();
  }
  bool key(string_t& k) {
    if (depth_ < key_.size()) key_[depth_] = k;
    return true;
  }
  bool parse_error(size_t position, const std::string&, const nlohmann::detail::exception& e) {
    if (why_.empty())
      why_ = "not valid JSON at byte " + std::to_string(position) + " (" + e.what() + ")";
    return false;
  }

  std::vector<Pair> reservoir_;
  int64_t conversations_ = 0, eligible_ = 0;
  std::string why_;
  bool top_is_list_ = false;

 private:
  bool Fail(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    return false;
  }
  bool Push() {
    if (++depth_ > kMaxJsonNesting) return Fail("nested deeper than 64 levels");
    if (depth_ >= key_.size()) key_.resize(depth_ + 1);
    key_[depth_].clear();
    return true;
  }
  bool Pop() {
    --depth_;
    return true;
  }
  void EndConversation() {
    ++conversations_;
    if (turns_ < 2 || too_long_ || cur_.prompt.empty()) return;
    int64_t in = EstimateTokens(cur_.prompt.size());
    int64_t out = EstimateTokens(cur_.answer.size());
    if (!output_len_ && (in < 4 || out < 4 || in > 1024 || in + out > 2048)) return;
    // Reservoir sampling (algorithm R): every eligible conversation is equally likely to be kept.
    int64_t k = eligible_++;
    if (k < n_) {
      reservoir_.push_back(std::move(cur_));
    } else {
      std::uniform_int_distribution<int64_t> pick(0, k);
      int64_t j = pick(rng_);
      if (j < n_) reservoir_[static_cast<size_t>(j)] = std::move(cur_);
    }
  }

  int64_t n_;
  std::mt19937_64 rng_;
  std::optional<int64_t> output_len_;
  size_t depth_ = 0;
  std::vector<std::string> key_ = std::vector<std::string>(8);  // current key at each depth
  bool in_turns_ = false, too_long_ = false;
  int64_t turns_ = 0, turn_ = 0;
  Pair cur_;
};

}  // namespace

int64_t EstimateTokens(size_t bytes) {
  return std::max<int64_t>(1, static_cast<int64_t>((bytes + 2) / 4));
}

Result<std::vector<Prompt>> LoadShareGpt(const std::string& path, int64_t n, uint64_t seed,
                                         std::optional<int64_t> output_len, ShareGptStats* stats) {
  // Only a regular file: a directory opens as a stream that fails on the first read (nlohmann
  // then throws), a FIFO would wait for a writer.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return Error::NotFound(path + ": cannot open the dataset file");
  if (!S_ISREG(st.st_mode))
    return Error::Invalid(path + ": " +
                          (S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") +
                          "; --dataset takes a ShareGPT JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::NotFound(path + ": cannot open the dataset file");
  ShareGptSax sax(n, seed, output_len);
  bool ok = false;
  try {
    ok = json::sax_parse(in, &sax);
  } catch (const json::exception& e) {
    return Error::Invalid(path + ": not a ShareGPT JSON file (" + std::string(e.what()) + ")");
  }
  if (!ok) return Error::Invalid(path + ": " + (sax.why_.empty() ? "not valid JSON" : sax.why_));
  if (!sax.top_is_list_) return Error::Invalid(path + ": not a list of conversations");
  if (stats) *stats = {sax.conversations_, sax.eligible_};
  if (sax.reservoir_.empty()) {
    return Error::Invalid(path + ": no usable conversation (" + std::to_string(sax.conversations_) +
                          " read; each needs a prompt and an answer turn)");
  }
  // The reservoir's order depends on the file's; shuffle so request order is the seed's too.
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ull);
  std::shuffle(sax.reservoir_.begin(), sax.reservoir_.end(), rng);
  std::vector<Prompt> out;
  for (auto& p : sax.reservoir_) {
    Prompt q;
    q.input_tokens = EstimateTokens(p.prompt.size());
    q.output_tokens = output_len ? *output_len : EstimateTokens(p.answer.size());
    q.exact_output = output_len.has_value();
    q.text = std::move(p.prompt);
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace dossier::serve
