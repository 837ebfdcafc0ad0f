#include "fleet/fleet_compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dossier::fleet {
namespace {

double Median(std::vector<double> v) {
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double hi = v[mid];
  if (v.size() % 2) return hi;
  double lo = *std::max_element(v.begin(), v.begin() + mid);
  return (lo + hi) / 2;
}

}  // namespace

FleetComparer::Id FleetComparer::Intern(const std::string& s) {
  auto [it, fresh] = strings_.try_emplace(s, static_cast<Id>(by_id_.size()));
  if (fresh) by_id_.push_back(&it->first);  // unordered_map nodes do not move on rehash
  return it->second;
}

void FleetComparer::Add(const NodeFacts& n) {
  Node node;
  node.name = Intern(n.name);
  node.time = Intern(n.time);
  node.boot = Intern(n.boot_id);
  node.uuid = Intern(n.uuid);
  node.file = Intern(n.file);
  node.collected = n.collected;
  if (!n.conflict.empty()) conflicts_.push_back({{node.name}, n.conflict});
  auto key = std::make_tuple(n.board, n.gpu_model, n.gpu_count);
  auto [g, fresh] = group_ids_.try_emplace(key, static_cast<Id>(groups_.size()));
  if (fresh) groups_.push_back(key);
  node.group = g->second;
  for (const auto& [k, v] : n.attributes) node.attributes.emplace_back(Intern(k), Intern(v));
  std::sort(node.attributes.begin(), node.attributes.end());
  for (const auto& m : n.metrics)
    node.metrics.push_back({Intern(m.name), Intern(m.where), m.value});
  for (const auto& f : n.findings) node.findings.push_back(Intern(f));
  std::sort(node.findings.begin(), node.findings.end());
  node.findings.erase(std::unique(node.findings.begin(), node.findings.end()), node.findings.end());

  // The same node twice (two collects in one directory, a dossier and its JSON output): the later
  // record holds; ISO 8601 UTC times order as strings.
  if (auto it = node_by_name_.find(node.name); it != node_by_name_.end()) {
    Node& old = nodes_[it->second];
    // Not the same node at all: two machines collected under one name. Both are kept (the later
    // under its name and file) and both are reported, never merged into one.
    const std::string& old_board = std::get<0>(groups_[old.group]);
    if (DifferentMachines(Str(old.boot), old_board, Str(old.uuid), n.boot_id, n.board, n.uuid)) {
      auto who = [](const std::string& file, const std::string& board, const std::string& uuid,
                    const std::string& boot) {
        return fmt::format("{} ({}{}, boot {})", file, board, uuid.empty() ? "" : ", UUID " + uuid,
                           boot);
      };
      std::string why = fmt::format(
          "two different machines under the name '{}': {} and {}; both kept. Collect each under "
          "its own --machine name",
          n.name, who(Str(old.file), old_board, Str(old.uuid), Str(old.boot)),
          who(n.file, n.board, n.uuid, n.boot_id));
      Id first = old.name;
      node.name = Intern(n.name + " (" + n.file + ")");
      conflicts_.push_back({{first, node.name}, why});
      if (!node_by_name_.count(node.name)) {
        node_by_name_.emplace(node.name, nodes_.size());
        nodes_.push_back(std::move(node));
        return;
      }
      it = node_by_name_.find(node.name);
    }
    Node& same = nodes_[it->second];
    ++replaced_;
    if (Str(same.time) > n.time) return;
    same = std::move(node);
    return;
  }
  node_by_name_.emplace(node.name, nodes_.size());
  nodes_.push_back(std::move(node));
}

FleetReport FleetComparer::Finish() const {
  FleetReport rep;
  rep.files = files_;
  rep.replaced = replaced_;
  rep.warnings = warnings_;
  std::vector<std::vector<size_t>> members(groups_.size());
  // A node never collected has no board or GPUs to be grouped by (it was rendered as a group
  // " with 0x "): it is listed apart, below, and in no group.
  for (size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].collected) members[nodes_[i].group].push_back(i);
  rep.nodes = nodes_.size();

  std::vector<size_t> order;
  for (size_t g = 0; g < groups_.size(); ++g)
    if (!members[g].empty()) order.push_back(g);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return members[a].size() > members[b].size(); });

  auto flag = [&rep](const std::string& node, std::string why) {
    rep.outliers[node].push_back(std::move(why));
  };
  for (const auto& [ids, why] : conflicts_) {
    rep.conflicts.push_back(why);
    for (Id id : ids) flag(Str(id), why);
  }
  for (const auto& node : nodes_) {
    if (node.collected) continue;
    rep.not_collected.push_back(Str(node.name));
    flag(Str(node.name), "never collected: the dossier has only its measurements (" +
                             Str(node.file) +
                             "), no facts to compare; run 'dossier collect' on it");
  }

  for (size_t g : order) {
    auto& idx = members[g];
    std::sort(idx.begin(), idx.end(),
              [&](size_t a, size_t b) { return Str(nodes_[a].name) < Str(nodes_[b].name); });
    GroupReport gr;
    std::tie(gr.board, gr.gpu_model, gr.gpu_count) = groups_[g];
    for (size_t i : idx) gr.nodes.push_back(Str(nodes_[i].name));
    const size_t n = idx.size();

    // The same board in a bigger group with another GPU set: a GPU fell off the bus, or a node
    // was built differently. The bigger group is the reference (groups are sorted by size).
    for (size_t other : order) {
      if (other == g) break;
      if (std::get<0>(groups_[other]) == gr.board && members[other].size() > n) {
        gr.gpu_set_differs_from =
            fmt::format("{} node(s) with the same board have {}x {}", members[other].size(),
                        std::get<2>(groups_[other]), std::get<1>(groups_[other]));
        for (const auto& node : gr.nodes)
          flag(node, fmt::format("GPU set {}x {} where {}", gr.gpu_count, gr.gpu_model,
                                 gr.gpu_set_differs_from));
        break;
      }
    }

    // Facts by value, as ids and node positions: names are only spelled out for the nodes that
    // differ.
    std::map<Id, std::map<Id, std::vector<uint32_t>>> facts;
    for (uint32_t p = 0; p < n; ++p)
      for (const auto& [k, v] : nodes_[idx[p]].attributes) facts[k][v].push_back(p);
    std::map<Id, std::vector<uint32_t>> findings;
    for (uint32_t p = 0; p < n; ++p)
      for (Id f : nodes_[idx[p]].findings) findings[f].push_back(p);

    // by: value -> positions of the nodes with it (each sorted by name, as idx is).
    auto add_difference = [&](std::string fact, std::map<std::string, std::vector<uint32_t>> by) {
      if (by.size() < 2) return;
      Difference d;
      d.fact = std::move(fact);
      for (auto& [value, pos] : by) {
        ValueNodes vn{value, pos.size(), {}};
        if (pos.size() * 2 > n) {
          d.common = std::move(vn);
          continue;
        }
        for (uint32_t p : pos) vn.nodes.push_back(gr.nodes[p]);
        d.others.push_back(std::move(vn));
      }
      std::stable_sort(d.others.begin(), d.others.end(),
                       [](const auto& a, const auto& b) { return a.count < b.count; });
      for (const auto& o : d.others)
        for (const auto& node : o.nodes)
          flag(node,
               d.common.count == 0
                   ? fmt::format("{}: {} (no value on more than half the group)", d.fact, o.value)
                   : fmt::format("{}: {} where {} of {} have {}", d.fact, o.value, d.common.count,
                                 n, d.common.value));
      gr.differences.push_back(std::move(d));
    };
    auto absent_from = [n](const std::vector<uint32_t>& with) {
      std::vector<uint32_t> out;
      size_t j = 0;
      for (uint32_t p = 0; p < n; ++p) {
        while (j < with.size() && with[j] < p) ++j;
        if (j == with.size() || with[j] != p) out.push_back(p);
      }
      return out;
    };

    for (auto& [k, by_id] : facts) {
      std::map<std::string, std::vector<uint32_t>> by;
      std::vector<uint32_t> with;
      for (auto& [v, pos] : by_id) {
        with.insert(with.end(), pos.begin(), pos.end());
        by[Str(v)] = std::move(pos);
      }
      // A node may name one fact twice (two serving runs of one load): count it once, or a
      // duplicate would stand in for a node that lacks the fact.
      std::sort(with.begin(), with.end());
      with.erase(std::unique(with.begin(), with.end()), with.end());
      if (with.size() < n) {
        auto missing = absent_from(with);
        if (!missing.empty()) by["not captured"] = std::move(missing);
      }
      add_difference(Str(k), std::move(by));
    }
    for (auto& [f, with] : findings) {
      if (with.size() == n) {
        gr.findings_everywhere.push_back(Str(f));
        continue;
      }
      std::map<std::string, std::vector<uint32_t>> by;
      by["absent"] = absent_from(with);
      by["present"] = std::move(with);
      add_difference("finding " + Str(f), std::move(by));
    }

    // Measured figures against the group's median.
    struct Sample {
      double value;
      Id node, where;
    };
    std::map<Id, std::vector<Sample>> metrics;
    for (size_t i : idx)
      for (const auto& m : nodes_[i].metrics)
        metrics[m.name].push_back({m.value, nodes_[i].name, m.where});
    for (const auto& [name, samples] : metrics) {
      if (samples.size() < kMinNodesForMad) {
        gr.metrics_too_few[Str(name)] = samples.size();
        continue;
      }
      std::vector<double> v;
      v.reserve(samples.size());
      for (const auto& s : samples) v.push_back(s.value);
      double med = Median(v);
      for (auto& x : v) x = std::fabs(x - med);
      double mad = Median(std::move(v));
      for (const auto& s : samples) {
        double dev = std::fabs(s.value - med);
        double z = mad > 0 ? 0.6745 * dev / mad
                           : (dev > 0 ? std::numeric_limits<double>::infinity() : 0.0);
        double rel = med != 0 ? dev / std::fabs(med) : (dev > 0 ? 1.0 : 0.0);
        if (z <= kMadCut || rel <= kMinRelative) continue;
        MetricOutlier o{
            Str(name),
            Str(s.node),
            s.value,
            Str(s.where),
            med,
            mad,
            med != 0 ? std::optional<double>((s.value - med) / std::fabs(med) * 100) : std::nullopt,
            z};
        flag(o.node,
             fmt::format("{}: {:.4g}{} where the group's median is {:.4g} ({}MAD {:.3g})", o.metric,
                         o.value, o.where.empty() ? "" : " (" + o.where + ")", o.median,
                         o.deviation_percent ? fmt::format("{:+.1f}%, ", *o.deviation_percent)
                                             : std::string(),
                         o.mad));
        gr.metric_outliers.push_back(std::move(o));
      }
    }
    std::sort(gr.metric_outliers.begin(), gr.metric_outliers.end(),
              [](const auto& a, const auto& b) {
                return std::tie(a.metric, a.node) < std::tie(b.metric, b.node);
              });
    rep.groups.push_back(std::move(gr));
  }
  return rep;
}

}  // namespace dossier::fleet
