// The report's memory plan: for each machine serving a model whose config.json was read, the
// plan of its layout and of the alternatives (analyze/memory_plan.h), as `dossier plan` prints it.
#include "render/markdown.h"
#include "render/md_util.h"
#include "render/memory_plan_render.h"

namespace dossier {

void MdMemoryPlan(const View& view, const Analysis& a, std::string* out) {
  bool any = false;
  for (const auto& mv : view.machines) {
    const MachineAnalysis& ma = a.Of(mv);
    if (ma.memory_plans.empty()) continue;
    any = true;
    *out += "### " + md::Escape(mv.machine.name) + "\n\n";
    *out += MemoryPlansMarkdown(ma.memory_plans, "####");
  }
  // A one-shot collect leaves the section out when there is nothing to plan.
  if (!any && !view.dossier_path.empty())
    *out +=
        "No machine serves a model whose config.json was read; `dossier plan --model DIR --gpus "
        "COUNTxMEMORY` plans one by hand.\n\n";
}

}  // namespace dossier
