// GPUs for compute, picked from the PCI devices the pci probe found, named from dossier's
// device-id table; and the NVIDIA driver version from /proc/driver/nvidia/version.
//
// Which functions are compute GPUs: gpu/compute_gpu.h. They are numbered in PCI address order,
// which is nvidia-smi's and CUDA's order under CUDA_DEVICE_ORDER=PCI_BUS_ID.
//
// Runs after the pci probe; reads no sysfs itself (the PCI facts keep their sources).
#include <fmt/format.h>

#include <algorithm>

#include "gpu/compute_gpu.h"
#include "probe/probe.h"
#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {
namespace {

constexpr const char* kDriverVersionPath = "/proc/driver/nvidia/version";

// "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.82.07  Release Build  (...)"
// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024"
// -> the first word shaped like a version (digits and dots, at least one dot).
std::optional<std::string> ParseNvidiaDriverVersion(std::string_view line) {
  constexpr std::string_view kPrefix = "NVRM version:";
  if (!line.starts_with(kPrefix)) return std::nullopt;
  for (std::string_view w : SplitAny(line.substr(kPrefix.size()), " \t")) {
    bool digits_dots = !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
      return (c >= '0' && c <= '9') || c == '.';
    });
    if (digits_dots && w.find('.') != std::string_view::npos && w.front() != '.' &&
        w.back() != '.' && w.find("..") == std::string_view::npos) {
      return std::string(w);
    }
  }
  return std::nullopt;
}

void ReadNvidiaDriver(const RootFs& fs, Fact<std::string>* out) {
  auto text = fs.Read(kDriverVersionPath, 64 << 10);
  if (!text) {
    std::string reason = ReasonFor(text.error());
    // Live, or where the capture kept /proc/driver, the file's absence means the driver is not
    // loaded; a capture without /proc/driver says nothing about it.
    if (text.error().kind == Error::kNotFound)
      reason = fs.live() || fs.IsDir("/proc/driver") ? reason + " (NVIDIA driver not loaded)"
                                                     : "not in the capture";
    return out->Unknown(reason, kDriverVersionPath);
  }
  int n = 0;
  for (std::string_view line : SplitLines(*text)) {
    ++n;
    line = Trim(line);
    if (!line.starts_with("NVRM version:")) continue;
    std::string src = std::string(kDriverVersionPath) + ":" + std::to_string(n);
    if (auto v = ParseNvidiaDriverVersion(line)) return out->Set(*v, src);
    return out->Unknown("no version number in '" + Printable(line) + "'", src);
  }
  out->Unknown("no 'NVRM version:' line", kDriverVersionPath);
}

}  // namespace

void ProbeGpus(const ProbeContext& ctx, Machine* m) {
  std::vector<const PciDevice*> picked;
  for (const auto& d : m->pci.devices)
    if (IsComputeGpu(d)) picked.push_back(&d);
  std::sort(picked.begin(), picked.end(), [](const PciDevice* a, const PciDevice* b) {
    return ToLower(a->address) < ToLower(b->address);
  });
  m->gpus.clear();
  for (const PciDevice* d : picked) {
    Gpu g;
    g.index = static_cast<int64_t>(m->gpus.size());
    g.address = d->address;
    IdentifyGpu(*d, &g);
    g.numa_node = d->numa_node;
    g.driver = d->driver;
    // nvidia-smi topo -m's "CPU Affinity" is this same list (NVML reads the device's
    // local_cpulist), so a collected GPU and an imported one compare.
    g.cpu_affinity = d->local_cpus;
    m->gpus.push_back(std::move(g));
  }
  ReadNvidiaDriver(ctx.fs, &m->software.nvidia_driver);
}

}  // namespace dossier
