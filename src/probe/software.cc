// Software: the CUDA toolkits installed (and which one /usr/local/cuda names), the caller's
// environment variables that matter for inference, and the Python environments (python_envs.cc).
// The NVIDIA driver version is the GPU probe's.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "probe/inference_env.h"
#include "probe/json_file.h"
#include "probe/probe.h"
#include "probe/python_envs.h"
#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {
namespace {

// include/cuda.h: "#define CUDA_VERSION 12080" (major * 1000 + minor * 10) -> "12.8". The last
// resort, for toolkits assembled from pip wheels that ship no version.json.
bool ReadCudaHeaderVersion(const RootFs& fs, const std::string& dir, Fact<std::string>* out) {
  std::string path = JoinPath(dir, "include/cuda.h");
  auto text = fs.ReadPrefix(path, 256 << 10);
  if (!text) return false;
  int line_no = 0;
  for (std::string_view line : SplitLines(*text)) {
    ++line_no;
    constexpr std::string_view kDefine = "#define CUDA_VERSION ";
    if (!line.starts_with(kDefine)) continue;
    auto n = ParseInt(Trim(line.substr(kDefine.size())));
    if (!n || *n < 1000 || *n > 1000000) return false;
    out->Set(std::to_string(*n / 1000) + "." + std::to_string(*n % 1000 / 10),
             path + ":" + std::to_string(line_no));
    return true;
  }
  return false;
}

// version.json (CUDA 11.1 and later): {"cuda": {"name": "CUDA SDK", "version": "12.8.1"}, ...}.
// version.txt (before): "CUDA Version 11.0.228". Else include/cuda.h (major.minor only).
void ReadToolkitVersion(const RootFs& fs, const std::string& dir, Fact<std::string>* out) {
  std::string json_path = JoinPath(dir, "version.json");
  auto j = ReadJsonFile(fs, json_path, 1 << 20);
  if (j) {
    const nlohmann::json* v = nullptr;
    if (j->is_object() && j->contains("cuda") && (*j)["cuda"].is_object() &&
        (*j)["cuda"].contains("version"))
      v = &(*j)["cuda"]["version"];
    if (v && v->is_string()) return out->Set(Printable(v->get<std::string>(), 40), json_path);
    return out->Unknown("no cuda.version string", json_path);
  }
  if (j.error().kind != Error::kNotFound) return out->Unknown(ReasonFor(j.error()), json_path);
  std::string txt_path = JoinPath(dir, "version.txt");
  auto txt = fs.ReadValue(txt_path);
  if (!txt) {
    if (ReadCudaHeaderVersion(fs, dir, out)) return;
    return out->Unknown("no version.json, version.txt or CUDA_VERSION in include/cuda.h", dir);
  }
  constexpr std::string_view kPrefix = "CUDA Version ";
  std::string_view line = *txt;
  if (!line.starts_with(kPrefix) || Trim(line.substr(kPrefix.size())).empty())
    return out->Unknown("not 'CUDA Version X': '" + Printable(line, 40) + "'", txt_path);
  out->Set(Printable(Trim(line.substr(kPrefix.size())), 40), txt_path + ":1");
}

void ProbeCudaToolkits(const ProbeContext& ctx, SoftwareInfo* sw) {
  const RootFs& fs = ctx.fs;
  std::vector<std::string> candidates;
  for (const char* parent : {"/usr/local", "/opt"}) {
    auto names = fs.List(parent);
    if (!names) continue;
    for (const auto& n : *names)
      if (n == "cuda" || n.starts_with("cuda-")) candidates.push_back(JoinPath(parent, n));
  }
  candidates.push_back("/usr/lib/cuda");  // Debian's nvidia-cuda-toolkit
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    auto it = ctx.options.caller_env.find(var);
    if (it != ctx.options.caller_env.end() && it->second.starts_with('/'))
      candidates.push_back(it->second);
  }
  for (const auto& c : candidates) {
    if (!fs.IsDir(c)) continue;  // a dangling link, or a file named cuda-something
    auto resolved = fs.Resolve(c);
    std::string real = resolved ? *resolved : c;
    auto it = std::find_if(sw->cuda_toolkits.begin(), sw->cuda_toolkits.end(),
                           [&](const CudaToolkit& t) { return t.path == real; });
    if (it == sw->cuda_toolkits.end()) {
      CudaToolkit t;
      t.path = real;
      ReadToolkitVersion(fs, real, &t.version);
      sw->cuda_toolkits.push_back(std::move(t));
      it = sw->cuda_toolkits.end() - 1;
    }
    if (c != real && std::find(it->aliases.begin(), it->aliases.end(), c) == it->aliases.end())
      it->aliases.push_back(c);
  }
  std::sort(sw->cuda_toolkits.begin(), sw->cuda_toolkits.end(),
            [](const CudaToolkit& a, const CudaToolkit& b) { return a.path < b.path; });
  if (fs.IsDir("/usr/local/cuda")) {
    auto r = fs.Resolve("/usr/local/cuda");
    if (r) {
      sw->cuda_default.Set(*r, "/usr/local/cuda");
    } else {
      sw->cuda_default.Unknown(ReasonFor(r.error()), "/usr/local/cuda");
    }
  } else if (auto target = fs.ReadLink("/usr/local/cuda")) {
    sw->cuda_default.Unknown("link to " + *target + ", which is absent", "/usr/local/cuda");
  } else {
    sw->cuda_default.Unknown(
        fs.Exists("/usr/local/cuda") ? "not a directory" : "no /usr/local/cuda", "/usr/local/cuda");
  }
}

}  // namespace

void ProbeSoftware(const ProbeContext& ctx, Machine* m) {
  ProbeCudaToolkits(ctx, &m->software);
  // Only a live collect fills caller_env: a captured tree's caller is not that machine's user.
  m->software.env = InferenceEnv(ctx.options.caller_env);
  ProbePythonEnvs(ctx, m);
}

}  // namespace dossier
