#include "fleet/node_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <type_traits>

#include "model/json_io.h"
#include "util/text.h"

namespace dossier::fleet {
namespace {

template <class T>
std::string FactText(const Fact<T>& f) {
  if (f.known()) {
    if constexpr (std::is_same_v<T, std::string>)
      return *f;
    else if constexpr (std::is_same_v<T, bool>)
      return *f ? "yes" : "no";
    else
      return fmt::format("{}", *f);
  }
  return "unknown: " + (f.unknown.empty() ? std::string("not read") : f.unknown);
}

std::string LinkText(const PciLink& l) {
  auto one = [](const PciLinkState& s) {
    if (!s.gen.known() && !s.width.known()) return std::string("unknown");
    return fmt::format("Gen{} x{}", s.gen.known() ? std::to_string(*s.gen) : "?",
                       s.width.known() ? std::to_string(*s.width) : "?");
  };
  return one(l.current) + " (max " + one(l.max) + ")";
}

std::string Board(const DmiInfo& d) {
  auto part = [](const Fact<std::string>& f) { return f.known() ? *f : std::string(); };
  std::string vendor = part(d.board_vendor), name = part(d.board_name);
  if (name.empty()) {  // VMs and some boards leave the baseboard empty: the product names them
    vendor = part(d.sys_vendor);
    name = part(d.product_name);
  }
  std::string b = vendor.empty() ? name : name.empty() ? vendor : vendor + " " + name;
  return b.empty() ? "unknown board" : b;
}

// The IOMMU as the kernel set it up: on or off, and the domain types of its groups.
std::string IommuMode(const IommuInfo& io) {
  if (!io.enabled.known()) return FactText(io.enabled);
  if (!*io.enabled) return "off";
  std::set<std::string> types;
  for (const auto& g : io.groups) types.insert(g.type.known() ? *g.type : "unknown");
  std::string out = "on";
  if (!types.empty()) {
    out += ", domains ";
    bool first = true;
    for (const auto& t : types) out += (first ? "" : "+") + t, first = false;
  }
  return out;
}

void PairMatrix(const std::vector<std::vector<std::string>>& m, const std::string& what,
                NodeFacts* n) {
  for (size_t i = 0; i < m.size(); ++i)
    for (size_t j = i + 1; j < m[i].size(); ++j)
      n->attributes.emplace_back(fmt::format("{} {}-{}", what, i, j), m[i][j]);
}

std::string Device(int64_t i) {
  return i < 0 ? "host" : "GPU " + std::to_string(i);
}

// The latest p2p sweep: per mode and size, the weakest pair's bandwidth (or the slowest pair's
// latency), which is what a bad link or a disabled P2P path moves; and how its copies ended.
void P2pMetrics(const MachineView& mv, NodeFacts* n) {
  if (mv.p2p.empty()) return;
  const P2pMeasurement& pm = mv.p2p.back();
  std::map<std::string, int> verdicts;
  std::map<std::string, NodeMetric> worst;
  for (const auto& r : pm.results) {
    ++verdicts[r.verdict];
    if (r.verdict != "ok") continue;
    bool latency = r.mode.rfind("latency", 0) == 0;
    std::string key = latency
                          ? fmt::format("p2p {} {} B, slowest pair (us)", r.mode, r.size_bytes)
                          : fmt::format("p2p {} {} B, weakest pair (GB/s)", r.mode, r.size_bytes);
    const Fact<double>& v = latency ? r.latency_us : r.gbps_median;
    if (!v.known()) continue;
    auto [it, fresh] = worst.try_emplace(key);
    if (fresh || (latency ? *v > it->second.value : *v < it->second.value))
      it->second = {key, *v, Device(r.src) + " -> " + Device(r.dst)};
  }
  for (auto& [k, m] : worst) n->metrics.push_back(std::move(m));
  std::string v;
  for (const auto& [verdict, count] : verdicts)
    v += (v.empty() ? "" : ", ") + fmt::format("{} {}", count, verdict);
  n->attributes.emplace_back("p2p last sweep", v + (pm.interrupted ? " (interrupted)" : ""));
}

std::string LoadLabel(const ServeRun& r) {
  if (r.concurrency.known()) return "concurrency " + std::to_string(*r.concurrency);
  if (r.request_rate.known()) return fmt::format("rate {:g}/s", *r.request_rate);
  return "load unknown";
}

void ServeMetrics(const MachineView& mv, NodeFacts* n) {
  if (mv.serve.empty()) return;
  for (const auto& r : mv.serve.back().runs) {
    std::string load = LoadLabel(r);
    if (r.MeasuredSomething()) {
      if (r.Knows("total_tokens_per_s"))
        n->metrics.push_back({"serve " + load + " total tokens/s", r.total_tokens_per_s, ""});
      if (r.ttft_ms.median.known())
        n->metrics.push_back({"serve " + load + " TTFT median (ms)", *r.ttft_ms.median, ""});
      if (r.tpot_ms.median.known())
        n->metrics.push_back({"serve " + load + " TPOT median (ms)", *r.tpot_ms.median, ""});
    }
    if (r.Knows("failed") && r.failed > 0)
      n->attributes.emplace_back("serve " + load + " failed requests", std::to_string(r.failed));
  }
}

// Every package version of the node's Python environments, per package ("2.8.0" or
// "2.7.1, 2.8.0" when two environments differ).
void Packages(const SoftwareInfo& sw, NodeFacts* n) {
  std::map<std::string, std::set<std::string>> versions;
  for (const auto& env : sw.python_envs)
    for (const auto& [pkg, ver] : env.packages) versions[pkg].insert(ver);
  for (const auto& [pkg, vs] : versions) {
    std::string v;
    for (const auto& s : vs) v += (v.empty() ? "" : ", ") + s;
    n->attributes.emplace_back("python package " + pkg, v);
  }
}

void MachineAttributes(const Machine& m, NodeFacts* n) {
  auto add = [n](std::string k, std::string v) { n->attributes.emplace_back(std::move(k), v); };
  add("BIOS version", FactText(m.dmi.bios_version));
  add("BIOS date", FactText(m.dmi.bios_date));
  add("CPU", FactText(m.cpu.model));
  add("CPU threads", FactText(m.cpu.threads));
  // MemTotal moves by a few MiB with the kernel; a missing DIMM moves it by GiB.
  add("memory", m.memory.total_bytes.known()
                    ? fmt::format("{} GiB", (*m.memory.total_bytes + (1u << 29)) >> 30)
                    : FactText(m.memory.total_bytes));
  add("NUMA nodes", std::to_string(m.numa.nodes.size()));
  add("virtualization", m.virtualization.guest.known() && *m.virtualization.guest
                            ? "guest of " + FactText(m.virtualization.hypervisor)
                        : FactText(m.virtualization.guest) == "no"
                            ? "bare metal"
                            : FactText(m.virtualization.guest));
  add("OS", FactText(m.os.pretty_name));
  add("kernel", FactText(m.kernel.release));
  add("kernel command line", FactText(m.kernel.cmdline));
  add("IOMMU", IommuMode(m.iommu));
  add("NVIDIA driver", FactText(m.software.nvidia_driver));
  add("CUDA toolkit (default)", FactText(m.software.cuda_default));
  Packages(m.software, n);
  add("kernel log PCI problems", std::to_string(m.kernel_log.pci_problems.size()));
  for (const auto& g : m.gpus) {
    std::string gpu = fmt::format("GPU {}", g.index);
    add(gpu + " PCI address", g.address);
    add(gpu + " NUMA node", FactText(g.numa_node));
    add(gpu + " driver", FactText(g.driver));
    if (const PciDevice* d = m.FindPci(g.address)) add(gpu + " PCIe link", LinkText(d->link));
  }
  PairMatrix(m.topology.gpu_levels, "PCI level", n);
  add("NVML", m.nvml.loaded ? "loaded" : "not loaded");
  if (m.nvml.loaded) {
    add("CUDA driver API (NVML)", FactText(m.nvml.cuda_driver_version));
    for (const auto& g : m.nvml.gpus) {
      std::string gpu = fmt::format("NVML GPU {}", g.index);
      add(gpu + " PCIe link", LinkText(g.pcie));
      add(gpu + " ECC", FactText(g.ecc_enabled));
      add(gpu + " persistence mode", FactText(g.persistence_mode));
      add(gpu + " power limit (W)", FactText(g.power_limit_w));
      add(gpu + " MIG", FactText(g.mig_enabled));
    }
    PairMatrix(m.topology.p2p_status.read, "P2P read", n);
    PairMatrix(m.topology.p2p_status.write, "P2P write", n);
  }
}

void GroupKey(const Machine& m, NodeFacts* n) {
  n->board = Board(m.dmi);
  n->gpu_count = static_cast<int64_t>(m.gpus.size());
  std::set<std::string> models;
  for (const auto& g : m.gpus) models.insert(g.name.known() ? *g.name : "unknown GPU");
  for (const auto& s : models) n->gpu_model += (n->gpu_model.empty() ? "" : " + ") + s;
  if (n->gpu_model.empty()) n->gpu_model = "no GPU";
}

// nlohmann's value() throws when the key holds another type: a hostile file must not stop the
// fleet, so these read a field only when it has the expected type.
std::string StrField(const nlohmann::json& j, const char* key, std::string fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

}  // namespace

bool DifferentMachines(const std::string& boot_a, const std::string& board_a,
                       const std::string& uuid_a, const std::string& boot_b,
                       const std::string& board_b, const std::string& uuid_b) {
  if (boot_a.empty() || boot_b.empty() || boot_a == boot_b) return false;
  auto known_board = [](const std::string& b) { return !b.empty() && b != "unknown board"; };
  if (known_board(board_a) && known_board(board_b) && board_a != board_b) return true;
  return !uuid_a.empty() && !uuid_b.empty() && ToLower(uuid_a) != ToLower(uuid_b);
}

NodeFacts FromMachineView(const MachineView& mv, const std::vector<Finding>& findings) {
  NodeFacts n;
  n.name = mv.machine.name;
  n.file = mv.record.file;
  n.time = mv.record.time;
  GroupKey(mv.machine, &n);
  n.boot_id = mv.machine.boot_id.value_or("");
  n.uuid = mv.machine.dmi.product_uuid.value_or("");
  // The dossier's previous boot of this name: another machine if its board or UUID differs.
  if (mv.previous) {
    const Machine& p = mv.previous->machine;
    const Machine& now = mv.as_collected ? *mv.as_collected : mv.machine;
    std::string board_now = Board(now.dmi), board_then = Board(p.dmi);
    std::string uuid_now = now.dmi.product_uuid.value_or(""),
                uuid_then = p.dmi.product_uuid.value_or("");
    if (DifferentMachines(n.boot_id, board_now, uuid_now, mv.previous->boot_id, board_then,
                          uuid_then))
      n.conflict = fmt::format(
          "two different machines collected under the name '{}': {} ({}{}) and {} ({}{}); the "
          "newer is compared, the older one's facts fill it in. Collect each under its own "
          "--machine name",
          n.name, mv.previous->record.file, board_then,
          uuid_then.empty() ? "" : ", UUID " + uuid_then, mv.record.file, board_now,
          uuid_now.empty() ? "" : ", UUID " + uuid_now);
  }
  MachineAttributes(mv.machine, &n);
  P2pMetrics(mv, &n);
  ServeMetrics(mv, &n);
  for (const auto& f : findings) n.findings.push_back(f.severity + " " + f.id);
  return n;
}

NodeFacts FromOutputMachine(const nlohmann::json& j, const std::string& file,
                            std::vector<std::string>* warnings) {
  MachineView mv;
  std::vector<std::string> w;
  mv.machine = MachineFromJson(j, &w);
  // A field an older writer did not have is a warning per field; one line per file is enough.
  if (!w.empty())
    warnings->push_back(fmt::format("{}: machine '{}': {} field(s) unreadable, first: {}", file,
                                    mv.machine.name, w.size(), w.front()));
  mv.record.file = file;
  if (auto r = j.find("record"); r != j.end() && r->is_object())
    mv.record.time = StrField(*r, "time", "");
  std::vector<Finding> findings;
  if (auto f = j.find("findings"); f != j.end() && f->is_array())
    for (const auto& e : *f)
      if (e.is_object()) {
        Finding x;
        x.id = StrField(e, "id", "?");
        x.severity = StrField(e, "severity", "?");
        findings.push_back(std::move(x));
      }
  NodeFacts n = FromMachineView(mv, findings);
  // The output carries a summary of the measurements, not the measurements: the serving figures
  // are in it as numbers.
  auto s = j.find("measurement_summary");
  if (s != j.end() && s->is_object() && s->contains("serve") && (*s)["serve"].is_array()) {
    std::map<std::string, double> latest;  // rows are oldest first: the last per load wins
    for (const auto& row : (*s)["serve"])
      // A run that completed a request, or whose counts are not known (null: a typed-in
      // figure); a run that completed none measured nothing.
      if (row.is_object() && row.contains("completed") &&
          (row["completed"].is_null() ||
           (row["completed"].is_number() && row["completed"].get<double>() > 0)) &&
          row.contains("total_tokens_per_s") && row["total_tokens_per_s"].is_number())
        latest[StrField(row, "load", "load unknown")] = row["total_tokens_per_s"].get<double>();
    for (const auto& [load, tps] : latest)
      n.metrics.push_back({"serve " + load + " total tokens/s", tps, ""});
  }
  return n;
}

}  // namespace dossier::fleet
