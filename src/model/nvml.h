// What the NVIDIA driver itself says about the GPUs, read through NVML (probe/nvml.cc). It sits
// beside the PCI walk's view (gpu.h, pci.h) rather than inside it: where the two disagree (a VM's
// flattened tree, a link NVML reports at another width) both answers are kept and the report says
// so. Pair answers (topology level, P2P status) live in Topology (gpu.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/fact.h"
#include "model/pci.h"

namespace dossier {

struct NvmlNvLink {
  int64_t link = 0;
  Fact<bool> active;
  Fact<std::string> remote_pci_bus_id;  // DDDD:BB:DD.F of the device at the other end
  template <class V>
  void visit(V& v) {
    v("link", link);
    v("active", active);
    v("remote_pci_bus_id", remote_pci_bus_id);
  }
};

struct NvmlGpu {
  int64_t index = 0;             // NVML index (nvidia-smi's numbering)
  Fact<std::string> pci_bus_id;  // DDDD:BB:DD.F, lower case, as sysfs writes it
  Fact<int64_t> gpu_index;       // index of the GPU at that address in the PCI walk (gpus[])
  Fact<std::string> name, uuid, serial;
  Fact<std::string> compute_capability;  // "12.0"
  Fact<uint64_t> memory_total_bytes;
  Fact<uint64_t> bar1_total_bytes;
  PciLink pcie;             // current and max generation and width, as the driver reports them
  Fact<int64_t> numa_node;  // nvmlDeviceGetNumaNodeId (newer drivers only)
  Fact<bool> persistence_mode;
  Fact<bool> ecc_enabled;  // current mode
  Fact<double> power_limit_w;
  Fact<int64_t> clock_sm_mhz, clock_mem_mhz;  // current clocks
  Fact<bool> mig_enabled;                     // current mode
  std::vector<NvmlNvLink> nvlinks;  // links the driver answered for (none on PCIe-only boards)
  template <class V>
  void visit(V& v) {
    v("index", index);
    v("pci_bus_id", pci_bus_id);
    v("gpu_index", gpu_index);
    v("name", name);
    v("uuid", uuid);
    v("serial", serial);
    v("compute_capability", compute_capability);
    v("memory_total_bytes", memory_total_bytes);
    v("bar1_total_bytes", bar1_total_bytes);
    v("pcie", pcie);
    v("numa_node", numa_node);
    v("persistence_mode", persistence_mode);
    v("ecc_enabled", ecc_enabled);
    v("power_limit_w", power_limit_w);
    v("clock_sm_mhz", clock_sm_mhz);
    v("clock_mem_mhz", clock_mem_mhz);
    v("mig_enabled", mig_enabled);
    v("nvlinks", nvlinks);
  }
};

struct NvmlInfo {
  bool loaded = false;  // the library opened and nvmlInit succeeded
  std::string error;    // why not ("libnvidia-ml.so.1: cannot open shared object file: …")
  std::string library;  // what was loaded
  Fact<std::string> driver_version;       // "580.95.05"
  Fact<std::string> cuda_driver_version;  // "12.8"
  Fact<int64_t> gpu_count;
  std::vector<NvmlGpu> gpus;
  // Pair calls that failed ("0-1 nvmlDeviceGetP2PStatus(read): NOT_SUPPORTED"); their matrix cells
  // hold "?".
  std::vector<std::string> pair_errors;
  template <class V>
  void visit(V& v) {
    v("loaded", loaded);
    v("error", error);
    v("library", library);
    v("driver_version", driver_version);
    v("cuda_driver_version", cuda_driver_version);
    v("gpu_count", gpu_count);
    v("gpus", gpus);
    v("pair_errors", pair_errors);
  }
};

}  // namespace dossier
