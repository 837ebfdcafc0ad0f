// The result block `vllm bench serve` (benchmark_serving.py) and SGLang's bench_serving print:
// "============ Serving Benchmark Result ============", then "Label:   value" lines grouped by
// "----TTFT----" rules, to a closing "=====" line. Becomes one serve-bench measurement (one run)
// with tool "vllm bench serve" or "sglang bench_serving", read by the report and the rules as
// dossier's own. Values that are not numbers stay unknown; a block cut off keeps what it has.
#include <map>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

bool ServeHead(std::string_view line) {
  return line.find("Serving Benchmark Result") != std::string_view::npos;
}

bool ServeStarts(const Lines& lines, size_t i) {
  return ServeHead(lines[i].text);
}

int ServeDetect(const Lines& lines) {
  for (const auto& l : lines)
    if (ServeHead(l.text)) return 95;
  return 0;
}

Status ServeParse(const Lines& lines, const ImportSource& src, Imported* out) {
  size_t h = 0;
  while (h < lines.size() && !ServeHead(lines[h].text)) ++h;
  if (h == lines.size()) return Error::Invalid("no 'Serving Benchmark Result' block");
  std::map<std::string, std::pair<double, size_t>> v;  // label -> value, line
  std::map<std::string, std::string> text;
  bool closed = false;
  size_t last = lines[h].number;
  for (size_t i = h + 1; i < lines.size(); ++i) {
    std::string_view t = Trim(lines[i].text);
    if (t.starts_with("=====")) {
      closed = true;
      break;
    }
    if (ServeHead(t)) break;
    size_t colon = t.find(':');
    if (colon == std::string_view::npos) continue;
    std::string label(Trim(t.substr(0, colon)));
    std::string_view val = Trim(t.substr(colon + 1));
    text[label] = std::string(val);
    if (auto d = ParseDouble(val)) v[label] = {*d, lines[i].number};
    last = lines[i].number;
  }
  if (!closed)
    out->notes.push_back(src.file + ":" + std::to_string(last) +
                         ": the benchmark result block stops here (no closing ====); kept what "
                         "it has");
  ServeMeasurement sm;
  std::string backend = text.count("Backend") ? text["Backend"] : "";
  sm.tool = backend == "sglang" || text.count("Total generated tokens (retokenized)")
                ? "sglang bench_serving"
                : "vllm bench serve";
  sm.imported_from = src.At(lines[h].number);
  if (text.count("Model")) sm.model = text["Model"];
  sm.endpoint = "";  // the block does not say it
  ServeRun run;
  auto num = [&](const char* k) -> std::optional<double> {
    auto it = v.find(k);
    if (it == v.end()) return std::nullopt;
    ++out->facts;
    return it->second.first;
  };
  auto fact = [&](Fact<double>* f, const char* k) {
    if (auto x = num(k)) f->Set(*x == 0 ? 0.0 : *x, src.At(v[k].second));  // -0.00 reads as 0
  };
  if (auto x = num("Traffic request rate"))
    run.request_rate.Set(*x, src.At(v["Traffic request rate"].second));
  if (auto x = num("Max request concurrency"))
    run.max_concurrency.Set(int64_t(*x), src.At(v["Max request concurrency"].second));
  if (auto x = num("Successful requests")) run.completed = int64_t(*x);
  if (auto x = num("Failed requests")) run.failed = int64_t(*x);
  if (auto x = num("Benchmark duration (s)")) run.duration_s = *x;
  if (auto x = num("Total input tokens")) run.input_tokens = int64_t(*x);
  if (auto x = num("Total generated tokens")) run.output_tokens = int64_t(*x);
  if (auto x = num("Request throughput (req/s)")) run.request_throughput = *x;
  if (auto x = num("Input token throughput (tok/s)")) run.input_tokens_per_s = *x;
  if (auto x = num("Output token throughput (tok/s)")) run.output_tokens_per_s = *x;
  if (auto x = num("Total Token throughput (tok/s)")) run.total_tokens_per_s = *x;
  if (auto x = num("Total throughput (tok/s)")) run.total_tokens_per_s = *x;
  if (auto x = num("Request goodput (req/s)"))
    run.goodput.Set(*x, src.At(v["Request goodput (req/s)"].second));
  run.input_tokens_from = "usage";
  run.output_tokens_from = "usage";
  struct Metric {
    const char* name;
    LatencyStats* stats;
  };
  for (Metric mt :
       {Metric{"TTFT", &run.ttft_ms}, Metric{"TPOT", &run.tpot_ms}, Metric{"ITL", &run.itl_ms},
        Metric{"E2E Latency", &run.e2e_ms}, Metric{"E2EL", &run.e2e_ms}}) {
    std::string n = mt.name;
    fact(&mt.stats->mean, ("Mean " + n + " (ms)").c_str());
    fact(&mt.stats->median, ("Median " + n + " (ms)").c_str());
    fact(&mt.stats->p90, ("P90 " + n + " (ms)").c_str());
    fact(&mt.stats->p99, ("P99 " + n + " (ms)").c_str());
    fact(&mt.stats->max, ("Max " + n + " (ms)").c_str());
  }
  if (run.itl_ms.mean.known() && *run.itl_ms.mean == 0 && run.output_tokens > run.completed) {
    out->notes.push_back(src.file +
                         ": every ITL is 0.00 though tokens were generated: the "
                         "benchmark's streaming timing did not work; its ITL and TPOT are not "
                         "measurements");
    run.itl_ms = LatencyStats{};
    run.itl_ms.mean.Unknown("the benchmark reported 0.00 for every token gap (timing broken)",
                            sm.imported_from);
  }
  if (run.completed == 0 && run.duration_s == 0)
    return Error::Invalid("the result block has no 'Successful requests' or duration");
  sm.runs.push_back(std::move(run));
  out->serve.push_back(std::move(sm));
  return OkStatus();
}

}  // namespace

Importer ServeBenchImporter() {
  return {"serve-bench",
          "vLLM bench serve / SGLang bench_serving result blocks: a serve-bench measurement",
          {"bench serve", "benchmark_serving", "bench_serving"},
          ServeStarts,
          ServeDetect,
          ServeParse};
}

}  // namespace dossier::import
