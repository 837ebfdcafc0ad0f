// Markdown sections for the software (CUDA toolkits, Python environments and their inference
// packages, environment variables) and for each inference server with the model it serves.
// The NVIDIA driver line belongs to the GPU section.
#include <fmt/format.h>

#include <set>

#include "analyze/model_size.h"
#include "render/markdown.h"
#include "render/md_util.h"

namespace dossier {
namespace {

constexpr size_t kModulesShown = 12;

std::string Code(const std::string& s) {
  return md::Code(s);
}

void EnvTable(const std::map<std::string, std::string>& env, std::string* out) {
  md::Table t({"variable", "value"});
  for (const auto& [k, v] : env) t.Row({Code(k), Code(v)});
  *out += t.Render();
}

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& a : argv) {
    bool quote = a.empty() || a.find_first_of(" \t'\"\\$") != std::string::npos;
    std::string w = quote ? "'" + a + "'" : a;
    line += (line.empty() ? "" : " ") + w;
  }
  return line;
}

std::string Modules(const Fact<std::vector<std::string>>& f) {
  if (!f.known()) return md::Cell(f);
  const auto& v = *f;
  if (v.empty()) return "none";
  std::string out;
  for (size_t i = 0; i < v.size() && i < kModulesShown; ++i)
    out += (out.empty() ? "" : ", ") + Code(v[i]);
  if (v.size() > kModulesShown) out += fmt::format(" … and {} more", v.size() - kModulesShown);
  return out;
}

void ModelTable(const ModelConfig& mc, std::string* out) {
  md::FactTable t;
  t.Add("Model path", mc.path);
  t.Add("config.json", mc.config_file);
  t.Add("Architecture", mc.architecture);
  t.Add("Model type", mc.model_type);
  t.Add("Layers", mc.layers);
  t.Add("Hidden size", mc.hidden_size);
  t.Add("Attention heads", mc.heads);
  t.Add("KV heads", mc.kv_heads);
  t.Add("Experts, routed", mc.routed_experts);
  t.Add("Experts, shared", mc.shared_experts);
  t.Add("Experts, active per token", mc.active_experts);
  t.Add("Dtype", mc.dtype);
  // The parameter count from the shape (analyze/model_size.h): what the model card calls "744B
  // total, 40B active".
  if (ModelSize size = ComputeModelSize(mc); size.total_params) {
    std::string v = ParamsText(*size.total_params) + " total";
    if (size.active_params && *size.active_params != *size.total_params)
      v += ", " + ParamsText(*size.active_params) + " active per token";
    if (mc.mtp_layers.known() && *mc.mtp_layers > 0)
      v += fmt::format(" (without {} multi-token-prediction layer{})", *mc.mtp_layers,
                       *mc.mtp_layers == 1 ? "" : "s");
    t.AddText("Parameters", md::Escape(v), Code(mc.config_file.value_or("config.json")));
  }
  if (mc.weights_bytes.known()) {
    t.AddText("Weights", md::Bytes(*mc.weights_bytes), md::Source(mc.weights_bytes));
  } else {
    t.Add("Weights", mc.weights_bytes);
  }
  const ModelQuantization& q = mc.quantization;
  t.Add("Quantization method", q.method);
  t.Add("Quantization algorithm", q.algorithm);
  if (q.layer_algorithms.known()) t.Add("Algorithms by module", q.layer_algorithms);
  t.AddText("Excluded from quantization", Modules(q.excluded_modules),
            md::Source(q.excluded_modules));
  t.Add("Attention left unquantized", q.attention_excluded);
  t.Add("KV cache quantization", q.kv_cache_algorithm);
  t.Add("Group size", q.group_size);
  *out += t.Render();
}

void ServerSection(const Server& s, std::string* out) {
  *out += fmt::format("#### {} server, pid {}\n\n", md::Escape(s.engine), s.pid);
  md::FactTable t;
  t.AddText("Engine", md::Escape(s.engine),
            s.detected_by.empty() ? "" : "matched " + Code(s.detected_by));
  t.Add("Executable", s.exe);
  t.Add("Python", s.python);
  t.Add("Python environment", s.python_env);
  t.Add("Working directory", s.cwd);
  if (!s.fs_root.empty())
    t.AddText("Files read under", Code(s.fs_root), "another mount namespace (a container)");
  if (s.worker_pids.known()) {
    t.AddText("Worker processes",
              s.worker_pids->empty()
                  ? "none found"
                  : fmt::format("{} ({})", s.worker_pids->size(), md::Str(*s.worker_pids)),
              md::Source(s.worker_pids));
  }
  t.Add("Environment read", s.env_read);
  *out += t.Render();
  *out += "\nCommand line (secrets redacted):\n\n" + md::CodeBlock(CommandLine(s.argv)) + "\n";
  if (!s.flags.empty()) {
    md::Table f({"flag", "value"});
    for (const auto& [k, v] : s.flags) f.Row({Code(k), Code(v)});
    *out += f.Render() + "\n";
  }
  *out += "Model:\n\n";
  ModelTable(s.model, out);
  if (!s.env.empty()) {
    *out += "\nEnvironment variables that matter (secrets redacted):\n\n";
    EnvTable(s.env, out);
  }
  *out += "\n";
}

void CudaPart(const SoftwareInfo& sw, const Coverage& c, std::string* out) {
  if (std::string s = md::NotPastedText(c, Family::kCuda); !s.empty()) {
    *out += s + "\n\n";
    return;
  }
  if (sw.cuda_toolkits.empty()) {
    *out += "No CUDA toolkit found (/usr/local/cuda*, /opt/cuda*, /usr/lib/cuda).\n";
  } else {
    md::Table t({"CUDA toolkit", "version", "also named", "source"});
    for (const auto& tk : sw.cuda_toolkits) {
      std::string aliases;
      for (const auto& a : tk.aliases) aliases += (aliases.empty() ? "" : ", ") + Code(a);
      t.Row({Code(tk.path), md::Cell(tk.version), aliases.empty() ? "-" : aliases,
             md::Source(tk.version)});
    }
    *out += t.Render();
  }
  *out += "\n`/usr/local/cuda` points to: " + md::Cell(sw.cuda_default) + "\n\n";
}

// The environments (E1, E2…), then one table of packages with a column per environment, so
// versions can be compared across them.
void PythonPart(const std::vector<PythonEnv>& envs, const Coverage& c, std::string* out) {
  if (std::string s = md::NotPastedText(c, Family::kPython); !s.empty()) {
    *out += s + "\n";
    return;
  }
  if (envs.empty()) {
    *out += "No Python environment read (none used by a server, no --venv, no $VIRTUAL_ENV).\n";
    return;
  }
  *out += "Python environments:\n\n";
  md::Table e({"env", "path", "kind", "Python", "why read"});
  for (size_t i = 0; i < envs.size(); ++i) {
    const auto& pe = envs[i];
    std::string path = Code(pe.path);
    if (!pe.fs_root.empty()) path += " under " + Code(pe.fs_root);
    e.Row({fmt::format("E{}", i + 1), path, md::Escape(pe.kind), md::Cell(pe.python_version),
           md::Escape(pe.origin)});
  }
  *out += e.Render() + "\n";
  std::set<std::string> names;
  for (const auto& pe : envs)
    for (const auto& [n, v] : pe.packages) names.insert(n);
  std::vector<std::string> header = {"package"};
  for (size_t i = 0; i < envs.size(); ++i) header.push_back(fmt::format("E{}", i + 1));
  md::Table p(header);
  for (const auto& n : names) {
    std::vector<std::string> row = {Code(n)};
    for (const auto& pe : envs) {
      auto it = pe.packages.find(n);
      row.push_back(it == pe.packages.end() ? "-" : md::Escape(it->second));
    }
    p.Row(std::move(row));
  }
  if (p.empty()) {
    *out += "No inference package found in these environments.\n";
  } else {
    *out += p.Render();
    *out += "\nVersions from the dist-info METADATA (or egg-info PKG-INFO) headers.\n";
  }
  std::string problems;
  for (size_t i = 0; i < envs.size(); ++i)
    for (const auto& pr : envs[i].problems)
      problems += fmt::format("- E{}: {}\n", i + 1, md::Escape(pr));
  if (!problems.empty()) *out += "\nWhat could not be read:\n\n" + problems;
}

}  // namespace

void MdSoftware(const MachineView& mv, std::string* out) {
  const SoftwareInfo& sw = mv.machine.software;
  CudaPart(sw, mv.coverage, out);
  PythonPart(sw.python_envs, mv.coverage, out);
  *out += "\n";
  if (std::string s = md::NotPastedText(mv.coverage, Family::kEnv); !s.empty()) {
    *out += s + "\n";
  } else if (sw.env.empty()) {
    *out +=
        "No environment variables of the caller recorded (a captured tree, or none of "
        "NCCL_*, CUDA_*, TORCH_*, SGLANG_*, VLLM_*, HF_*… was set).\n";
  } else {
    *out += "Environment variables of the caller that matter (secrets redacted):\n\n";
    EnvTable(sw.env, out);
  }
}

void MdServers(const MachineView& mv, std::string* out) {
  const auto& servers = mv.machine.servers;
  if (std::string s = md::NotPastedText(mv.coverage, Family::kServers); !s.empty()) {
    *out += s + "\n";
    return;
  }
  if (servers.empty()) {
    *out += "No inference server process found (SGLang, vLLM, TensorRT-LLM, llama.cpp, TGI).\n";
    return;
  }
  for (const auto& s : servers) ServerSection(s, out);
}

}  // namespace dossier
