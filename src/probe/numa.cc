// NUMA nodes from /sys/devices/system/node: CPUs, memory and the distance table. A machine
// without the directory (NUMA off in the kernel) has no nodes listed, which is not an error.
#include <algorithm>

#include "probe/probe.h"
#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {

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
    ReadStringFact(fs, dir + "/cpulist", &node.cpus);
    if (!node.cpus.known() && node.cpus.unknown == "empty") {
      node.cpus.Set("", dir + "/cpulist");  // a memory-only node has no CPUs: a real value
    }
    std::string mpath = dir + "/meminfo";
    auto meminfo = fs.Read(mpath, 1 << 20);
    if (!meminfo) {
      node.memory_bytes.Unknown(ReasonFor(meminfo.error()), mpath);
    } else {
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
          node.memory_bytes.Set(*kb * 1024, src);
        else
          node.memory_bytes.Unknown("MemTotal is not a number", src);
        break;
      }
      if (!node.memory_bytes.known() && node.memory_bytes.unknown.empty()) {
        node.memory_bytes.Unknown("no MemTotal line", mpath);
      }
    }
    std::string dpath = dir + "/distance";
    auto dist = fs.ReadValue(dpath);
    if (!dist) {
      node.distances.Unknown(ReasonFor(dist.error()), dpath);
    } else {
      std::vector<int64_t> ds;
      bool ok = true;
      for (auto w : SplitAny(*dist, " \t")) {
        auto d = ParseInt(w);
        if (!d)
          ok = false;
        else
          ds.push_back(*d);
      }
      if (ok)
        node.distances.Set(ds, dpath);
      else
        node.distances.Unknown("not a list of integers: '" + Printable(*dist) + "'", dpath);
    }
    m->numa.nodes.push_back(std::move(node));
  }
  std::sort(m->numa.nodes.begin(), m->numa.nodes.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
}

}  // namespace dossier
