#include "probe/nvml_health.h"

#include <cstdio>
#include <cstring>

#include "util/utf8.h"

namespace dossier {
namespace {

using gpu::NvmlLibrary;

template <class Fn, class T>
void HealthFail(const gpu::Func<Fn>& f, nvmlReturn_t rc, Fact<T>* out) {
  out->Unknown(NvmlLibrary::Why(f, rc), NvmlLibrary::Source(f));
}

void HealthUint(const gpu::Func<nvmlDeviceGetUint_fn>& f, nvmlDevice_t d, Fact<int64_t>* out) {
  unsigned v = 0;
  nvmlReturn_t rc = NvmlLibrary::Call(f, d, &v);
  if (rc != NVML_SUCCESS) return HealthFail(f, rc, out);
  out->Set(static_cast<int64_t>(v), NvmlLibrary::Source(f));
}

void HealthWatts(const gpu::Func<nvmlDeviceGetUint_fn>& f, nvmlDevice_t d, Fact<double>* out) {
  unsigned mw = 0;
  nvmlReturn_t rc = NvmlLibrary::Call(f, d, &mw);
  if (rc != NVML_SUCCESS) return HealthFail(f, rc, out);
  out->Set(mw / 1000.0, NvmlLibrary::Source(f));
}

struct ReasonName {
  uint64_t bit;
  const char* name;
};
// nvml.h's nvmlClocksEventReason* (and the older ...ThrottleReason*) bits, in bit order.
constexpr ReasonName kReasonNames[] = {
    {nvmlClocksEventReasonGpuIdle, "gpu_idle"},
    {nvmlClocksEventReasonApplicationsClocksSetting, "applications_clocks_setting"},
    {nvmlClocksEventReasonSwPowerCap, "sw_power_cap"},
    {nvmlClocksThrottleReasonHwSlowdown, "hw_slowdown"},
    {nvmlClocksEventReasonSyncBoost, "sync_boost"},
    {nvmlClocksEventReasonSwThermalSlowdown, "sw_thermal_slowdown"},
    {nvmlClocksThrottleReasonHwThermalSlowdown, "hw_thermal_slowdown"},
    {nvmlClocksThrottleReasonHwPowerBrakeSlowdown, "hw_power_brake_slowdown"},
    {nvmlClocksEventReasonDisplayClockSetting, "display_clock_setting"},
};

const char* RecoveryActionName(unsigned a) {
  switch (a) {
    case NVML_GPU_RECOVERY_ACTION_NONE:
      return "none";
    case NVML_GPU_RECOVERY_ACTION_GPU_RESET:
      return "gpu_reset";
    case NVML_GPU_RECOVERY_ACTION_NODE_REBOOT:
      return "node_reboot";
    case NVML_GPU_RECOVERY_ACTION_DRAIN_P2P:
      return "drain_p2p";
    case NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET:
      return "drain_and_reset";
    default:
      return nullptr;
  }
}

}  // namespace

std::string ClocksEventReasonNames(uint64_t mask) {
  if (mask == 0) return "none";
  std::string out;
  uint64_t named = 0;
  for (const auto& r : kReasonNames) {
    if (!(mask & r.bit)) continue;
    out += (out.empty() ? "" : ", ") + std::string(r.name);
    named |= r.bit;
  }
  for (int b = 0; b < 64; ++b) {
    uint64_t bit = 1ull << b;
    if ((mask & bit) && !(named & bit)) {
      char hex[24];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(bit));
      out += (out.empty() ? "" : ", ") + std::string(hex);
    }
  }
  return out;
}

void ReadNvmlHealth(const NvmlLibrary& lib, nvmlDevice_t d, NvmlHealth* h) {
  {
    std::string buf(kNvmlVbiosVersionBuffer + 1, '\0');
    nvmlReturn_t rc = NvmlLibrary::Call(lib.vbios_version, d, buf.data(), kNvmlVbiosVersionBuffer);
    if (rc != NVML_SUCCESS) {
      HealthFail(lib.vbios_version, rc, &h->vbios_version);
    } else {
      buf.resize(::strnlen(buf.data(), kNvmlVbiosVersionBuffer));
      std::erase_if(buf, [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
      if (buf.empty())
        h->vbios_version.Unknown(lib.vbios_version.name + ": empty",
                                 NvmlLibrary::Source(lib.vbios_version));
      else
        h->vbios_version.Set(MakeValidUtf8(buf), NvmlLibrary::Source(lib.vbios_version));
    }
  }
  for (auto [type, out] : {std::pair{NVML_CLOCK_SM, &h->clock_sm_max_mhz},
                           std::pair{NVML_CLOCK_MEM, &h->clock_mem_max_mhz}}) {
    unsigned mhz = 0;
    nvmlReturn_t rc = NvmlLibrary::Call(lib.max_clock_info, d, static_cast<unsigned>(type), &mhz);
    if (rc != NVML_SUCCESS)
      HealthFail(lib.max_clock_info, rc, out);
    else
      out->Set(static_cast<int64_t>(mhz), NvmlLibrary::Source(lib.max_clock_info));
  }
  unsigned long long mask = 0;
  nvmlReturn_t rc = NvmlLibrary::Call(lib.clocks_event_reasons, d, &mask);
  if (rc != NVML_SUCCESS) {
    HealthFail(lib.clocks_event_reasons, rc, &h->clocks_event_mask);
    HealthFail(lib.clocks_event_reasons, rc, &h->clocks_event_reasons);
  } else {
    std::string src = NvmlLibrary::Source(lib.clocks_event_reasons);
    h->clocks_event_mask.Set(static_cast<int64_t>(mask), src);
    h->clocks_event_reasons.Set(ClocksEventReasonNames(mask), src);
  }
  HealthWatts(lib.power_usage, d, &h->power_draw_w);
  HealthWatts(lib.enforced_power_limit, d, &h->power_limit_enforced_w);
  unsigned celsius = 0;
  rc = NvmlLibrary::Call(lib.temperature, d, static_cast<unsigned>(NVML_TEMPERATURE_GPU), &celsius);
  if (rc != NVML_SUCCESS)
    HealthFail(lib.temperature, rc, &h->temperature_c);
  else
    h->temperature_c.Set(static_cast<int64_t>(celsius), NvmlLibrary::Source(lib.temperature));

  struct Ecc {
    unsigned type, counter;
    Fact<int64_t>* out;
  };
  for (const Ecc& e :
       {Ecc{NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &h->ecc_corrected_volatile},
        Ecc{NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &h->ecc_uncorrected_volatile},
        Ecc{NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, &h->ecc_corrected_aggregate},
        Ecc{NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC,
            &h->ecc_uncorrected_aggregate}}) {
    unsigned long long n = 0;
    rc = NvmlLibrary::Call(lib.total_ecc_errors, d, e.type, e.counter, &n);
    if (rc != NVML_SUCCESS)
      HealthFail(lib.total_ecc_errors, rc, e.out);
    else
      e.out->Set(static_cast<int64_t>(n), NvmlLibrary::Source(lib.total_ecc_errors));
  }

  unsigned corr = 0, unc = 0, pending = 0, failure = 0;
  rc = NvmlLibrary::Call(lib.remapped_rows, d, &corr, &unc, &pending, &failure);
  if (rc != NVML_SUCCESS) {
    for (Fact<int64_t>* f : {&h->remapped_rows_corrected, &h->remapped_rows_uncorrected})
      HealthFail(lib.remapped_rows, rc, f);
    for (Fact<bool>* f : {&h->remap_pending, &h->remap_failed})
      HealthFail(lib.remapped_rows, rc, f);
  } else {
    std::string src = NvmlLibrary::Source(lib.remapped_rows);
    h->remapped_rows_corrected.Set(corr, src);
    h->remapped_rows_uncorrected.Set(unc, src);
    h->remap_pending.Set(pending != 0, src);
    h->remap_failed.Set(failure != 0, src);
  }
  unsigned retired = 0;
  rc = NvmlLibrary::Call(lib.retired_pages_pending, d, &retired);
  if (rc != NVML_SUCCESS)
    HealthFail(lib.retired_pages_pending, rc, &h->retired_pages_pending);
  else
    h->retired_pages_pending.Set(retired == NVML_FEATURE_ENABLED,
                                 NvmlLibrary::Source(lib.retired_pages_pending));
  HealthUint(lib.pcie_replay_counter, d, &h->pcie_replay_count);
  HealthUint(lib.pcie_gen_gpu_max, d, &h->pcie_device_max_gen);

  nvmlFieldValue_t fv{};
  fv.fieldId = NVML_FI_DEV_GET_GPU_RECOVERY_ACTION;
  rc = NvmlLibrary::Call(lib.field_values, d, 1, &fv);
  std::string src = NvmlLibrary::Source(lib.field_values) + "(NVML_FI_DEV_GET_GPU_RECOVERY_ACTION)";
  if (rc != NVML_SUCCESS) {
    HealthFail(lib.field_values, rc, &h->recovery_action);
  } else if (fv.nvmlReturn != NVML_SUCCESS) {
    h->recovery_action.Unknown(
        "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION: " + gpu::NvmlReturnName(fv.nvmlReturn), src);
  } else if (const char* name = RecoveryActionName(fv.value.uiVal)) {
    h->recovery_action.Set(name, src);
  } else {
    h->recovery_action.Unknown(
        "recovery action " + std::to_string(fv.value.uiVal) + " is not one nvml.h names", src);
  }
}

}  // namespace dossier
