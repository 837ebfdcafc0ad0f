// Machine: everything known about one machine in one record, from the hardware up. A dossier
// holds records of several machines (a guest and its host); each record holds one Machine.
#pragma once

#include <string>
#include <vector>

#include "model/fact.h"
#include "model/gpu.h"
#include "model/hypervisor.h"
#include "model/nccl.h"
#include "model/nvml.h"
#include "model/pci.h"
#include "model/software.h"
#include "model/system.h"

namespace dossier {

struct Machine {
  std::string name;  // --machine, else the hostname
  Fact<std::string> hostname;
  Fact<std::string> boot_id;
  KernelInfo kernel;
  OsInfo os;
  DmiInfo dmi;
  CpuInfo cpu;
  MemoryInfo memory;
  NumaInfo numa;
  VirtualizationInfo virtualization;
  HypervisorInfo hypervisor;  // VMs this machine runs (a virtualization host)
  PciInfo pci;
  IommuInfo iommu;
  KernelLogInfo kernel_log;
  std::vector<Gpu> gpus;
  Topology topology;
  SoftwareInfo software;
  std::vector<Server> servers;
  // Memory figures a serving engine logged at start-up (imported logs); newest import last.
  std::vector<ServerMemoryLog> server_logs;
  NvmlInfo nvml;
  NcclInfo nccl;  // version from the nvidia-nccl wheel (probe/nccl.cc); the rest from NCCL logs

  template <class V>
  void visit(V& v) {
    v("name", name);
    v("hostname", hostname);
    v("boot_id", boot_id);
    v("kernel", kernel);
    v("os", os);
    v("dmi", dmi);
    v("cpu", cpu);
    v("memory", memory);
    v("numa", numa);
    v("virtualization", virtualization);
    v("hypervisor", hypervisor);
    v("pci", pci);
    v("iommu", iommu);
    v("kernel_log", kernel_log);
    v("gpus", gpus);
    v("topology", topology);
    v("software", software);
    v("servers", servers);
    v("server_logs", server_logs);
    v("nvml", nvml);
    v("nccl", nccl);
  }

  const PciDevice* FindPci(const std::string& address) const {
    for (const auto& d : pci.devices)
      if (d.address == address) return &d;
    return nullptr;
  }
};

}  // namespace dossier
