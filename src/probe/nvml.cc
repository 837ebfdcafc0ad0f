// NVML: what the NVIDIA driver says about each GPU and each GPU pair. Live only: with a --root
// other than / the GPUs the library would answer for are not the captured machine's, so NVML is off
// unless --nvml-lib names a library (a stand-in built for that tree). Every call that fails or is
// missing from the library becomes an unknown fact with the function's name and NVML's code
// ("nvmlDeviceGetSerial: NOT_SUPPORTED"); collection goes on.
#include <algorithm>
#include <cstring>
#include <memory>

#include "gpu/nvml_loader.h"
#include "gpu/pci_bus_id.h"
#include "model/visit.h"
#include "probe/nvml_health.h"
#include "probe/probe.h"
#include "util/text.h"
#include "util/utf8.h"

namespace dossier {
namespace {

using gpu::NvmlLibrary;

// Sets every fact of a model struct unknown with one reason (a GPU whose handle failed).
struct MarkUnknown {
  std::string why;
  std::string src;
  template <class T>
  void operator()(const char*, Fact<T>& f) {
    f.Unknown(why, src);
  }
  template <class T>
  void operator()(const char*, T& v) {
    if constexpr (Visitable<T>) v.visit(*this);
  }
};

template <class Fn, class T>
void Fail(const gpu::Func<Fn>& f, nvmlReturn_t rc, Fact<T>* out) {
  out->Unknown(NvmlLibrary::Why(f, rc), NvmlLibrary::Source(f));
}

// A string getter: the text up to the first NUL inside the buffer (never past it), with control
// bytes dropped, since the text ends up in Markdown and JSON.
void ReadString(const gpu::Func<nvmlDeviceGetString_fn>& f, nvmlDevice_t d, unsigned len,
                Fact<std::string>* out) {
  std::string buf(len + 1, '\0');
  nvmlReturn_t rc = NvmlLibrary::Call(f, d, buf.data(), len);
  if (rc != NVML_SUCCESS) return Fail(f, rc, out);
  buf.resize(::strnlen(buf.data(), len));
  std::erase_if(buf, [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  if (buf.empty()) return out->Unknown(f.name + ": empty", NvmlLibrary::Source(f));
  out->Set(MakeValidUtf8(buf), NvmlLibrary::Source(f));  // the door: the library's text
}

void ReadUint(const gpu::Func<nvmlDeviceGetUint_fn>& f, nvmlDevice_t d, Fact<int64_t>* out) {
  unsigned v = 0;
  nvmlReturn_t rc = NvmlLibrary::Call(f, d, &v);
  if (rc != NVML_SUCCESS) return Fail(f, rc, out);
  out->Set(static_cast<int64_t>(v), NvmlLibrary::Source(f));
}

void ReadPci(const NvmlLibrary& lib, nvmlDevice_t d, NvmlGpu* g) {
  // A buffer as large as the biggest layout: a library that writes the v3 struct for the plain
  // name cannot write past it.
  alignas(8) unsigned char raw[sizeof(nvmlPciInfo_t) + 64] = {};
  nvmlReturn_t rc = NvmlLibrary::Call(lib.pci_info, d, static_cast<void*>(raw));
  if (rc != NVML_SUCCESS) return Fail(lib.pci_info, rc, &g->pci_bus_id);
  nvmlPciInfo_t info;
  std::memcpy(&info, raw, sizeof(info));
  std::string src = NvmlLibrary::Source(lib.pci_info);
  // The v2/v3 long form first; the v1 struct has only the legacy 16-byte text.
  std::optional<std::string> id;
  if (!lib.pci_info_v1)
    id = gpu::NormalizePciBusId(std::string(info.busId, ::strnlen(info.busId, 32)));
  if (!id)
    id = gpu::NormalizePciBusId(std::string(info.busIdLegacy, ::strnlen(info.busIdLegacy, 16)));
  if (!id && info.bus < 256 && info.device < 32)
    id = gpu::FormatPciBusId(info.domain, info.bus, info.device);
  if (id)
    g->pci_bus_id.Set(*id, src);
  else
    g->pci_bus_id.Unknown(lib.pci_info.name + ": not a PCI address", src);
}

void ReadNvLinks(const NvmlLibrary& lib, nvmlDevice_t d, NvmlGpu* g) {
  // The count is not asked for (the API has no such call for every generation): links are tried
  // in order until the driver says the index is past the last one.
  for (unsigned link = 0; link < kNvmlMaxNvLinks; ++link) {
    unsigned active = 0;
    nvmlReturn_t rc = NvmlLibrary::Call(lib.nvlink_state, d, link, &active);
    if (rc == NVML_ERROR_INVALID_ARGUMENT || rc == NVML_ERROR_NOT_SUPPORTED ||
        rc == NVML_ERROR_FUNCTION_NOT_FOUND)
      break;
    NvmlNvLink l;
    l.link = link;
    if (rc != NVML_SUCCESS) {
      Fail(lib.nvlink_state, rc, &l.active);
    } else {
      l.active.Set(active == NVML_FEATURE_ENABLED, NvmlLibrary::Source(lib.nvlink_state));
    }
    nvmlPciInfo_t remote{};
    rc = NvmlLibrary::Call(lib.nvlink_remote_pci, d, link, &remote);
    if (rc != NVML_SUCCESS) {
      Fail(lib.nvlink_remote_pci, rc, &l.remote_pci_bus_id);
    } else if (auto id =
                   gpu::NormalizePciBusId(std::string(remote.busId, ::strnlen(remote.busId, 32)))) {
      l.remote_pci_bus_id.Set(*id, NvmlLibrary::Source(lib.nvlink_remote_pci));
    } else {
      l.remote_pci_bus_id.Unknown("not a PCI address", NvmlLibrary::Source(lib.nvlink_remote_pci));
    }
    g->nvlinks.push_back(std::move(l));
  }
}

void ReadGpu(const NvmlLibrary& lib, nvmlDevice_t d, NvmlGpu* g) {
  ReadString(lib.name, d, kNvmlNameBuffer, &g->name);
  ReadString(lib.uuid, d, kNvmlUuidBuffer, &g->uuid);
  ReadString(lib.serial, d, kNvmlSerialBuffer, &g->serial);
  ReadPci(lib, d, g);

  int major = 0, minor = 0;
  nvmlReturn_t rc = NvmlLibrary::Call(lib.compute_capability, d, &major, &minor);
  if (rc != NVML_SUCCESS)
    Fail(lib.compute_capability, rc, &g->compute_capability);
  else
    g->compute_capability.Set(std::to_string(major) + "." + std::to_string(minor),
                              NvmlLibrary::Source(lib.compute_capability));

  nvmlMemory_t mem{};
  rc = NvmlLibrary::Call(lib.memory_info, d, &mem);
  if (rc != NVML_SUCCESS)
    Fail(lib.memory_info, rc, &g->memory_total_bytes);
  else
    g->memory_total_bytes.Set(mem.total, NvmlLibrary::Source(lib.memory_info));
  nvmlBAR1Memory_t bar1{};
  rc = NvmlLibrary::Call(lib.bar1_memory_info, d, &bar1);
  if (rc != NVML_SUCCESS)
    Fail(lib.bar1_memory_info, rc, &g->bar1_total_bytes);
  else
    g->bar1_total_bytes.Set(bar1.bar1Total, NvmlLibrary::Source(lib.bar1_memory_info));

  ReadUint(lib.pcie_gen_current, d, &g->pcie.current.gen);
  ReadUint(lib.pcie_width_current, d, &g->pcie.current.width);
  ReadUint(lib.pcie_gen_max, d, &g->pcie.max.gen);
  ReadUint(lib.pcie_width_max, d, &g->pcie.max.width);

  unsigned node = 0;
  rc = NvmlLibrary::Call(lib.numa_node_id, d, &node);
  if (rc != NVML_SUCCESS)
    Fail(lib.numa_node_id, rc, &g->numa_node);
  else  // the driver answers an all-ones word for "no node", as sysfs answers -1
    g->numa_node.Set(static_cast<int64_t>(static_cast<int32_t>(node)),
                     NvmlLibrary::Source(lib.numa_node_id));

  unsigned state = 0, pending = 0;
  rc = NvmlLibrary::Call(lib.persistence_mode, d, &state);
  if (rc != NVML_SUCCESS)
    Fail(lib.persistence_mode, rc, &g->persistence_mode);
  else
    g->persistence_mode.Set(state == NVML_FEATURE_ENABLED,
                            NvmlLibrary::Source(lib.persistence_mode));
  rc = NvmlLibrary::Call(lib.ecc_mode, d, &state, &pending);
  if (rc != NVML_SUCCESS)
    Fail(lib.ecc_mode, rc, &g->ecc_enabled);
  else
    g->ecc_enabled.Set(state == NVML_FEATURE_ENABLED, NvmlLibrary::Source(lib.ecc_mode));
  rc = NvmlLibrary::Call(lib.mig_mode, d, &state, &pending);
  if (rc != NVML_SUCCESS)
    Fail(lib.mig_mode, rc, &g->mig_enabled);
  else
    g->mig_enabled.Set(state == 1, NvmlLibrary::Source(lib.mig_mode));

  unsigned mw = 0;
  rc = NvmlLibrary::Call(lib.power_limit, d, &mw);
  if (rc != NVML_SUCCESS)
    Fail(lib.power_limit, rc, &g->power_limit_w);
  else
    g->power_limit_w.Set(mw / 1000.0, NvmlLibrary::Source(lib.power_limit));

  for (auto [type, out] :
       {std::pair{NVML_CLOCK_SM, &g->clock_sm_mhz}, std::pair{NVML_CLOCK_MEM, &g->clock_mem_mhz}}) {
    unsigned mhz = 0;
    rc = NvmlLibrary::Call(lib.clock_info, d, static_cast<unsigned>(type), &mhz);
    if (rc != NVML_SUCCESS)
      Fail(lib.clock_info, rc, out);
    else
      out->Set(static_cast<int64_t>(mhz), NvmlLibrary::Source(lib.clock_info));
  }
  ReadNvLinks(lib, d, g);
  ReadNvmlHealth(lib, d, &g->health);
}

std::string LevelName(unsigned level) {
  switch (level) {
    case NVML_TOPOLOGY_INTERNAL:
      return "INT";  // two GPUs on one board
    case NVML_TOPOLOGY_SINGLE:
      return "PIX";
    case NVML_TOPOLOGY_MULTIPLE:
      return "PXB";
    case NVML_TOPOLOGY_HOSTBRIDGE:
      return "PHB";
    case NVML_TOPOLOGY_NODE:
      return "NODE";
    case NVML_TOPOLOGY_SYSTEM:
      return "SYS";
    default:
      return "?";
  }
}

std::string StatusName(unsigned status) {
  static const char* kNames[] = {"OK", "CNS", "GNS", "TNS", "DR", "NS", "U"};
  return status < 7 ? kNames[status] : "U";
}

void ReadPairs(const NvmlLibrary& lib, const std::vector<nvmlDevice_t>& devs, NvmlInfo* info,
               Topology* topo) {
  const size_t n = devs.size();
  auto square = [n] {
    return std::vector<std::vector<std::string>>(n, std::vector<std::string>(n, "X"));
  };
  topo->nvml_levels = square();
  struct Cap {
    unsigned index;
    const char* name;
    std::vector<std::vector<std::string>>* out;
  };
  P2pStatusMatrices& p = topo->p2p_status;
  Cap caps[] = {{NVML_P2P_CAPS_INDEX_READ, "read", &p.read},
                {NVML_P2P_CAPS_INDEX_WRITE, "write", &p.write},
                {NVML_P2P_CAPS_INDEX_NVLINK, "nvlink", &p.nvlink},
                {NVML_P2P_CAPS_INDEX_ATOMICS, "atomics", &p.atomics},
                {NVML_P2P_CAPS_INDEX_PCI, "pci", &p.pci}};
  for (auto& c : caps) *c.out = square();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < n; ++j) {
      if (i == j || !devs[i] || !devs[j]) {
        if (i != j) {
          topo->nvml_levels[i][j] = "?";
          for (auto& c : caps) (*c.out)[i][j] = "?";
        }
        continue;
      }
      std::string pair = std::to_string(i) + "-" + std::to_string(j) + " ";
      // NVLink first, as nvidia-smi does: NV<links> when active links join the pair.
      int links = 0;
      const auto& peer = info->gpus[j].pci_bus_id;
      for (const auto& l : info->gpus[i].nvlinks)
        if (l.active.value_or(false) && peer.known() && l.remote_pci_bus_id == peer) ++links;
      unsigned level = 0;
      nvmlReturn_t rc = NvmlLibrary::Call(lib.common_ancestor, devs[i], devs[j], &level);
      if (links > 0) {
        topo->nvml_levels[i][j] = "NV" + std::to_string(links);
      } else if (rc != NVML_SUCCESS) {
        topo->nvml_levels[i][j] = "?";
        info->pair_errors.push_back(pair + NvmlLibrary::Why(lib.common_ancestor, rc));
      } else {
        topo->nvml_levels[i][j] = LevelName(level);
        if (topo->nvml_levels[i][j] == "?")
          info->pair_errors.push_back(pair + lib.common_ancestor.name + ": unknown level " +
                                      std::to_string(level));
      }
      for (auto& c : caps) {
        unsigned status = 0;
        rc = NvmlLibrary::Call(lib.p2p_status, devs[i], devs[j], c.index, &status);
        if (rc != NVML_SUCCESS) {
          (*c.out)[i][j] = "?";
          info->pair_errors.push_back(pair + lib.p2p_status.name + "(" + c.name +
                                      "): " + NvmlLibrary::Why(lib.p2p_status, rc));
        } else {
          (*c.out)[i][j] = StatusName(status);
        }
      }
    }
  }
}

void MatchPciWalk(const Machine& m, NvmlGpu* g) {
  if (!g->pci_bus_id.known()) {
    g->gpu_index.Unknown("PCI bus id unknown", "nvml");
    return;
  }
  for (const auto& s : m.gpus) {
    if (s.address == *g->pci_bus_id) {
      g->gpu_index.Set(s.index, "gpus");
      return;
    }
  }
  g->gpu_index.Unknown(m.gpus.empty() ? "the PCI walk found no GPUs"
                                      : "no GPU at " + *g->pci_bus_id + " in the PCI walk",
                       "gpus");
}

// pci.ids lags new GPUs (NVML names a board months before the database lists its device id):
// where the PCI walk has no name for the GPU, or only its vendor's ("NVIDIA Corporation Device
// 2335", lspci's form), NVML's name stands in, and the source says why.
bool VendorOnly(const PciDevice& d) {
  if (!d.name.known()) return true;
  std::string id = d.device_id.known() ? ToLower(*d.device_id) : "";
  if (id.starts_with("0x")) id = id.substr(2);
  return !id.empty() && d.name->ends_with(" Device " + id);
}

void NameFromNvml(const NvmlGpu& g, Machine* m) {
  if (!g.name.known() || !g.pci_bus_id.known()) return;
  for (PciDevice& d : m->pci.devices) {
    if (d.address != *g.pci_bus_id || !VendorOnly(d)) continue;
    std::string why =
        d.name.known() ? "pci.ids lists only the vendor of " : "pci.ids has no name for ";
    std::string id = d.vendor_id.value_or("?") + ":" + d.device_id.value_or("?");
    d.name.Set(*g.name, g.name.source + " (" + why + id + ")");
  }
  for (Gpu& w : m->gpus) {
    if (w.address != *g.pci_bus_id) continue;
    // The walk's name came from dossier's table or pci.ids; only a missing or vendor-only one
    // is replaced.
    bool vendor_only = w.name.known() && w.name->find(" Device ") != std::string::npos &&
                       w.name.source.starts_with("libpci");
    if (!w.name.known() || vendor_only)
      w.name.Set(*g.name, g.name.source + " (pci.ids has no name for this device id)");
  }
}

void NotLoaded(NvmlInfo* info, const std::string& why) {
  info->loaded = false;
  info->error = why;
  std::string reason = "NVML not loaded: " + why;
  info->driver_version.Unknown(reason, "nvml");
  info->cuda_driver_version.Unknown(reason, "nvml");
  info->gpu_count.Unknown(reason, "nvml");
}

}  // namespace

void ProbeNvml(const ProbeContext& ctx, Machine* m) {
  NvmlInfo& info = m->nvml;
  if (!ctx.fs.live() && ctx.options.nvml_lib.empty()) {
    NotLoaded(&info, "off: --root is not / and no --nvml-lib was given");
    return;
  }
  auto opened = NvmlLibrary::Open(ctx.options.nvml_lib);
  if (!opened) {
    NotLoaded(&info, opened.error().message);
    ctx.log->push_back("nvml: not loaded: " + opened.error().message);
    return;
  }
  const NvmlLibrary& lib = **opened;
  info.loaded = true;
  info.library = lib.path();

  char version[kNvmlDriverVersionBuffer + 1] = {};
  nvmlReturn_t rc = NvmlLibrary::Call(lib.driver_version, version, kNvmlDriverVersionBuffer);
  if (rc != NVML_SUCCESS)
    Fail(lib.driver_version, rc, &info.driver_version);
  else
    info.driver_version.Set(
        MakeValidUtf8(std::string_view(version, ::strnlen(version, kNvmlDriverVersionBuffer))),
        NvmlLibrary::Source(lib.driver_version));
  int cuda = 0;
  rc = NvmlLibrary::Call(lib.cuda_driver_version, &cuda);
  if (rc != NVML_SUCCESS)
    Fail(lib.cuda_driver_version, rc, &info.cuda_driver_version);
  else  // major*1000 + minor*10: 12080 is 12.8
    info.cuda_driver_version.Set(
        std::to_string(cuda / 1000) + "." + std::to_string(cuda % 1000 / 10),
        NvmlLibrary::Source(lib.cuda_driver_version));

  unsigned count = 0;
  rc = NvmlLibrary::Call(lib.device_count, &count);
  if (rc != NVML_SUCCESS) {
    Fail(lib.device_count, rc, &info.gpu_count);
    return;
  }
  info.gpu_count.Set(count, NvmlLibrary::Source(lib.device_count));
  count = std::min(count, 1024u);  // a bound against a library that answers nonsense
  std::vector<nvmlDevice_t> devs(count, nullptr);
  for (unsigned i = 0; i < count; ++i) {
    NvmlGpu g;
    g.index = i;
    rc = NvmlLibrary::Call(lib.handle_by_index, i, &devs[i]);
    if (rc != NVML_SUCCESS) {
      devs[i] = nullptr;
      MarkUnknown mark{NvmlLibrary::Why(lib.handle_by_index, rc),
                       NvmlLibrary::Source(lib.handle_by_index)};
      g.visit(mark);
    } else {
      ReadGpu(lib, devs[i], &g);
    }
    MatchPciWalk(*m, &g);
    NameFromNvml(g, m);
    info.gpus.push_back(std::move(g));
  }
  ReadPairs(lib, devs, &info, &m->topology);
  ctx.log->push_back("nvml: " + std::to_string(count) + " GPUs from " + lib.path());
}

}  // namespace dossier
