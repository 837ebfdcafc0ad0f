#include "render/focus.h"

#include <algorithm>

namespace dossier {

bool FocusOnMachine(const std::string& name, View* view, Analysis* analysis) {
  if (!view->Find(name)) return false;
  auto other = [&](const std::string& m) { return !m.empty() && m != name; };
  std::erase_if(view->machines, [&](const MachineView& mv) { return mv.machine.name != name; });
  // The machine's links stay (its guest's passthrough map names the host), the others go.
  std::erase_if(view->links,
                [&](const MachineLink& l) { return l.guest != name && l.host != name; });
  std::erase_if(view->notes.machines, [&](const auto& m) { return other(m.name); });
  std::erase_if(view->notes.facts, [&](const auto& f) { return other(f.machine); });
  std::erase_if(view->notes.files, [&](const auto& f) { return other(f.machine); });
  std::erase_if(analysis->machines, [&](const MachineAnalysis& ma) { return ma.machine != name; });
  std::erase_if(analysis->plan.next_steps, [&](const NextStep& s) { return other(s.machine); });
  std::erase_if(analysis->plan.accomplished, [&](const DoneItem& d) { return other(d.machine); });
  return true;
}

}  // namespace dossier
