#include "probe/server_cmdline.h"

#include <array>

#include "fs/root_fs.h"
#include "util/text.h"

namespace dossier {
namespace {

enum class Form {
  kModule,        // python -m NAME
  kModulePrefix,  // python -m NAME... (any module under a package)
  kScript,        // NAME as the program, or after a python interpreter (shebang launch)
  kPyScript,      // python .../*serve*.py whose path names the package (NAME)
};

struct LaunchForm {
  const char* engine;
  Form form;
  std::string_view name;
  std::string_view subcommand;  // required after the name, or "" for none
  bool subcommand_optional;     // "trtllm-serve MODEL" and "trtllm-serve serve MODEL" both run
  bool positional_model;
};

// The table of launch forms, one row each. Order matters only where forms overlap.
constexpr std::array<LaunchForm, 12> kForms = {{
    {"sglang", Form::kModule, "sglang.launch_server", "", false, false},
    {"sglang", Form::kModulePrefix, "sglang.srt.", "", false, false},
    {"sglang", Form::kScript, "sglang", "serve", false, false},
    {"vllm", Form::kScript, "vllm", "serve", false, true},
    {"vllm", Form::kModule, "vllm.entrypoints.openai.api_server", "", false, false},
    {"vllm", Form::kModule, "vllm.entrypoints.api_server", "", false, false},
    {"vllm", Form::kModule, "vllm.entrypoints.cli.main", "serve", false, true},
    {"tensorrt-llm", Form::kScript, "trtllm-serve", "serve", true, true},
    {"tensorrt-llm", Form::kModule, "tensorrt_llm.commands.serve", "serve", true, true},
    {"tensorrt-llm", Form::kPyScript, "tensorrt", "", false, true},
    {"llama.cpp", Form::kScript, "llama-server", "", false, false},
    {"tgi", Form::kScript, "text-generation-launcher", "", false, false},
}};

// Where each engine takes its model, in order of preference ("" = the positional argument).
struct ModelFlags {
  const char* engine;
  std::array<std::string_view, 3> flags;
};
constexpr std::array<ModelFlags, 5> kModelFlags = {{
    {"sglang", {"--model-path", "--model", ""}},
    {"vllm", {"", "--model", ""}},
    {"tensorrt-llm", {"", "--model", ""}},
    {"llama.cpp", {"-m", "--model", "-hf"}},
    {"tgi", {"--model-id", "", ""}},
}};

// Well-known flags that never take a value, so a word after them is a positional argument
// ("vllm serve --trust-remote-code MODEL" is rare, "trtllm-serve --trust_remote_code MODEL" not).
// Compared with '_' folded to '-'.
constexpr std::array<std::string_view, 12> kBareFlags = {
    "--trust-remote-code",         "--enforce-eager",          "--disable-log-stats",
    "--disable-log-requests",      "--enable-prefix-caching",  "--enable-chunked-prefill",
    "--disable-custom-all-reduce", "--enable-torch-compile",   "--disable-cuda-graph",
    "--enable-dp-attention",       "--enable-expert-parallel", "--enable-mixed-chunk"};

bool IsPython(std::string_view word) {
  return BaseName(word).starts_with("python");
}

bool IsFlag(std::string_view t) {
  return t.size() > 1 && t[0] == '-' && !ParseDouble(t).has_value();
}

bool IsBareFlag(std::string_view flag) {
  std::string f(flag);
  for (char& c : f)
    if (c == '_') c = '-';
  for (auto b : kBareFlags)
    if (f == b) return true;
  return false;
}

// The module named by `python [options] -m MODULE`, with its index; nullopt for `-c`, a script,
// or no -m.
std::optional<size_t> ModuleIndex(const std::vector<std::string>& argv) {
  if (argv.empty() || !IsPython(argv[0])) return std::nullopt;
  for (size_t j = 1; j < argv.size(); ++j) {
    const std::string& a = argv[j];
    if (a == "-m") return j + 1 < argv.size() ? std::optional<size_t>(j + 1) : std::nullopt;
    if (a == "-X" || a == "-W" || a == "--check-hash-based-pycs") {
      ++j;  // takes a value
      continue;
    }
    if (a == "-c" || !a.starts_with('-')) return std::nullopt;  // a command or a script
  }
  return std::nullopt;
}

// Index just after the subcommand, or nullopt when a required subcommand is missing.
std::optional<size_t> AfterSubcommand(const std::vector<std::string>& argv, size_t i,
                                      const LaunchForm& f) {
  if (f.subcommand.empty()) return i;
  if (i < argv.size() && argv[i] == f.subcommand) return i + 1;
  if (f.subcommand_optional) return i;
  return std::nullopt;
}

std::optional<EngineMatch> Match(const std::vector<std::string>& argv, const LaunchForm& f) {
  std::optional<size_t> next;  // index after the matched name
  std::string by;
  switch (f.form) {
    case Form::kModule:
    case Form::kModulePrefix: {
      auto m = ModuleIndex(argv);
      if (!m) return std::nullopt;
      const std::string& mod = argv[*m];
      bool hit = f.form == Form::kModule ? mod == f.name : mod.starts_with(f.name);
      if (!hit) return std::nullopt;
      next = *m + 1;
      by = "-m " + mod;
      break;
    }
    case Form::kScript: {
      size_t i = 0;
      if (IsPython(argv[0]) && argv.size() > 1 && BaseName(argv[1]) == f.name) i = 1;
      if (BaseName(argv[i]) != f.name) return std::nullopt;
      next = i + 1;
      by = std::string(f.name);
      break;
    }
    case Form::kPyScript: {
      if (!IsPython(argv[0]) || argv.size() < 2) return std::nullopt;
      const std::string& s = argv[1];
      std::string_view base = BaseName(s);
      if (!s.ends_with(".py") || base.find("serve") == std::string_view::npos ||
          ToLower(s).find(f.name) == std::string::npos)
        return std::nullopt;
      next = 2;
      by = "python " + std::string(base);
      break;
    }
  }
  auto begin = AfterSubcommand(argv, *next, f);
  if (!begin) return std::nullopt;
  if (*begin > *next) by += " " + std::string(f.subcommand);
  return EngineMatch{f.engine, by, *begin, f.positional_model};
}

void AddFlag(ParsedArgs* out, const std::string& name, const std::string& value) {
  auto [it, fresh] = out->flags.emplace(name, value);
  if (!fresh) it->second += ", " + value;
}

}  // namespace

std::vector<std::string> SplitNul(std::string_view data, size_t max_words, size_t max_word) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < data.size() && out.size() < max_words) {
    size_t end = data.find('\0', i);
    if (end == std::string_view::npos) end = data.size();
    out.emplace_back(data.substr(i, std::min(end - i, max_word)));
    i = end + 1;
  }
  return out;
}

std::optional<EngineMatch> DetectEngine(const std::vector<std::string>& argv) {
  if (argv.empty()) return std::nullopt;
  for (const auto& f : kForms)
    if (auto m = Match(argv, f)) return m;
  return std::nullopt;
}

std::optional<std::string> RenamedWorkerEngine(const std::vector<std::string>& argv) {
  if (argv.empty()) return std::nullopt;
  std::string_view title = Trim(argv[0]);
  if (title.starts_with("sglang::")) return "sglang";
  if (title.starts_with("VLLM::")) return "vllm";
  return std::nullopt;
}

ParsedArgs ParseServerArgs(const std::vector<std::string>& argv, size_t begin,
                           bool positional_model) {
  ParsedArgs out;
  size_t i = begin;
  bool have_model = false;
  if (positional_model && i < argv.size() && !IsFlag(argv[i]) && argv[i] != "--") {
    out.positionals.push_back(argv[i++]);
    have_model = true;
  }
  std::string flag;  // the flag collecting values, "" when none
  std::vector<std::string> values;
  std::optional<std::string> first_multi;  // first flag that collected several words
  auto flush = [&]() {
    if (flag.empty()) return;
    if (values.size() > 1 && !first_multi) first_multi = flag;
    std::string v;
    for (const auto& w : values) v += (v.empty() ? "" : " ") + w;
    AddFlag(&out, flag, values.empty() ? "true" : v);
    if (positional_model && !have_model && values.size() > 1 && *first_multi == flag) {
      // "--tp_size 8 MODEL": the last word is the positional model (see the header).
      std::string& stored = out.flags[flag];
      stored.resize(stored.size() - values.back().size() - 1);
      out.positionals.insert(out.positionals.begin(), values.back());
      have_model = true;
    }
    flag.clear();
    values.clear();
  };
  for (; i < argv.size(); ++i) {
    const std::string& t = argv[i];
    if (t == "--") {
      flush();
      for (++i; i < argv.size(); ++i) out.positionals.push_back(argv[i]);
      break;
    }
    if (IsFlag(t)) {
      flush();
      size_t eq = t.find('=');
      if (eq != std::string::npos) {
        AddFlag(&out, t.substr(0, eq), t.substr(eq + 1));
      } else if (IsBareFlag(t)) {
        AddFlag(&out, t, "true");
      } else {
        flag = t;
      }
      continue;
    }
    if (!flag.empty()) {
      values.push_back(t);
    } else {
      out.positionals.push_back(t);
    }
  }
  flush();
  return out;
}

std::optional<ModelArg> ModelArgument(const std::string& engine, const ParsedArgs& args) {
  for (const auto& mf : kModelFlags) {
    if (engine != mf.engine) continue;
    for (size_t k = 0; k < mf.flags.size(); ++k) {
      std::string_view f = mf.flags[k];
      if (f.empty()) {
        // Only the first slot means "positional"; later empty slots are padding.
        if (k == 0 && !args.positionals.empty())
          return ModelArg{args.positionals[0], "positional argument"};
        continue;
      }
      auto it = args.flags.find(std::string(f));
      if (it != args.flags.end() && it->second != "true")
        return ModelArg{it->second, std::string(f)};
    }
  }
  return std::nullopt;
}

std::optional<int64_t> ParseStatPpid(std::string_view stat) {
  size_t close = stat.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  auto fields = SplitAny(stat.substr(close + 1), " \n");
  if (fields.size() < 2) return std::nullopt;
  return ParseInt(fields[1]);
}

}  // namespace dossier
