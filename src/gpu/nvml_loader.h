// NvmlLibrary: NVML (libnvidia-ml.so.1) loaded at run time, initialized, and shut down again.
//
// Open() finds the library (an explicit path, else libnvidia-ml.so.1, else libnvidia-ml.so),
// resolves every function dossier calls (newest versioned symbol first, where its ABI matches our
// declarations in nvml_api.h), and calls nvmlInit. A missing function is not an error: its Func is
// empty and Why() says so, and the caller records that fact as unknown and goes on. Only a library
// that cannot be opened, or an nvmlInit that fails, makes Open() fail.
#pragma once

#include <memory>
#include <string>

#include "gpu/dynamic_library.h"
#include "gpu/nvml_api.h"
#include "util/result.h"

namespace dossier::gpu {

// "NOT_SUPPORTED" for NVML_ERROR_NOT_SUPPORTED; "nvmlReturn_t 12345" for codes we do not name.
std::string NvmlReturnName(nvmlReturn_t rc);

class NvmlLibrary {
 public:
  // path: --nvml-lib, or empty for the default search.
  static Result<std::unique_ptr<NvmlLibrary>> Open(const std::string& path);
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  const std::string& path() const { return lib_.path(); }

  // The reason to record when a call through `f` returned rc (or `f` is missing):
  // "nvmlDeviceGetSerial: NOT_SUPPORTED", "nvmlDeviceGetNumaNodeId: not in libnvidia-ml.so.1 …".
  template <class Fn>
  static std::string Why(const Func<Fn>& f, nvmlReturn_t rc) {
    if (!f) return f.name + ": " + f.missing;
    return f.name + ": " + NvmlReturnName(rc);
  }
  // The provenance of a value read through `f`: "nvml:nvmlDeviceGetPciInfo_v3".
  template <class Fn>
  static std::string Source(const Func<Fn>& f) {
    return "nvml:" + f.name;
  }
  // Calls f, or returns NVML_ERROR_FUNCTION_NOT_FOUND when the library lacks it.
  template <class Fn, class... A>
  static nvmlReturn_t Call(const Func<Fn>& f, A... args) {
    return f ? f.fn(args...) : NVML_ERROR_FUNCTION_NOT_FOUND;
  }

  Func<nvmlInit_fn> init;
  Func<nvmlShutdown_fn> shutdown;
  Func<nvmlSystemGetDriverVersion_fn> driver_version;
  Func<nvmlSystemGetCudaDriverVersion_fn> cuda_driver_version;
  Func<nvmlDeviceGetCount_fn> device_count;
  Func<nvmlDeviceGetHandleByIndex_fn> handle_by_index;
  Func<nvmlDeviceGetString_fn> name, uuid, serial;
  Func<nvmlDeviceGetPciInfo_fn> pci_info;
  bool pci_info_v1 = false;  // only the plain nvmlDeviceGetPciInfo: fills nvmlPciInfoV1_t
  Func<nvmlDeviceGetCudaComputeCapability_fn> compute_capability;
  Func<nvmlDeviceGetMemoryInfo_fn> memory_info;
  Func<nvmlDeviceGetBAR1MemoryInfo_fn> bar1_memory_info;
  Func<nvmlDeviceGetUint_fn> pcie_gen_current, pcie_gen_max, pcie_width_current, pcie_width_max;
  Func<nvmlDeviceGetUint_fn> numa_node_id;
  Func<nvmlDeviceGetEnableState_fn> persistence_mode;
  Func<nvmlDeviceGetCurrentPending_fn> ecc_mode, mig_mode;
  Func<nvmlDeviceGetUint_fn> power_limit;  // milliwatts
  Func<nvmlDeviceGetClockInfo_fn> clock_info;
  Func<nvmlDeviceGetNvLinkState_fn> nvlink_state;
  Func<nvmlDeviceGetNvLinkRemotePciInfo_fn> nvlink_remote_pci;
  Func<nvmlDeviceGetTopologyCommonAncestor_fn> common_ancestor;
  Func<nvmlDeviceGetP2PStatus_fn> p2p_status;
  // Health (what nvidia-smi -q shows when a GPU misbehaves); every one may be NOT_SUPPORTED.
  Func<nvmlDeviceGetString_fn> vbios_version;
  Func<nvmlDeviceGetClockInfo_fn> max_clock_info;
  Func<nvmlDeviceGetUint64_fn> clocks_event_reasons;  // or the older ...ThrottleReasons
  Func<nvmlDeviceGetUint_fn> power_usage;             // milliwatts
  Func<nvmlDeviceGetUint_fn> enforced_power_limit;    // milliwatts
  Func<nvmlDeviceGetTemperature_fn> temperature;
  Func<nvmlDeviceGetTotalEccErrors_fn> total_ecc_errors;
  Func<nvmlDeviceGetRemappedRows_fn> remapped_rows;
  Func<nvmlDeviceGetEnableState_fn> retired_pages_pending;
  Func<nvmlDeviceGetUint_fn> pcie_replay_counter;
  Func<nvmlDeviceGetUint_fn> pcie_gen_gpu_max;  // the GPU's own maximum ("Device Max")
  Func<nvmlDeviceGetFieldValues_fn> field_values;

 private:
  explicit NvmlLibrary(DynamicLibrary lib) : lib_(std::move(lib)) {}
  void Resolve();
  DynamicLibrary lib_;
  bool initialized_ = false;
};

}  // namespace dossier::gpu
