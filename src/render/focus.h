// `dossier report --machine NAME`: the view and its analysis narrowed to one machine, for pasting
// into a chat or a ticket. The analysis is made on the whole dossier first (a guest's findings
// need its host), then narrowed: the machine's discoveries and findings, the steps and
// accomplishments on it (and those that name no machine), its notes' facts and files. The goal
// and targets stay: they are the dossier's, not a machine's.
#pragma once

#include <string>

#include "analyze/analysis.h"
#include "view/view.h"

namespace dossier {

// Narrows `view` and `analysis` to the machine `name`; false when the view has no such machine.
bool FocusOnMachine(const std::string& name, View* view, Analysis* analysis);

}  // namespace dossier
