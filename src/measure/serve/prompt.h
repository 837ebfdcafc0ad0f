// A prompt to send and how long its answer should be, as the datasets (random, ShareGPT) give it.
#pragma once

#include <cstdint>
#include <string>

namespace dossier::serve {

struct Prompt {
  std::string text;
  int64_t input_tokens = 0;   // the dataset's count (exact or estimated); the server's usage wins
  int64_t output_tokens = 0;  // max_tokens to ask for
  bool exact_output = false;  // ask the server to ignore EOS and produce exactly output_tokens
};

}  // namespace dossier::serve
