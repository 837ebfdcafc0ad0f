// Inference servers: every process whose command line launches an engine of the table in
// server_cmdline.cc, reported once (the workers an engine spawns are listed under it, not as
// servers), with its redacted argv and flags, interpreter and Python environment, the variables
// of its environment that matter (redacted), and the model it serves (model_config.cc).
//
// Another user's /proc/PID/environ, exe and cwd need root: those facts are unknown with that
// reason and the rest is still reported.
#include <algorithm>
#include <set>

#include "probe/inference_env.h"
#include "probe/model_config.h"
#include "probe/nccl_topo_file.h"
#include "probe/probe.h"
#include "probe/python_envs.h"
#include "probe/read_fact.h"
#include "probe/server_cmdline.h"
#include "util/redact.h"
#include "util/text.h"

namespace dossier {
namespace {

constexpr size_t kMaxProcs = 1 << 17;    // processes looked at
constexpr size_t kMaxCmdline = 1 << 20;  // bytes of a command line read
constexpr size_t kMaxEnviron = 1 << 20;  // bytes of an environment read
constexpr int kMaxDepth = 128;           // ancestors walked
constexpr size_t kMaxServers = 256;      // servers reported

struct Candidate {
  std::vector<std::string> argv;
  std::optional<EngineMatch> match;    // a launch form of the table
  std::optional<std::string> renamed;  // a worker renamed by setproctitle: its engine
};

class ProcessTree {
 public:
  explicit ProcessTree(const RootFs& fs) : fs_(fs) {}
  std::optional<int64_t> Parent(int64_t pid) {
    auto it = cache_.find(pid);
    if (it != cache_.end()) return it->second;
    std::optional<int64_t> ppid;
    if (auto stat = fs_.ReadPrefix("/proc/" + std::to_string(pid) + "/stat", 4096))
      ppid = ParseStatPpid(*stat);
    cache_[pid] = ppid;
    return ppid;
  }
  // Parent, grandparent… up to pid 1 (excluded), bounded against loops in a captured tree.
  std::vector<int64_t> Ancestors(int64_t start) {
    std::vector<int64_t> out;
    int64_t pid = start;
    for (int d = 0; d < kMaxDepth; ++d) {
      auto p = Parent(pid);
      if (!p || *p <= 1 || *p == start || std::find(out.begin(), out.end(), *p) != out.end()) break;
      out.push_back(*p);
      pid = *p;
    }
    return out;
  }

 private:
  const RootFs& fs_;
  std::map<int64_t, std::optional<int64_t>> cache_;
};

// "" when the process sees our mount namespace, else "/proc/PID/root": a container, whose paths
// (exe, model, venv) mean something only under that link.
std::string FsRootOf(const RootFs& fs, const std::string& proc) {
  auto theirs = fs.ReadLink(proc + "/ns/mnt");
  auto ours = fs.ReadLink("/proc/self/ns/mnt");
  if (theirs && ours && *theirs != *ours && fs.IsDir(proc + "/root")) return proc + "/root";
  return {};
}

// HOME of the process's user from /etc/passwd (its own, under its root), for when its environ
// is unreadable: the Hugging Face cache lives there.
std::string HomeOfUser(const RootFs& fs, const RootFs& sfs, const std::string& proc) {
  auto status = fs.Read(proc + "/status", 64 << 10);
  if (!status) return {};
  std::string uid;
  for (std::string_view line : SplitLines(*status)) {
    if (!line.starts_with("Uid:")) continue;
    auto f = SplitAny(line.substr(4), " \t");
    if (!f.empty()) uid = std::string(f[0]);
    break;
  }
  if (uid.empty()) return {};
  auto passwd = sfs.Read("/etc/passwd", 4 << 20);
  if (!passwd) return {};
  for (std::string_view line : SplitLines(*passwd)) {
    auto f = Split(line, ':');
    if (f.size() >= 6 && f[2] == uid && f[5].starts_with('/')) return std::string(f[5]);
  }
  return {};
}

// exe and python from /proc/PID/exe; returns the interpreter path with " (deleted)" (a binary
// replaced since the process started) stripped, "" when unreadable.
std::string ReadExecutable(const RootFs& fs, const std::string& proc, Server* s) {
  auto exe = fs.ReadLink(proc + "/exe");
  if (!exe) {
    s->exe.Unknown(ReasonFor(exe.error()), proc + "/exe");
    s->python.Unknown(ReasonFor(exe.error()), proc + "/exe");
    return {};
  }
  s->exe.Set(*exe, proc + "/exe");
  std::string path = *exe;
  if (path.ends_with(" (deleted)")) path.resize(path.size() - 10);
  if (BaseName(path).starts_with("python")) {
    s->python.Set(*exe, proc + "/exe");
  } else {
    s->python.Unknown("not a Python process (" + std::string(BaseName(path)) + ")", proc + "/exe");
  }
  return path;
}

// Where to look for the model: the argument, the working directory, the variables that place
// the Hugging Face cache, and HOME (from /etc/passwd when the environment is unreadable).
ModelLocation LocationOf(const RootFs& fs, const RootFs& sfs, const std::string& proc,
                         const std::string& engine, const ParsedArgs& args, const Server& s,
                         const std::map<std::string, std::string>& environ) {
  ModelLocation loc;
  if (auto ma = ModelArgument(engine, args)) {
    loc.given = ma->value;
    loc.from = ma->from;
  }
  loc.cwd = s.cwd.value_or("");
  for (const char* k :
       {"HOME", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "XDG_CACHE_HOME"}) {
    auto it = environ.find(k);
    if (it != environ.end()) loc.env[k] = it->second;
  }
  if (!loc.env.count("HOME")) {
    std::string home = HomeOfUser(fs, sfs, proc);
    if (!home.empty()) loc.env["HOME"] = home;
  }
  if (auto r = args.flags.find("--revision"); r != args.flags.end()) loc.revision = r->second;
  loc.cmdline = proc + "/cmdline";
  return loc;
}

Server BuildServer(const ProbeContext& ctx, int64_t pid, const std::vector<std::string>& raw,
                   const std::string& engine, const std::string& detected_by, size_t args_begin,
                   bool positional_model, std::vector<int64_t> workers) {
  const RootFs& fs = ctx.fs;
  std::string proc = "/proc/" + std::to_string(pid);
  Server s;
  s.pid = pid;
  s.engine = engine;
  s.detected_by = detected_by;
  s.argv = RedactArgv(raw);
  ParsedArgs args = ParseServerArgs(s.argv, args_begin, positional_model);
  s.flags = args.flags;
  std::string exe_path = ReadExecutable(fs, proc, &s);
  s.fs_root = FsRootOf(fs, proc);
  RootFs sfs = FsUnder(fs, s.fs_root);
  if (auto cwd = fs.ReadLink(proc + "/cwd")) {
    s.cwd.Set(*cwd, proc + "/cwd");
  } else {
    s.cwd.Unknown(ReasonFor(cwd.error()), proc + "/cwd");
  }
  std::map<std::string, std::string> environ;  // unredacted: used here, never stored
  if (auto data = fs.ReadPrefix(proc + "/environ", kMaxEnviron)) {
    environ = ParseEnviron(*data);
    s.env = InferenceEnv(environ);
    s.env_read.Set(true, proc + "/environ");
  } else {
    s.env_read.Unknown(ReasonFor(data.error()), proc + "/environ");
  }
  if (s.python.known()) {
    ProcessPython pp{
        exe_path, raw.empty() ? "" : raw[0], raw.size() > 1 ? raw[1] : "", s.cwd.value_or(""),
        environ,  std::to_string(pid)};
    s.python_env = LocateEnv(sfs, pp);
  } else {
    s.python_env.Unknown(s.python.unknown, proc + "/exe");
  }
  s.model = ReadServedModel(sfs, LocationOf(fs, sfs, proc, engine, args, s, environ));
  // The topology file NCCL will read, as the server sees it (its root, its working directory).
  s.nccl_topo = ReadNcclTopoFile(sfs, environ, s.cwd.value_or(""), proc + "/environ");
  if (!s.env_read.value_or(false)) s.nccl_topo.file.Unknown(s.env_read.unknown, proc + "/environ");
  std::sort(workers.begin(), workers.end());
  s.worker_pids.Set(std::move(workers), "/proc/*/stat (descendants of the same engine)");
  return s;
}

// Every process whose command line is a launch form of the table or a renamed worker.
std::map<int64_t, Candidate> ScanProcesses(const ProbeContext& ctx,
                                           const std::vector<std::string>& names) {
  std::map<int64_t, Candidate> cands;
  size_t scanned = 0;
  for (const auto& n : names) {
    auto pid = ParseInt(n);
    if (!pid || *pid <= 0) continue;
    if (++scanned > kMaxProcs) {
      if (ctx.log)
        ctx.log->push_back("servers: more than " + std::to_string(kMaxProcs) +
                           " processes; the rest not looked at");
      break;
    }
    auto data = ctx.fs.ReadPrefix("/proc/" + n + "/cmdline", kMaxCmdline);
    if (!data || data->empty()) continue;  // kernel threads, zombies, vanished processes
    Candidate c;
    c.argv = SplitNul(*data);
    c.match = DetectEngine(c.argv);
    if (!c.match) c.renamed = RenamedWorkerEngine(c.argv);
    if (c.match || c.renamed) cands.emplace(*pid, std::move(c));
  }
  return cands;
}

struct Assignment {
  std::set<int64_t> servers;
  std::map<int64_t, std::vector<int64_t>> workers;  // server pid -> its workers
  std::map<int64_t, std::string> launchers;         // servers found only through renamed workers
};

// A process under a detected server of the same engine is one of its workers (forked ranks
// keep the launcher's command line; spawned ones are renamed "sglang::scheduler_TP0"), so each
// server is reported once, at the top.
Assignment AssignWorkers(const std::map<int64_t, Candidate>& cands, ProcessTree* tree) {
  Assignment a;
  for (const auto& [pid, c] : cands) {
    const std::string& engine = c.match ? c.match->engine : *c.renamed;
    std::vector<int64_t> up = tree->Ancestors(pid);
    int64_t top = -1;
    for (int64_t p : up) {
      auto it = cands.find(p);
      if (it != cands.end() && it->second.match && it->second.match->engine == engine) top = p;
    }
    if (top >= 0) {
      // A captured tree may hold a parent loop; a process cannot be its own ancestor's worker.
      auto top_up = tree->Ancestors(top);
      if (std::find(top_up.begin(), top_up.end(), pid) != top_up.end()) top = -1;
    }
    if (top >= 0) {
      a.workers[top].push_back(pid);
    } else if (c.match) {
      a.servers.insert(pid);
    } else {
      // Renamed workers with no detected launcher (a script that starts sglang.Engine, say): the
      // nearest ancestor that is not a renamed worker launched them.
      for (int64_t p : up) {
        auto it = cands.find(p);
        if (it != cands.end() && it->second.renamed) continue;
        a.launchers.emplace(p, engine);
        a.workers[p].push_back(pid);
        break;
      }
    }
  }
  return a;
}

}  // namespace

void ProbeServers(const ProbeContext& ctx, Machine* m) {
  const RootFs& fs = ctx.fs;
  auto names = fs.List("/proc");
  if (!names) {
    if (ctx.log) ctx.log->push_back("servers: /proc: " + ReasonForDir(names.error()));
    return;
  }
  std::map<int64_t, Candidate> cands = ScanProcesses(ctx, *names);
  ProcessTree tree(fs);
  Assignment a = AssignWorkers(cands, &tree);
  for (int64_t pid : a.servers) {
    if (m->servers.size() >= kMaxServers) break;
    const Candidate& c = cands[pid];
    m->servers.push_back(BuildServer(ctx, pid, c.argv, c.match->engine, c.match->detected_by,
                                     c.match->args_begin, c.match->positional_model,
                                     a.workers[pid]));
  }
  for (const auto& [pid, engine] : a.launchers) {
    if (m->servers.size() >= kMaxServers || a.servers.count(pid)) continue;
    auto data = fs.ReadPrefix("/proc/" + std::to_string(pid) + "/cmdline", kMaxCmdline);
    std::vector<std::string> argv = data ? SplitNul(*data) : std::vector<std::string>{};
    const auto& w = a.workers[pid];
    std::string by = "worker processes named " + std::string(Trim(cands[w.front()].argv[0]));
    size_t begin = !argv.empty() && BaseName(argv[0]).starts_with("python") ? 2 : 1;
    m->servers.push_back(BuildServer(ctx, pid, argv, engine, by, begin, false, w));
  }
  std::sort(m->servers.begin(), m->servers.end(),
            [](const Server& x, const Server& y) { return x.pid < y.pid; });
  if (ctx.log) {
    for (const auto& s : m->servers)
      ctx.log->push_back("server: " + s.engine + " pid " + std::to_string(s.pid) + ", " +
                         std::to_string(s.worker_pids.value_or({}).size()) + " workers");
  }
}

}  // namespace dossier
