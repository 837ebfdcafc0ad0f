// P2P measurements as dossier records: the document `dossier p2p` appends
// ({"kind": "p2p", "machine": NAME, "p2p": {...}}) and the measurements read back from records,
// for the report.
#pragma once

#include <string>
#include <vector>

#include "model/measurement.h"
#include "store/dossier_dir.h"

namespace dossier::p2p {

inline constexpr const char* kRecordKind = "p2p";

nlohmann::json P2pRecord(const P2pMeasurement& m, const std::string& machine);

// The p2p measurements of `machine` (all machines when empty), oldest first. A record whose "p2p"
// is not an object is named in `warnings` and skipped.
std::vector<P2pMeasurement> P2pFromRecords(const std::vector<Record>& records,
                                           const std::string& machine,
                                           std::vector<std::string>* warnings);

}  // namespace dossier::p2p
