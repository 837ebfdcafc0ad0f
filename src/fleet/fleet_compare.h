// The comparison behind `dossier fleet`: nodes are added one at a time (streamed from the files)
// and kept only as interned ids, so memory grows with the number of distinct values (plus a few
// integers per node and fact), not with nodes times the size of a record. Finish() groups the
// nodes that should be alike (board, GPU model and count) and says, per group, what differs and
// on which nodes, and which measured figures lie far from the group's median.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "fleet/node_facts.h"

namespace dossier::fleet {

// One value of a fact and the nodes that have it.
struct ValueNodes {
  std::string value;
  size_t count = 0;
  std::vector<std::string> nodes;  // sorted; left empty for the common value (it is the rest)
};

// A fact on which the nodes of a group do not all agree. `common` is the value most nodes have
// (empty when no value has more than half); `others` the rest, fewest nodes first.
struct Difference {
  std::string fact;
  ValueNodes common;
  std::vector<ValueNodes> others;
};

// A measured figure far from the group's median: |value - median| > kMadCut scaled MADs (the
// modified z-score of Iglewicz and Hoaglin) and more than kMinRelative of the median.
struct MetricOutlier {
  std::string metric;
  std::string node;
  double value = 0;
  std::string where;  // the pair or load that gave the figure
  double median = 0, mad = 0;
  // (value - median) / median * 100; none when the median is 0 (no percentage of zero: a
  // "+0.0%" there would say the outlier sits on the median).
  std::optional<double> deviation_percent;
  double modified_z = 0;  // 0.6745 (value - median) / MAD; inf when MAD is 0
};

struct GroupReport {
  std::string board, gpu_model;
  int64_t gpu_count = 0;
  std::vector<std::string> nodes;  // sorted
  std::vector<Difference> differences;
  std::vector<MetricOutlier> metric_outliers;
  // Metrics measured on too few nodes of the group to judge (name -> node count).
  std::map<std::string, size_t> metrics_too_few;
  std::vector<std::string> findings_everywhere;  // on every node of the group: not an outlier
  // Another group has the same board with more nodes: this group's GPU set is itself the odd one.
  std::string gpu_set_differs_from;
};

struct FleetReport {
  size_t nodes = 0;
  size_t files = 0;
  size_t replaced = 0;              // older records of a node that a newer one replaced
  std::vector<GroupReport> groups;  // most nodes first
  // Every node that differs from its group, with why (one line per fact or figure).
  std::map<std::string, std::vector<std::string>> outliers;
  std::vector<std::string> warnings;
  // Two different machines under one name (fleet_compare.cc: DifferentMachines): each is also
  // an outlier, so the fleet is not uniform.
  std::vector<std::string> conflicts;
  // Nodes known only from measurements (never collected): shown, and not called uniform.
  std::vector<std::string> not_collected;
  bool uniform() const { return outliers.empty(); }
};

inline constexpr double kMadCut = 3.5;
inline constexpr double kMinRelative = 0.05;
inline constexpr size_t kMinNodesForMad = 5;

class FleetComparer {
 public:
  void Add(const NodeFacts& n);
  void AddFile() { ++files_; }
  void Warn(std::string w) { warnings_.push_back(std::move(w)); }
  FleetReport Finish() const;
  size_t distinct_strings() const { return strings_.size(); }

 private:
  using Id = uint32_t;
  struct Node {
    Id name = 0, time = 0, group = 0;
    Id boot = 0, uuid = 0, file = 0;  // who the machine is (NodeFacts::boot_id, uuid)
    bool live = true;
    bool collected = true;
    std::vector<std::pair<Id, Id>> attributes;  // (fact, value), sorted by fact
    struct Metric {
      Id name;
      Id where;
      double value;
    };
    std::vector<Metric> metrics;
    std::vector<Id> findings;
  };
  Id Intern(const std::string& s);
  const std::string& Str(Id id) const { return *by_id_[id]; }

  std::unordered_map<std::string, Id> strings_;
  std::vector<const std::string*> by_id_;
  std::vector<Node> nodes_;
  std::unordered_map<Id, size_t> node_by_name_;
  std::map<std::tuple<std::string, std::string, int64_t>, Id> group_ids_;
  std::vector<std::tuple<std::string, std::string, int64_t>> groups_;
  size_t files_ = 0, replaced_ = 0;
  std::vector<std::string> warnings_;
  // (the nodes concerned, why) for each pair of different machines under one name.
  std::vector<std::pair<std::vector<Id>, std::string>> conflicts_;
};

}  // namespace dossier::fleet
