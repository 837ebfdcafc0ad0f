// The numbers of a serve-bench run by name, for targets in the notes ("total_tokens_per_s",
// "output_tokens_per_s", "ttft_ms.median", "tpot_ms.p99"…), found by walking ServeRun's visit() so
// every numeric field is a metric without a list to keep in step. "single_stream_tokens_per_s" is
// output_tokens_per_s of the run at concurrency 1.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/measurement.h"
#include "model/notes.h"

namespace dossier {

// Every metric name a target may use.
const std::vector<std::string>& ServeMetricNames();
bool IsServeMetric(std::string_view name);

std::optional<double> ServeMetric(const ServeRun& run, std::string_view name);

// "total_tokens_per_s >= 1000 at concurrency 64"
std::string TargetText(const NoteTarget& t);
bool TargetMet(const NoteTarget& t, double value);

struct MeasuredValue {
  double value = 0;
  const ServeMeasurement* measurement = nullptr;
  const ServeRun* run = nullptr;
};

// The value the newest measurement holding a run that matches the target gives (the run at the
// target's concurrency; with none given, the best run of that measurement).
std::optional<MeasuredValue> LatestForTarget(const std::vector<ServeMeasurement>& ms,
                                             const NoteTarget& t);

}  // namespace dossier
