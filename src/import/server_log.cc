// A serving engine's start-up log (vLLM, SGLang): the memory figures it logs once the model is
// loaded and the KV cache sized, which `dossier plan` checks its arithmetic against.
//   vLLM:   "Model loading took 78.79 GiB memory and 35.2 seconds" (older: "Loading model weights
//           took 14.9595 GB"), "Available KV cache memory: 8.11 GiB", "GPU KV cache size:
//           178,880 tokens", "Maximum concurrency for 131,072 tokens per request: 4.07x",
//           "Graph capturing finished in 5 secs, took 0.53 GiB".
//   SGLang: "Load weight end. type=…, dtype=…, avail mem=40.93 GB, mem usage=35.46 GB.",
//           "KV Cache is allocated. #tokens: 367404, K size: 8.23 GB, V size: 8.23 GB" (MLA:
//           "KV size: … GB"), "max_total_num_tokens=1015136, …", "Capture cuda graph end. …
//           mem usage=1.53 GB."
// Both engines divide by 2^30 whether they print "GB" or "GiB". With several ranks in one log,
// the fullest GPU's weights are kept and the first KV figures (the engine sizes one pool).
#include <cmath>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

constexpr double kLogGiB = 1024.0 * 1024.0 * 1024.0;

// The number right after `key` in `line` ("1,015,136" and "4.07x" read as 1015136 and 4.07).
std::optional<double> NumberAfter(std::string_view line, std::string_view key) {
  size_t at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  size_t i = at + key.size();
  while (i < line.size() && (line[i] == ' ' || line[i] == '=' || line[i] == ':')) ++i;
  std::string digits;
  for (; i < line.size(); ++i) {
    char c = line[i];
    if ((c >= '0' && c <= '9') || c == '.') {
      digits += c;
    } else if (c != ',' || digits.empty()) {
      break;
    }
  }
  if (digits.empty() || digits == ".") return std::nullopt;
  try {
    double v = std::stod(digits);
    if (!std::isfinite(v) || v < 0 || v > 1e15) return std::nullopt;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The markers this importer reads, each a line fragment.
constexpr std::string_view kMarkers[] = {
    "Model loading took",        "Loading model weights took", "model weights on",
    "Available KV cache memory", "GPU KV cache size",          "Maximum concurrency for",
    "Load weight end",           "KV Cache is allocated",      "max_total_num_tokens",
    "Capture cuda graph end",    "Graph capturing finished",   "CUDA out of memory"};

bool Marker(std::string_view line) {
  for (auto m : kMarkers)
    if (line.find(m) != std::string_view::npos) return true;
  return false;
}

bool LogStarts(const Lines& lines, size_t i) {
  return Marker(lines[i].text) && (i == 0 || !Marker(lines[i - 1].text));
}

int LogDetect(const Lines& lines) {
  size_t n = 0;
  for (size_t i = 0; i < lines.size() && i < 4000; ++i)
    if (Marker(lines[i].text)) ++n;
  return n >= 2 ? 80 : n == 1 ? 40 : 0;
}

Status LogParse(const Lines& lines, const ImportSource& src, Imported* out) {
  ServerMemoryLog log;
  size_t facts = 0;
  auto bytes = [](double gib) { return static_cast<uint64_t>(gib * kLogGiB); };
  for (const auto& l : lines) {
    std::string_view t = l.text;
    const std::string at = src.At(l.number);
    if (t.find("Load weight end") != std::string_view::npos ||
        t.find("KV Cache is allocated") != std::string_view::npos ||
        t.find("max_total_num_tokens") != std::string_view::npos ||
        t.find("Capture cuda graph end") != std::string_view::npos) {
      if (!log.engine.known()) log.engine.Set("sglang", at);
    } else if (t.find("GPU KV cache size") != std::string_view::npos ||
               t.find("Model loading took") != std::string_view::npos ||
               t.find("Loading model weights took") != std::string_view::npos) {
      if (!log.engine.known()) log.engine.Set("vllm", at);
    }
    // Weights: the fullest GPU among the ranks that logged.
    std::optional<double> w;
    if (t.find("Model loading took") != std::string_view::npos) {
      w = NumberAfter(t, "Model loading took");
    } else if (t.find("Loading model weights took") != std::string_view::npos) {
      w = NumberAfter(t, "Loading model weights took");
    } else if (t.find("model weights on") != std::string_view::npos &&
               t.find(" took ") != std::string_view::npos) {
      w = NumberAfter(t, " took ");
    } else if (t.find("Load weight end") != std::string_view::npos) {
      w = NumberAfter(t, "mem usage");
    }
    if (w && (!log.weights_bytes_per_gpu.known() || bytes(*w) > *log.weights_bytes_per_gpu)) {
      log.weights_bytes_per_gpu.Set(bytes(*w), at);
      ++facts;
    }
    if (auto v = NumberAfter(t, "Available KV cache memory");
        v && !log.kv_cache_bytes_per_gpu.known()) {
      log.kv_cache_bytes_per_gpu.Set(bytes(*v), at);
      ++facts;
    }
    if (auto v = NumberAfter(t, "GPU KV cache size"); v && !log.kv_tokens.known()) {
      log.kv_tokens.Set(static_cast<uint64_t>(*v), at);
      ++facts;
    }
    if (t.find("KV Cache is allocated") != std::string_view::npos) {
      if (auto v = NumberAfter(t, "#tokens"); v && !log.kv_tokens.known()) {
        log.kv_tokens.Set(static_cast<uint64_t>(*v), at);
        ++facts;
      }
      auto k = NumberAfter(t, "K size"), vs = NumberAfter(t, "V size"),
           kv = NumberAfter(t, "KV size");
      if (!log.kv_cache_bytes_per_gpu.known() && ((k && vs) || kv)) {
        log.kv_cache_bytes_per_gpu.Set(bytes(kv ? *kv : *k + *vs), at);
        ++facts;
      }
    }
    if (auto v = NumberAfter(t, "max_total_num_tokens"); v && !log.kv_tokens.known()) {
      log.kv_tokens.Set(static_cast<uint64_t>(*v), at);
      ++facts;
    }
    if (t.find("Maximum concurrency for") != std::string_view::npos &&
        !log.max_concurrency.known()) {
      auto ctx = NumberAfter(t, "Maximum concurrency for");
      size_t colon = t.rfind(':');
      auto conc =
          colon == std::string_view::npos ? std::nullopt : NumberAfter(t.substr(colon), ":");
      if (ctx && conc) {
        log.concurrency_context.Set(static_cast<int64_t>(*ctx), at);
        log.max_concurrency.Set(*conc, at);
        facts += 2;
      }
    }
    std::optional<double> g;
    if (t.find("Graph capturing finished") != std::string_view::npos) g = NumberAfter(t, "took");
    if (t.find("Capture cuda graph end") != std::string_view::npos) g = NumberAfter(t, "mem usage");
    if (g && !log.cuda_graph_bytes.known()) {
      log.cuda_graph_bytes.Set(bytes(*g), at);
      ++facts;
    }
    if (t.find("CUDA out of memory") != std::string_view::npos && !log.out_of_memory.known()) {
      log.out_of_memory.Set(std::string(Trim(t).substr(0, 300)), at);
      ++facts;
    }
  }
  if (facts == 0)
    return Error::Invalid(
        "no memory figure of a vLLM or SGLang start-up log (\"Model loading took\", \"GPU KV "
        "cache size\", \"KV Cache is allocated\" …)");
  out->machine.server_logs.push_back(std::move(log));
  out->facts += facts;
  return OkStatus();
}

}  // namespace

Importer ServerLogImporter() {
  return {"server-log",
          "vLLM / SGLang start-up log: weights loaded, KV cache size in tokens, maximum "
          "concurrency, CUDA graph memory, out-of-memory errors",
          {},
          LogStarts,
          LogDetect,
          LogParse};
}

}  // namespace dossier::import
