#include "gpu/nvml_loader.h"

namespace dossier::gpu {

std::string NvmlReturnName(nvmlReturn_t rc) {
  switch (rc) {
    case NVML_SUCCESS:
      return "SUCCESS";
    case NVML_ERROR_UNINITIALIZED:
      return "UNINITIALIZED";
    case NVML_ERROR_INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case NVML_ERROR_NOT_SUPPORTED:
      return "NOT_SUPPORTED";
    case NVML_ERROR_NO_PERMISSION:
      return "NO_PERMISSION";
    case NVML_ERROR_ALREADY_INITIALIZED:
      return "ALREADY_INITIALIZED";
    case NVML_ERROR_NOT_FOUND:
      return "NOT_FOUND";
    case NVML_ERROR_INSUFFICIENT_SIZE:
      return "INSUFFICIENT_SIZE";
    case NVML_ERROR_INSUFFICIENT_POWER:
      return "INSUFFICIENT_POWER";
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "DRIVER_NOT_LOADED";
    case NVML_ERROR_TIMEOUT:
      return "TIMEOUT";
    case NVML_ERROR_IRQ_ISSUE:
      return "IRQ_ISSUE";
    case NVML_ERROR_LIBRARY_NOT_FOUND:
      return "LIBRARY_NOT_FOUND";
    case NVML_ERROR_FUNCTION_NOT_FOUND:
      return "FUNCTION_NOT_FOUND";
    case NVML_ERROR_CORRUPTED_INFOROM:
      return "CORRUPTED_INFOROM";
    case NVML_ERROR_GPU_IS_LOST:
      return "GPU_IS_LOST";
    case NVML_ERROR_RESET_REQUIRED:
      return "RESET_REQUIRED";
    case NVML_ERROR_OPERATING_SYSTEM:
      return "OPERATING_SYSTEM";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
      return "LIB_RM_VERSION_MISMATCH";
    case NVML_ERROR_IN_USE:
      return "IN_USE";
    case NVML_ERROR_MEMORY:
      return "MEMORY";
    case NVML_ERROR_NO_DATA:
      return "NO_DATA";
    case NVML_ERROR_UNKNOWN:
      return "UNKNOWN";
    default:
      return "nvmlReturn_t " + std::to_string(rc);
  }
}

Result<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Open(const std::string& path) {
  std::vector<std::string> candidates;
  if (!path.empty())
    candidates = {path};
  else
    candidates = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
  auto lib = DynamicLibrary::Open(candidates);
  if (!lib) return lib.error();
  std::unique_ptr<NvmlLibrary> nvml(new NvmlLibrary(std::move(*lib)));
  nvml->Resolve();
  if (!nvml->init) return Error::Unsupported(nvml->init.name + ": " + nvml->init.missing);
  nvmlReturn_t rc = nvml->init.fn();
  if (rc != NVML_SUCCESS) return Error::Io(Why(nvml->init, rc));
  nvml->initialized_ = true;
  return nvml;
}

NvmlLibrary::~NvmlLibrary() {
  if (initialized_ && shutdown) shutdown.fn();
}

void NvmlLibrary::Resolve() {
  // Versioned names first where the newer symbol keeps the ABI declared in nvml_api.h. Not used:
  // nvmlDeviceGetMemoryInfo_v2, whose struct gains a version field (the plain one is still there).
  using L = DynamicLibrary;
  const L& l = lib_;
  init = l.Find<nvmlInit_fn>({"nvmlInit_v2", "nvmlInit"});
  shutdown = l.Find<nvmlShutdown_fn>({"nvmlShutdown"});
  driver_version = l.Find<nvmlSystemGetDriverVersion_fn>({"nvmlSystemGetDriverVersion"});
  cuda_driver_version = l.Find<nvmlSystemGetCudaDriverVersion_fn>(
      {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"});
  device_count = l.Find<nvmlDeviceGetCount_fn>({"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  handle_by_index = l.Find<nvmlDeviceGetHandleByIndex_fn>(
      {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  name = l.Find<nvmlDeviceGetString_fn>({"nvmlDeviceGetName"});
  uuid = l.Find<nvmlDeviceGetString_fn>({"nvmlDeviceGetUUID"});
  serial = l.Find<nvmlDeviceGetString_fn>({"nvmlDeviceGetSerial"});
  pci_info = l.Find<nvmlDeviceGetPciInfo_fn>(
      {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"});
  pci_info_v1 = pci_info && pci_info.name == "nvmlDeviceGetPciInfo";
  compute_capability =
      l.Find<nvmlDeviceGetCudaComputeCapability_fn>({"nvmlDeviceGetCudaComputeCapability"});
  memory_info = l.Find<nvmlDeviceGetMemoryInfo_fn>({"nvmlDeviceGetMemoryInfo"});
  bar1_memory_info = l.Find<nvmlDeviceGetBAR1MemoryInfo_fn>({"nvmlDeviceGetBAR1MemoryInfo"});
  pcie_gen_current = l.Find<nvmlDeviceGetUint_fn>({"nvmlDeviceGetCurrPcieLinkGeneration"});
  pcie_gen_max = l.Find<nvmlDeviceGetUint_fn>({"nvmlDeviceGetMaxPcieLinkGeneration"});
  pcie_width_current = l.Find<nvmlDeviceGetUint_fn>({"nvmlDeviceGetCurrPcieLinkWidth"});
  pcie_width_max = l.Find<nvmlDeviceGetUint_fn>({"nvmlDeviceGetMaxPcieLinkWidth"});
  numa_node_id = l.Find<nvmlDeviceGetUint_fn>({"nvmlDeviceGetNumaNodeId"});
  persistence_mode = l.Find<nvmlDeviceGetEnableState_fn>({"nvmlDeviceGetPersistenceMode"});
  ecc_mode = l.Find<nvmlDeviceGetCurrentPending_fn>({"nvmlDeviceGetEccMode"});
  mig_mode = l.Find<nvmlDeviceGetCurrentPending_fn>({"nvmlDeviceGetMigMode"});
  power_limit = l.Find<nvmlDeviceGetUint_fn>({"nvmlDeviceGetPowerManagementLimit"});
  clock_info = l.Find<nvmlDeviceGetClockInfo_fn>({"nvmlDeviceGetClockInfo"});
  nvlink_state = l.Find<nvmlDeviceGetNvLinkState_fn>({"nvmlDeviceGetNvLinkState"});
  nvlink_remote_pci = l.Find<nvmlDeviceGetNvLinkRemotePciInfo_fn>(
      {"nvmlDeviceGetNvLinkRemotePciInfo_v2"});  // the plain one fills the shorter v1 struct
  common_ancestor =
      l.Find<nvmlDeviceGetTopologyCommonAncestor_fn>({"nvmlDeviceGetTopologyCommonAncestor"});
  p2p_status = l.Find<nvmlDeviceGetP2PStatus_fn>({"nvmlDeviceGetP2PStatus"});
  vbios_version = l.Find<nvmlDeviceGetString_fn>({"nvmlDeviceGetVbiosVersion"});
  max_clock_info = l.Find<nvmlDeviceGetClockInfo_fn>({"nvmlDeviceGetMaxClockInfo"});
  clocks_event_reasons = l.Find<nvmlDeviceGetUint64_fn>(
      {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
  power_usage = l.Find<nvmlDeviceGetUint_fn>({"nvmlDeviceGetPowerUsage"});
  enforced_power_limit = l.Find<nvmlDeviceGetUint_fn>({"nvmlDeviceGetEnforcedPowerLimit"});
  temperature = l.Find<nvmlDeviceGetTemperature_fn>({"nvmlDeviceGetTemperature"});
  total_ecc_errors = l.Find<nvmlDeviceGetTotalEccErrors_fn>({"nvmlDeviceGetTotalEccErrors"});
  remapped_rows = l.Find<nvmlDeviceGetRemappedRows_fn>({"nvmlDeviceGetRemappedRows"});
  retired_pages_pending =
      l.Find<nvmlDeviceGetEnableState_fn>({"nvmlDeviceGetRetiredPagesPendingStatus"});
  pcie_replay_counter = l.Find<nvmlDeviceGetUint_fn>({"nvmlDeviceGetPcieReplayCounter"});
  pcie_gen_gpu_max = l.Find<nvmlDeviceGetUint_fn>({"nvmlDeviceGetGpuMaxPcieLinkGeneration"});
  field_values = l.Find<nvmlDeviceGetFieldValues_fn>({"nvmlDeviceGetFieldValues"});
}

}  // namespace dossier::gpu
