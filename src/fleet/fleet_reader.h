// Reads what `dossier fleet` is given, one node at a time: dossier directories (a directory with
// records/), single collect records, and `collect --format json` / `report --format json` outputs;
// other directories are walked for *.json files in name order. Each file is parsed, turned into
// NodeFacts and dropped; worker threads (one per core, up to 8) read at most 64 files ahead of
// the one being delivered, and nodes are delivered in file order whatever the number of threads,
// so memory does not grow with the number or size of the records.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fleet/node_facts.h"
#include "util/result.h"

namespace dossier::fleet {

struct ReadCounts {
  size_t files = 0;         // files read (records, outputs, dossier records)
  size_t skipped = 0;       // files that are not records or outputs, or do not parse
  size_t measurements = 0;  // p2p / serve-bench records outside a dossier (no machine to join)
};

// Calls `node` for every node found, `warn` for every file skipped (with its path and line) and
// every problem reading one. A PATH that does not exist is an error before anything is read.
Result<ReadCounts> ReadFleet(const std::vector<std::string>& paths,
                             const std::function<void(const NodeFacts&)>& node,
                             const std::function<void(std::string)>& warn);

// One file's text as ReadFleet reads a file (a record or JSON output); `name` names it in
// warnings. The door the fuzz entry uses.
ReadCounts ReadFleetDocument(std::string text, const std::string& name,
                             const std::function<void(const NodeFacts&)>& node,
                             const std::function<void(std::string)>& warn);

}  // namespace dossier::fleet
