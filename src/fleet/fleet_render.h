// The fleet comparison as Markdown (for people) and JSON (for scripts; docs/json.md, "fleet").
#pragma once

#include <string>

#include "fleet/fleet_compare.h"

namespace dossier::fleet {

std::string FleetMarkdown(const FleetReport& r);
std::string FleetJson(const FleetReport& r);

}  // namespace dossier::fleet
