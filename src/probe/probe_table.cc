#include "probe/probe.h"

namespace dossier {

const std::vector<ProbeEntry>& ProbeTable() {
  static const std::vector<ProbeEntry> kTable = {
      {"identity", "hostname, boot id, kernel release and command line, OS release", ProbeIdentity},
      {"dmi", "system, board and BIOS vendor and version from /sys/class/dmi/id", ProbeDmi},
      {"cpu", "CPU model, vendor, sockets, cores, threads, hypervisor flag; memory total",
       ProbeCpu},
      {"numa", "NUMA nodes with their CPUs, memory and distances", ProbeNuma},
      {"virtualization", "guest or bare metal, hypervisor, QEMU machine type (Q35, i440FX)",
       ProbeVirtualization},
      {"nvml", "the driver's view through NVML: GPUs, links, clocks, topology and P2P status",
       ProbeNvml},
  };
  return kTable;
}

Machine CollectMachine(const RootFs& fs, const CollectOptions& options,
                       std::vector<std::string>* log) {
  Machine m;
  ProbeContext ctx{fs, options, log};
  for (const auto& p : ProbeTable()) p.run(ctx, &m);
  m.name = !options.machine_name.empty() ? options.machine_name : m.hostname.value_or("unnamed");
  return m;
}

}  // namespace dossier
