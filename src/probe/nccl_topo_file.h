// The NCCL topology file a server names in NCCL_TOPO_FILE (the XML NCCL's src/graph/xml.cc reads:
// <system><cpu numaid=…><pci busid=…>…</pci></cpu></system>), read under the server's root and
// reduced to what can be checked against the machine: the GPUs it places, each with the NUMA node
// of the <cpu> above it, and the NUMA ids it names. The checking is analysis
// (analyze/nccl_topo_check.h); this only reads.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "fs/root_fs.h"
#include "model/software.h"

namespace dossier {

// Parses the XML text; `path` names the file in messages. A file that is not XML, or has no
// <system>, sets parse_error with the line; nodes are walked without recursion, so depth costs no
// stack. `file` is left to the caller.
NcclTopoFile ParseNcclTopoXml(std::string_view text, const std::string& path);

// The file a server's environment names, read through `fs` (the server's root): a relative value
// starts at `cwd` (NCCL opens it from the process's working directory). `env_source` is where
// the value was read ("/proc/PID/environ"). Not set: file unknown "NCCL_TOPO_FILE not set".
NcclTopoFile ReadNcclTopoFile(const RootFs& fs, const std::map<std::string, std::string>& environ,
                              const std::string& cwd, const std::string& env_source);

// A bus id as NCCL compares them: lowercase, a 16-bit domain ("0000:" added to "01:00.0", an
// 8-digit one as nvidia-smi prints it cut to 4). "" when it is not a bus id.
std::string NormalizeNcclBusId(std::string_view id);

inline constexpr size_t kMaxNcclTopoBytes = 4u << 20;  // real files are a few KiB

}  // namespace dossier
