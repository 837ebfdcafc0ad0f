// The NVIDIA device-id table. Rows are grouped by architecture and chip, ascending ids within a
// group; each (device id, subsystem id) appears once (a test checks it).
//
// How each row was checked:
// - ids and names: the "Compatible GPUs" table of the NVIDIA driver README as shipped with the
//   open kernel modules (open-gpu-kernel-modules README.md, driver 610.43.03); names are the
//   driver's, which is what nvidia-smi and NVML print. A few rows older than that table's
//   device-only entries come from pci.ids 2023.04.10 (Debian 12's /usr/share/misc/pci.ids).
//   Spot checks against real `lspci -nn` output: 10de:2bb5 "GB202GL [RTX PRO 6000 Blackwell
//   Server Edition]" (class 0302), 10de:2b85 "GB202 [GeForce RTX 5090]" (class 0300),
//   10de:2335 H200 (class 0302), 10de:2901 B200 and 10de:3182 B300 (class 0302).
// - compute capability: developer.nvidia.com/cuda-gpus (12.1 GB10; 12.0 RTX PRO Blackwell and
//   RTX 50; 10.3 B300/GB300; 10.0 B200/GB200; 9.0 H100/H200/GH200; 8.9 Ada; 8.6 GA10x; 8.0
//   A100/A30) and NVIDIA's MIG user guide (H20, H200 NVL, A100, A30). Where a product is in
//   neither list (H800, A800, L20, RTX 6000D…), the value is its chip's, and cc_source says so.
//
// Left out on purpose:
// - B100: no PCI device id for it could be confirmed in any source above.
// - Laptop and embedded parts: not inference servers; they are "not in dossier's table".
// - Pre-Ampere GPUs (Turing, Volta): out of scope for this table; also "not in the table".
#include "gpu/device_ids.h"

#include <charconv>

namespace dossier {
namespace {

constexpr const char* kReadme = "NVIDIA driver 610.43.03 README, Compatible GPUs table";
constexpr const char* kPciIds = "pci.ids 2023.04.10";
constexpr const char* kCudaGpus = "developer.nvidia.com/cuda-gpus";
constexpr const char* kMigGuide = "NVIDIA MIG user guide (610), Supported GPUs";
constexpr const char* kGa100 = "chip GA100, as A100 in developer.nvidia.com/cuda-gpus";
constexpr const char* kGh100 = "chip GH100, as H100 in developer.nvidia.com/cuda-gpus";
constexpr const char* kAd10x = "chip AD10x, as the Ada GPUs in developer.nvidia.com/cuda-gpus";
constexpr const char* kGb202 = "chip GB202, as RTX PRO 6000 in developer.nvidia.com/cuda-gpus";

constexpr const char* kAmpere = "Ampere";
constexpr const char* kAda = "Ada Lovelace";
constexpr const char* kHopper = "Hopper";
constexpr const char* kBlackwell = "Blackwell";

// clang-format off
constexpr GpuModel kModels[] = {
    // Ampere, GA100 (8.0)
    {0x20b0, 0, "NVIDIA A100-SXM4-40GB", kAmpere, "8.0", kReadme, kCudaGpus},
    {0x20b1, 0, "NVIDIA A100 PCIe 40GB", kAmpere, "8.0", kPciIds, kCudaGpus},
    {0x20b2, 0, "NVIDIA A100-SXM4-80GB", kAmpere, "8.0", kReadme, kCudaGpus},
    {0x20b3, 0, "NVIDIA A100-SXM-64GB", kAmpere, "8.0", kReadme, kCudaGpus},
    {0x20b5, 0, "NVIDIA A100 80GB PCIe", kAmpere, "8.0", kReadme, kCudaGpus},
    {0x20b7, 0, "NVIDIA A30", kAmpere, "8.0", kReadme, kCudaGpus},
    {0x20f1, 0, "NVIDIA A100-PCIE-40GB", kAmpere, "8.0", kReadme, kCudaGpus},
    {0x20f3, 0, "NVIDIA A800-SXM4-80GB", kAmpere, "8.0", kReadme, kGa100},
    {0x20f5, 0, "NVIDIA A800 80GB PCIe", kAmpere, "8.0", kReadme, kGa100},
    {0x20f6, 0, "NVIDIA A800 40GB Active", kAmpere, "8.0", kReadme, kGa100},
    // Ampere, GA102/GA103/GA104/GA106/GA107 (8.6)
    {0x2203, 0, "NVIDIA GeForce RTX 3090 Ti", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2204, 0, "NVIDIA GeForce RTX 3090", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2206, 0, "NVIDIA GeForce RTX 3080", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2207, 0, "NVIDIA GeForce RTX 3070 Ti", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2208, 0, "NVIDIA GeForce RTX 3080 Ti", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x220a, 0, "NVIDIA GeForce RTX 3080", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2216, 0, "NVIDIA GeForce RTX 3080", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2230, 0, "NVIDIA RTX A6000", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2231, 0, "NVIDIA RTX A5000", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2232, 0, "NVIDIA RTX A4500", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2233, 0, "NVIDIA RTX A5500", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2235, 0, "NVIDIA A40", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2236, 0, "NVIDIA A10", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2237, 0, "NVIDIA A10G", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2238, 0, "NVIDIA A10M", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2414, 0, "NVIDIA GeForce RTX 3060 Ti", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2482, 0, "NVIDIA GeForce RTX 3070 Ti", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2484, 0, "NVIDIA GeForce RTX 3070", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2486, 0, "NVIDIA GeForce RTX 3060 Ti", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2487, 0, "NVIDIA GeForce RTX 3060", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2488, 0, "NVIDIA GeForce RTX 3070", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2489, 0, "NVIDIA GeForce RTX 3060 Ti", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x24b0, 0, "NVIDIA RTX A4000", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x24b1, 0, "NVIDIA RTX A4000H", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x24c7, 0, "NVIDIA GeForce RTX 3060", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x24c9, 0, "NVIDIA GeForce RTX 3060 Ti", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2503, 0, "NVIDIA GeForce RTX 3060", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2504, 0, "NVIDIA GeForce RTX 3060", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2531, 0, "NVIDIA RTX A2000", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2544, 0, "NVIDIA GeForce RTX 3060", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x2571, 0, "NVIDIA RTX A2000 12GB", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x25b6, 0, "NVIDIA A2 / A16", kAmpere, "8.6", kPciIds, kCudaGpus},
    {0x25b6, 0x14a9, "NVIDIA A16", kAmpere, "8.6", kReadme, kCudaGpus},
    {0x25b6, 0x157e, "NVIDIA A2", kAmpere, "8.6", kReadme, kCudaGpus},
    // Hopper, GH100 (9.0)
    {0x230e, 0, "NVIDIA H20 NVL16", kHopper, "9.0", kReadme, kGh100},
    {0x2321, 0, "NVIDIA H100 NVL", kHopper, "9.0", kReadme, kCudaGpus},
    {0x2322, 0, "NVIDIA H800 PCIe", kHopper, "9.0", kReadme, kGh100},
    {0x2324, 0, "NVIDIA H800", kHopper, "9.0", kReadme, kGh100},
    {0x2329, 0, "NVIDIA H20", kHopper, "9.0", kReadme, kMigGuide},
    {0x232c, 0, "NVIDIA H20-3e", kHopper, "9.0", kReadme, kGh100},
    {0x2330, 0, "NVIDIA H100 80GB HBM3", kHopper, "9.0", kReadme, kCudaGpus},  // H100 SXM5
    {0x2331, 0, "NVIDIA H100 PCIe", kHopper, "9.0", kReadme, kCudaGpus},
    {0x2335, 0, "NVIDIA H200", kHopper, "9.0", kReadme, kCudaGpus},  // H200 SXM
    {0x2339, 0, "NVIDIA H100", kHopper, "9.0", kReadme, kCudaGpus},
    {0x233a, 0, "NVIDIA H800 NVL", kHopper, "9.0", kReadme, kGh100},
    {0x233b, 0, "NVIDIA H200 NVL", kHopper, "9.0", kReadme, kMigGuide},
    {0x2342, 0, "NVIDIA GH200", kHopper, "9.0", kReadme, kCudaGpus},
    {0x2342, 0x16eb, "NVIDIA GH200 120GB", kHopper, "9.0", kReadme, kCudaGpus},
    {0x2342, 0x1805, "NVIDIA GH200 120GB", kHopper, "9.0", kReadme, kCudaGpus},
    {0x2342, 0x1809, "NVIDIA GH200 480GB", kHopper, "9.0", kReadme, kCudaGpus},
    {0x2348, 0, "NVIDIA GH200 144G HBM3e", kHopper, "9.0", kReadme, kCudaGpus},
    // Ada Lovelace, AD102/AD103/AD104/AD106/AD107 (8.9)
    {0x2684, 0, "NVIDIA GeForce RTX 4090", kAda, "8.9", kReadme, kCudaGpus},
    {0x2685, 0, "NVIDIA GeForce RTX 4090 D", kAda, "8.9", kReadme, kAd10x},
    {0x2689, 0, "NVIDIA GeForce RTX 4070 Ti SUPER", kAda, "8.9", kReadme, kAd10x},
    {0x26b1, 0, "NVIDIA RTX 6000 Ada Generation", kAda, "8.9", kReadme, kCudaGpus},
    {0x26b2, 0, "NVIDIA RTX 5000 Ada Generation", kAda, "8.9", kReadme, kCudaGpus},
    {0x26b3, 0, "NVIDIA RTX 5880 Ada Generation", kAda, "8.9", kReadme, kAd10x},
    {0x26b5, 0, "NVIDIA L40", kAda, "8.9", kReadme, kCudaGpus},
    {0x26b9, 0, "NVIDIA L40S", kAda, "8.9", kReadme, kCudaGpus},
    {0x26ba, 0, "NVIDIA L20", kAda, "8.9", kReadme, kAd10x},
    {0x2702, 0, "NVIDIA GeForce RTX 4080 SUPER", kAda, "8.9", kReadme, kAd10x},
    {0x2704, 0, "NVIDIA GeForce RTX 4080", kAda, "8.9", kReadme, kCudaGpus},
    {0x2705, 0, "NVIDIA GeForce RTX 4070 Ti SUPER", kAda, "8.9", kReadme, kAd10x},
    {0x2709, 0, "NVIDIA GeForce RTX 4070", kAda, "8.9", kReadme, kCudaGpus},
    {0x2782, 0, "NVIDIA GeForce RTX 4070 Ti", kAda, "8.9", kReadme, kCudaGpus},
    {0x2783, 0, "NVIDIA GeForce RTX 4070 SUPER", kAda, "8.9", kReadme, kAd10x},
    {0x2786, 0, "NVIDIA GeForce RTX 4070", kAda, "8.9", kReadme, kCudaGpus},
    {0x2788, 0, "NVIDIA GeForce RTX 4060 Ti", kAda, "8.9", kReadme, kCudaGpus},
    {0x27b0, 0, "NVIDIA RTX 4000 SFF Ada Generation", kAda, "8.9", kReadme, kCudaGpus},
    {0x27b1, 0, "NVIDIA RTX 4500 Ada Generation", kAda, "8.9", kReadme, kCudaGpus},
    {0x27b2, 0, "NVIDIA RTX 4000 Ada Generation", kAda, "8.9", kReadme, kCudaGpus},
    {0x27b6, 0, "NVIDIA L2", kAda, "8.9", kReadme, kAd10x},
    {0x27b8, 0, "NVIDIA L4", kAda, "8.9", kReadme, kCudaGpus},
    {0x2803, 0, "NVIDIA GeForce RTX 4060 Ti", kAda, "8.9", kReadme, kCudaGpus},
    {0x2805, 0, "NVIDIA GeForce RTX 4060 Ti", kAda, "8.9", kReadme, kCudaGpus},
    {0x2808, 0, "NVIDIA GeForce RTX 4060", kAda, "8.9", kReadme, kCudaGpus},
    {0x2882, 0, "NVIDIA GeForce RTX 4060", kAda, "8.9", kReadme, kCudaGpus},
    {0x28b0, 0, "NVIDIA RTX 2000 Ada Generation", kAda, "8.9", kReadme, kCudaGpus},
    // Blackwell data center, GB100 (10.0) and GB110 (10.3)
    {0x2901, 0, "NVIDIA B200", kBlackwell, "10.0", kReadme, kCudaGpus},
    {0x2909, 0, "NVIDIA B200", kBlackwell, "10.0", kReadme, kCudaGpus},
    {0x2941, 0, "NVIDIA GB200", kBlackwell, "10.0", kReadme, kCudaGpus},
    // Blackwell workstation and consumer, GB202/GB203/GB205/GB206/GB207 (12.0)
    {0x2b85, 0, "NVIDIA GeForce RTX 5090", kBlackwell, "12.0", kReadme, kCudaGpus},
    {0x2b87, 0, "NVIDIA GeForce RTX 5090 D", kBlackwell, "12.0", kReadme, kGb202},
    {0x2b8c, 0, "NVIDIA GeForce RTX 5090 D v2", kBlackwell, "12.0", kReadme, kGb202},
    {0x2bb1, 0, "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", kBlackwell, "12.0", kReadme,
     kCudaGpus},
    {0x2bb3, 0, "NVIDIA RTX PRO 5000 Blackwell", kBlackwell, "12.0", kReadme, kCudaGpus},
    {0x2bb3, 0x227a, "NVIDIA RTX PRO 5000 72GB Blackwell", kBlackwell, "12.0", kReadme,
     kCudaGpus},
    {0x2bb4, 0, "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", kBlackwell, "12.0",
     kReadme, kCudaGpus},
    {0x2bb5, 0, "NVIDIA RTX PRO 6000 Blackwell Server Edition", kBlackwell, "12.0", kReadme,
     kCudaGpus},
    {0x2bb9, 0, "NVIDIA RTX 6000D", kBlackwell, "12.0", kReadme, kGb202},
    {0x2c02, 0, "NVIDIA GeForce RTX 5080", kBlackwell, "12.0", kReadme, kCudaGpus},
    {0x2c05, 0, "NVIDIA GeForce RTX 5070 Ti", kBlackwell, "12.0", kReadme, kCudaGpus},
    {0x2c31, 0, "NVIDIA RTX PRO 4500 Blackwell", kBlackwell, "12.0", kReadme, kCudaGpus},
    {0x2c33, 0, "NVIDIA RTX PRO 4000 Blackwell SFF Edition", kBlackwell, "12.0", kReadme,
     kCudaGpus},
    {0x2c34, 0, "NVIDIA RTX PRO 4000 Blackwell", kBlackwell, "12.0", kReadme, kCudaGpus},
    {0x2c3a, 0, "NVIDIA RTX PRO 4500 Blackwell Server Edition", kBlackwell, "12.0", kReadme,
     kCudaGpus},
    {0x2d04, 0, "NVIDIA GeForce RTX 5060 Ti", kBlackwell, "12.0", kReadme, kCudaGpus},
    {0x2d05, 0, "NVIDIA GeForce RTX 5060", kBlackwell, "12.0", kReadme, kCudaGpus},
    {0x2d30, 0, "NVIDIA RTX PRO 2000 Blackwell", kBlackwell, "12.0", kReadme, kCudaGpus},
    {0x2d83, 0, "NVIDIA GeForce RTX 5050", kBlackwell, "12.0", kReadme, kCudaGpus},
    {0x2e12, 0, "NVIDIA GB10", kBlackwell, "12.1", kReadme, kCudaGpus},
    {0x2f04, 0, "NVIDIA GeForce RTX 5070", kBlackwell, "12.0", kReadme, kCudaGpus},
    {0x2f06, 0, "NVIDIA GeForce RTX 5060", kBlackwell, "12.0", kReadme, kCudaGpus},
    // Blackwell Ultra (10.3)
    {0x3182, 0, "NVIDIA B300 SXM6 AC", kBlackwell, "10.3", kReadme, kCudaGpus},
    {0x31c2, 0, "NVIDIA GB300", kBlackwell, "10.3", kReadme, kCudaGpus},
    {0x31c3, 0, "NVIDIA GB300", kBlackwell, "10.3", kReadme, kCudaGpus},
};
// clang-format on

}  // namespace

std::span<const GpuModel> GpuModelTable() {
  return kModels;
}

const GpuModel* FindGpuModel(uint16_t device_id, std::optional<uint16_t> subsystem_device_id) {
  // A linear scan: the table is a hundred rows, grouped by architecture for the reader.
  const GpuModel* device_only = nullptr;
  for (const GpuModel& row : kModels) {
    if (row.device_id != device_id) continue;
    if (row.subsystem_device_id == 0) {
      device_only = &row;
    } else if (subsystem_device_id && row.subsystem_device_id == *subsystem_device_id) {
      return &row;
    }
  }
  return device_only;
}

std::optional<uint16_t> ParsePciId(std::string_view text) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  if (text.empty() || text.size() > 4) return std::nullopt;
  uint16_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace dossier
