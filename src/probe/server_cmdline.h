// Reading an inference server's command line: which engine a process is (from the table of
// launch forms in server_cmdline.cc), its flags, its model argument, and which processes are the
// workers an engine spawns. Pure functions over argv, so the parsers can be fed hostile input in
// tests; servers.cc does the /proc walking.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dossier {

// NUL-separated words (/proc/PID/cmdline). At most max_words words of at most max_word bytes
// each (longer ones are cut); a trailing NUL ends the last word rather than starting an empty one.
std::vector<std::string> SplitNul(std::string_view data, size_t max_words = 4096,
                                  size_t max_word = 64 << 10);

struct EngineMatch {
  std::string engine;             // "sglang", "vllm", "tensorrt-llm", "llama.cpp", "tgi"
  std::string detected_by;        // the launch form that matched: "-m sglang.launch_server"
  size_t args_begin = 0;          // index of the first argument after the launch form
  bool positional_model = false;  // the engine takes the model as a positional argument
};

// The engine a command line launches, or nullopt. Matches `python -m MODULE`, console scripts
// (first word, or second after a python interpreter: a shebang launch) and their subcommands.
std::optional<EngineMatch> DetectEngine(const std::vector<std::string>& argv);

// Workers renamed by setproctitle ("sglang::scheduler_TP0", "VLLM::EngineCore"): their engine.
std::optional<std::string> RenamedWorkerEngine(const std::vector<std::string>& argv);

struct ParsedArgs {
  std::map<std::string, std::string> flags;  // "--tp-size" -> "8"; bare -> "true"
  std::vector<std::string> positionals;
};
// Flags from argv[begin..]: "--tp-size 8", "--tp=8", a bare "--trust-remote-code" -> "true",
// several values after one flag ("--cuda-graph-bs 1 2 4") joined with spaces, a repeated flag's
// values joined with ", ". Tokens after "--" are positionals. A token that is a negative number
// is a value, not a flag. When `positional_model` and the first token is not a flag, it is the
// positional model; if none is there, the last extra word after a one-value flag is taken as it
// ("trtllm-serve --tp_size 8 MODEL"): without the engine's option table a bare flag followed by
// the model cannot be told from a flag with a value, and this is the form people write.
ParsedArgs ParseServerArgs(const std::vector<std::string>& argv, size_t begin,
                           bool positional_model);

// The model argument of a server: its value and the flag (or "positional") that gave it.
struct ModelArg {
  std::string value;
  std::string from;
};
std::optional<ModelArg> ModelArgument(const std::string& engine, const ParsedArgs& args);

// The parent pid from /proc/PID/stat ("pid (comm) state ppid ..."; comm may hold spaces and
// parentheses, so the fields are counted from the last ')').
std::optional<int64_t> ParseStatPpid(std::string_view stat);

}  // namespace dossier
