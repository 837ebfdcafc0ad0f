#include "view/pasted_gpus.h"

#include <algorithm>
#include <map>

#include "analyze/topology.h"
#include "gpu/compute_gpu.h"
#include "util/text.h"

namespace dossier {
namespace {

// "00000000:01:00.0" (nvidia-smi) or "0000:01:00.0" -> "0000:01:00.0".
std::string PastedBusId(std::string id) {
  id = ToLower(std::string(Trim(id)));
  if (id.size() == 16 && id.rfind("0000", 0) == 0) id = id.substr(4);
  return id;
}

// Fills what `into` does not know from `from` (a fact of the same GPU from another paste).
template <class T>
void FillFromPaste(Fact<T>* into, const Fact<T>& from) {
  if (!into->known() && from.known()) *into = from;
}

}  // namespace

void GpusFromPastes(Machine* m) {
  std::map<std::string, Gpu> found;  // by address: PCI address order is nvidia-smi's order
  for (const auto& d : m->pci.devices) {
    if (!IsComputeGpu(d) && !IsComputeGpuWithoutClass(d)) continue;
    Gpu g;
    g.address = d.address;
    IdentifyGpu(d, &g);
    g.numa_node = d.numa_node;
    g.driver = d.driver;
    g.cpu_affinity = d.local_cpus;
    found[d.address] = std::move(g);
  }
  for (const auto& n : m->nvml.gpus) {
    if (!n.pci_bus_id.known()) continue;
    std::string a = PastedBusId(*n.pci_bus_id);
    if (found.count(a)) continue;
    Gpu g;
    g.address = a;
    g.name = n.name;
    g.numa_node = n.numa_node;
    found[a] = std::move(g);
  }
  // A pci.cfg mapping names the device by path and vendor:device: a GPU when the id is one.
  for (const auto& mp : m->hypervisor.pci_mappings)
    for (const auto& e : mp.entries) {
      if (!e.path.known() || !e.id.known()) continue;
      std::string a = PastedBusId(e.path->substr(0, e.path->find(';')));
      if (found.count(a)) continue;
      auto ids = SplitAny(*e.id, ":");
      if (ids.size() != 2) continue;
      PciDevice d;
      d.address = a;
      d.vendor_id.Set("0x" + std::string(ids[0]), e.id.source);
      d.device_id.Set("0x" + std::string(ids[1]), e.id.source);
      if (!IsComputeGpuWithoutClass(d)) continue;
      Gpu g;
      g.address = a;
      IdentifyGpu(d, &g);
      found[a] = std::move(g);
    }
  if (found.empty())
    return;  // the GPUs a paste listed without addresses (topo -m) stay as they are
  // `nvidia-smi topo -m` numbers GPUs without addresses, in PCI address order: its facts join
  // the GPU of that index when it lists as many GPUs; one with an address joins by address.
  std::vector<Gpu> pasted = std::move(m->gpus);
  std::vector<Gpu> out;
  for (auto& [a, g] : found) {
    g.index = static_cast<int64_t>(out.size());
    out.push_back(std::move(g));
  }
  bool by_index = pasted.size() == out.size();
  for (const auto& p : pasted) {
    Gpu* into = nullptr;
    for (auto& g : out)
      if (!p.address.empty() && g.address == PastedBusId(p.address)) into = &g;
    if (!into && p.address.empty() && by_index && p.index >= 0 &&
        static_cast<size_t>(p.index) < out.size())
      into = &out[static_cast<size_t>(p.index)];
    if (!into) continue;
    FillFromPaste(&into->name, p.name);
    FillFromPaste(&into->numa_node, p.numa_node);
    FillFromPaste(&into->driver, p.driver);
    FillFromPaste(&into->cpu_affinity, p.cpu_affinity);
  }
  m->gpus = std::move(out);
  DeriveTopology(m);
}

}  // namespace dossier
