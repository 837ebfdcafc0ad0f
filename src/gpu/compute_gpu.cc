#include "gpu/compute_gpu.h"

#include <fmt/format.h>

#include <cctype>
#include <string_view>

#include "gpu/device_ids.h"
#include "util/text.h"

namespace dossier {
namespace {

constexpr uint16_t kNvidiaVendor = 0x10de;

// "GB202GL [RTX PRO 6000 …]", "GH100 [H100 SXM5 80GB]", "AD102GL [L40S]": a chip code (one to
// three capitals, then digits) first. What is not a GPU says so in its name.
bool GpuChipName(std::string_view name) {
  constexpr std::string_view kVendor = "NVIDIA Corporation ";
  if (name.starts_with(kVendor)) name.remove_prefix(kVendor.size());
  for (std::string_view no : {"Audio", "NVSwitch", "Bridge", "USB", "Serial", "Switch"})
    if (name.find(no) != std::string_view::npos) return false;
  size_t i = 0;
  while (i < name.size() && i < 3 && std::isupper(static_cast<unsigned char>(name[i]))) ++i;
  size_t letters = i;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
  return letters >= 1 && i - letters >= 2;
}

}  // namespace

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
void IdentifyGpu(const PciDevice& d, Gpu* g) {
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

bool IsComputeGpuWithoutClass(const PciDevice& d) {
  if (d.class_id.known()) return false;
  if (!d.vendor_id.known() || ParsePciId(*d.vendor_id) != kNvidiaVendor) return false;
  if (d.device_id.known()) {
    auto id = ParsePciId(*d.device_id);
    return id && FindGpuModel(*id) != nullptr;
  }
  return d.name.known() && GpuChipName(*d.name);
}

}  // namespace dossier
