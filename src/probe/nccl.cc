// NCCL as collect can see it without running it: the library version of the nvidia-nccl-cuXX
// wheel in the Python environments read (the NCCL that PyTorch, vLLM and SGLang load). What NCCL
// decides at run time (channels, transports, refused P2P) and the CUDA driver version it reports
// are only in a run's NCCL_DEBUG=INFO log, which `dossier import` reads; collect says so instead
// of leaving the facts blank.
#include <map>
#include <string>

#include "probe/probe.h"

namespace dossier {

void ProbeNccl(const ProbeContext&, Machine* m) {
  // One version per environment; environments may disagree (a server's venv and the system).
  std::map<std::string, std::string> seen;  // version -> "ENV (PACKAGE)"
  for (const auto& env : m->software.python_envs) {
    for (const auto& [name, version] : env.packages) {
      if (name.rfind("nvidia-nccl-cu", 0) != 0) continue;
      seen.emplace(version, env.path + " (" + name + ")");
    }
  }
  if (seen.size() == 1) {
    m->nccl.version.Set(seen.begin()->first, seen.begin()->second);
  } else if (seen.size() > 1) {
    std::string all;
    for (const auto& [v, where] : seen) all += (all.empty() ? "" : "; ") + v + " in " + where;
    m->nccl.version.Unknown("Python environments hold different NCCL versions: " + all,
                            "*.dist-info/METADATA");
  } else {
    m->nccl.version.Unknown(
        "no nvidia-nccl package in the Python environments read; a run's NCCL_DEBUG=INFO log "
        "says it (dossier import)",
        "*.dist-info/METADATA");
  }
  m->nccl.cuda_driver.Unknown(
      "NCCL reports it in a run's NCCL_DEBUG=INFO log; import one with dossier import", "NCCL log");
}

}  // namespace dossier
