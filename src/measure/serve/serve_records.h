// Serve-bench measurements read back from the dossier's records, per machine, for the report and
// the rules (serve.below-target). A record is {"kind": "serve-bench", "machine": NAME,
// "serve": ServeToJson(...)}; records of other kinds are ignored.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/measurement.h"
#include "store/dossier_dir.h"

namespace dossier::serve {

// Machine name -> its measurements, oldest first. A record without a "serve" object is named in
// `warnings` and skipped; unreadable fields become unknown (see ServeFromJson).
std::map<std::string, std::vector<ServeMeasurement>> ServeMeasurementsByMachine(
    const std::vector<Record>& records, std::vector<std::string>* warnings);

}  // namespace dossier::serve
