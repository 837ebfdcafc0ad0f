// GPUs for compute, picked from the PCI devices the pci probe found, named from dossier's
// device-id table; and the NVIDIA driver version from /proc/driver/nvidia/version.
//
// A compute GPU is an NVIDIA (0x10de) function of class 0x0300xx (VGA compatible: GeForce and
// workstation boards) or 0x0302xx (3D controller: data-center boards, the RTX PRO Server
// Edition). Left out: their HDMI/DP audio functions (class 0x0403), NVSwitch bridges (0x0680),
// and any other vendor's VGA, such as a server BMC's ASPEED (0x1a03) or Matrox (0x102b) display.
// They are numbered in PCI address order, which is nvidia-smi's and CUDA's order under
// CUDA_DEVICE_ORDER=PCI_BUS_ID.
//
// Runs after the pci probe; reads no sysfs itself (the PCI facts keep their sources).
#include <fmt/format.h>

#include <algorithm>

#include "gpu/device_ids.h"
#include "probe/probe.h"
#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {
namespace {

constexpr uint16_t kNvidiaVendor = 0x10de;
constexpr const char* kDriverVersionPath = "/proc/driver/nvidia/version";

// Vendor "0x10de" and class "0x030200" as sysfs writes them; a record without the "0x" (an
// import) is read the same way.
bool IsComputeGpu(const PciDevice& d) {
  if (!d.vendor_id.known() || ParsePciId(*d.vendor_id) != kNvidiaVendor) return false;
  if (!d.class_id.known()) return false;
  std::string_view cls = Trim(*d.class_id);
  if (cls.starts_with("0x") || cls.starts_with("0X")) cls.remove_prefix(2);
  return cls.size() == 6 && (cls.starts_with("0300") || cls.starts_with("0302"));
}

// Name, architecture and compute capability from the table; what is not there stays unknown
// with the reason, and the name falls back to the PCI name (from pci.ids) when there is one.
void Identify(const PciDevice& d, Gpu* g) {
  // -1: none. Ints rather than optionals: GCC 12 warns, wrongly, that an optional's payload may
  // be read uninitialized here.
  int id = -1, sub = -1;
  if (d.device_id.known()) {
    if (auto v = ParsePciId(*d.device_id)) id = *v;
  }
  if (d.subsystem_device_id.known()) {
    if (auto v = ParsePciId(*d.subsystem_device_id)) sub = *v;
  }
  std::string reason;
  if (!d.device_id.known()) {
    reason = "PCI device id unknown (" + d.device_id.unknown + ")";
  } else if (id < 0) {
    reason = "PCI device id '" + Printable(*d.device_id, 20) + "' is not a hex id";
  }
  const GpuModel* model =
      id < 0 ? nullptr
             : FindGpuModel(
                   static_cast<uint16_t>(id),
                   sub < 0 ? std::nullopt : std::optional<uint16_t>(static_cast<uint16_t>(sub)));
  if (model) {
    std::string src = fmt::format("dossier device-id table, 10de:{:04x}", id);
    g->name.Set(model->name, src + " (" + model->id_source + ")");
    g->architecture.Set(model->architecture, src + " (" + model->id_source + ")");
    g->compute_capability.Set(model->compute_capability, src + " (" + model->cc_source + ")");
    return;
  }
  if (id >= 0) reason = fmt::format("device id 0x{:04x} not in dossier's table", id);
  g->architecture.Unknown(reason, d.device_id.source);
  g->compute_capability.Unknown(reason, d.device_id.source);
  if (d.name.known())
    g->name = d.name;
  else
    g->name.Unknown(reason, d.device_id.source);
}

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
    Identify(*d, &g);
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
