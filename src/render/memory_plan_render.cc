#include "render/memory_plan_render.h"

#include <fmt/format.h>

#include <cmath>

#include "analyze/model_size.h"
#include "render/md_util.h"

namespace dossier {
namespace {

template <class T>
std::string PlanUnknownCell(const Fact<T>& f) {
  return "unknown (" + md::Escape(f.unknown.empty() ? "not computed" : f.unknown) + ")";
}

std::string PlanGiB(const Fact<uint64_t>& f) {
  if (!f.known()) return md::Cell(f);
  return fmt::format("{:.1f} GiB", static_cast<double>(*f) / (1024.0 * 1024.0 * 1024.0));
}

std::string Count(const Fact<uint64_t>& f) {
  if (!f.known()) return md::Cell(f);
  return fmt::format("{}", *f);
}

std::string Params(const Fact<uint64_t>& f) {
  if (!f.known()) return md::Cell(f);
  return ParamsText(*f);  // as the model's table says it
}

std::string Concurrency(const Fact<double>& f) {
  if (!f.known()) return PlanUnknownCell(f);
  return fmt::format("{:.2f}", *f);
}

std::string Fits(const Fact<bool>& f) {
  if (!f.known()) return PlanUnknownCell(f);
  return (*f ? "yes: " : "no: ") + md::Escape(f.source);
}

template <class T>
void Put(nlohmann::json& j, nlohmann::json& how, nlohmann::json& unknown, const char* key,
         const Fact<T>& f) {
  if (f.known()) {
    j[key] = *f;
    if (!f.source.empty()) how[key] = f.source;
  } else {
    j[key] = nullptr;
    unknown[key] = f.unknown.empty() ? "not computed" : f.unknown;
  }
}

// The table's unknown cells point at one note each under the table: without NVML every cell of
// a row is unknown for the same long reason, and the table repeated it in every cell.
class UnknownNotes {
 public:
  template <class T>
  std::string Cell(const Fact<T>& f, const char* unset) {
    std::string why = f.unknown.empty() ? unset : f.unknown;
    size_t i = 0;
    while (i < reasons_.size() && reasons_[i] != why) ++i;
    if (i == reasons_.size()) reasons_.push_back(why);
    return fmt::format("unknown (note {})", i + 1);
  }
  std::string Render() const {
    std::string out;
    for (size_t i = 0; i < reasons_.size(); ++i)
      out += fmt::format("- note {}: {}\n", i + 1, md::Escape(reasons_[i]));
    return out.empty() ? out : out + "\n";
  }

 private:
  std::vector<std::string> reasons_;
};

}  // namespace

std::string MemoryPlansMarkdown(const std::vector<MemoryPlan>& plans, const std::string& heading) {
  if (plans.empty()) return "";
  std::string out;
  md::Table t({"plan", "layout", "weights per GPU", "KV per token per GPU", "KV tokens per GPU",
               "max concurrency", "fits"});
  UnknownNotes notes;
  auto cell = [&](const auto& f, const std::string& known, const char* unset) {
    return f.known() ? known : notes.Cell(f, unset);
  };
  for (const auto& p : plans) {
    std::string kv = p.kv_bytes_per_token_per_gpu.known()
                         ? fmt::format("{:.1f} KiB", *p.kv_bytes_per_token_per_gpu / 1024.0)
                         : "";
    std::string conc = p.max_concurrency.known() ? Concurrency(p.max_concurrency) : "";
    if (p.max_concurrency.known() && p.context.known())
      conc += fmt::format(" at {} tokens", *p.context);
    t.Row({md::Escape(p.label), md::Escape(p.layout.Text()),
           cell(p.weight_bytes_per_gpu, PlanGiB(p.weight_bytes_per_gpu), "not recorded"),
           cell(p.kv_bytes_per_token_per_gpu, kv, "not recorded"),
           cell(p.kv_tokens_per_gpu, Count(p.kv_tokens_per_gpu), "not recorded"),
           cell(p.max_concurrency, conc, "not computed"),
           cell(p.fits, p.fits.known() ? Fits(p.fits) : "", "not computed")});
  }
  out += t.Render() + "\n" + notes.Render();
  const MemoryPlan& s = plans.front();
  out += fmt::format("Parameters: {} total, {} active per token{}.\n\n", Params(s.params_total),
                     Params(s.params_active),
                     s.params_mtp.known()
                         ? fmt::format(" (and {} in multi-token-prediction layers: {})",
                                       Params(s.params_mtp), md::Escape(s.params_mtp.source))
                         : "");
  for (const auto& p : plans) {
    out += fmt::format("{} {}: {}\n\n", heading, md::Escape(p.label), md::Escape(p.layout.Text()));
    for (const auto& in : p.inputs) out += "- " + md::Escape(in) + "\n";
    out += "- weights per GPU: " + PlanGiB(p.weight_bytes_per_gpu) +
           (p.weight_bytes_per_gpu.known() ? " (" + md::Escape(p.weight_bytes_per_gpu.source) + ")"
                                           : "") +
           "\n";
    for (const auto& part : p.weight_parts) out += "  - " + md::Escape(part) + "\n";
    auto line = [&](const char* what, const auto& f, const std::string& value) {
      out += fmt::format("- {}: {}{}\n", what, value,
                         f.known() && !f.source.empty() ? " (" + md::Escape(f.source) + ")" : "");
    };
    line("KV cache per token, whole model", p.kv_bytes_per_token,
         p.kv_bytes_per_token.known() ? fmt::format("{} B", *p.kv_bytes_per_token)
                                      : md::Cell(p.kv_bytes_per_token));
    line("KV cache per token on one GPU", p.kv_bytes_per_token_per_gpu,
         p.kv_bytes_per_token_per_gpu.known() ? fmt::format("{} B", *p.kv_bytes_per_token_per_gpu)
                                              : md::Cell(p.kv_bytes_per_token_per_gpu));
    line("KV budget per GPU", p.kv_budget_bytes_per_gpu, PlanGiB(p.kv_budget_bytes_per_gpu));
    line("KV tokens per GPU", p.kv_tokens_per_gpu, Count(p.kv_tokens_per_gpu));
    line("maximum concurrency", p.max_concurrency, Concurrency(p.max_concurrency));
    out += "\n";
    if (!p.checks.empty()) {
      out += "Beside what the server logged:\n\n";
      md::Table c({"figure", "plan", "server", "difference", "server's line"});
      for (const auto& k : p.checks)
        c.Row({md::Escape(k.what), fmt::format("{:.2f} {}", k.plan, k.unit),
               fmt::format("{:.2f} {}", k.server, k.unit),
               fmt::format("{:+.1f} %{}", 100 * k.Difference(),
                           std::fabs(k.Difference()) > kPlanDisagreement
                               ? " (check: " + md::Escape(k.check_inputs) + ")"
                               : ""),
               md::Code(k.server_source)});
      out += c.Render() + "\n";
    }
  }
  return out;
}

nlohmann::json MemoryPlanJson(const MemoryPlan& p) {
  nlohmann::json j, how = nlohmann::json::object(), unknown = nlohmann::json::object();
  j["label"] = p.label;
  j["layout"] = {{"tp", p.layout.tp},   {"pp", p.layout.pp},
                 {"ep", p.layout.ep},   {"dp_attention", p.layout.dp_attention},
                 {"dcp", p.layout.dcp}, {"from", p.layout_from}};
  Put(j, how, unknown, "params_total", p.params_total);
  Put(j, how, unknown, "params_active", p.params_active);
  Put(j, how, unknown, "params_mtp", p.params_mtp);
  Put(j, how, unknown, "weight_bytes_total", p.weight_bytes_total);
  Put(j, how, unknown, "weight_bytes_per_gpu", p.weight_bytes_per_gpu);
  Put(j, how, unknown, "kv_bytes_per_token", p.kv_bytes_per_token);
  Put(j, how, unknown, "kv_bytes_per_token_per_gpu", p.kv_bytes_per_token_per_gpu);
  Put(j, how, unknown, "gpu_memory_bytes", p.gpu_memory_bytes);
  Put(j, how, unknown, "kv_budget_bytes_per_gpu", p.kv_budget_bytes_per_gpu);
  Put(j, how, unknown, "kv_tokens_per_gpu", p.kv_tokens_per_gpu);
  Put(j, how, unknown, "context", p.context);
  Put(j, how, unknown, "max_concurrency", p.max_concurrency);
  Put(j, how, unknown, "fits", p.fits);
  j["weight_parts"] = p.weight_parts;
  j["inputs"] = p.inputs;
  j["checks"] = nlohmann::json::array();
  for (const auto& k : p.checks)
    j["checks"].push_back({{"what", k.what},
                           {"plan", k.plan},
                           {"server", k.server},
                           {"unit", k.unit},
                           {"difference", k.Difference()},
                           {"server_from", k.server_source}});
  j["how"] = how;
  j["unknown"] = unknown;
  return j;
}

}  // namespace dossier
