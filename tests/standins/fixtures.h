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
//   init-fails   nvmlInit answers DRIVER_NOT_LOADED, cuInit CUDA_ERROR_NO_DEVICE
//
// Times are a model: a copy of n bytes costs latency_us + n / (gbps * 1e3) microseconds, times a
// per-batch factor 0.98, 1.00 or 1.02 (from the value the stream waited for), so medians are exact
// and spread is visible. Unset or unknown names mean seed-guest.
#pragma once

#include <cstdint>
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
  int corrupt_src = -1, corrupt_dst = -1;  // peer copies on this pair corrupt bytes (P2P only)
  int hang_src = -1, hang_dst = -1;        // peer copies on this pair never complete (P2P only)
  bool wait_value = true;                  // cuStreamWaitValue32 supported
  unsigned nvlinks = 0;  // NVLinks per GPU; link k of GPU i reaches GPU (i + 1 + k % (n-1)) % n
  bool init_fails = false;
};

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

}  // namespace standin
