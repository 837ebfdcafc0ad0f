// `nvidia-smi -q`: "==============NVSMI LOG==============", driver and CUDA versions, then one
// indented block per GPU ("GPU 00000000:AD:00.0"). Read by indentation into section paths
// ("PCI/GPU Link Info/PCIe Generation/Max"). Facts: nvml.driver_version, cuda_driver_version,
// gpu_count, and nvml.gpus[] (bus id, name, UUID, serial, PCIe generation and width current and
// max, memory and BAR1 size, persistence, ECC, MIG) — what the probe reads through NVML on a
// machine dossier runs on.
#include <algorithm>
#include <map>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

bool SmiHead(std::string_view line) {
  return line.find("NVSMI LOG") != std::string_view::npos;
}

bool SmiStarts(const Lines& lines, size_t i) {
  return SmiHead(lines[i].text);
}

int SmiDetect(const Lines& lines) {
  int keys = 0;
  for (size_t i = 0; i < lines.size() && i < 300; ++i) {
    if (SmiHead(lines[i].text)) return 95;
    std::string_view t = Trim(lines[i].text);
    if (t.starts_with("Product Name") || t.starts_with("Attached GPUs") || t.starts_with("Bus Id"))
      ++keys;
  }
  return keys >= 2 ? 80 : 0;
}

size_t Indent(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && (s[n] == ' ' || s[n] == '\t')) n += s[n] == '\t' ? 4 : 1;
  return n;
}

std::optional<uint64_t> MiB(std::string_view v) {  // "95830 MiB"
  auto t = Tokens(v);
  if (t.size() != 2 || t[1] != "MiB") return std::nullopt;
  auto n = ParseUint(t[0]);
  if (!n || *n > (1ull << 40)) return std::nullopt;
  return *n << 20;
}

Status SmiParse(const Lines& lines, const ImportSource& src, Imported* out) {
  MachineIndex ix(&out->machine);
  NvmlInfo& nv = out->machine.nvml;
  std::vector<std::pair<size_t, std::string>> stack;  // indent, section
  NvmlGpu* g = nullptr;
  int64_t next_index = 0;
  size_t gpus_seen = 0;
  for (const auto& l : lines) {
    std::string_view t = Trim(l.text);
    if (t.empty() || SmiHead(t)) continue;
    size_t ind = Indent(l.text);
    std::string at = src.At(l.number);
    if (ind == 0 && t.starts_with("GPU ")) {
      auto a = NormalizePciAddress(Trim(t.substr(4)));
      if (!a) continue;
      g = &ix.NvmlGpuAt(next_index++);
      g->pci_bus_id.Set(*a, at);
      ++gpus_seen;
      ++out->facts;
      stack.clear();
      continue;
    }
    size_t colon = t.find(" : ");
    if (colon == std::string_view::npos && t.ends_with(" :")) colon = t.size() - 2;
    while (!stack.empty() && stack.back().first >= ind) stack.pop_back();
    if (colon == std::string_view::npos) {
      stack.push_back({ind, std::string(t)});  // a section header
      continue;
    }
    std::string key(Trim(t.substr(0, colon)));
    std::string val(Trim(t.substr(std::min(t.size(), colon + 3))));
    std::string path;
    for (const auto& s : stack) path += s.second + "/";
    path += key;
    if (!g) {
      if (key == "Driver Version") nv.driver_version.Set(val, at), ++out->facts;
      if (key == "CUDA Version") nv.cuda_driver_version.Set(val, at), ++out->facts;
      if (key == "Attached GPUs")
        if (auto n = ParseInt(val)) nv.gpu_count.Set(*n, at), ++out->facts;
      continue;
    }
    bool na = val == "N/A" || val.empty();
    auto set_int = [&](Fact<int64_t>* f) {
      std::string v = val;
      if (!v.empty() && v.back() == 'x') v.pop_back();  // "16x"
      if (auto n = ParseInt(v))
        f->Set(*n, at), ++out->facts;
      else if (!na)
        f->Unknown("nvidia-smi says '" + val + "'", at);
    };
    auto set_bool = [&](Fact<bool>* f) {
      if (val == "Enabled")
        f->Set(true, at), ++out->facts;
      else if (val == "Disabled")
        f->Set(false, at), ++out->facts;
    };
    if (path == "Product Name")
      g->name.Set(val, at), ++out->facts;
    else if (path == "GPU UUID")
      g->uuid.Set(val, at), ++out->facts;
    else if (path == "Serial Number" && !na)
      g->serial.Set(val, at), ++out->facts;
    else if (path == "Persistence Mode")
      set_bool(&g->persistence_mode);
    else if (path == "MIG Mode/Current")
      set_bool(&g->mig_enabled);
    else if (path == "ECC Mode/Current")
      set_bool(&g->ecc_enabled);
    else if (path == "PCI/GPU Link Info/PCIe Generation/Max")
      set_int(&g->pcie.max.gen);
    else if (path == "PCI/GPU Link Info/PCIe Generation/Current")
      set_int(&g->pcie.current.gen);
    else if (path == "PCI/GPU Link Info/Link Width/Max")
      set_int(&g->pcie.max.width);
    else if (path == "PCI/GPU Link Info/Link Width/Current")
      set_int(&g->pcie.current.width);
    else if (path == "FB Memory Usage/Total") {
      if (auto b = MiB(val)) g->memory_total_bytes.Set(*b, at), ++out->facts;
    } else if (path == "BAR1 Memory Usage/Total") {
      if (auto b = MiB(val)) g->bar1_total_bytes.Set(*b, at), ++out->facts;
    } else if (path == "GPU Virtualization Mode/Virtualization Mode" && val == "Pass-Through") {
      out->machine.virtualization.guest.Set(true, at);
      ++out->facts;
    }
  }
  if (gpus_seen == 0 && !nv.driver_version.known())
    return Error::Invalid("no 'GPU 00000000:BB:DD.F' block or driver version");
  nv.loaded = true;
  nv.library = "imported from " + src.file + " (nvidia-smi -q)";
  if (nv.gpu_count.known() && static_cast<size_t>(*nv.gpu_count) > gpus_seen)
    out->notes.push_back(src.file + ": 'Attached GPUs' says " + std::to_string(*nv.gpu_count) +
                         " but " + std::to_string(gpus_seen) +
                         " GPU block(s) are in the paste (cut off?)");
  return OkStatus();
}

}  // namespace

Importer NvidiaSmiQImporter() {
  return {"nvidia-smi-q",
          "nvidia-smi -q: driver, GPUs (bus id, serial, PCIe gen/width, BAR1, ECC, persistence)",
          {"nvidia-smi -q", "nvidia-smi --query"},
          SmiStarts,
          SmiDetect,
          SmiParse};
}

}  // namespace dossier::import
