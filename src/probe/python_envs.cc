#include "probe/python_envs.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <set>

#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {
namespace {

// The packages that matter for inference, by PEP 503 name; whole families by prefix.
constexpr std::array<std::string_view, 35> kPackages = {"torch",
                                                        "triton",
                                                        "pytorch-triton",
                                                        "transformers",
                                                        "sglang",
                                                        "sgl-kernel",
                                                        "sglang-router",
                                                        "vllm",
                                                        "flashinfer",
                                                        "flashinfer-python",
                                                        "tensorrt-llm",
                                                        "tensorrt",
                                                        "nccl",
                                                        "numpy",
                                                        "xformers",
                                                        "flash-attn",
                                                        "flash-attn-3",
                                                        "accelerate",
                                                        "deepspeed",
                                                        "safetensors",
                                                        "cuda-python",
                                                        "cuda-bindings",
                                                        "nvidia-ml-py",
                                                        "pynvml",
                                                        "ray",
                                                        "llama-cpp-python",
                                                        "torchvision",
                                                        "torchaudio",
                                                        "huggingface-hub",
                                                        "tokenizers",
                                                        "compressed-tensors",
                                                        "torchao",
                                                        "deep-gemm",
                                                        "deep-ep",
                                                        "xgrammar"};
constexpr std::array<std::string_view, 3> kPackagePrefixes = {"nvidia-", "flashinfer-",
                                                              "tensorrt-"};

// Bounds for hostile or huge trees: entries listed per site directory, header bytes per file.
constexpr size_t kMaxSiteEntries = 50000;
constexpr size_t kMaxHeaderBytes = 64 << 10;
constexpr size_t kMaxHeaderValue = 200;

bool StartsWithCi(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && ToLower(s.substr(0, p.size())) == p;
}

// A header value we keep: short printable ASCII (names and PEP 440 versions are ASCII).
std::optional<std::string> CleanValue(std::string_view v) {
  v = Trim(v);
  if (v.empty() || v.size() > kMaxHeaderValue) return std::nullopt;
  for (unsigned char c : v)
    if (c < 0x20 || c >= 0x7f) return std::nullopt;
  return std::string(v);
}

// "/opt/venv/bin/python3.12" -> "/opt/venv"; nullopt when the file is not in a bin directory.
std::optional<std::string> PrefixOfBin(std::string_view path) {
  if (path.empty() || path[0] != '/') return std::nullopt;
  std::string_view dir = DirName(path);
  if (BaseName(dir) != "bin") return std::nullopt;
  return std::string(DirName(dir));
}

bool IsEnvPrefix(const RootFs& fs, const std::string& prefix) {
  return fs.Exists(JoinPath(prefix, "pyvenv.cfg")) || fs.IsDir(JoinPath(prefix, "conda-meta"));
}

// pyvenv.cfg: "key = value" lines (venv, virtualenv and uv all write this shape).
void ReadPyvenvCfg(const std::string& path, std::string_view text, PythonEnv* e) {
  int line_no = 0;
  for (std::string_view line : SplitLines(text)) {
    ++line_no;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key = ToLower(Trim(line.substr(0, eq)));
    auto value = CleanValue(line.substr(eq + 1));
    std::string src = path + ":" + std::to_string(line_no);
    if (!value) continue;
    if (key == "home") e->home.Set(*value, src);
    // "version" (venv) or "version_info" (uv, virtualenv: "3.12.3.final.0").
    if ((key == "version" || key == "version_info") && !e->python_version.known()) {
      std::string v = *value;
      if (size_t f = v.find(".final"); f != std::string::npos) v.resize(f);
      e->python_version.Set(v, src);
    }
  }
}

// The site directories of a prefix: lib*/python3*/{site,dist}-packages, plus for /usr the
// /usr/local tree where Debian's pip installs. Fills `versions` with the X.Y of lib/pythonX.Y.
std::vector<std::string> SiteDirs(const RootFs& fs, const std::string& prefix,
                                  std::vector<std::string>* versions) {
  std::vector<std::string> out;
  std::set<std::string> resolved_seen;
  auto scan = [&](const std::string& prefix_dir) {
    for (const char* lib : {"lib", "lib64"}) {
      std::string lib_dir = JoinPath(prefix_dir, lib);
      auto names = fs.List(lib_dir);
      if (!names) continue;
      for (const auto& n : *names) {
        if (!n.starts_with("python3")) continue;
        if (n.starts_with("python3.") &&
            std::find(versions->begin(), versions->end(), n.substr(6)) == versions->end())
          versions->push_back(n.substr(6));
        for (const char* sub : {"site-packages", "dist-packages"}) {
          std::string d = JoinPath(JoinPath(lib_dir, n), sub);
          if (!fs.IsDir(d)) continue;
          auto r = fs.Resolve(d);  // lib64 is often a link to lib
          if (!resolved_seen.insert(r ? *r : d).second) continue;
          out.push_back(d);
        }
      }
    }
  };
  scan(prefix);
  if (prefix == "/usr") scan("/usr/local");
  return out;
}

// The METADATA / PKG-INFO of one dist-info or egg-info entry.
std::string HeaderFile(const RootFs& fs, const std::string& entry) {
  if (entry.ends_with(".dist-info")) return JoinPath(entry, "METADATA");
  if (fs.IsDir(entry)) return JoinPath(entry, "PKG-INFO");
  return entry;  // an egg-info file is the PKG-INFO itself
}

void ReadSiteDir(const RootFs& fs, const std::string& dir, PythonEnv* e,
                 std::map<std::string, std::string>* where) {
  auto names = fs.List(dir);
  if (!names) {
    e->problems.push_back(dir + ": " + ReasonFor(names.error()));
    return;
  }
  if (names->size() > kMaxSiteEntries) {
    e->problems.push_back(dir + ": " + std::to_string(names->size()) + " entries, only the first " +
                          std::to_string(kMaxSiteEntries) + " read");
    names->resize(kMaxSiteEntries);
  }
  for (const auto& n : *names) {
    if (!n.ends_with(".dist-info") && !n.ends_with(".egg-info")) continue;
    PackageHeader from_dir = ParseDistDirName(n);
    if (!from_dir.name || !IsInferencePackage(NormalizePackageName(*from_dir.name))) continue;
    std::string entry = JoinPath(dir, n);
    std::string file = HeaderFile(fs, entry);
    auto text = fs.ReadPrefix(file, kMaxHeaderBytes);
    PackageHeader h;
    if (text) {
      h = ParsePackageHeader(*text);
    } else {
      e->problems.push_back(file + ": " + ReasonFor(text.error()));
    }
    std::string name = NormalizePackageName(h.name ? *h.name : *from_dir.name);
    if (!IsInferencePackage(name)) continue;
    std::string version;
    if (h.version) {
      version = *h.version;
    } else if (from_dir.version) {
      version = *from_dir.version;
      if (text) e->problems.push_back(file + ": no Version header; version taken from " + n);
    } else {
      e->problems.push_back(file + ": no Version header and none in the directory name; " + name +
                            " left out");
      continue;
    }
    auto [it, fresh] = e->packages.emplace(name, version);
    if (fresh) {
      (*where)[name] = entry;
    } else if (it->second != version) {
      e->problems.push_back(name + ": two versions installed, " + it->second + " (" +
                            (*where)[name] + ") and " + version + " (" + entry +
                            "); the first is listed");
    }
  }
}

}  // namespace

RootFs FsUnder(const RootFs& fs, const std::string& fs_root) {
  if (fs_root.empty()) return fs;
  // Live, /proc/PID/root is the kernel's magic link: following it on this machine is the way
  // into the process's mount namespace. In a captured tree it is an ordinary link, and one to
  // "/" means the tree's root: resolved under the root, or the host path would lead the kernel
  // out of the tree to the files of the machine running dossier.
  if (fs.live()) return RootFs(fs.HostPath(fs_root));
  auto inside = fs.Resolve(fs_root);
  if (!inside) return RootFs(fs.HostPath("/.dossier-unresolvable-root"));  // reads find nothing
  return RootFs(fs.HostPath(*inside));
}

std::string NormalizePackageName(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (out.empty() || out.back() != '-') out += '-';
    } else {
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
  }
  return out;
}

bool IsInferencePackage(std::string_view n) {
  for (auto p : kPackages)
    if (n == p) return true;
  for (auto p : kPackagePrefixes)
    if (n.starts_with(p)) return true;
  return false;
}

PackageHeader ParsePackageHeader(std::string_view text) {
  PackageHeader h;
  for (std::string_view line : SplitLines(text)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;                          // end of the headers; the README follows
    if (line[0] == ' ' || line[0] == '\t') continue;  // a continuation line
    if (StartsWithCi(line, "name:") && !h.name) h.name = CleanValue(line.substr(5));
    if (StartsWithCi(line, "version:") && !h.version) h.version = CleanValue(line.substr(8));
  }
  return h;
}

PackageHeader ParseDistDirName(std::string_view n) {
  PackageHeader h;
  if (n.ends_with(".dist-info")) {
    n.remove_suffix(10);
  } else if (n.ends_with(".egg-info")) {
    n.remove_suffix(9);
  } else {
    return h;
  }
  // Distribution names in these directory names have '-' escaped to '_', so the first '-'
  // separates the version ("torch-2.9.1", "foo-1.0-py3.12").
  size_t dash = n.find('-');
  h.name = CleanValue(n.substr(0, dash));
  if (dash != std::string_view::npos) {
    std::string_view rest = n.substr(dash + 1);
    h.version = CleanValue(rest.substr(0, rest.find('-')));
  }
  return h;
}

PythonEnv ReadPythonEnv(const RootFs& fs, const std::string& prefix, const std::string& origin) {
  PythonEnv e;
  e.path = prefix;
  e.origin = origin;
  if (!fs.IsDir(prefix)) {
    std::string why = fs.Exists(prefix) ? "not a directory" : "directory absent";
    e.kind = "unknown";
    e.python_version.Unknown(why, prefix);
    e.home.Unknown(why, prefix);
    e.problems.push_back(prefix + ": " + why);
    return e;
  }
  std::string cfg = JoinPath(prefix, "pyvenv.cfg");
  auto text = fs.Read(cfg, 64 << 10);
  if (text) {
    e.kind = "venv";
    ReadPyvenvCfg(cfg, *text, &e);
    if (!e.home.known()) e.home.Unknown("no home line", cfg);
  } else {
    e.kind = fs.IsDir(JoinPath(prefix, "conda-meta")) ? "conda" : "system";
    e.home.Unknown("not a venv (no pyvenv.cfg)", cfg);
  }
  std::vector<std::string> versions;
  e.site_dirs = SiteDirs(fs, prefix, &versions);
  if (!e.python_version.known()) {
    std::string lib = JoinPath(prefix, "lib");
    if (versions.size() == 1) {
      e.python_version.Set(versions[0], JoinPath(lib, "python" + versions[0]));
    } else if (versions.empty()) {
      e.python_version.Unknown("no lib/python3.* directory", lib);
    } else {
      std::string all;
      for (const auto& v : versions) all += (all.empty() ? "" : ", ") + v;
      e.python_version.Unknown("several lib/python3.* directories: " + all, lib);
    }
  }
  if (e.site_dirs.empty()) {
    e.problems.push_back(prefix + ": no lib/python3*/site-packages or dist-packages directory");
  }
  std::map<std::string, std::string> where;
  for (const auto& d : e.site_dirs) ReadSiteDir(fs, d, &e, &where);
  return e;
}

Fact<std::string> LocateEnv(const RootFs& fs, const ProcessPython& p) {
  Fact<std::string> f;
  std::string proc = "/proc/" + p.pid;
  auto env_prefix = [&](std::string_view path) -> std::optional<std::string> {
    auto prefix = PrefixOfBin(path);
    if (prefix && IsEnvPrefix(fs, *prefix)) return prefix;
    return std::nullopt;
  };
  if (auto e = env_prefix(p.exe)) {
    f.Set(*e, proc + "/exe");
    return f;
  }
  if (p.argv0.starts_with('/') || (p.argv0.find('/') != std::string::npos && !p.cwd.empty())) {
    std::string path = std::filesystem::path(JoinPath(p.cwd, p.argv0)).lexically_normal().string();
    if (auto e = env_prefix(path)) {
      f.Set(*e, proc + (p.argv0.starts_with('/') ? "/cmdline" : "/cmdline and cwd"));
      return f;
    }
  } else if (!p.argv0.empty() && p.argv0.find('/') == std::string::npos) {
    // A bare "python3": the first PATH directory holding it is the one that ran.
    auto path = p.environ.find("PATH");
    if (path != p.environ.end()) {
      int tried = 0;
      for (std::string_view dir : Split(path->second, ':')) {
        if (dir.empty() || dir[0] != '/' || ++tried > 64) continue;
        std::string cand = JoinPath(dir, p.argv0);
        if (!fs.Exists(cand)) continue;
        if (auto e = env_prefix(cand)) {
          f.Set(*e, proc + "/environ (PATH)");
          return f;
        }
        break;
      }
    }
  }
  if (p.argv1.starts_with('/')) {  // a console script run through its shebang
    if (auto e = env_prefix(p.argv1)) {
      f.Set(*e, proc + "/cmdline");
      return f;
    }
  }
  auto venv = p.environ.find("VIRTUAL_ENV");
  if (venv != p.environ.end() && !venv->second.empty() && fs.IsDir(venv->second)) {
    f.Set(venv->second, proc + "/environ (VIRTUAL_ENV)");
    return f;
  }
  if (BaseName(p.exe).starts_with("python")) {
    if (auto prefix = PrefixOfBin(p.exe)) {
      f.Set(*prefix, proc + "/exe");
      return f;
    }
  }
  f.Unknown(p.exe.empty() ? "interpreter unknown" : "no environment found for " + p.exe,
            proc + "/exe");
  return f;
}

void ProbePythonEnvs(const ProbeContext& ctx, Machine* m) {
  struct Want {
    std::string fs_root, prefix, origin;
  };
  std::vector<Want> wants;
  for (const auto& s : m->servers)
    if (s.python_env.known())
      wants.push_back({s.fs_root, *s.python_env, "server pid " + std::to_string(s.pid)});
  for (const auto& v : ctx.options.venvs) {
    // Accept the interpreter too (--venv /opt/venv/bin/python3).
    auto prefix = BaseName(v).starts_with("python") ? PrefixOfBin(v) : std::nullopt;
    wants.push_back({"", prefix ? *prefix : v, "--venv"});
  }
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    auto it = ctx.options.caller_env.find(var);
    if (it != ctx.options.caller_env.end() && !it->second.empty())
      wants.push_back({"", it->second, std::string("$") + var});
  }
  // Dedupe by (root, resolved path); origins of one environment are joined.
  std::vector<std::pair<std::string, Want>> unique;  // key -> want
  for (auto& w : wants) {
    while (w.prefix.size() > 1 && w.prefix.back() == '/') w.prefix.pop_back();
    auto r = FsUnder(ctx.fs, w.fs_root).Resolve(w.prefix);
    std::string key = w.fs_root + "\n" + (r ? *r : w.prefix);
    auto it = std::find_if(unique.begin(), unique.end(), [&](auto& u) { return u.first == key; });
    if (it == unique.end()) {
      unique.emplace_back(key, w);
    } else if (it->second.origin.find(w.origin) == std::string::npos) {
      it->second.origin += ", " + w.origin;
    }
  }
  for (const auto& [key, w] : unique) {
    PythonEnv e = ReadPythonEnv(FsUnder(ctx.fs, w.fs_root), w.prefix, w.origin);
    e.fs_root = w.fs_root;
    if (ctx.log) {
      ctx.log->push_back("python env " + e.path + " (" + e.origin +
                         "): " + std::to_string(e.packages.size()) + " inference packages");
    }
    m->software.python_envs.push_back(std::move(e));
  }
}

}  // namespace dossier
