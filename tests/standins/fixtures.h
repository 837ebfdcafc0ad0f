// Fixture machines the stand-in NVML and CUDA libraries answer for, chosen at nvmlInit/cuInit
// time by the DOSSIER_STANDIN environment variable:
//
//   seed-guest   the seed story's KVM guest: 8 RTX PRO 6000 Blackwell at 0000:01..08:00.0, every
//                pair PHB, P2P NS for every capability, no peer access; cross-GPU copies staged
//                through the host at the seed's figures (0.92 GB/s at 12 KiB, 41.41 GB/s at 16 MiB)
//   bare-pair    two GPUs on one socket (NODE), P2P OK, peer access, NVLink absent
//   faulty       three GPUs with P2P OK whose peer copies 0->1 corrupt bytes at offset 4096 (or
//                n/2 for small copies) and 1->2 never complete; no stream memory operations; four
//                NVLinks per GPU, two to each other GPU
//   slow-pair    bare-pair whose peer copies run at 26 GB/s (41 % of the Gen 5 x16 limit)
//   one-gpu      one H200 (no NUMA node, as the microVM of issue 26): nothing to pair, so p2p
//                measures device-local (2094 GB/s) and host<->GPU copies only
//   no-health    one-gpu whose NVML health calls all answer NOT_SUPPORTED
//   sick-pair    bare-pair with GPU 0 in a hardware slowdown at idle and GPU 1 with uncorrected
//                ECC errors, a pending row remap, 57 PCIe replays and a GPU reset asked for
//   blind-third  bare-pair and a third GPU whose common-ancestor query answers NOT_SUPPORTED
//   init-fails   nvmlInit answers DRIVER_NOT_LOADED, cuInit CUDA_ERROR_NO_DEVICE
//
// Times are a model: a copy of n bytes costs latency_us + n / (gbps * 1e3) microseconds, times a
// per-batch factor 0.98, 1.00 or 1.02 (from the value the stream waited for), so medians are exact
// and spread is visible. Unset or unknown names mean seed-guest.
//
// The CUDA stand-in honours CUDA_VISIBLE_DEVICES as the driver does (VisibleGpus); NVML, like the
// real one, ignores it.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace standin {

struct Gpu {
  const char* name;
  const char* uuid;
  const char* serial;  // nullptr: NOT_SUPPORTED
  unsigned domain, bus;
  int cc_major, cc_minor;
  unsigned long long memory, bar1;
  unsigned gen_cur, gen_max, width_cur, width_max;
  int numa;  // -2: NOT_SUPPORTED
  unsigned power_mw, sm_mhz, mem_mhz;
  // Health (NVML), as the idle H200 of issue 26 showed them unless a fixture says otherwise.
  const char* vbios = "96.00.AF.00.01";
  unsigned sm_max_mhz = 1980, mem_max_mhz = 3201;
  unsigned long long clocks_event = 0x1;  // GPU idle: not a throttle
  unsigned power_draw_mw = 77000, temp_c = 34;
  // corrected volatile, uncorrected volatile, corrected aggregate, uncorrected aggregate
  unsigned long long ecc[4] = {0, 0, 0, 0};
  unsigned rows_corrected = 0, rows_uncorrected = 0, remap_pending = 0, remap_failure = 0;
  unsigned replays = 0;
  unsigned gpu_max_gen = 5;
  unsigned recovery_action = 0;  // NVML_GPU_RECOVERY_ACTION_NONE
};

struct Link {
  double latency_us;
  double gbps;
};

struct Fixture {
  std::string name;
  std::vector<Gpu> gpus;
  const char* driver_version;
  int cuda_version;  // 12080 = 12.8
  unsigned level;    // every pair's common ancestor (NVML topology level)
  unsigned p2p;      // every pair's P2P status, every capability
  bool peer;         // cuDeviceCanAccessPeer for every pair
  Link staged, p2p_link, h2d, d2h;
  Link local{1.5, 1500.0};                 // one GPU's memory to itself (device-local copies)
  int corrupt_src = -1, corrupt_dst = -1;  // peer copies on this pair corrupt bytes (P2P only)
  int hang_src = -1, hang_dst = -1;        // peer copies on this pair never complete (P2P only)
  bool wait_value = true;                  // cuStreamWaitValue32 supported
  unsigned nvlinks = 0;  // NVLinks per GPU; link k of GPU i reaches GPU (i + 1 + k % (n-1)) % n
  bool init_fails = false;
  bool health_not_supported = false;  // every NVML health call answers NOT_SUPPORTED
  // Pairs with this GPU: nvmlDeviceGetTopologyCommonAncestor answers NOT_SUPPORTED.
  int ancestor_fails = -1;
};

// The UUID NVML answers for GPU `index` (and CUDA_VISIBLE_DEVICES matches against).
inline std::string UuidOf(const Gpu& g, size_t index) {
  char uuid[64];
  std::snprintf(uuid, sizeof uuid, "GPU-5e1d%04x-0000-4000-8000-%012zx", g.bus, index);
  return uuid;
}

inline Gpu Blackwell(unsigned bus, int numa) {
  return Gpu{"NVIDIA RTX PRO 6000 Blackwell Server Edition",
             "GPU-5e1d0000-0000-4000-8000-00000000000",
             nullptr,
             0,
             bus,
             12,
             0,
             102642810880ull,
             137438953472ull,
             5,
             5,
             16,
             16,
             numa,
             600000,
             2280,
             14001};
}

inline const Fixture& Selected() {
  static const std::vector<Fixture> kFixtures = [] {
    std::vector<Fixture> f;
    Fixture seed;
    seed.name = "seed-guest";
    for (unsigned b = 1; b <= 8; ++b) seed.gpus.push_back(Blackwell(b, -1));
    seed.driver_version = "580.95.05";
    seed.cuda_version = 13000;
    seed.level = 30;  // HOSTBRIDGE: the guest's flattened tree
    seed.p2p = 5;     // NOT_SUPPORTED
    seed.peer = false;
    // Fitted to the seed's table: 13.4 us at 12 KiB and 405.1 us at 16 MiB.
    seed.staged = {13.113, 42.80};
    seed.p2p_link = seed.staged;
    seed.h2d = {2.0, 53.0};
    seed.d2h = {2.0, 54.0};
    f.push_back(seed);

    Fixture bare;
    bare.name = "bare-pair";
    bare.gpus = {Blackwell(0x01, 0), Blackwell(0x11, 0)};
    bare.gpus[0].serial = "1650125000001";
    bare.gpus[1].serial = "1650125000002";
    bare.driver_version = "580.95.05";
    bare.cuda_version = 12080;
    bare.level = 40;  // NODE
    bare.p2p = 0;     // OK
    bare.peer = true;
    bare.staged = {10.5, 42.0};
    bare.p2p_link = {1.2, 52.0};
    bare.h2d = {2.0, 55.0};
    bare.d2h = {2.0, 56.0};
    f.push_back(bare);

    Fixture faulty = bare;
    faulty.name = "faulty";
    faulty.gpus.push_back(Blackwell(0x21, 0));
    faulty.level = 30;
    faulty.corrupt_src = 0;
    faulty.corrupt_dst = 1;
    faulty.hang_src = 1;
    faulty.hang_dst = 2;
    faulty.wait_value = false;
    faulty.nvlinks = 4;
    f.push_back(faulty);

    // bare-pair with peer copies at 26 GB/s: 41 % of a Gen 5 x16 link (p2p.below-expectation).
    Fixture slow = bare;
    slow.name = "slow-pair";
    slow.p2p_link = {1.2, 26.0};
    f.push_back(slow);

    // One H200 alone, as the Firecracker microVM of issue 26: no pairs, so only the per-GPU
    // modes (device-local, host<->GPU) have anything to measure.
    Fixture one = bare;
    one.name = "one-gpu";
    one.gpus = {Blackwell(0x05, -1)};
    one.gpus[0].name = "NVIDIA H200";
    one.gpus[0].serial = "1654925000123";
    one.gpus[0].memory = 150754820096ull;
    one.gpus[0].bar1 = 274877906944ull;
    one.gpus[0].power_mw = 700000;
    one.cuda_version = 13000;
    one.driver_version = "580.159.04";
    one.level = 0;
    one.h2d = {2.0, 55.5};
    one.d2h = {2.0, 55.4};
    one.local = {0.3, 2094.0};
    f.push_back(one);

    // one-gpu with every NVML health call answering NOT_SUPPORTED (a VM without the right).
    Fixture nohealth = one;
    nohealth.name = "no-health";
    nohealth.health_not_supported = true;
    f.push_back(nohealth);

    // bare-pair whose GPUs misbehave: GPU 0 held by a hardware slowdown while idle; GPU 1 with
    // uncorrected ECC errors, a row remap pending, PCIe replays and a reset asked for.
    Fixture sick = bare;
    sick.name = "sick-pair";
    sick.gpus[0].clocks_event = 0x1 | 0x8;  // idle and HW slowdown
    sick.gpus[0].power_draw_mw = 71000;
    sick.gpus[1].ecc[0] = 12;
    sick.gpus[1].ecc[1] = 2;
    sick.gpus[1].ecc[2] = 340;
    sick.gpus[1].ecc[3] = 2;
    sick.gpus[1].rows_uncorrected = 1;
    sick.gpus[1].remap_pending = 1;
    sick.gpus[1].replays = 57;
    sick.gpus[1].recovery_action = 1;  // GPU reset
    f.push_back(sick);

    // bare-pair plus a third GPU whose common-ancestor query NVML refuses (as a vGPU guest
    // answers it): its pairs' levels are "?" with the reason, the first pair's stay known.
    Fixture blind = bare;
    blind.name = "blind-third";
    blind.gpus.push_back(Blackwell(0x21, 0));
    blind.ancestor_fails = 2;
    f.push_back(blind);

    Fixture fails = bare;
    fails.name = "init-fails";
    fails.init_fails = true;
    f.push_back(fails);
    return f;
  }();
  const char* want = std::getenv("DOSSIER_STANDIN");
  for (const auto& f : kFixtures)
    if (want && f.name == want) return f;
  return kFixtures[0];
}

// The fixture GPUs CUDA enumerates, in ordinal order, under CUDA_VISIBLE_DEVICES as the driver
// reads it: a comma-separated list of indices or UUIDs ("GPU-" and any unambiguous prefix of the
// rest); the first entry that is invalid (not a number or UUID, out of range, ambiguous, or a GPU
// already listed) ends the list, so "1,x,0" is GPU 1 alone and "x" is none. Unset: every GPU.
inline std::vector<int> VisibleGpus(const Fixture& f) {
  std::vector<int> out;
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!env) {
    for (size_t i = 0; i < f.gpus.size(); ++i) out.push_back(static_cast<int>(i));
    return out;
  }
  std::string text = env;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string e =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!e.empty() && e.front() == ' ') e.erase(0, 1);
    while (!e.empty() && e.back() == ' ') e.pop_back();
    int found = -1;
    if (!e.empty() && e.find_first_not_of("0123456789") == std::string::npos && e.size() < 6) {
      int i = std::atoi(e.c_str());
      if (i < static_cast<int>(f.gpus.size())) found = i;
    } else if (e.rfind("GPU-", 0) == 0 && e.size() > 4) {
      for (size_t i = 0; i < f.gpus.size(); ++i) {
        if (UuidOf(f.gpus[i], i).rfind(e, 0) != 0) continue;
        if (found >= 0) {  // ambiguous prefix
          found = -1;
          break;
        }
        found = static_cast<int>(i);
      }
    }
    bool again = false;
    for (int v : out) again |= v == found;
    if (found < 0 || again) break;
    out.push_back(found);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace standin
