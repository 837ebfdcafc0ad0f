// A unified diff of two texts with the same number of lines (what pve-mapping changes: numbers
// inside lines, never lines added or removed), three lines of context. Written here because
// the change is line-for-line and no Debian library offers a diff as a function.
#pragma once

#include <string>
#include <string_view>

namespace dossier::generate {

std::string UnifiedDiffSameLines(std::string_view a, std::string_view b, const std::string& name_a,
                                 const std::string& name_b);

}  // namespace dossier::generate
