// The human form of a serve-bench measurement: per run, a block with vLLM's bench serve labels in
// vLLM's order, line for line ("============ Serving Benchmark Result ============", labels padded
// to 40 columns, each number alone on its line with two decimals), so the two can be put side by
// side or diffed; then, below vLLM's lines, what vLLM lacks: standard deviation beside mean and
// median, how tokens were counted, SGLang's measured "Concurrency:", ITL per token, failures by
// reason.
#pragma once

#include <string>
#include <vector>

#include "model/measurement.h"

namespace dossier::serve {

struct BlockOptions {
  // vLLM's --percentile-metrics: the latency sections printed, in vLLM's order (ttft, tpot, itl,
  // e2el); dossier prints all four by default, vLLM ttft,tpot,itl.
  std::vector<std::string> metrics = {"ttft", "tpot", "itl", "e2el"};
};

std::string RenderResultBlocks(const ServeMeasurement& m, const BlockOptions& options = {});

}  // namespace dossier::serve
