// Python environments and the versions of the packages that matter for inference (torch, sglang,
// vllm, flashinfer, nvidia-* wheels…), read from the dist-info METADATA / egg-info PKG-INFO
// headers of site-packages WITHOUT running Python: a probe must not execute the machine's code,
// and a captured tree has no interpreter to run.
//
// Which environments: the one each running server uses (found by servers.cc, see LocateEnv),
// every --venv DIR, and the caller's $VIRTUAL_ENV. System prefixes (/usr) are read only when a
// server runs from them. Environments are deduplicated by (fs_root, path).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "fs/root_fs.h"
#include "model/fact.h"
#include "model/software.h"
#include "probe/probe.h"

namespace dossier {

// PEP 503: lower case, runs of '-', '_' and '.' become one '-'.
std::string NormalizePackageName(std::string_view name);
// Whether a normalized name is in the table of inference packages (python_envs.cc).
bool IsInferencePackage(std::string_view normalized);

// The Name: and Version: headers of a METADATA or PKG-INFO text, up to the first blank line
// (RFC 822 style; the body after it is the README). Either may be absent.
struct PackageHeader {
  std::optional<std::string> name, version;
};
PackageHeader ParsePackageHeader(std::string_view text);

// "torch-2.9.1.dist-info" -> {"torch", "2.9.1"}; "foo.egg-info" -> {"foo", nullopt}.
PackageHeader ParseDistDirName(std::string_view dir_name);

// Reads one environment under `fs`: pyvenv.cfg, site directories, inference packages.
PythonEnv ReadPythonEnv(const RootFs& fs, const std::string& prefix, const std::string& origin);

// The prefix of the Python environment a process runs in, from (in order) an interpreter path
// that lies in a venv or conda env, argv[0] (absolute, relative to the working directory, or
// looked up in the process's PATH),
// a shebang script argv[1], the process's $VIRTUAL_ENV, then the interpreter's own prefix
// (/usr/bin/python3.12 -> /usr). Unknown with the reason when nothing names one.
struct ProcessPython {
  std::string exe;  // /proc/PID/exe target, " (deleted)" stripped
  std::string argv0, argv1;
  std::string cwd;  // for a relative argv[0] ("./venv/bin/python3"); "" when unknown
  std::map<std::string, std::string> environ;  // unredacted; only PATH and VIRTUAL_ENV are used
  std::string pid;                             // for sources
};
Fact<std::string> LocateEnv(const RootFs& fs, const ProcessPython& p);

// The file system a server's paths live in: `fs` itself for fs_root "", else the tree under the
// machine path fs_root ("/proc/PID/root", a container's root seen through the kernel's link).
RootFs FsUnder(const RootFs& fs, const std::string& fs_root);

// Fills m->software.python_envs from the servers already probed, ctx.options.venvs and
// $VIRTUAL_ENV of the caller. Called by ProbeSoftware.
void ProbePythonEnvs(const ProbeContext& ctx, Machine* m);

}  // namespace dossier
