#include "measure/p2p/link_limit.h"

#include <fmt/format.h>

#include <array>

namespace dossier::p2p {

double PcieGbps(int64_t gen, int64_t lanes) {
  // std::array: an index past it aborts where libstdc++'s assertions are on (tests, sanitizers).
  static constexpr std::array<double, 7> kGtPerS = {0, 2.5, 5, 8, 16, 32, 64};
  if (gen < 1 || gen > 6 || lanes < 1 || lanes > 32) return 0;
  double efficiency = gen <= 2 ? 8.0 / 10 : gen <= 5 ? 128.0 / 130 : 242.0 / 256;
  return kGtPerS[static_cast<size_t>(gen)] * efficiency / 8 * static_cast<double>(lanes);
}

namespace {

struct Narrowest {
  double gbps = 0;
  std::string what;
  void Offer(double g, std::string w) {
    if (g > 0 && (gbps == 0 || g < gbps)) {
      gbps = g;
      what = std::move(w);
    }
  }
};

// One device's link: maximum generation, trained width (its maximum when the width is unknown).
void OfferLink(const std::string& who, const PciLink& link, const char* from, Narrowest* n) {
  if (!link.max.gen.known()) return;
  const Fact<int64_t>& width = link.current.width.known() ? link.current.width : link.max.width;
  if (!width.known()) return;
  n->Offer(PcieGbps(*link.max.gen, *width),
           fmt::format("{} Gen{} x{} ({})", who, *link.max.gen, *width, from));
}

}  // namespace

Fact<double> GpuPathLimit(const Machine& m, const std::string& address) {
  Narrowest n;
  const PciDevice* d = m.FindPci(address);
  for (int depth = 0; d && depth < 32; ++depth) {  // a bound against a looping parent chain
    OfferLink(d->address, d->link, "PCI walk", &n);
    d = d->parent.known() ? m.FindPci(*d->parent) : nullptr;
  }
  if (n.gbps == 0) {
    for (const auto& g : m.nvml.gpus)
      if (g.pci_bus_id.known() && *g.pci_bus_id == address) OfferLink(address, g.pcie, "NVML", &n);
  }
  Fact<double> f;
  if (n.gbps > 0)
    f.Set(n.gbps, n.what);
  else
    f.Unknown("no PCIe generation and width known for " + address +
                  " (neither the PCI walk nor NVML answered)",
              "link limit");
  return f;
}

Fact<double> PathLimit(const Machine& m, const std::vector<std::string>& addresses) {
  Fact<double> best;
  for (const auto& a : addresses) {
    Fact<double> f = GpuPathLimit(m, a);
    if (!f.known()) return f;  // an unknown part makes the whole path unknown
    if (!best.known() || *f < *best) best = f;
  }
  if (addresses.empty()) best.Unknown("no GPU on the path", "link limit");
  return best;
}

}  // namespace dossier::p2p
