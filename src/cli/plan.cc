// dossier plan: will the model fit, and how many requests at once — the memory plan per GPU of
// each served model (or of a config.json on hardware given by hand), with the layouts worth
// comparing. Arithmetic over what the dossier knows; nothing is loaded or measured.
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "analyze/memory_plan.h"
#include "cli/parse.h"
#include "fs/root_fs.h"
#include "probe/model_config.h"
#include "render/memory_plan_render.h"
#include "view/build_view.h"

namespace dossier::cli {
namespace {

// The model from a directory holding config.json, or a config.json itself. Paths are this
// machine's; the file is read through RootFs like collect reads it (size-bounded, UTF-8).
bool ReadPlanModel(const std::string& given, ModelConfig* mc, std::string* error) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(given, ec);
  if (ec || !std::filesystem::exists(p, ec)) {
    *error = "--model " + given + ": no such file or directory";
    return false;
  }
  RootFs fs("/");
  std::string dir = std::filesystem::is_directory(p, ec) ? p.string() : p.parent_path().string();
  if (!std::filesystem::is_directory(p, ec) && p.filename() != "config.json") {
    auto text = fs.Read(p.string(), 4u << 20);
    if (!text) {
      *error = "--model " + given + ": " + text.error().message;
      return false;
    }
    ParseModelConfigText(*text, p.string(), mc);
    if (!mc->quantization.method.known() && mc->config_file.known())
      mc->quantization.method.Set("none", p.string() + " (no quantization_config)");
  } else {
    ReadModelDir(fs, dir, mc);
  }
  mc->path.Set(dir, "--model");
  if (!mc->config_file.known()) {
    *error = "--model " + given + ": " + mc->config_file.unknown;
    return false;
  }
  return true;
}

}  // namespace

int RunPlan(const std::vector<std::string>& args) {
  CLI::App app(
      "The memory plan per GPU: weights under the layout, KV cache bytes per token, KV tokens "
      "per GPU and the requests of a context length that fit at once; for each served model, "
      "or for --model on --gpus, with the layouts worth comparing (docs/memory-plan.md).",
      "dossier plan");
  std::string dossier_dir = "dossier", format = "md", machine, model, gpus, kv_dtype;
  int64_t tp = 0, pp = 0, ep = 0, context = 0;
  double mem_fraction = 0, reserve_gib = -1;
  app.add_option("--dossier", dossier_dir, "dossier directory")
      ->check(NonEmptyPath())
      ->capture_default_str();
  app.add_option("--machine", machine, "plan only this machine's servers")->check(NonEmpty());
  app.add_option("--model", model, "a model directory or its config.json (instead of the served)")
      ->check(NonEmptyPath());
  app.add_option("--gpus", gpus, "GPUs as COUNTxMEMORY, e.g. 8x96GiB or 4x80GB")->check(NonEmpty());
  app.add_option("--tp", tp, "tensor-parallel size")->check(CLI::Range(1, 4096));
  app.add_option("--pp", pp, "pipeline-parallel size")->check(CLI::Range(1, 4096));
  app.add_option("--ep", ep, "expert-parallel size")->check(CLI::Range(1, 4096));
  app.add_option("--context", context, "tokens per request")->check(CLI::Range(1, 1 << 30));
  app.add_option("--kv-dtype", kv_dtype, "KV cache dtype")
      ->check(CLI::IsMember({"auto", "fp8", "fp8_e4m3", "fp8_e5m2", "bf16", "fp16", "float32"}));
  app.add_option("--mem-fraction", mem_fraction,
                 "the server's memory fraction (--mem-fraction-static, --gpu-memory-utilization)")
      ->check(CLI::Range(0.01, 1.0));
  app.add_option("--reserve", reserve_gib, "GiB per GPU kept for activations, graphs, NCCL")
      ->check(CLI::Range(0.0, 1024.0));
  app.add_option("--format", format, "md or json")
      ->check(CLI::IsMember({"md", "json"}))
      ->capture_default_str();
  if (int rc = Parse(app, args); rc >= 0) return rc;

  PlanOverrides o;
  if (tp) o.tp = tp;
  if (pp) o.pp = pp;
  if (ep) o.ep = ep;
  if (context) o.context = context;
  if (!kv_dtype.empty()) o.kv_dtype = kv_dtype;
  if (mem_fraction > 0) o.mem_fraction = mem_fraction;
  if (reserve_gib >= 0) o.reserve_bytes = static_cast<uint64_t>(reserve_gib * 1024 * 1024 * 1024);
  if (!gpus.empty()) {
    o.gpus = ParseGpuSpec(gpus);
    if (!o.gpus) {
      std::fprintf(stderr,
                   "dossier plan: --gpus '%s' is not COUNTxMEMORY (for example 8x96GiB, 4x80GB)\n",
                   gpus.c_str());
      return kExitUsage;
    }
  }

  struct Titled {
    std::string machine, what;
    std::vector<MemoryPlan> plans;
  };
  std::vector<Titled> all;
  if (!model.empty()) {
    ModelConfig mc;
    std::string error;
    if (!ReadPlanModel(model, &mc, &error)) {
      std::fprintf(stderr, "dossier plan: %s\n", error.c_str());
      return kExitUsage;
    }
    Notes notes;  // a plan for hardware that is not there has no targets of its own
    PlanInputs in = InputsForModel(mc, notes, o);
    Titled t{"", mc.path.value_or(model), {}};
    MemoryPlan p = ComputeMemoryPlan(in);
    p.label = "planned";
    t.plans.push_back(p);
    for (const auto& alt : AlternativeLayouts(in.layout, mc)) {
      PlanInputs a = in;
      a.layout = alt;
      a.layout_from = "an alternative to " + in.layout.Text();
      MemoryPlan q = ComputeMemoryPlan(a);
      q.label = "alternative";
      t.plans.push_back(q);
    }
    all.push_back(std::move(t));
  } else {
    auto view = LoadView(DossierDir(dossier_dir));
    if (!view) {
      std::fprintf(stderr, "dossier plan: %s\n", view.error().message.c_str());
      return kExitUsage;
    }
    for (const auto& w : view->warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    for (const auto& mv : view->machines) {
      if (!machine.empty() && mv.machine.name != machine) continue;
      auto plans = MachineMemoryPlans(mv.machine, view->notes, o);
      if (!plans.empty()) all.push_back({mv.machine.name, "served model", std::move(plans)});
    }
    if (all.empty()) {
      std::fprintf(stderr,
                   "dossier plan: no machine%s in %s serves a model whose config.json was read; "
                   "give --model DIR --gpus COUNTxMEMORY to plan one\n",
                   machine.empty() ? "" : (" named " + machine).c_str(), dossier_dir.c_str());
      return kExitUsage;
    }
  }

  if (format == "json") {
    nlohmann::json j;
    j["schema"] = "dossier/1";
    j["plans"] = nlohmann::json::array();
    for (const auto& t : all)
      for (const auto& p : t.plans) {
        nlohmann::json pj = MemoryPlanJson(p);
        pj["machine"] = t.machine.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.machine);
        pj["model"] = t.what;
        j["plans"].push_back(pj);
      }
    std::string text = j.dump(2) + "\n";
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kExitOk;
  }
  std::string text = "# Memory plan\n\n";
  for (const auto& t : all) {
    text +=
        "## " + (t.machine.empty() ? std::string("planned") : t.machine) + ": " + t.what + "\n\n";
    text += MemoryPlansMarkdown(t.plans, "###");
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  return kExitOk;
}

}  // namespace dossier::cli
