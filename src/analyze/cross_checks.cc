#include "analyze/cross_checks.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace dossier {
namespace {

std::string JoinIds(const std::vector<std::string>& v, size_t max = 8) {
  std::string out;
  for (size_t i = 0; i < v.size() && i < max; ++i) out += (i ? ", " : "") + v[i];
  if (v.size() > max) out += fmt::format(" and {} more", v.size() - max);
  return out.empty() ? "none" : out;
}

std::string TopoServerName(const Server& s) {
  return "NCCL_TOPO_FILE of " + s.engine + " (pid " + std::to_string(s.pid) + ")";
}

}  // namespace

NcclTopoCheck CheckNcclTopoFile(const Machine& m, const NcclTopoFile& f) {
  NcclTopoCheck c;
  const std::string file = f.file.value_or("NCCL_TOPO_FILE");
  auto at = [&](int64_t line) { return line > 0 ? file + ":" + std::to_string(line) : file; };
  if (!f.parse_error.empty()) {
    c.problems.push_back("the file does not parse: " + f.parse_error +
                         " (NCCL stops at initialisation with an XML error)");
    c.sources.push_back(file);
    return c;
  }
  std::map<std::string, const Gpu*> gpus;  // the machine's, by bus id
  std::vector<std::string> machine_ids;
  for (const auto& g : m.gpus) {
    gpus[g.address] = &g;
    machine_ids.push_back(g.address);
  }
  std::set<int64_t> nodes;
  std::vector<std::string> node_ids;
  for (const auto& n : m.numa.nodes) {
    nodes.insert(n.id);
    node_ids.push_back(std::to_string(n.id));
  }
  // NUMA ids: checked only when the machine's nodes were read (an empty list is "not captured").
  if (!nodes.empty()) {
    std::set<int64_t> said;
    for (int64_t id : f.cpu_numa_ids) {
      if (nodes.count(id) || !said.insert(id).second) continue;
      c.problems.push_back(fmt::format(
          "<cpu numaid=\"{}\"> names a NUMA node this machine does not have (its nodes: {})", id,
          JoinIds(node_ids)));
      c.sources.push_back(file);
    }
  }
  std::map<std::string, int64_t> seen;  // bus id -> first line
  for (const auto& g : f.gpus) {
    auto [it, first] = seen.emplace(g.bus_id, g.line);
    if (!first) {
      c.problems.push_back(fmt::format("GPU {} appears twice (lines {} and {}): NCCL keeps one",
                                       g.bus_id, it->second, g.line));
      c.sources.push_back(at(g.line));
      continue;
    }
    auto mg = gpus.find(g.bus_id);
    if (mg == gpus.end()) {
      c.problems.push_back(fmt::format(
          "GPU {} is not a GPU of this machine (its GPUs: {}): NCCL matches GPUs by bus id, so "
          "this node places nothing and the GPU it was meant for is placed from the machine's "
          "own tree",
          g.bus_id, JoinIds(machine_ids)));
      c.sources.push_back(at(g.line));
      continue;
    }
    const Fact<int64_t>& probed = mg->second->numa_node;
    if (g.numa_id.known() && probed.known() && *probed >= 0 && *probed != *g.numa_id) {
      c.problems.push_back(fmt::format(
          "GPU {} is under NUMA node {} in the file but reads numa_node {} on this machine",
          g.bus_id, *g.numa_id, *probed));
      c.sources.push_back(at(g.line));
    }
  }
  std::vector<std::string> missing;
  for (const auto& id : machine_ids)
    if (!seen.count(id)) missing.push_back(id);
  if (!missing.empty() && !f.gpus.empty()) {
    c.problems.push_back(fmt::format(
        "{} of the machine's GPUs are not in the file ({}): NCCL places them from the machine's "
        "own tree, beside the file's layout",
        missing.size(), JoinIds(missing)));
    c.sources.push_back(file);
  }
  if (f.gpus.empty() && !m.gpus.empty()) {
    c.problems.push_back(
        "the file places no GPU (no <pci busid=…> with a <gpu> or a display "
        "class): NCCL places every GPU from the machine's own tree");
    c.sources.push_back(file);
  }
  if (c.problems.empty()) {
    std::vector<std::string> ids;
    for (int64_t id : f.cpu_numa_ids) ids.push_back(std::to_string(id));
    c.agreed = fmt::format(
        "{} GPU(s), each a GPU of this machine and each once, all of the machine's GPUs; NUMA "
        "ids {} {}",
        f.gpus.size(), JoinIds(ids),
        nodes.empty() ? "(the machine's NUMA nodes were not read)" : "exist on this machine");
  }
  return c;
}

std::vector<const Server*> ServersWithTopoFile(const Machine& m) {
  std::vector<const Server*> out;
  std::set<std::string> files;
  for (const auto& s : m.servers)
    if (s.nccl_topo.file.known() && files.insert(*s.nccl_topo.file).second) out.push_back(&s);
  return out;
}

std::string TopoFileAlreadySet(const Machine& m) {
  auto servers = ServersWithTopoFile(m);
  if (servers.empty()) return "";
  const Server& s = *servers.front();
  bool agrees = CheckNcclTopoFile(m, s.nccl_topo).problems.empty();
  return TopoServerName(s) + " is " + *s.nccl_topo.file +
         (agrees ? ", which agrees with this machine's GPUs and NUMA nodes (Cross-checks)"
                 : ", which disagrees with this machine's GPUs or NUMA nodes (finding "
                   "nccl.topo-file-mismatch)");
}

std::vector<CrossCheck> CrossChecks(const Machine& m) {
  std::vector<CrossCheck> out;
  for (const Server* s : ServersWithTopoFile(m)) {
    NcclTopoCheck c = CheckNcclTopoFile(m, s->nccl_topo);
    CrossCheck x;
    x.what = TopoServerName(*s);
    x.agrees = c.problems.empty();
    x.detail = x.agrees ? c.agreed
                        : fmt::format("{} problem(s), finding nccl.topo-file-mismatch: {}",
                                      c.problems.size(), c.problems.front());
    x.source = *s->nccl_topo.file;
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace dossier
