// Runs a sweep plan through the copy engine and turns each item into a P2pResult: warm-up,
// repetitions timed with events, median and spread, the bytes checked, percent of the link limit,
// and a verdict (ok, corrupted, hung, waived, error). The method is in docs/measurement.md.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <vector>

#include "measure/p2p/copy_engine.h"
#include "measure/p2p/plan.h"
#include "model/machine.h"
#include "model/measurement.h"

namespace dossier::p2p {

struct RunOptions {
  int reps = 5;    // timed batches per result
  int warmup = 1;  // untimed batches first (contexts, peer mappings and caches warm up)
  std::chrono::milliseconds copy_timeout{10000};          // one batch longer than this is hung
  Clock::time_point deadline = Clock::time_point::max();  // the whole run (--timeout)
};

// Called after each item with its 1-based position and the plan's length.
using ProgressFn = std::function<void(size_t done, size_t total, const P2pResult& result)>;

// Results come in plan order. When `stop` is set (Ctrl-C) or the deadline passes, the item in
// flight finishes, the rest are not run and the measurement is marked interrupted. `model` gives
// the link limits and the NUMA nodes; time and boot id are left to the caller.
P2pMeasurement RunPlan(CopyEngine& engine, const Machine& model, const std::vector<PlanItem>& plan,
                       const RunOptions& options, const std::atomic<bool>& stop,
                       const ProgressFn& progress);

}  // namespace dossier::p2p
