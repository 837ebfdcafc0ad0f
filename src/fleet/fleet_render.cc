#include "fleet/fleet_render.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "model/json_io.h"
#include "render/md_util.h"

namespace dossier::fleet {
namespace {

// At most `limit` names, then how many more: a fleet report names nodes, it does not list 9,000.
std::string Names(const std::vector<std::string>& nodes, size_t limit = 10) {
  std::string out;
  for (size_t i = 0; i < nodes.size() && i < limit; ++i) out += (i ? ", " : "") + nodes[i];
  if (nodes.size() > limit) out += fmt::format(" and {} more", nodes.size() - limit);
  return out;
}

std::string Fig(double v) {
  return fmt::format("{:.4g}", v);
}

nlohmann::json FiniteOrNull(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr);
}

}  // namespace

std::string FleetMarkdown(const FleetReport& r) {
  std::string out = fmt::format("# Fleet: {} node(s) in {} group(s)\n\n", r.nodes, r.groups.size());
  out += fmt::format("Read {} file(s)", r.files);
  if (r.replaced)
    out += fmt::format("; {} older record(s) replaced by a newer one of the same node", r.replaced);
  out += ". Groups are machines that should be alike: the same board, GPU model and GPU count.\n\n";
  out += r.uniform()
             ? "**Uniform**: no node differs from its group.\n\n"
             : fmt::format("**{} node(s) differ from their group** (listed at the end).\n\n",
                           r.outliers.size());
  if (!r.conflicts.empty()) {
    out += "## Different machines under one name\n\n";
    for (const auto& c : r.conflicts) out += "- " + md::Escape(c) + "\n";
    out += "\n";
  }
  if (!r.not_collected.empty())
    out += "**Never collected** (measurements only, no facts to compare): " +
           md::Escape(Names(r.not_collected, 20)) + ".\n\n";
  int gi = 0;
  for (const auto& g : r.groups) {
    out += fmt::format("## Group {}: {} with {}x {} ({} node(s))\n\n", ++gi, md::Escape(g.board),
                       g.gpu_count, md::Escape(g.gpu_model), g.nodes.size());
    out += "Nodes: " + md::Escape(Names(g.nodes, 20)) + "\n\n";
    if (!g.gpu_set_differs_from.empty())
      out += "**GPU set differs**: " + md::Escape(g.gpu_set_differs_from) + ".\n\n";
    if (!g.differences.empty()) {
      out += "### What differs\n\n";
      md::Table t({"fact", "most nodes", "differs on"});
      for (const auto& d : g.differences) {
        std::string common = d.common.count ? fmt::format("{} ({} of {})", md::Code(d.common.value),
                                                          d.common.count, g.nodes.size())
                                            : "no value on more than half";
        std::string others;
        for (const auto& o : d.others)
          others +=
              (others.empty() ? "" : "; ") + md::Code(o.value) + ": " + md::Escape(Names(o.nodes));
        t.Row({md::Escape(d.fact), common, others});
      }
      out += t.Render() + "\n";
    }
    if (!g.metric_outliers.empty()) {
      out += "### Measured far from the group's median\n\n";
      out += fmt::format(
          "Median absolute deviation: a figure is far when 0.6745 |x - median| / MAD > {} and it "
          "is more than {:.0f}% from the median.\n\n",
          kMadCut, kMinRelative * 100);
      md::Table t({"measure", "node", "value", "where", "group median", "MAD", "deviation"});
      for (const auto& o : g.metric_outliers)
        t.Row({md::Escape(o.metric), md::Escape(o.node), Fig(o.value), md::Escape(o.where),
               Fig(o.median), Fig(o.mad),
               o.deviation_percent ? fmt::format("{:+.1f}%", *o.deviation_percent)
                                   : std::string("no % of a 0 median")});
      out += t.Render() + "\n";
    }
    if (!g.metrics_too_few.empty()) {
      std::string s;
      for (const auto& [m, count] : g.metrics_too_few)
        s += (s.empty() ? "" : "; ") + fmt::format("{} ({} node(s))", m, count);
      out += fmt::format("Measured on fewer than {} nodes of the group, not judged: {}.\n\n",
                         kMinNodesForMad, md::Escape(s));
    }
    if (!g.findings_everywhere.empty()) {
      std::string s;
      for (const auto& f : g.findings_everywhere) s += (s.empty() ? "" : ", ") + md::Code(f, false);
      out += "Findings on every node of the group (not outliers, but worth reading): " + s + "\n\n";
    }
    if (g.differences.empty() && g.metric_outliers.empty() && g.gpu_set_differs_from.empty())
      out += "No differences.\n\n";
  }
  if (!r.outliers.empty()) {
    out += "## Nodes that differ\n\n";
    md::Table t({"node", "why"});
    for (const auto& [node, why] : r.outliers) {
      std::string s;
      for (const auto& w : why) s += (s.empty() ? "" : "<br>") + md::Escape(w);
      t.Row({md::Escape(node), s});
    }
    out += t.Render() + "\n";
  }
  if (!r.warnings.empty()) {
    out += "## Warnings\n\n";
    for (const auto& w : r.warnings) out += "- " + md::Escape(w) + "\n";
    out += "\n";
  }
  return out;
}

std::string FleetJson(const FleetReport& r) {
  nlohmann::json doc = {{"schema", kSchema}, {"kind", "fleet"},        {"nodes", r.nodes},
                        {"files", r.files},  {"replaced", r.replaced}, {"uniform", r.uniform()}};
  doc["groups"] = nlohmann::json::array();
  for (const auto& g : r.groups) {
    nlohmann::json jg = {{"board", g.board},
                         {"gpu_model", g.gpu_model},
                         {"gpu_count", g.gpu_count},
                         {"nodes", g.nodes},
                         {"gpu_set_differs_from", g.gpu_set_differs_from.empty()
                                                      ? nlohmann::json(nullptr)
                                                      : nlohmann::json(g.gpu_set_differs_from)}};
    jg["differences"] = nlohmann::json::array();
    for (const auto& d : g.differences) {
      nlohmann::json others = nlohmann::json::array();
      for (const auto& o : d.others)
        others.push_back({{"value", o.value}, {"count", o.count}, {"nodes", o.nodes}});
      jg["differences"].push_back(
          {{"fact", d.fact},
           {"common", d.common.count
                          ? nlohmann::json{{"value", d.common.value}, {"count", d.common.count}}
                          : nlohmann::json(nullptr)},
           {"others", others}});
    }
    jg["metric_outliers"] = nlohmann::json::array();
    for (const auto& o : g.metric_outliers)
      jg["metric_outliers"].push_back(
          {{"metric", o.metric},
           {"node", o.node},
           {"value", o.value},
           {"where", o.where},
           {"median", o.median},
           {"mad", o.mad},
           {"deviation_percent",
            o.deviation_percent ? nlohmann::json(*o.deviation_percent) : nlohmann::json()},
           {"modified_z", FiniteOrNull(o.modified_z)}});
    jg["metrics_too_few_nodes"] = g.metrics_too_few;
    jg["findings_everywhere"] = g.findings_everywhere;
    doc["groups"].push_back(std::move(jg));
  }
  doc["outliers"] = nlohmann::json::object();
  for (const auto& [node, why] : r.outliers) doc["outliers"][node] = why;
  doc["conflicts"] = r.conflicts;
  doc["not_collected"] = r.not_collected;
  doc["warnings"] = r.warnings;
  return doc.dump(2) + "\n";
}

}  // namespace dossier::fleet
