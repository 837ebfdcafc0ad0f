// The machine model to and from JSON (the "dossier/1" contract, docs/json.md).
//
// Values sit where docs/json.md says; unknown values are null. Provenance sits beside them in
// the machine's "provenance" object, keyed by the JSON pointer of the value relative to the
// machine: {"/cpu/model": {"from": "/proc/cpuinfo:5"},
//           "/pci/devices/3/numa_node": {"from": "…/numa_node", "unknown": "not an integer:
//           'abc'"}}.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "model/machine.h"
#include "model/measurement.h"

namespace dossier {

inline constexpr const char* kSchema = "dossier/1";

// Text of a document, for records and for stdout. Strings in the model are valid UTF-8 by
// construction (the doors of util/utf8.h); should one slip through, a byte that is not UTF-8
// becomes U+FFFD here instead of nlohmann's type_error 316, which would abort the command and
// lose a measurement that took minutes. Belt and braces: tests check the doors, not this.
std::string DumpJson(const nlohmann::json& j, int indent);

nlohmann::json MachineToJson(const Machine& m);
// Reads what it can; a field missing from the record (an older writer) becomes unknown with that
// reason, a field of the wrong type too. Problems are appended to `warnings`.
Machine MachineFromJson(const nlohmann::json& j, std::vector<std::string>* warnings);

// Measurements, in the same form (values, nulls, a "provenance" object).
nlohmann::json P2pToJson(const P2pMeasurement& m);
P2pMeasurement P2pFromJson(const nlohmann::json& j, std::vector<std::string>* warnings);
nlohmann::json ServeToJson(const ServeMeasurement& m);
ServeMeasurement ServeFromJson(const nlohmann::json& j, std::vector<std::string>* warnings);

}  // namespace dossier
