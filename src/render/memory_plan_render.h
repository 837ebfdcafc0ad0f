// The memory plan (analyze/memory_plan.h) as Markdown and as JSON: one renderer for `dossier
// plan` and for the report's section, so both say the same.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analyze/memory_plan.h"

namespace dossier {

// A table comparing the plans (served first, alternatives after), then each plan's formulas and
// inputs. `heading` is the Markdown heading prefix ("###").
std::string MemoryPlansMarkdown(const std::vector<MemoryPlan>& plans, const std::string& heading);

// One plan under the JSON contract's keys (docs/json.md, "Memory plan").
nlohmann::json MemoryPlanJson(const MemoryPlan& p);

}  // namespace dossier
