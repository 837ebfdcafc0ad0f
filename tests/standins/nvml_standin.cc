// A stand-in for libnvidia-ml.so.1: the same C symbols, answering from the fixture machine that
// DOSSIER_STANDIN names (fixtures.h), so the real loading code in src/gpu/ runs in CI. Built twice:
// once exporting the versioned names the loader prefers, and once (STANDIN_PLAIN_ONLY) with only
// the plain names an old driver has, where nvmlDeviceGetPciInfo fills the shorter v1 struct.
#include <cstdio>
#include <cstring>

#include "fixtures.h"
#include "gpu/nvml_api.h"

struct nvmlDevice_st {
  int index;
};

namespace {

nvmlDevice_st g_devices[64];
const standin::Fixture* g_fixture = nullptr;

const standin::Gpu* GpuOf(nvmlDevice_t d) {
  if (!g_fixture || !d || d < g_devices || d >= g_devices + 64) return nullptr;
  if (d->index < 0 || static_cast<size_t>(d->index) >= g_fixture->gpus.size()) return nullptr;
  return &g_fixture->gpus[d->index];
}

nvmlReturn_t CopyString(const char* s, char* out, unsigned len) {
  if (!out) return NVML_ERROR_INVALID_ARGUMENT;
  if (std::strlen(s) + 1 > len) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(out, s, std::strlen(s) + 1);
  return NVML_SUCCESS;
}

nvmlReturn_t Init() {
  g_fixture = &standin::Selected();
  if (g_fixture->init_fails) {
    g_fixture = nullptr;
    return NVML_ERROR_DRIVER_NOT_LOADED;
  }
  for (int i = 0; i < 64; ++i) g_devices[i].index = i;
  return NVML_SUCCESS;
}

nvmlReturn_t Count(unsigned* n) {
  if (!g_fixture) return NVML_ERROR_UNINITIALIZED;
  *n = static_cast<unsigned>(g_fixture->gpus.size());
  return NVML_SUCCESS;
}

nvmlReturn_t Handle(unsigned i, nvmlDevice_t* d) {
  if (!g_fixture) return NVML_ERROR_UNINITIALIZED;
  if (i >= g_fixture->gpus.size()) return NVML_ERROR_INVALID_ARGUMENT;
  *d = &g_devices[i];
  return NVML_SUCCESS;
}

void FillPci(const standin::Gpu& g, void* out, bool v1) {
  char legacy[16], full[32];
  std::snprintf(legacy, sizeof legacy, "%04X:%02X:00.0", g.domain, g.bus);
  std::snprintf(full, sizeof full, "%08X:%02X:00.0", g.domain, g.bus);
  unsigned words[5] = {g.domain, g.bus, 0, 0x2bb510de, 0x204e10de};
  auto* p = static_cast<unsigned char*>(out);
  std::memcpy(p, legacy, 16);
  std::memcpy(p + 16, words, sizeof words);
  if (v1) {
    std::memset(p + 36, 0, 16);  // reserved words: 52 bytes in all, nothing past them
  } else {
    std::memcpy(p + 36, full, 32);
  }
}

}  // namespace

extern "C" {

#ifndef STANDIN_PLAIN_ONLY
__attribute__((visibility("default"))) nvmlReturn_t nvmlInit_v2() {
  return Init();
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* n) {
  return Count(n);
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned i,
                                                                                  nvmlDevice_t* d) {
  return Handle(i, d);
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d,
                                                                            nvmlPciInfo_t* pci) {
  const auto* g = GpuOf(d);
  if (!g || !pci) return NVML_ERROR_INVALID_ARGUMENT;
  FillPci(*g, pci, false);
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int* v) {
  if (!g_fixture) return NVML_ERROR_UNINITIALIZED;
  *v = g_fixture->cuda_version;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t d,
                                                                            unsigned* node) {
  const auto* g = GpuOf(d);
  if (!g || !node) return NVML_ERROR_INVALID_ARGUMENT;
  if (g->numa == -2) return NVML_ERROR_NOT_SUPPORTED;
  *node = static_cast<unsigned>(g->numa);
  return NVML_SUCCESS;
}
#endif

__attribute__((visibility("default"))) nvmlReturn_t nvmlInit() {
  return Init();
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlShutdown() {
  g_fixture = nullptr;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCount(unsigned* n) {
  return Count(n);
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned i,
                                                                               nvmlDevice_t* d) {
  return Handle(i, d);
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t d,
                                                                         nvmlPciInfoV1_t* pci) {
  const auto* g = GpuOf(d);
  if (!g || !pci) return NVML_ERROR_INVALID_ARGUMENT;
  FillPci(*g, pci, true);
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlSystemGetDriverVersion(char* out,
                                                                               unsigned len) {
  if (!g_fixture) return NVML_ERROR_UNINITIALIZED;
  return CopyString(g_fixture->driver_version, out, len);
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* v) {
  if (!g_fixture) return NVML_ERROR_UNINITIALIZED;
  *v = g_fixture->cuda_version;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* out,
                                                                      unsigned len) {
  const auto* g = GpuOf(d);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  return CopyString(g->name, out, len);
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* out,
                                                                      unsigned len) {
  const auto* g = GpuOf(d);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  return CopyString(standin::UuidOf(*g, static_cast<size_t>(d->index)).c_str(), out, len);
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t d, char* out,
                                                                        unsigned len) {
  const auto* g = GpuOf(d);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  if (!g->serial) return NVML_ERROR_NOT_SUPPORTED;
  return CopyString(g->serial, out, len);
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCudaComputeCapability(
    nvmlDevice_t d, int* major, int* minor) {
  const auto* g = GpuOf(d);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  *major = g->cc_major;
  *minor = g->cc_minor;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d,
                                                                            nvmlMemory_t* m) {
  const auto* g = GpuOf(d);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  *m = {g->memory, g->memory - (1ull << 30), 1ull << 30};
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(
    nvmlDevice_t d, nvmlBAR1Memory_t* m) {
  const auto* g = GpuOf(d);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  *m = {g->bar1, g->bar1 - (32ull << 20), 32ull << 20};
  return NVML_SUCCESS;
}
#define STANDIN_UINT_GETTER(fn, field)                                                  \
  __attribute__((visibility("default"))) nvmlReturn_t fn(nvmlDevice_t d, unsigned* v) { \
    const auto* g = GpuOf(d);                                                           \
    if (!g || !v) return NVML_ERROR_INVALID_ARGUMENT;                                   \
    *v = g->field;                                                                      \
    return NVML_SUCCESS;                                                                \
  }
STANDIN_UINT_GETTER(nvmlDeviceGetCurrPcieLinkGeneration, gen_cur)
STANDIN_UINT_GETTER(nvmlDeviceGetMaxPcieLinkGeneration, gen_max)
STANDIN_UINT_GETTER(nvmlDeviceGetCurrPcieLinkWidth, width_cur)
STANDIN_UINT_GETTER(nvmlDeviceGetMaxPcieLinkWidth, width_max)
STANDIN_UINT_GETTER(nvmlDeviceGetPowerManagementLimit, power_mw)

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t d,
                                                                                 unsigned* s) {
  if (!GpuOf(d)) return NVML_ERROR_INVALID_ARGUMENT;
  *s = NVML_FEATURE_ENABLED;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d,
                                                                         unsigned* cur,
                                                                         unsigned* pending) {
  if (!GpuOf(d)) return NVML_ERROR_INVALID_ARGUMENT;
  *cur = *pending = NVML_FEATURE_DISABLED;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned*,
                                                                         unsigned*) {
  if (!GpuOf(d)) return NVML_ERROR_INVALID_ARGUMENT;
  return NVML_ERROR_NOT_SUPPORTED;  // workstation boards have no MIG
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d,
                                                                           unsigned type,
                                                                           unsigned* mhz) {
  const auto* g = GpuOf(d);
  if (!g) return NVML_ERROR_INVALID_ARGUMENT;
  if (type == NVML_CLOCK_SM)
    *mhz = g->sm_mhz;
  else if (type == NVML_CLOCK_MEM)
    *mhz = g->mem_mhz;
  else
    return NVML_ERROR_INVALID_ARGUMENT;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d,
                                                                             unsigned link,
                                                                             unsigned* active) {
  if (!GpuOf(d) || !active) return NVML_ERROR_INVALID_ARGUMENT;
  if (g_fixture->nvlinks == 0) return NVML_ERROR_NOT_SUPPORTED;        // PCIe-only boards
  if (link >= g_fixture->nvlinks) return NVML_ERROR_INVALID_ARGUMENT;  // past the last link
  *active = NVML_FEATURE_ENABLED;
  return NVML_SUCCESS;
}
// Health calls: each answers NOT_SUPPORTED under a fixture with health_not_supported.
#define STANDIN_HEALTH(d, g)                  \
  const auto* g = GpuOf(d);                   \
  if (!g) return NVML_ERROR_INVALID_ARGUMENT; \
  if (g_fixture->health_not_supported) return NVML_ERROR_NOT_SUPPORTED;

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t d,
                                                                              char* out,
                                                                              unsigned len) {
  STANDIN_HEALTH(d, g)
  return CopyString(g->vbios, out, len);
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t d,
                                                                              unsigned type,
                                                                              unsigned* mhz) {
  STANDIN_HEALTH(d, g)
  if (!mhz) return NVML_ERROR_INVALID_ARGUMENT;
  if (type == NVML_CLOCK_SM)
    *mhz = g->sm_max_mhz;
  else if (type == NVML_CLOCK_MEM)
    *mhz = g->mem_max_mhz;
  else
    return NVML_ERROR_INVALID_ARGUMENT;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(
    nvmlDevice_t d, unsigned long long* mask) {
  STANDIN_HEALTH(d, g)
  if (!mask) return NVML_ERROR_INVALID_ARGUMENT;
  *mask = g->clocks_event;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d,
                                                                            unsigned* mw) {
  STANDIN_HEALTH(d, g)
  if (!mw) return NVML_ERROR_INVALID_ARGUMENT;
  *mw = g->power_draw_mw;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d,
                                                                                    unsigned* mw) {
  STANDIN_HEALTH(d, g)
  if (!mw) return NVML_ERROR_INVALID_ARGUMENT;
  *mw = g->power_mw;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d,
                                                                             unsigned sensor,
                                                                             unsigned* c) {
  STANDIN_HEALTH(d, g)
  if (!c || sensor != NVML_TEMPERATURE_GPU) return NVML_ERROR_INVALID_ARGUMENT;
  *c = g->temp_c;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTotalEccErrors(
    nvmlDevice_t d, unsigned type, unsigned counter, unsigned long long* n) {
  STANDIN_HEALTH(d, g)
  if (!n || type > 1 || counter > 1) return NVML_ERROR_INVALID_ARGUMENT;
  *n = g->ecc[counter * 2 + type];
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetRemappedRows(
    nvmlDevice_t d, unsigned* corr, unsigned* unc, unsigned* pending, unsigned* failure) {
  STANDIN_HEALTH(d, g)
  if (!corr || !unc || !pending || !failure) return NVML_ERROR_INVALID_ARGUMENT;
  *corr = g->rows_corrected;
  *unc = g->rows_uncorrected;
  *pending = g->remap_pending;
  *failure = g->remap_failure;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(
    nvmlDevice_t d, unsigned*) {
  STANDIN_HEALTH(d, g)
  (void)g;
  return NVML_ERROR_NOT_SUPPORTED;  // boards with row remapping have no page retirement
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t d,
                                                                                   unsigned* n) {
  STANDIN_HEALTH(d, g)
  if (!n) return NVML_ERROR_INVALID_ARGUMENT;
  *n = g->replays;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(
    nvmlDevice_t d, unsigned* gen) {
  STANDIN_HEALTH(d, g)
  if (!gen) return NVML_ERROR_INVALID_ARGUMENT;
  *gen = g->gpu_max_gen;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetFieldValues(
    nvmlDevice_t d, int count, nvmlFieldValue_t* values) {
  const auto* g = GpuOf(d);
  if (!g || count <= 0 || !values) return NVML_ERROR_INVALID_ARGUMENT;
  for (int i = 0; i < count; ++i) {
    nvmlFieldValue_t& v = values[i];
    if (g_fixture->health_not_supported || v.fieldId != NVML_FI_DEV_GET_GPU_RECOVERY_ACTION) {
      v.nvmlReturn = NVML_ERROR_NOT_SUPPORTED;  // per field, as the real library answers
      continue;
    }
    v.nvmlReturn = NVML_SUCCESS;
    v.valueType = 1;  // NVML_VALUE_TYPE_UNSIGNED_INT
    v.value.uiVal = g->recovery_action;
  }
  return NVML_SUCCESS;
}

#ifndef STANDIN_PLAIN_ONLY
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(
    nvmlDevice_t d, unsigned link, nvmlPciInfo_t* pci) {
  if (!GpuOf(d) || !pci || link >= g_fixture->nvlinks) return NVML_ERROR_INVALID_ARGUMENT;
  size_t n = g_fixture->gpus.size();
  size_t peer = (static_cast<size_t>(d->index) + 1 + link % (n - 1)) % n;
  FillPci(g_fixture->gpus[peer], pci, false);
  return NVML_SUCCESS;
}
#endif
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(
    nvmlDevice_t a, nvmlDevice_t b, unsigned* level) {
  if (!GpuOf(a) || !GpuOf(b) || !level) return NVML_ERROR_INVALID_ARGUMENT;
  if (a != b && (static_cast<int>(a->index) == g_fixture->ancestor_fails ||
                 static_cast<int>(b->index) == g_fixture->ancestor_fails))
    return NVML_ERROR_NOT_SUPPORTED;
  *level = a == b ? 0 : g_fixture->level;
  return NVML_SUCCESS;
}
__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t a,
                                                                           nvmlDevice_t b,
                                                                           unsigned index,
                                                                           unsigned* status) {
  if (!GpuOf(a) || !GpuOf(b) || !status || index > 4) return NVML_ERROR_INVALID_ARGUMENT;
  // NVLink needs links, which most fixture boards lack.
  *status = index == NVML_P2P_CAPS_INDEX_NVLINK && g_fixture->nvlinks == 0
                ? NVML_P2P_STATUS_NOT_SUPPORTED
                : g_fixture->p2p;
  return NVML_SUCCESS;
}

}  // extern "C"
