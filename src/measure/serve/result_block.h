// The human form of a serve-bench measurement: per run, a block laid out like vLLM's bench serve
// and SGLang's bench_serving print theirs ("============ Serving Benchmark Result ============",
// labels padded to 40 columns, values with two decimals), so people can put the two side by side;
// plus the lines those tools lack (p90, max, failures by reason, where token counts came from).
#pragma once

#include <string>

#include "model/measurement.h"

namespace dossier::serve {

std::string RenderResultBlocks(const ServeMeasurement& m);

}  // namespace dossier::serve
