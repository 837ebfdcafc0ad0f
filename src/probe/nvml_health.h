// The NVML health facts of one GPU (model/nvml.h NvmlHealth): clocks, throttle reasons, power,
// temperature, ECC, row remapping, PCIe replays, the GPU's own link maximum, recovery action.
#pragma once

#include <cstdint>
#include <string>

#include "gpu/nvml_loader.h"
#include "model/nvml.h"

namespace dossier {

void ReadNvmlHealth(const gpu::NvmlLibrary& lib, nvmlDevice_t d, NvmlHealth* h);

// 0x21 -> "gpu_idle, sw_thermal_slowdown"; 0 -> "none"; bits nvml.h does not name as "0x400".
std::string ClocksEventReasonNames(uint64_t mask);

static_assert(kClocksEventGpuIdle == nvmlClocksEventReasonGpuIdle);
static_assert(kClocksEventSlowdowns ==
              (nvmlClocksEventReasonSwPowerCap | nvmlClocksThrottleReasonHwSlowdown |
               nvmlClocksEventReasonSwThermalSlowdown | nvmlClocksThrottleReasonHwThermalSlowdown |
               nvmlClocksThrottleReasonHwPowerBrakeSlowdown));

}  // namespace dossier
