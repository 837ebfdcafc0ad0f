// NodeFacts: what `dossier fleet` compares about one node, extracted from its view (a record, a
// dossier's machine, or a machine of `collect --format json` output) and then the big record is
// dropped. Strings that nodes of one kind share (a driver version, a link "Gen5 x16") are what the
// fleet keeps; fleet/fleet_compare.h interns them, so memory grows with distinct values.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

#include "analyze/finding.h"
#include "view/view.h"

namespace dossier::fleet {

// A measured figure compared against the group's median (median absolute deviation).
struct NodeMetric {
  std::string name;  // "p2p uni-p2p 16777216 B, weakest pair (GB/s)"
  double value = 0;
  std::string where;  // which pair or load gave it: "GPU 2 -> 5"
};

struct NodeFacts {
  std::string name;  // machine name (hostname unless --machine was given)
  std::string file;  // the file it was read from
  std::string time;  // the record's time: a later record of the same node replaces an earlier one
  // Machines that should be alike: same board, same GPU model and count.
  std::string board, gpu_model;
  int64_t gpu_count = 0;
  // Facts compared by value within the group: ("GPU 3 PCIe link", "Gen5 x16 (max Gen5 x16)").
  // An unknown fact is the value "unknown: REASON"; a fact the node's record does not have at all
  // is absent here and reported as "not captured".
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<NodeMetric> metrics;
  std::vector<std::string> findings;  // "severity id"
  // Who the machine is, to tell one machine seen twice from two machines collected under one
  // name: its boot id, and its SMBIOS UUID (root only); "" when not known. `board` is the other
  // half of the identity.
  std::string boot_id, uuid;
  // Within one dossier: its collects under this name are of two different machines (says which).
  std::string conflict;
  // Measured (p2p, serve-bench) but never collected: no facts to compare, only the figures.
  bool collected = true;
};

// Whether two records under one name are of two different machines: their boots differ and so
// do their boards or SMBIOS UUIDs (where both are known). One machine rebooted keeps both.
bool DifferentMachines(const std::string& boot_a, const std::string& board_a,
                       const std::string& uuid_a, const std::string& boot_b,
                       const std::string& board_b, const std::string& uuid_b);

// From a built view's machine and the findings the analysis gave it.
NodeFacts FromMachineView(const MachineView& mv, const std::vector<Finding>& findings);

// From one element of "machines" in `collect --format json` / `report --format json` output: the
// machine as model/json_io.h writes it, with "findings", "record" and "measurement_summary".
// Problems reading it are appended to `warnings`.
NodeFacts FromOutputMachine(const nlohmann::json& m, const std::string& file,
                            std::vector<std::string>* warnings);

}  // namespace dossier::fleet
