// Our own minimal declarations of the NVML C ABI (libnvidia-ml.so.1): the opaque device handle,
// the few structs and enums we read, and one function-pointer type per function we call. Written
// from the public API reference (values checked against NCCL's nvmlwrap.h, pynvml and go-nvml's
// nvml.h, see FIELD_NOTES.md) so the build needs no NVIDIA package. Only what dossier reads is
// declared; a struct whose layout differs between symbol versions is declared once per layout.
//
// The stand-in libraries in tests/standins/ implement these same declarations; the static_asserts
// below pin the layouts the real driver expects, so a mistake here cannot hide behind them.
#pragma once

#include <cstddef>

extern "C" {

using nvmlReturn_t = int;
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;

// nvmlReturn_t values (the ones dossier branches on or names).
enum : int {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_NO_PERMISSION = 4,
  NVML_ERROR_ALREADY_INITIALIZED = 5,
  NVML_ERROR_NOT_FOUND = 6,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_INSUFFICIENT_POWER = 8,
  NVML_ERROR_DRIVER_NOT_LOADED = 9,
  NVML_ERROR_TIMEOUT = 10,
  NVML_ERROR_IRQ_ISSUE = 11,
  NVML_ERROR_LIBRARY_NOT_FOUND = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
  NVML_ERROR_CORRUPTED_INFOROM = 14,
  NVML_ERROR_GPU_IS_LOST = 15,
  NVML_ERROR_RESET_REQUIRED = 16,
  NVML_ERROR_OPERATING_SYSTEM = 17,
  NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
  NVML_ERROR_IN_USE = 19,
  NVML_ERROR_MEMORY = 20,
  NVML_ERROR_NO_DATA = 21,
  NVML_ERROR_UNKNOWN = 999,
};

// nvmlEnableState_t
enum : unsigned { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 };
// nvmlClockType_t
enum : unsigned { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
// nvmlGpuP2PCapsIndex_t (PCI was called PROP before)
enum : unsigned {
  NVML_P2P_CAPS_INDEX_READ = 0,
  NVML_P2P_CAPS_INDEX_WRITE = 1,
  NVML_P2P_CAPS_INDEX_NVLINK = 2,
  NVML_P2P_CAPS_INDEX_ATOMICS = 3,
  NVML_P2P_CAPS_INDEX_PCI = 4,
};
// nvmlGpuP2PStatus_t
enum : unsigned {
  NVML_P2P_STATUS_OK = 0,
  NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED = 1,
  NVML_P2P_STATUS_GPU_NOT_SUPPORTED = 2,
  NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED = 3,
  NVML_P2P_STATUS_DISABLED_BY_REGKEY = 4,
  NVML_P2P_STATUS_NOT_SUPPORTED = 5,
  NVML_P2P_STATUS_UNKNOWN = 6,
};
// nvmlGpuTopologyLevel_t
enum : unsigned {
  NVML_TOPOLOGY_INTERNAL = 0,
  NVML_TOPOLOGY_SINGLE = 10,
  NVML_TOPOLOGY_MULTIPLE = 20,
  NVML_TOPOLOGY_HOSTBRIDGE = 30,
  NVML_TOPOLOGY_NODE = 40,
  NVML_TOPOLOGY_SYSTEM = 50,
};

// nvmlTemperatureSensors_t
enum : unsigned { NVML_TEMPERATURE_GPU = 0 };
// nvmlMemoryErrorType_t and nvmlEccCounterType_t (nvmlDeviceGetTotalEccErrors)
enum : unsigned { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum : unsigned { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };
// nvmlClocksEventReasons (nvml.h; "ClocksThrottleReasons" before driver 535, the same bits).
enum : unsigned long long {
  nvmlClocksEventReasonGpuIdle = 0x1,
  nvmlClocksEventReasonApplicationsClocksSetting = 0x2,
  nvmlClocksEventReasonSwPowerCap = 0x4,
  nvmlClocksThrottleReasonHwSlowdown = 0x8,
  nvmlClocksEventReasonSyncBoost = 0x10,
  nvmlClocksEventReasonSwThermalSlowdown = 0x20,
  nvmlClocksThrottleReasonHwThermalSlowdown = 0x40,
  nvmlClocksThrottleReasonHwPowerBrakeSlowdown = 0x80,
  nvmlClocksEventReasonDisplayClockSetting = 0x100,
};
// Field ids (nvmlDeviceGetFieldValues) and nvmlDeviceGpuRecoveryAction_t (driver r570 and later;
// NVML_FI_DEV_RESET_STATUS 226 and DRAIN_AND_RESET_STATUS 227 are the deprecated older pair).
enum : unsigned { NVML_FI_DEV_GET_GPU_RECOVERY_ACTION = 230 };
enum : unsigned {
  NVML_GPU_RECOVERY_ACTION_NONE = 0,
  NVML_GPU_RECOVERY_ACTION_GPU_RESET = 1,
  NVML_GPU_RECOVERY_ACTION_NODE_REBOOT = 2,
  NVML_GPU_RECOVERY_ACTION_DRAIN_P2P = 3,
  NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET = 4,
};

// Buffer sizes the API documents for its string getters.
inline constexpr unsigned kNvmlDriverVersionBuffer = 80;
inline constexpr unsigned kNvmlNameBuffer = 96;
inline constexpr unsigned kNvmlUuidBuffer = 80;
inline constexpr unsigned kNvmlSerialBuffer = 30;
inline constexpr unsigned kNvmlMaxNvLinks = 36;
inline constexpr unsigned kNvmlVbiosVersionBuffer = 32;

// nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3/_v2 and nvmlDeviceGetNvLinkRemotePciInfo_v2.
struct nvmlPciInfo_t {
  char busIdLegacy[16];  // "0000:01:00.0" (legacy 4-digit domain)
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;     // device id << 16 | vendor id
  unsigned int pciSubSystemId;  // subsystem device id << 16 | subsystem vendor id
  char busId[32];               // "00000000:01:00.0"
};
static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t must be 68 bytes (FIELD_NOTES.md)");
static_assert(offsetof(nvmlPciInfo_t, busId) == 36);

// The first version (plain nvmlDeviceGetPciInfo): the same first 36 bytes, then reserved words.
struct nvmlPciInfoV1_t {
  char busId[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  unsigned int reserved[4];
};
static_assert(sizeof(nvmlPciInfoV1_t) == 52);

struct nvmlMemory_t {
  unsigned long long total, free, used;
};
struct nvmlBAR1Memory_t {
  unsigned long long bar1Total, bar1Free, bar1Used;
};
static_assert(sizeof(nvmlMemory_t) == 24 && sizeof(nvmlBAR1Memory_t) == 24);

// nvmlFieldValue_t: one field asked of nvmlDeviceGetFieldValues (fieldId, scopeId in; the rest
// out). value is a union of 8 bytes; valueType says which member (1 = unsigned int).
union nvmlValue_t {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  unsigned short usVal;
};
struct nvmlFieldValue_t {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;
  nvmlValue_t value;
};
static_assert(sizeof(nvmlFieldValue_t) == 40 && offsetof(nvmlFieldValue_t, value) == 32);

// Function types, named after the function without its version suffix.
using nvmlInit_fn = nvmlReturn_t (*)();
using nvmlShutdown_fn = nvmlReturn_t (*)();
using nvmlSystemGetDriverVersion_fn = nvmlReturn_t (*)(char* version, unsigned int length);
using nvmlSystemGetCudaDriverVersion_fn = nvmlReturn_t (*)(int* version);
using nvmlDeviceGetCount_fn = nvmlReturn_t (*)(unsigned int* count);
using nvmlDeviceGetHandleByIndex_fn = nvmlReturn_t (*)(unsigned int index, nvmlDevice_t* device);
using nvmlDeviceGetString_fn = nvmlReturn_t (*)(nvmlDevice_t device, char* out, unsigned int len);
using nvmlDeviceGetPciInfo_fn = nvmlReturn_t (*)(nvmlDevice_t device, void* pci);
using nvmlDeviceGetCudaComputeCapability_fn = nvmlReturn_t (*)(nvmlDevice_t device, int* major,
                                                               int* minor);
using nvmlDeviceGetMemoryInfo_fn = nvmlReturn_t (*)(nvmlDevice_t device, nvmlMemory_t* memory);
using nvmlDeviceGetBAR1MemoryInfo_fn = nvmlReturn_t (*)(nvmlDevice_t device,
                                                        nvmlBAR1Memory_t* bar1);
using nvmlDeviceGetUint_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* value);
using nvmlDeviceGetEnableState_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* state);
using nvmlDeviceGetCurrentPending_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* current,
                                                        unsigned int* pending);
using nvmlDeviceGetClockInfo_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int type,
                                                   unsigned int* mhz);
using nvmlDeviceGetNvLinkState_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int link,
                                                     unsigned int* active);
using nvmlDeviceGetNvLinkRemotePciInfo_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int link,
                                                             nvmlPciInfo_t* pci);
using nvmlDeviceGetTopologyCommonAncestor_fn = nvmlReturn_t (*)(nvmlDevice_t a, nvmlDevice_t b,
                                                                unsigned int* level);
using nvmlDeviceGetUint64_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned long long* value);
using nvmlDeviceGetTemperature_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int sensor,
                                                     unsigned int* celsius);
using nvmlDeviceGetTotalEccErrors_fn = nvmlReturn_t (*)(nvmlDevice_t device,
                                                        unsigned int error_type,
                                                        unsigned int counter_type,
                                                        unsigned long long* count);
using nvmlDeviceGetRemappedRows_fn = nvmlReturn_t (*)(nvmlDevice_t device, unsigned int* corrected,
                                                      unsigned int* uncorrected,
                                                      unsigned int* pending, unsigned int* failure);
using nvmlDeviceGetFieldValues_fn = nvmlReturn_t (*)(nvmlDevice_t device, int count,
                                                     nvmlFieldValue_t* values);
using nvmlDeviceGetP2PStatus_fn = nvmlReturn_t (*)(nvmlDevice_t a, nvmlDevice_t b,
                                                   unsigned int caps_index, unsigned int* status);

}  // extern "C"
