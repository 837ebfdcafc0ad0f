#include "probe/probe.h"

#include "analyze/topology.h"

namespace dossier {

const std::vector<ProbeEntry>& ProbeTable() {
  static const std::vector<ProbeEntry> kTable = {
      {"identity", "hostname, boot id, kernel release and command line, OS release", ProbeIdentity},
      {"dmi", "system, board, BIOS and processor identity from /sys/class/dmi/id and SMBIOS",
       ProbeDmi},
      {"cpu",
       "CPU model, vendor; sockets, dies, cores, threads, online/offline CPUs from the sysfs "
       "topology; hypervisor flag; memory total",
       ProbeCpu},
      {"virtualization", "guest or bare metal, hypervisor, QEMU machine type (Q35, i440FX)",
       ProbeVirtualization},
      {"pci",
       "PCI devices: ids, names, driver, NUMA node, tree, link speed and width, BARs; port type, "
       "ACS and Resizable BAR from config space",
       ProbePci},
      // After the pci probe: a memory-only node names the GPU whose numa_node it is.
      {"numa", "NUMA nodes with their CPUs, memory and distances; CPU-only and memory-only nodes",
       ProbeNuma},
      {"iommu", "IOMMU on or off, hardware units, groups with their domain type and members",
       ProbeIommu},
      // After pci and iommu: mapping entries are checked against their devices and groups.
      {"hypervisor",
       "VMs this host runs (Proxmox, libvirt, other QEMU): passthrough devices, running command "
       "lines, NUMA binding; Proxmox PCI mappings checked as Proxmox checks them",
       ProbeHypervisor},
      {"kernel_log", "PCI resource problems (BARs not assigned, NVRM BAR errors) in the kernel log",
       ProbeKernelLog},
      // After the pci probe: picks the GPUs from its devices.
      {"gpus", "NVIDIA compute GPUs (name, architecture, compute capability) and driver version",
       ProbeGpus},
      // servers before software: the Python environments read are the servers' own.
      {"servers", "SGLang/vLLM/TRT-LLM/llama.cpp/TGI servers: flags, env, model config (redacted)",
       ProbeServers},
      {"software", "CUDA toolkits, Python envs and package versions, env variables (redacted)",
       ProbeSoftware},
      {"nvml", "the driver's view through NVML: GPUs, links, clocks, topology and P2P status",
       ProbeNvml},
      // After software: reads the Python environments it found.
      {"nccl", "NCCL library version from the nvidia-nccl wheel; run-time facts from imported logs",
       ProbeNccl},
  };
  return kTable;
}

Machine CollectMachine(const RootFs& fs, const CollectOptions& options,
                       std::vector<std::string>* log) {
  Machine m;
  ProbeContext ctx{fs, options, log};
  for (const auto& p : ProbeTable()) p.run(ctx, &m);
  DeriveTopology(&m);  // GPU pair levels from the PCI walk
  m.name = !options.machine_name.empty() ? options.machine_name : m.hostname.value_or("unnamed");
  return m;
}

}  // namespace dossier
