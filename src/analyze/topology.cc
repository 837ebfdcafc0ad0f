#include "analyze/topology.h"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

namespace dossier {
namespace {

// Deeper than any real PCI hierarchy (the spec allows 256 buses); a longer chain is a loop or a
// corrupted record, not hardware.
constexpr size_t kMaxDepth = 64;

// Address -> device, built once per question so chains of any length stay linear.
class PciIndex {
 public:
  explicit PciIndex(const Machine& m) {
    for (const auto& d : m.pci.devices) by_address_.emplace(d.address, &d);
  }
  const PciDevice* Find(const std::string& address) const {
    auto it = by_address_.find(address);
    return it == by_address_.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<std::string, const PciDevice*> by_address_;
};

struct Chain {
  std::vector<std::string> up;  // ancestors, nearest first
  std::string root_complex;
  std::string problem;
};

Chain Walk(const PciIndex& index, const std::string& address) {
  Chain c;
  const PciDevice* d = index.Find(address);
  if (!d) {
    c.problem = address + " is not among the PCI devices";
    return c;
  }
  if (d->root_complex.known()) c.root_complex = *d->root_complex;
  std::set<std::string> seen{address};
  while (d->parent.known()) {
    const std::string& p = *d->parent;
    if (!seen.insert(p).second || c.up.size() >= kMaxDepth) {
      c.problem = "parent loop at " + p + " above " + address;
      break;
    }
    c.up.push_back(p);
    const PciDevice* pd = index.Find(p);
    if (!pd) {
      c.problem = "bridge " + p + " above " + d->address + " is not among the PCI devices";
      break;
    }
    d = pd;
    if (c.root_complex.empty() && d->root_complex.known()) c.root_complex = *d->root_complex;
  }
  return c;
}

PciPath MakePath(const PciIndex& index, const std::string& a, const std::string& b) {
  PciPath path;
  path.a = a;
  path.b = b;
  Chain ca = Walk(index, a);
  Chain cb = Walk(index, b);
  path.root_complex_a = ca.root_complex;
  path.root_complex_b = cb.root_complex;
  path.problem = !ca.problem.empty() ? ca.problem : cb.problem;

  // The lowest common ancestor: the first of a's ancestors (a itself included, for the odd case
  // of asking about a bridge and a device below it) that is also above b.
  std::vector<std::string> full_a{a};
  full_a.insert(full_a.end(), ca.up.begin(), ca.up.end());
  std::vector<std::string> full_b{b};
  full_b.insert(full_b.end(), cb.up.begin(), cb.up.end());
  for (size_t i = 0; i < full_a.size(); ++i) {
    auto j = std::find(full_b.begin(), full_b.end(), full_a[i]);
    if (j == full_b.end()) continue;
    path.common_ancestor = full_a[i];
    // Strictly between each device and the ancestor (empty when the device is the ancestor).
    auto ia = static_cast<std::ptrdiff_t>(i);
    auto ib = j - full_b.begin();
    path.bridges_a.assign(full_a.begin() + std::min<std::ptrdiff_t>(1, ia), full_a.begin() + ia);
    path.bridges_b.assign(full_b.begin() + std::min<std::ptrdiff_t>(1, ib), j);
    // A break above the common ancestor does not matter for this pair.
    path.problem.clear();
    return path;
  }
  path.bridges_a = ca.up;
  path.bridges_b = cb.up;
  return path;
}

bool IsPortType(const PciDevice* d, const char* type) {
  return d && d->port_type.known() && *d->port_type == type;
}

// The switch a bridge belongs to: a downstream port belongs to its upstream port's switch; any
// other bridge (and a port whose type is unknown) is its own.
std::string SwitchOf(const PciIndex& index, const std::string& bridge) {
  const PciDevice* d = index.Find(bridge);
  if (IsPortType(d, "downstream") && d->parent.known() &&
      IsPortType(index.Find(*d->parent), "upstream")) {
    return *d->parent;
  }
  return bridge;
}

// The NUMA node of a device, or of the nearest bridge above it that knows; nullopt when none
// does (-1 is the kernel saying it does not know).
std::optional<int64_t> NumaOf(const PciIndex& index, const std::string& address,
                              const std::vector<std::string>& bridges) {
  std::vector<std::string> chain{address};
  chain.insert(chain.end(), bridges.begin(), bridges.end());
  for (const auto& addr : chain) {
    const PciDevice* d = index.Find(addr);
    if (d && d->numa_node.known() && *d->numa_node >= 0) return *d->numa_node;
  }
  return std::nullopt;
}

std::string AcrossRootComplexes(const Machine& m, const PciIndex& index, const PciPath& p) {
  auto na = NumaOf(index, p.a, p.bridges_a);
  auto nb = NumaOf(index, p.b, p.bridges_b);
  if (na && nb) return *na == *nb ? kLevelNode : kLevelSys;
  // One node or none listed (a kernel without NUMA): whatever is unknown is that node.
  std::set<int64_t> nodes;
  for (const auto& n : m.numa.nodes) nodes.insert(n.id);
  if (na) nodes.insert(*na);
  if (nb) nodes.insert(*nb);
  return nodes.size() <= 1 ? kLevelNode : kLevelNodeOrSys;
}

std::string LevelOf(const Machine& m, const PciIndex& index, const PciPath& p) {
  if (p.a == p.b) return kLevelSelf;
  if (!p.common_ancestor.empty()) {
    std::set<std::string> switches{SwitchOf(index, p.common_ancestor)};
    for (const auto& br : p.bridges_a) switches.insert(SwitchOf(index, br));
    for (const auto& br : p.bridges_b) switches.insert(SwitchOf(index, br));
    return switches.size() <= 1 ? kLevelPix : kLevelPxb;
  }
  bool both_rc = !p.root_complex_a.empty() && !p.root_complex_b.empty();
  if (both_rc && p.root_complex_a != p.root_complex_b) return AcrossRootComplexes(m, index, p);
  // Same root complex: they meet at its host bridge, unless a chain broke below a bridge they
  // might share.
  if (both_rc && p.complete()) return kLevelPhb;
  return kLevelUnknown;
}

}  // namespace

PciPath PathBetween(const Machine& m, const std::string& address_a, const std::string& address_b) {
  return MakePath(PciIndex(m), address_a, address_b);
}

std::string TopologyLevel(const Machine& m, const std::string& address_a,
                          const std::string& address_b) {
  PciIndex index(m);
  return LevelOf(m, index, MakePath(index, address_a, address_b));
}

void DeriveTopology(Machine* m) {
  PciIndex index(*m);
  const size_t n = m->gpus.size();
  std::vector<std::vector<std::string>> levels(n, std::vector<std::string>(n));
  for (size_t i = 0; i < n; ++i) {
    levels[i][i] = kLevelSelf;
    for (size_t j = i + 1; j < n; ++j) {
      std::string l = LevelOf(*m, index, MakePath(index, m->gpus[i].address, m->gpus[j].address));
      levels[i][j] = l;
      levels[j][i] = l;
    }
  }
  m->topology.gpu_levels = std::move(levels);
}

}  // namespace dossier
