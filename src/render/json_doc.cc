// The JSON rendering: {"schema": "dossier/1", "machines": [...]}, each machine as
// model/json_io.h writes it, with the record it came from, its findings, its changes since the
// previous boot and a summary of its measurements; beside them the report's other parts (goal
// with targets, instructions, stated facts, accomplished, next steps, files) in the same order as
// the Markdown document. docs/json.md describes the keys.
#include <nlohmann/json.hpp>

#include "analyze/summary.h"
#include "model/json_io.h"
#include "render/json_visit.h"
#include "render/measure_summary.h"
#include "render/memory_plan_render.h"
#include "render/render.h"
#include "view/coverage.h"

namespace dossier {
namespace {

nlohmann::json Summary(const MachineView& mv) {
  nlohmann::json p2p = nlohmann::json::array(), serve = nlohmann::json::array();
  for (const auto& s : SummarizeP2p(mv)) {
    p2p.push_back({{"time", s.time},
                   {"stale", s.stale},
                   {"results", s.results},
                   {"ok", s.ok},
                   {"corrupted", s.corrupted},
                   {"hung", s.hung},
                   {"waived", s.waived},
                   {"errors", s.errors},
                   {"interrupted", s.interrupted},
                   {"best_p2p", s.best_p2p},
                   {"best_staged", s.best_staged},
                   {"best_bidirectional", s.best_bidir},
                   {"small_message_latency", s.small_latency}});
  }
  for (const auto& r : SummarizeServe(mv)) {
    // A figure not known is null, with the reason beside it (never 0).
    auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    serve.push_back({{"time", r.time},
                     {"endpoint", r.endpoint},
                     {"stale", r.stale},
                     {"load", r.load},
                     {"total_tokens_per_s", opt(r.total_tps)},
                     {"output_tokens_per_s", opt(r.output_tps)},
                     {"completed", opt(r.completed)},
                     {"failed", opt(r.failed)},
                     {"unknown", r.unknown}});
  }
  return {{"p2p", p2p}, {"serve", serve}};
}

template <class T>
nlohmann::json FactJson(const Fact<T>& f) {
  return f.known() ? nlohmann::json(*f) : nlohmann::json(nullptr);
}

// The guest's link to its host and the passthrough map (view/links.h); null without a link.
void Passthrough(const View& view, const MachineView& mv, nlohmann::json* m) {
  const MachineLink* l = view.HostLinkOf(mv.machine.name);
  if (!l) {
    // Null, with the reason in the provenance like every other unknown.
    const Fact<bool>& guest = mv.machine.virtualization.guest;
    std::string why =
        guest.known() && !*guest
            ? "not a guest"
            : "no host linked: collect or import the host into this dossier (linked by the "
              "guest's SMBIOS UUID, or by 'dossier note machine NAME --host HOST --vm VMID')";
    (*m)["host_link"] = nullptr;
    (*m)["passthrough"] = nullptr;
    (*m)["provenance"]["/host_link"] = {{"unknown", why}};
    (*m)["provenance"]["/passthrough"] = {{"unknown", why}};
    return;
  }
  (*m)["host_link"] = {
      {"host", l->host}, {"vm_id", l->vm_id}, {"how", l->how}, {"evidence", l->evidence}};
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& p : l->gpus) {
    arr.push_back(
        {{"guest_address", p.guest_address},
         {"guest_port",
          p.guest_port.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.guest_port)},
         {"guest_port_number", FactJson(p.port_number)},
         {"host_machine", l->host},
         {"vm_id", l->vm_id},
         {"slot", p.slot.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.slot)},
         {"host_address",
          p.host_address.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.host_address)},
         {"source", p.source.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.source)},
         {"why", p.why},
         {"host_numa_node", FactJson(p.host_numa_node)},
         {"host_root_complex", FactJson(p.host_root_complex)},
         {"host_iommu_group", FactJson(p.host_iommu_group)},
         {"host_link",
          {{"gen", FactJson(p.host_link.current.gen)},
           {"width", FactJson(p.host_link.current.width)},
           {"max_gen", FactJson(p.host_link.max.gen)},
           {"max_width", FactJson(p.host_link.max.width)}}}});
  }
  (*m)["passthrough"] = std::move(arr);
  // What the host can do between the host GPUs behind each guest GPU pair (view/host_p2p.h).
  nlohmann::json pairs = nlohmann::json::array();
  for (const auto& p : l->pairs)
    pairs.push_back({{"guest_a", l->gpus[p.a].guest_address},
                     {"guest_b", l->gpus[p.b].guest_address},
                     {"host_level", p.host_level.empty() ? nlohmann::json(nullptr)
                                                         : nlohmann::json(p.host_level)},
                     {"clique", p.decided ? nlohmann::json(p.clique) : nlohmann::json(nullptr)},
                     {"why", p.why}});
  (*m)["host_link"]["pairs"] = std::move(pairs);
}

// A machine known from pastes: each family no paste covered is unknown, not empty. Its lists are
// null with the reason in provenance (an empty list is a real "none"), and `coverage` says per
// family where it is known from.
void PastedCoverage(const MachineView& mv, nlohmann::json* m) {
  if (mv.coverage.collected) return;
  nlohmann::json cov = nlohmann::json::object();
  for (const auto& info : FamilyTable()) {
    if (mv.coverage.Covers(info.family)) {
      cov[info.key] = mv.coverage.pasted.at(info.family);
      continue;
    }
    cov[info.key] = nullptr;
    std::string why = mv.coverage.Absent(info.family);
    for (const char* ptr : info.json_lists) {
      nlohmann::json::json_pointer p(ptr);
      if (!m->contains(p)) continue;
      const nlohmann::json& v = (*m)[p];
      if (!(v.is_array() || v.is_object()) || !v.empty()) continue;  // something was pasted
      (*m)[p] = nullptr;
      (*m)["provenance"][ptr] = {{"unknown", why}};
    }
  }
  (*m)["coverage"] = std::move(cov);
}

}  // namespace

std::string RenderJson(const View& view, const Analysis& a) {
  nlohmann::json doc = nlohmann::json::object();
  doc["schema"] = kSchema;
  doc["generated_at"] = view.generated_at;
  if (!view.dossier_path.empty()) doc["dossier"] = view.dossier_path;
  doc["notes_file"] = view.notes.path;
  doc["summary"] = PlainToJson(Summarize(view, a));
  doc["goal"] = {{"text", view.notes.goal}, {"targets", PlainArray(a.plan.targets)}};
  doc["instructions"] = PlainArray(view.notes.machines);
  doc["stated_facts"] = PlainArray(view.notes.facts);
  doc["machines"] = nlohmann::json::array();
  for (const auto& mv : view.machines) {
    nlohmann::json m = MachineToJson(mv.machine);
    m["record"] = {{"file", mv.record.file},
                   {"kind", mv.record.kind},
                   {"time", mv.record.time},
                   {"tool", mv.record.tool},
                   {"stale", mv.stale}};
    const MachineAnalysis& ma = a.Of(mv);
    m["findings"] = PlainArray(ma.findings);
    m["changes_since_previous_boot"] =
        ma.changes.from.file.empty() ? nlohmann::json(nullptr) : PlainToJson(ma.changes);
    m["measurement_summary"] = Summary(mv);
    // The questions decided once for the machine (analyze/verdicts.h), with their evidence.
    const MachineVerdicts& mvv = a.verdicts.Of(mv.machine.name);
    m["verdicts"] = nlohmann::json::object();
    for (const auto& [key, v] : {std::pair<const char*, const Verdict*>{"acs", &mvv.acs},
                                 {"clique", &mvv.clique},
                                 {"iommu", &mvv.iommu},
                                 {"numa_affinity", &mvv.numa}})
      m["verdicts"][key] = {{"question", v->question},
                            {"answer", AnswerWord(v->answer)},
                            {"why", v->why},
                            {"evidence", PlainArray(v->evidence)}};
    // Present only when something was cross-checked (docs/json.md).
    if (!ma.cross_checks.empty()) m["cross_checks"] = PlainArray(ma.cross_checks);
    // Present only for machines serving a model whose config.json was read (docs/json.md).
    if (!ma.memory_plans.empty()) {
      m["memory_plans"] = nlohmann::json::array();
      for (size_t i = 0; i < ma.memory_plans.size(); ++i) {
        nlohmann::json pj = MemoryPlanJson(ma.memory_plans[i]);
        // Unknown is null with its reason in the machine's provenance, as for every fact.
        for (const auto& [key, why] : pj["unknown"].items())
          m["provenance"]["/memory_plans/" + std::to_string(i) + "/" + key] = {
              {"from", "dossier plan (docs/memory-plan.md)"}, {"unknown", why}};
        m["memory_plans"].push_back(std::move(pj));
      }
    }
    // Present only for machines with `dossier import` records (docs/json.md).
    if (!mv.imports.empty()) {
      m["imports"] = nlohmann::json::array();
      for (const auto& r : mv.imports) m["imports"].push_back({{"file", r.file}, {"time", r.time}});
      m["disagreements"] = nlohmann::json::array();
      for (const auto& x : mv.disagreements)
        m["disagreements"].push_back({{"path", x.path},
                                      {"used", x.kept},
                                      {"used_from", x.kept_source},
                                      {"used_record", x.kept_record},
                                      {"other", x.other},
                                      {"other_from", x.other_source},
                                      {"other_record", x.other_record}});
    }
    Passthrough(view, mv, &m);
    PastedCoverage(mv, &m);
    doc["machines"].push_back(std::move(m));
  }
  doc["accomplished"] = PlainArray(a.plan.accomplished);
  doc["next_steps"] = PlainArray(a.plan.next_steps);
  doc["files"] = PlainArray(view.notes.files);
  doc["warnings"] = view.warnings;
  return DumpJson(doc, 2) + "\n";
}

}  // namespace dossier
