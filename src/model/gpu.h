// GPUs for compute and how they are wired to each other. Filled by probe/gpus.cc (sysfs, the
// device-id table, /proc/driver/nvidia) and analyze/topology.cc (levels from the PCI walk).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/fact.h"

namespace dossier {

struct Gpu {
  int64_t index = 0;  // order of PCI address, as nvidia-smi numbers them by default
  std::string address;
  Fact<std::string> name;
  Fact<std::string> architecture;        // "Blackwell", "Hopper", "Ada Lovelace", "Ampere"
  Fact<std::string> compute_capability;  // "12.0"
  Fact<int64_t> numa_node;
  Fact<std::string> driver;
  Fact<std::string> cpu_affinity;  // "0-31": local_cpulist, or nvidia-smi topo -m imported
  template <class V>
  void visit(V& v) {
    v("index", index);
    v("address", address);
    v("name", name);
    v("architecture", architecture);
    v("compute_capability", compute_capability);
    v("numa_node", numa_node);
    v("driver", driver);
    v("cpu_affinity", cpu_affinity);
  }
};

// NVML's P2P status per capability, each N×N by NVML index: "X" on the diagonal, else OK, CNS,
// GNS, TNS, DR, NS or U as `nvidia-smi topo -p2p` prints them; "?" where the call failed.
struct P2pStatusMatrices {
  std::vector<std::vector<std::string>> read, write, nvlink, atomics, pci;
  // An imported `nvidia-smi topo -p2p` whose command line (so its capability) was not pasted.
  std::vector<std::vector<std::string>> unstated;
  template <class V>
  void visit(V& v) {
    v("read", read);
    v("write", write);
    v("nvlink", nvlink);
    v("atomics", atomics);
    v("pci", pci);
    v("unstated", unstated);
  }
};

struct Topology {
  // gpu_levels[i][j]: "X" on the diagonal, else PIX, PXB, PHB, NODE or SYS with nvidia-smi's
  // meaning; from the PCI walk.
  std::vector<std::vector<std::string>> gpu_levels;
  // The same from NVML (nvmlDeviceGetTopologyCommonAncestor), by NVML index; NV# where NVLink
  // joins the pair; "?" where the call failed.
  std::vector<std::vector<std::string>> nvml_levels;
  P2pStatusMatrices p2p_status;  // nvmlDeviceGetP2PStatus
  // NICs as nvidia-smi topo -m lists them (imported): names (mlx5_0 from its NIC legend), the
  // level from each GPU to each NIC, and between NICs.
  std::vector<std::string> nics;
  std::vector<std::vector<std::string>> gpu_nic_levels, nic_levels;
  template <class V>
  void visit(V& v) {
    v("gpu_levels", gpu_levels);
    v("nvml_levels", nvml_levels);
    v("p2p_status", p2p_status);
    v("nics", nics);
    v("gpu_nic_levels", gpu_nic_levels);
    v("nic_levels", nic_levels);
  }
};

}  // namespace dossier
