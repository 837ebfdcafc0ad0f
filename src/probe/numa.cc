// NUMA nodes from /sys/devices/system/node: CPUs (cpulist, else the hex cpumap of older kernels
// and some captures), memory and the distance table; what kind of node each is (CPUs and
// memory, CPUs only, memory only) and, for a memory-only node, the GPU sysfs ties to it (GPU
// memory onlined as a node on POWER9 + V100 and Grace Hopper). Runs after the pci probe.
//
// A machine without the directory (NUMA off in the kernel) has no nodes listed, which is not an
// error. Overlapping nodes are kept as read; the rule numa.overlapping-nodes reports them.
#include <algorithm>

#include "probe/cpu_topology.h"
#include "probe/probe.h"
#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {
namespace {

void ReadNodeMemory(const RootFs& fs, const std::string& dir, NumaNode* node) {
  std::string mpath = dir + "/meminfo";
  // Free memory changes from second to second: a collect does not keep it (it would differ in
  // every diff); a pasted `numactl -H` says it.
  node->memory_free_bytes.Unknown("not kept by collect (it changes by the second)", mpath);
  auto meminfo = fs.Read(mpath, 1 << 20);
  if (!meminfo) return node->memory_bytes.Unknown(ReasonFor(meminfo.error()), mpath);
  int n = 0;
  for (std::string_view line : SplitLines(*meminfo)) {
    ++n;
    // "Node 0 MemTotal:       263834604 kB"
    size_t k = line.find("MemTotal:");
    if (k == std::string_view::npos) continue;
    auto words = SplitAny(line.substr(k + 9), " \t");
    auto kb = words.empty() ? std::nullopt : ParseUint(words[0]);
    std::string src = mpath + ":" + std::to_string(n);
    if (kb)
      node->memory_bytes.Set(*kb * 1024, src);
    else
      node->memory_bytes.Unknown("MemTotal is not a number", src);
    return;
  }
  node->memory_bytes.Unknown("no MemTotal line", mpath);
}

void ReadNodeDistances(const RootFs& fs, const std::string& dir, NumaNode* node) {
  std::string dpath = dir + "/distance";
  auto dist = fs.ReadValue(dpath);
  if (!dist) return node->distances.Unknown(ReasonFor(dist.error()), dpath);
  std::vector<int64_t> ds;
  for (auto w : SplitAny(*dist, " \t")) {
    auto d = ParseInt(w);
    if (!d)
      return node->distances.Unknown("not a list of integers: '" + Printable(*dist) + "'", dpath);
    ds.push_back(*d);
  }
  node->distances.Set(ds, dpath);
}

// Display-class PCI functions (VGA 0x0300, 3D 0x0302) whose numa_node is `id`.
std::vector<const PciDevice*> GpusOnNode(const Machine& m, int64_t id) {
  std::vector<const PciDevice*> out;
  for (const auto& d : m.pci.devices) {
    if (!d.class_id.known() || !d.class_id->starts_with("0x03")) continue;
    if (d.numa_node.known() && *d.numa_node == id) out.push_back(&d);
  }
  return out;
}

void Classify(const Machine& m, NumaNode* node) {
  const std::string src = node->cpus.source + ", " + node->memory_bytes.source;
  if (!node->cpus.known() || !node->memory_bytes.known()) {
    node->kind.Unknown("CPUs or memory of the node unknown", src);
    node->gpu.Unknown("not a memory-only node", src);
    return;
  }
  bool cpus = !node->cpus->empty(), memory = *node->memory_bytes > 0;
  node->kind.Set(cpus && memory ? "cpu+memory"
                 : cpus         ? "cpu-only"
                 : memory       ? "memory-only"
                                : "empty",
                 src);
  if (cpus || !memory) return node->gpu.Unknown("not a memory-only node", src);
  auto gpus = GpusOnNode(m, node->id);
  if (gpus.empty()) {
    return node->gpu.Unknown(
        "no GPU's numa_node is this node (CXL memory, or GPU memory sysfs does not attribute)",
        "/sys/bus/pci/devices/*/numa_node");
  }
  std::string names;
  for (const PciDevice* g : gpus)
    names += (names.empty() ? "" : ", ") + g->address +
             (g->name.known() ? " " + *g->name : std::string());
  node->gpu.Set(names, "/sys/bus/pci/devices/" + gpus[0]->address + "/numa_node");
}

}  // namespace

void ProbeNuma(const ProbeContext& ctx, Machine* m) {
  const RootFs& fs = ctx.fs;
  const std::string base = "/sys/devices/system/node";
  auto entries = fs.List(base);
  if (!entries) return;
  for (const auto& e : *entries) {
    if (!e.starts_with("node")) continue;
    auto id = ParseInt(std::string_view(e).substr(4));
    if (!id) continue;
    NumaNode node;
    node.id = *id;
    std::string dir = base + "/" + e;
    // A memory-only node has an empty cpulist (and an all-zero cpumap): a real, empty value.
    auto cpus = ReadCpuSet(fs, dir, "cpulist", "cpumap");
    if (cpus.known())
      node.cpus.Set(FormatCpuList(*cpus), cpus.source);
    else
      node.cpus.Unknown(cpus.unknown, cpus.source);
    ReadNodeMemory(fs, dir, &node);
    ReadNodeDistances(fs, dir, &node);
    Classify(*m, &node);
    m->numa.nodes.push_back(std::move(node));
  }
  std::sort(m->numa.nodes.begin(), m->numa.nodes.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
}

}  // namespace dossier
