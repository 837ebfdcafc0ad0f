// The result blocks `vllm bench serve` (benchmark_serving.py) and SGLang's bench_serving print:
// "============ Serving Benchmark Result ============", then "Label:   value" lines grouped by
// "----TTFT----" rules, to a closing "=====" line. Each block is one run of a serve-bench
// measurement (tool "vllm bench serve" or "sglang bench_serving"), read by the report, the
// targets and the rules as dossier's own.
//
// What varies between versions and pastes, and how it is read:
// - labels: one alias table (kLabels) matched case-insensitively, spaces collapsed. vLLM wrote
//   "Total Token throughput" before it wrote "Total token throughput"; SGLang wrote "Total
//   throughput" before "Total token throughput"; vLLM's load line is "Maximum request
//   concurrency", SGLang's "Max request concurrency"; newer vLLM prints "Request rate
//   configured (RPS)" where SGLang prints "Traffic request rate".
// - the load: in the block (SGLang, newer vLLM), in the lines vLLM printed before it ("Traffic
//   request rate: inf", "Maximum request concurrency: 32"), or in the pasted command line
//   (--max-concurrency 64, --request-rate 4). A cap with every request sent at once (rate inf)
//   is the closed-loop concurrency dossier's own serve-bench measures.
// - rulers lost in a chat: a run of known labels that starts with "Backend:", "Successful
//   requests:" or a load line is a block too.
// - several blocks in one paste: each is a run; a bare line just before a block ("TP8 c64",
//   "# request rate: 2") or the prompt's command labels it.
// A key figure (completed requests, duration, total throughput) that cannot be read makes the
// block a warning naming its line, never a run of zeros.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

enum class Key {
  kBackend,
  kModel,
  kRate,
  kMaxConcurrency,
  kBurstiness,
  kSuccessful,
  kFailed,
  kDuration,
  kInputTokens,
  kOutputTokens,
  kRetokenized,
  kReqThroughput,
  kGoodput,
  kInputTps,
  kOutputTps,
  kPeakOutputTps,
  kPeakConcurrent,
  kTotalTps,
  kMeanConcurrency,
  kLatency,     // "<stat> <metric> (ms)": read by LatencyLabel
  kKnownOther,  // printed by some version, not kept ("Total input vision tokens", "Accept length")
};

struct LabelAlias {
  const char* label;  // lower case, single spaces, without the colon
  Key key;
};

// Every label a version of vLLM or SGLang prints in the block or just before it.
const LabelAlias kLabels[] = {
    {"backend", Key::kBackend},
    {"model", Key::kModel},
    {"model id", Key::kModel},
    {"traffic request rate", Key::kRate},
    {"request rate configured (rps)", Key::kRate},
    {"request rate", Key::kRate},
    {"max request concurrency", Key::kMaxConcurrency},
    {"maximum request concurrency", Key::kMaxConcurrency},
    {"burstiness factor", Key::kBurstiness},
    {"successful requests", Key::kSuccessful},
    {"failed requests", Key::kFailed},
    {"benchmark duration (s)", Key::kDuration},
    {"total input tokens", Key::kInputTokens},
    {"total generated tokens", Key::kOutputTokens},
    {"total generated tokens (retokenized)", Key::kRetokenized},
    {"request throughput (req/s)", Key::kReqThroughput},
    {"request goodput (req/s)", Key::kGoodput},
    {"input token throughput (tok/s)", Key::kInputTps},
    {"output token throughput (tok/s)", Key::kOutputTps},
    {"peak output token throughput (tok/s)", Key::kPeakOutputTps},
    {"peak concurrent requests", Key::kPeakConcurrent},
    {"total token throughput (tok/s)", Key::kTotalTps},
    {"total throughput (tok/s)", Key::kTotalTps},
    {"concurrency", Key::kMeanConcurrency},
    {"total input text tokens", Key::kKnownOther},
    {"total input vision tokens", Key::kKnownOther},
    {"accept length", Key::kKnownOther},
    {"acceptance rate (%)", Key::kKnownOther},
    {"acceptance length", Key::kKnownOther},
    {"drafts", Key::kKnownOther},
    {"draft tokens", Key::kKnownOther},
    {"accepted tokens", Key::kKnownOther},
};

// "Mean  TTFT (ms)" -> "mean ttft (ms)".
std::string NormLabel(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

struct LatencyName {
  const char* name;  // as normalised
  LatencyStats ServeRun::*stats;
};
const LatencyName kMetrics[] = {
    {"ttft", &ServeRun::ttft_ms},       {"tpot", &ServeRun::tpot_ms}, {"itl", &ServeRun::itl_ms},
    {"e2e latency", &ServeRun::e2e_ms}, {"e2el", &ServeRun::e2e_ms},
};

// "p99 ttft (ms)" -> the stat of the run it fills; null when not a latency label, or one that is
// known but not kept (P25, P75, P99.9: *known set).
Fact<double>* LatencyLabel(const std::string& label, ServeRun* run, bool* known) {
  *known = false;
  if (!label.ends_with(" (ms)")) return nullptr;
  std::string_view l(label);
  l.remove_suffix(5);
  size_t sp = l.find(' ');
  if (sp == std::string_view::npos) return nullptr;
  std::string_view stat = l.substr(0, sp), metric = l.substr(sp + 1);
  for (const auto& m : kMetrics) {
    if (metric != m.name) continue;
    LatencyStats& s = run->*(m.stats);
    *known = true;
    if (stat == "mean") return &s.mean;
    if (stat == "median" || stat == "p50") return &s.median;
    if (stat == "std") return &s.stddev;
    if (stat == "p90") return &s.p90;
    if (stat == "p95") return &s.p95;
    if (stat == "p99") return &s.p99;
    if (stat == "max") return &s.max;
    return nullptr;
  }
  return nullptr;
}

struct LabelLine {
  std::string label;  // normalised
  std::string value;
  bool known = false;  // in kLabels or a latency label
  Key key = Key::kKnownOther;
};

std::optional<LabelLine> ReadLabelLine(std::string_view t) {
  t = Trim(t);
  while (t.starts_with("#") || t.starts_with("|")) t = Trim(t.substr(1));  // "# Label: v"
  size_t colon = t.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon > 60) return std::nullopt;
  LabelLine l;
  l.label = NormLabel(t.substr(0, colon));
  l.value = std::string(Trim(t.substr(colon + 1)));
  while (!l.value.empty() && l.value.back() == '|')
    l.value = std::string(Trim(std::string_view(l.value).substr(0, l.value.size() - 1)));
  for (const auto& a : kLabels)
    if (l.label == a.label) {
      l.known = true;
      l.key = a.key;
      return l;
    }
  ServeRun scratch;
  bool known = false;
  LatencyLabel(l.label, &scratch, &known);
  if (known) {
    l.known = true;
    l.key = Key::kLatency;
  }
  return l;
}

std::string_view Lower(std::string_view s, std::string* buf) {
  *buf = ToLower(s);
  return *buf;
}

bool ServeHead(std::string_view line) {
  std::string b;
  return Lower(line, &b).find("serving benchmark result") != std::string_view::npos;
}

// A "=====" or "----Time to First Token----" line.
bool Ruler(std::string_view t) {
  t = Trim(t);
  while (t.starts_with("#")) t = Trim(t.substr(1));
  return t.size() >= 5 && (t.starts_with("=====") || t.starts_with("-----"));
}

bool ClosingRuler(std::string_view t) {
  t = Trim(t);
  while (t.starts_with("#")) t = Trim(t.substr(1));
  return t.size() >= 10 && t.find_first_not_of('=') == std::string_view::npos;
}

// A block without its header: a known label that only a block begins with, and a count of
// requests within the next lines. With `preamble`, the load lines vLLM prints before a headed
// block count too (where a pasted session is cut); without, a header ahead means not rulerless.
bool RulerlessStart(const Lines& lines, size_t i, bool preamble = false) {
  auto l = ReadLabelLine(lines[i].text);
  if (!l || !l->known) return false;
  if (l->key != Key::kBackend && l->key != Key::kSuccessful && l->key != Key::kRate &&
      l->key != Key::kMaxConcurrency)
    return false;
  size_t p = i;
  while (p > 0 && Trim(lines[p - 1].text).empty()) --p;
  if (p > 0) {
    auto prev = ReadLabelLine(lines[p - 1].text);
    if ((prev && prev->known) || ServeHead(lines[p - 1].text)) return false;
  }
  // Blank lines do not count: a chat may have put one after every line.
  for (size_t j = i, seen = 0; j < lines.size() && seen < 8; ++j) {
    if (Trim(lines[j].text).empty()) continue;
    ++seen;
    if (!preamble && ServeHead(lines[j].text)) return false;
    auto n = ReadLabelLine(lines[j].text);
    if (n && n->known && (n->key == Key::kSuccessful || n->key == Key::kDuration)) {
      // and a throughput after it: "Successful requests" alone is too common a phrase
      for (size_t k = j, seen2 = 0; k < lines.size() && seen2 < 14; ++k) {
        if (Trim(lines[k].text).empty()) continue;
        ++seen2;
        auto m = ReadLabelLine(lines[k].text);
        if (m && m->known &&
            (m->key == Key::kOutputTps || m->key == Key::kTotalTps ||
             m->key == Key::kReqThroughput))
          return true;
      }
      return false;
    }
  }
  return false;
}

std::string BareLabel(std::string_view t);

bool ServeStarts(const Lines& lines, size_t i) {
  if (ServeHead(lines[i].text) || RulerlessStart(lines, i, true)) return true;
  // A line that labels the block just below it belongs to that block's part.
  if (lines[i].text.size() > 200 || BareLabel(lines[i].text).empty()) return false;
  size_t j = i + 1;
  while (j < lines.size() && Trim(lines[j].text).empty()) ++j;
  return j < lines.size() && j <= i + 2 &&
         (ServeHead(lines[j].text) || RulerlessStart(lines, j, true));
}

int ServeDetect(const Lines& lines) {
  for (size_t i = 0; i < lines.size(); ++i) {
    if (ServeHead(lines[i].text)) return 95;
    if (RulerlessStart(lines, i)) return 80;
  }
  return 0;
}

// The value of `--flag N` / `--flag=N` in a pasted command line.
std::optional<std::string> FlagValue(const std::string& cmd, std::string_view flag) {
  auto toks = Tokens(cmd);
  for (size_t i = 0; i < toks.size(); ++i) {
    if (toks[i] == flag && i + 1 < toks.size()) return std::string(toks[i + 1]);
    if (toks[i].starts_with(flag) && toks[i].size() > flag.size() && toks[i][flag.size()] == '=')
      return std::string(toks[i].substr(flag.size() + 1));
  }
  return std::nullopt;
}

// A line that labels the block after it ("TP8 c64", "### Medium Concurrency", "# request rate:
// 2"): short, and not a progress bar, a log line, a fence, a command's continuation or a
// "Label: value" line. Empty when the line is none of those labels.
std::string BareLabel(std::string_view t) {
  t = Trim(t);
  bool heading = t.starts_with("# ") || t.starts_with("## ") || t.starts_with("### ") ||
                 t.starts_with("#### ");
  if (t.empty() || t.size() > 100 || t.starts_with("```") || t.starts_with("-") ||
      t.ends_with("\\") || t.ends_with("...") || t.ends_with("\xE2\x80\xA6"))
    return "";
  if (t.find("%|") != std::string_view::npos || t.find("it/s") != std::string_view::npos ||
      t.find("s/it") != std::string_view::npos || t.find("Namespace(") != std::string_view::npos)
    return "";
  if (t.starts_with("INFO") || t.starts_with("WARNING") || t.starts_with("[") ||
      t.starts_with("DEBUG") || t.starts_with("ERROR"))
    return "";
  if (!heading) {
    auto kv = ReadLabelLine(t);
    if (kv && !kv->value.empty()) return "";
  }
  while (!t.empty() && (t.front() == '#' || t.front() == '*' || t.front() == '>'))
    t = Trim(t.substr(1));
  while (!t.empty() && (t.back() == '*' || t.back() == ':' || t.back() == '#'))
    t = Trim(t.substr(0, t.size() - 1));
  return std::string(t);
}

struct Block {
  bool headed = false;  // began with a "Serving Benchmark Result" header
  size_t head = 0;      // index of its first line (header, or first label line)
  size_t end = 0;       // one past its last line
  bool closed = false;  // a closing ==== line was seen
  std::vector<std::pair<LabelLine, size_t>> values;  // label, line number
  std::string label;
};

// The load lines and bare label just before a block (from `from`, the end of the previous one).
void ReadPreamble(const Lines& lines, size_t from, size_t head, Block* b) {
  std::vector<std::pair<LabelLine, size_t>> pre;
  for (size_t i = from; i < head; ++i) {
    auto l = ReadLabelLine(lines[i].text);
    if (l && l->known &&
        (l->key == Key::kRate || l->key == Key::kMaxConcurrency || l->key == Key::kBurstiness))
      pre.push_back({*l, lines[i].number});
  }
  b->values.insert(b->values.begin(), pre.begin(), pre.end());
  for (size_t i = head, seen = 0; i > from && seen < 16; --i, ++seen) {
    std::string_view t = Trim(lines[i - 1].text);
    if (t.empty()) continue;
    auto l = ReadLabelLine(t);
    if (l && l->known) continue;
    b->label = BareLabel(t);
    if (!b->label.empty()) break;
  }
}

std::vector<Block> FindBlocks(const Lines& lines) {
  std::vector<Block> out;
  size_t prev_end = 0;
  size_t i = 0;
  while (i < lines.size()) {
    bool head = ServeHead(lines[i].text);
    if (!head && !RulerlessStart(lines, i)) {
      ++i;
      continue;
    }
    Block b;
    b.headed = head;
    b.head = i;
    size_t j = head ? i + 1 : i;
    size_t blank_run = 0;
    for (; j < lines.size(); ++j) {
      std::string_view t = Trim(lines[j].text);
      if (ClosingRuler(t)) {
        b.closed = true;
        ++j;
        break;
      }
      if (ServeHead(t)) break;
      if (t.empty()) {
        // a paste with a blank line after every line: blanks inside a block are not its end
        if (++blank_run > 1) break;
        continue;
      }
      blank_run = 0;
      if (Ruler(t)) continue;
      auto l = ReadLabelLine(t);
      if (!l || !l->known) {
        // An unknown "Label: value" inside a headed block is a newer version's line
        // ("Per-position acceptance (%):"); text that is no label ends the block (cut off).
        if (head && l) continue;
        break;
      }
      if (!head && j > i && (l->key == Key::kBackend || l->key == Key::kSuccessful) &&
          std::any_of(b.values.begin(), b.values.end(),
                      [&](const auto& v) { return v.first.key == l->key; }))
        break;  // the next rulerless block
      b.values.push_back({*l, lines[j].number});
    }
    b.end = j;
    ReadPreamble(lines, prev_end, b.head, &b);
    prev_end = b.end;
    out.push_back(std::move(b));
    i = std::max(j, i + 1);
  }
  return out;
}

bool IsInf(std::string_view v) {
  std::string b;
  std::string_view l = Lower(Trim(v), &b);
  return l == "inf" || l == "infinity" || l == "+inf";
}

bool IsNotSet(std::string_view v) {
  std::string b;
  std::string_view l = Lower(Trim(v), &b);
  return l == "not set" || l == "none" || l == "unlimited" || l == "n/a";
}

// Reads one block into a run; false (with a note) when its key figures are not there.
bool ReadBlock(const Block& b, const Lines& lines, const ImportSource& src, Imported* out,
               ServeRun* run, std::string* tool, std::string* model) {
  std::map<Key, std::pair<double, size_t>> num;  // last value of each key
  std::map<Key, std::pair<std::string, size_t>> text;
  size_t facts = 0;
  bool rate_inf = false;
  auto warn = [&](size_t line, const std::string& what) {
    out->notes.push_back(src.file + ":" + std::to_string(line) + ": " + what);
  };
  for (const auto& [l, line] : b.values) {
    text[l.key] = {l.value, line};
    if (l.key == Key::kLatency) {
      bool known = false;
      Fact<double>* f = LatencyLabel(l.label, run, &known);
      if (!f) continue;
      // Values are printed "%.2f": a trailing unit a chat added ("12.3ms") is not a number.
      if (auto d = ParseDouble(l.value)) {
        f->Set(*d == 0 ? 0.0 : *d, src.At(line));  // -0.00 reads as 0
        ++facts;
      } else {
        warn(line, "'" + l.value + "' is not a number; " + l.label + " is not known");
      }
      continue;
    }
    if (l.key == Key::kRate && IsInf(l.value)) {
      rate_inf = true;
      num.erase(Key::kRate);
      continue;
    }
    if (l.key == Key::kMaxConcurrency && IsNotSet(l.value)) {
      num.erase(Key::kMaxConcurrency);
      continue;
    }
    if (auto d = ParseDouble(l.value)) {
      num[l.key] = {*d, line};
    } else if (l.key != Key::kBackend && l.key != Key::kModel && l.key != Key::kKnownOther &&
               l.key != Key::kBurstiness) {
      warn(line, "'" + l.label + ": " + l.value + "' is not a number; not read");
    }
  }
  auto has = [&](Key k) { return num.count(k) > 0; };
  auto val = [&](Key k) { return num.at(k).first; };
  auto at = [&](Key k) { return src.At(num.at(k).second); };
  size_t head_line = lines[b.head].number;
  if (text.count(Key::kBackend)) {
    std::string be = ToLower(text[Key::kBackend].first);
    *tool = be.starts_with("sglang") ? "sglang bench_serving" : "vllm bench serve";
  } else if (text.count(Key::kRetokenized) || text.count(Key::kMeanConcurrency)) {
    *tool = "sglang bench_serving";
  }
  if (text.count(Key::kModel)) *model = text[Key::kModel].first;

  // Key figures: without them the block measured nothing this record can say.
  if (!has(Key::kSuccessful)) {
    warn(text.count(Key::kSuccessful) ? text[Key::kSuccessful].second : head_line,
         "a serving benchmark result block without a readable 'Successful requests' count; "
         "this run is not imported");
    return false;
  }
  if (!has(Key::kDuration)) {
    warn(text.count(Key::kDuration) ? text[Key::kDuration].second : head_line,
         "a serving benchmark result block without a readable 'Benchmark duration (s)'; this "
         "run is not imported");
    return false;
  }
  run->completed = static_cast<int64_t>(val(Key::kSuccessful));
  run->duration_s = val(Key::kDuration);
  facts += 2;
  if (has(Key::kFailed)) run->failed = static_cast<int64_t>(val(Key::kFailed));
  if (has(Key::kInputTokens)) run->input_tokens = static_cast<int64_t>(val(Key::kInputTokens));
  if (has(Key::kOutputTokens)) run->output_tokens = static_cast<int64_t>(val(Key::kOutputTokens));
  if (has(Key::kRetokenized))
    run->output_tokens_retokenized.Set(static_cast<int64_t>(val(Key::kRetokenized)),
                                       at(Key::kRetokenized));
  if (has(Key::kReqThroughput)) run->request_throughput = val(Key::kReqThroughput);
  if (has(Key::kInputTps)) run->input_tokens_per_s = val(Key::kInputTps);
  if (has(Key::kOutputTps)) run->output_tokens_per_s = val(Key::kOutputTps);
  if (has(Key::kPeakOutputTps)) run->peak_output_tokens_per_s = val(Key::kPeakOutputTps);
  if (has(Key::kPeakConcurrent))
    run->peak_concurrent_requests = static_cast<int64_t>(val(Key::kPeakConcurrent));
  if (has(Key::kMeanConcurrency))
    run->mean_concurrency.Set(val(Key::kMeanConcurrency), at(Key::kMeanConcurrency));
  if (has(Key::kGoodput)) run->goodput.Set(val(Key::kGoodput), at(Key::kGoodput));
  if (has(Key::kTotalTps)) {
    run->total_tokens_per_s = val(Key::kTotalTps);
  } else if (has(Key::kInputTokens) && has(Key::kOutputTokens) && run->duration_s > 0) {
    // Older vLLM printed no total: it is (input + output tokens) / duration by its definition.
    run->total_tokens_per_s =
        static_cast<double>(run->input_tokens + run->output_tokens) / run->duration_s;
    warn(head_line,
         "the block prints no total token throughput; computed from its token counts "
         "and duration");
  } else {
    warn(text.count(Key::kTotalTps) ? text[Key::kTotalTps].second : head_line,
         "a serving benchmark result block without a readable total token throughput; this run "
         "is not imported");
    return false;
  }
  if (!has(Key::kOutputTps) && has(Key::kOutputTokens) && run->duration_s > 0)
    run->output_tokens_per_s = static_cast<double>(run->output_tokens) / run->duration_s;
  facts += num.size();

  // The load: the block's own lines, else the pasted command's flags.
  std::optional<double> rate, cap;
  std::string rate_from, cap_from;
  if (has(Key::kRate)) rate = val(Key::kRate), rate_from = at(Key::kRate);
  if (has(Key::kMaxConcurrency))
    cap = val(Key::kMaxConcurrency), cap_from = at(Key::kMaxConcurrency);
  std::string cmd_from =
      "imported: " + src.file + " (" + src.format + ", the pasted command '" + src.command + "')";
  if (!src.command.empty()) {
    if (!cap) {
      auto c = FlagValue(src.command, "--max-concurrency");
      if (!c) c = FlagValue(src.command, "--concurrency");
      if (c)
        if (auto d = ParseDouble(*c)) cap = *d, cap_from = cmd_from;
    }
    if (!rate && !rate_inf)
      if (auto r = FlagValue(src.command, "--request-rate")) {
        if (IsInf(*r))
          rate_inf = true;
        else if (auto d = ParseDouble(*r))
          rate = *d, rate_from = cmd_from;
      }
  }
  if (cap && *cap >= 1) run->max_concurrency.Set(static_cast<int64_t>(*cap), cap_from);
  if (rate && std::isfinite(*rate) && *rate > 0) {
    run->request_rate.Set(*rate, rate_from);
  } else if (cap && *cap >= 1) {
    // Every request sent at once, at most `cap` in flight: a closed loop at that concurrency.
    run->concurrency.Set(static_cast<int64_t>(*cap), cap_from);
  } else if (rate_inf) {
    run->concurrency.Set(run->completed + run->failed,
                         src.At(head_line) + ": request rate inf, no cap: every request at once");
  } else {
    run->concurrency.Unknown("the block says neither its request rate nor its concurrency",
                             src.At(head_line));
    run->request_rate.Unknown("the block says neither its request rate nor its concurrency",
                              src.At(head_line));
    warn(head_line,
         "the block says neither its request rate nor its concurrency: its load is "
         "not known (pass the command line with the paste, or label it)");
  }
  run->label = b.label.empty() ? src.command : b.label;
  run->input_tokens_from = "dataset";
  run->output_tokens_from = "usage";
  if (b.headed && !b.closed)
    warn(lines[b.end - 1].number,
         "the benchmark result block stops here (no closing ====); kept what it has");
  if (run->itl_ms.mean.known() && *run->itl_ms.mean == 0 && run->output_tokens > run->completed) {
    warn(head_line,
         "every ITL is 0.00 though tokens were generated: the benchmark's streaming timing did "
         "not work; its ITL and TPOT are not measurements");
    run->itl_ms = LatencyStats{};
    run->itl_ms.mean.Unknown("the benchmark reported 0.00 for every token gap (timing broken)",
                             src.At(head_line));
  }
  out->facts += facts;
  return true;
}

Status ServeParse(const Lines& lines, const ImportSource& src, Imported* out) {
  std::vector<Block> blocks = FindBlocks(lines);
  if (blocks.empty()) return Error::Invalid("no 'Serving Benchmark Result' block");
  size_t runs = 0;
  for (const Block& b : blocks) {
    ServeRun run;
    std::string tool = "vllm bench serve", model;
    if (!ReadBlock(b, lines, src, out, &run, &tool, &model)) continue;
    ++runs;
    // Blocks of one file from one tool and model are the runs of one measurement (as
    // `dossier serve-bench --concurrency 1,64` records them): the latest measurement then holds
    // every load the person pasted.
    std::string file_prefix = "imported: " + src.file + ":";
    if (!out->serve.empty() && out->serve.back().tool == tool && out->serve.back().model == model &&
        out->serve.back().imported_from.starts_with(file_prefix)) {
      out->serve.back().runs.push_back(std::move(run));
      continue;
    }
    ServeMeasurement sm;
    sm.tool = tool;
    sm.model = model;
    sm.imported_from = src.At(lines[b.head].number);
    sm.runs.push_back(std::move(run));
    out->serve.push_back(std::move(sm));
  }
  if (runs == 0)
    return Error::Invalid("no result block with its request count, duration and throughput");
  return OkStatus();
}

}  // namespace

Importer ServeBenchImporter() {
  return {"serve-bench",
          "vLLM bench serve / SGLang bench_serving result blocks (any version, rulers lost, "
          "several per paste): serve-bench runs",
          {"bench serve", "benchmark_serving", "bench_serving"},
          ServeStarts,
          ServeDetect,
          ServeParse};
}

}  // namespace dossier::import
