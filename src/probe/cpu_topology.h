// The CPU topology as the kernel states it in /sys/devices/system/cpu (online, present, and per
// CPU topology/ files; Documentation/admin-guide/cputopology.rst), read the way lscpu and hwloc
// read it. Used by the cpu probe, which falls back to /proc/cpuinfo for whatever this leaves
// unknown, and by the numa probe, which labels nodes whose CPUs are all offline.
//
// What may fail: old kernels lack die_id, core_cpus_list and cluster_id; offline CPUs may lack
// topology/; POWER and s390 guests report physical_package_id -1; a capture may hold only the
// hex masks (thread_siblings) and not the lists. Each is either a fallback that the fact's source
// names, or an unknown with its reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fs/root_fs.h"
#include "model/fact.h"

namespace dossier {

struct SysfsCpuTopology {
  bool has_cpu_dir = false;  // /sys/devices/system/cpu lists cpuN directories
  Fact<std::vector<int64_t>> online, present;
  Fact<int64_t> sockets, cores, dies, books, drawers;
};

SysfsCpuTopology ReadSysfsCpuTopology(const RootFs& fs);

// A CPU set from `dir/list_name` (a cpulist), else from `dir/mask_name` (a hex mask). The fact's
// source names the file that answered; unknown (with the list file's reason) when neither did.
Fact<std::vector<int64_t>> ReadCpuSet(const RootFs& fs, const std::string& dir,
                                      const std::string& list_name, const std::string& mask_name);

}  // namespace dossier
