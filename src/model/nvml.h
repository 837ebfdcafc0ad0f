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

// Bits of clocks_event_mask the rules read (nvml.h's nvmlClocksEventReason*): the GPU is idle;
// and the reasons that hold its clocks down (SW power cap 0x4, HW slowdown 0x8, SW thermal 0x20,
// HW thermal 0x40, HW power brake 0x80) as opposed to settings (applications clocks 0x2, sync
// boost 0x10, display clock 0x100).
inline constexpr uint64_t kClocksEventGpuIdle = 0x1;
inline constexpr uint64_t kClocksEventSlowdowns = 0x4 | 0x8 | 0x20 | 0x40 | 0x80;

// What nvidia-smi -q shows when a GPU misbehaves (NVML; FIELD_NOTES "NVML health calls"). Each
// is unknown with the call and its code where the driver does not answer (NOT_SUPPORTED on boards
// without the feature, in a VM without the right, on older drivers).
struct NvmlHealth {
  Fact<std::string> vbios_version;
  Fact<int64_t> clock_sm_max_mhz, clock_mem_max_mhz;  // nvmlDeviceGetMaxClockInfo
  // nvmlDeviceGetCurrentClocksEventReasons: the bitmask, and its names ("gpu_idle",
  // "sw_power_cap", "hw_slowdown", …; "0x400" for a bit nvml.h does not name), "none" for 0.
  Fact<int64_t> clocks_event_mask;
  Fact<std::string> clocks_event_reasons;
  Fact<double> power_draw_w, power_limit_enforced_w;
  Fact<int64_t> temperature_c;  // the GPU die (NVML_TEMPERATURE_GPU)
  // nvmlDeviceGetTotalEccErrors: volatile (since the driver loaded) and aggregate (lifetime).
  Fact<int64_t> ecc_corrected_volatile, ecc_uncorrected_volatile;
  Fact<int64_t> ecc_corrected_aggregate, ecc_uncorrected_aggregate;
  // nvmlDeviceGetRemappedRows (Ampere and later), else retired pages (older boards).
  Fact<int64_t> remapped_rows_corrected, remapped_rows_uncorrected;
  Fact<bool> remap_pending, remap_failed;
  Fact<bool> retired_pages_pending;
  Fact<int64_t> pcie_replay_count;  // link-level retries since the driver loaded
  // nvmlDeviceGetGpuMaxPcieLinkGeneration: the GPU's own maximum (nvidia-smi "Device Max"); the
  // link's pcie.max.gen is the maximum with this device and system ("Max"). nvidia-smi's "Host
  // Max" has no public NVML call (it reads an internal table), so dossier does not claim it.
  Fact<int64_t> pcie_device_max_gen;
  // NVML_FI_DEV_GET_GPU_RECOVERY_ACTION (driver r570 and later): "none", "gpu_reset",
  // "node_reboot", "drain_p2p", "drain_and_reset" (nvidia-smi's "GPU Reset Status").
  Fact<std::string> recovery_action;
  template <class V>
  void visit(V& v) {
    v("vbios_version", vbios_version);
    v("clock_sm_max_mhz", clock_sm_max_mhz);
    v("clock_mem_max_mhz", clock_mem_max_mhz);
    v("clocks_event_mask", clocks_event_mask);
    v("clocks_event_reasons", clocks_event_reasons);
    v("power_draw_w", power_draw_w);
    v("power_limit_enforced_w", power_limit_enforced_w);
    v("temperature_c", temperature_c);
    v("ecc_corrected_volatile", ecc_corrected_volatile);
    v("ecc_uncorrected_volatile", ecc_uncorrected_volatile);
    v("ecc_corrected_aggregate", ecc_corrected_aggregate);
    v("ecc_uncorrected_aggregate", ecc_uncorrected_aggregate);
    v("remapped_rows_corrected", remapped_rows_corrected);
    v("remapped_rows_uncorrected", remapped_rows_uncorrected);
    v("remap_pending", remap_pending);
    v("remap_failed", remap_failed);
    v("retired_pages_pending", retired_pages_pending);
    v("pcie_replay_count", pcie_replay_count);
    v("pcie_device_max_gen", pcie_device_max_gen);
    v("recovery_action", recovery_action);
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
  NvmlHealth health;
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
    v("health", health);
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
