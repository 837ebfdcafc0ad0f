// Machine names as a person gives them (`collect --machine`, `import --machine`, `note machine`,
// `serve-bench --machine`, `p2p --machine`): hostname-like, so that a name can never carry a
// line, a section or markup into what dossier generates from it (a systemd unit, an XML file, a
// shell line). Names already stored (records from elsewhere, a hostname read from a tree) are not
// checked here: every generator quotes them for its syntax whatever they hold.
#pragma once

#include <string>
#include <string_view>

namespace dossier {

// "" when `name` is a valid machine name: 1 to 253 characters, letters, digits, '.', '-' and
// '_', starting with a letter or a digit (as hostnames, plus '_'). Otherwise why not, with the
// name shown escaped.
std::string MachineNameProblem(std::string_view name);

}  // namespace dossier
