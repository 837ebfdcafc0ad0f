#include "analyze/pci_walk.h"

#include <algorithm>

namespace dossier {
namespace {

bool ClassIs(const PciDevice& d, const char* prefix) {
  return d.class_id.known() && d.class_id->rfind(prefix, 0) == 0;
}

}  // namespace

bool IsNvidiaGpu(const PciDevice& d) {
  return d.vendor_id.known() && *d.vendor_id == "0x10de" &&
         (ClassIs(d, "0x0300") || ClassIs(d, "0x0302"));
}
bool IsNic(const PciDevice& d) {
  return ClassIs(d, "0x0200") || ClassIs(d, "0x0207");
}
bool IsBridge(const PciDevice& d) {
  return ClassIs(d, "0x0604");
}

std::vector<const PciDevice*> GpuDevices(const Machine& m) {
  std::vector<const PciDevice*> out;
  for (const auto& g : m.gpus) {
    if (const PciDevice* d = m.FindPci(g.address)) out.push_back(d);
  }
  if (!out.empty()) return out;
  for (const auto& d : m.pci.devices)
    if (IsNvidiaGpu(d)) out.push_back(&d);
  return out;
}

std::vector<const PciDevice*> NicDevices(const Machine& m) {
  std::vector<const PciDevice*> out;
  for (const auto& d : m.pci.devices)
    if (IsNic(d)) out.push_back(&d);
  return out;
}

std::vector<const PciDevice*> UpstreamChain(const Machine& m, const PciDevice& d) {
  std::vector<const PciDevice*> out;
  const PciDevice* cur = &d;
  // A chain longer than the device list means a loop in damaged data: stop there.
  while (out.size() < m.pci.devices.size() && cur->parent.known()) {
    const PciDevice* p = m.FindPci(*cur->parent);
    if (!p || p == &d || std::find(out.begin(), out.end(), p) != out.end()) break;
    out.push_back(p);
    cur = p;
  }
  return out;
}

std::string RootComplexOf(const Machine& m, const PciDevice& d) {
  if (d.root_complex.known()) return *d.root_complex;
  auto chain = UpstreamChain(m, d);
  if (!chain.empty() && chain.back()->root_complex.known()) return *chain.back()->root_complex;
  return "";
}

PairPath PathBetween(const Machine& m, const PciDevice& a, const PciDevice& b) {
  PairPath p;
  std::vector<const PciDevice*> ca = UpstreamChain(m, a), cb = UpstreamChain(m, b);
  for (size_t i = 0; i < ca.size(); ++i) {
    auto it = std::find(cb.begin(), cb.end(), ca[i]);
    if (it == cb.end()) continue;
    p.kind = PairPath::kSharedBridge;
    p.ancestor = ca[i];
    p.root_complex = RootComplexOf(m, *ca[i]);
    p.below_a.assign(ca.begin(), ca.begin() + static_cast<long>(i));
    p.below_b.assign(cb.begin(), it);
    return p;
  }
  std::string ra = RootComplexOf(m, a), rb = RootComplexOf(m, b);
  if (ra.empty() || rb.empty()) return p;
  p.below_a = ca;
  p.below_b = cb;
  if (ra == rb) {
    p.kind = PairPath::kSameRootComplex;
    p.root_complex = ra;
  } else {
    p.kind = PairPath::kAcrossRootComplexes;
  }
  return p;
}

std::string Describe(const PciDevice& d) {
  if (!d.name.known()) return d.address;
  return d.address + " (" + *d.name + ")";
}

}  // namespace dossier
