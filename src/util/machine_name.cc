#include "util/machine_name.h"

#include "util/text.h"

namespace dossier {

std::string MachineNameProblem(std::string_view name) {
  const std::string rule =
      ": a machine name is letters, digits, '.', '-' and '_', starting with a letter or a digit "
      "(like a hostname), at most 253 characters";
  if (Trim(name).empty()) return "'" + Printable(name) + "' is empty" + rule;
  if (name.size() > 253) return "the name is " + std::to_string(name.size()) + " characters" + rule;
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(name[0])) return "'" + Printable(name) + "'" + rule;
  for (char c : name)
    if (!alnum(c) && c != '.' && c != '-' && c != '_') return "'" + Printable(name) + "'" + rule;
  return "";
}

}  // namespace dossier
