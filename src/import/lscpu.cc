// lscpu in the forms people paste:
// - the default "Key:   value" list (whole, or grep'ed: `lscpu | grep -E 'Model name|Socket|NUMA'`)
//   of util-linux 2.2x-2.40: "Model name", "Socket(s)", "Core(s) per socket" (or "per cluster"),
//   "Thread(s) per core", "CPU(s)", "On-line CPU(s) list", "Vendor ID", "NUMA node0 CPU(s)",
//   "Hypervisor vendor", "Virtualization type";
// - `lscpu -e` (a table "CPU NODE SOCKET CORE … ONLINE") and `lscpu -p` ("# CPU,Core,Socket,Node"
//   then one comma line per CPU): the CPUs of each node, the sockets and the cores.
// Facts: cpu.{model,vendor,sockets,cores,threads,online}, numa.nodes[].cpus, and, when lscpu names
// a hypervisor, virtualization.{guest,hypervisor}: the fields collect fills from /proc and /sys.
// "Virtualization: AMD-V" is the CPU's capability (a host), not a guest: not read as one.
#include <algorithm>
#include <map>
#include <set>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

// The table of `lscpu -e`: its header's columns (upper case), when line is one.
std::vector<std::string> ExtendedHeader(std::string_view line) {
  std::vector<std::string> cols;
  const std::string clean = StripMarkup(line);  // Tokens views into it
  for (auto t : Tokens(clean)) cols.push_back(ToLower(t));
  auto has = [&](const char* c) { return std::find(cols.begin(), cols.end(), c) != cols.end(); };
  if (cols.empty() || cols[0] != "cpu" || !(has("node") || has("socket")) || !has("core"))
    return {};
  return cols;
}

bool ParsableHeader(std::string_view line) {
  std::string t = StripMarkup(line);
  return t.starts_with("# CPU,") || t.starts_with("#CPU,") ||
         t.starts_with("# The following is the parsable format");
}

const char* const kListKeys[] = {
    "architecture",        "model name",     "socket(s)",  "core(s) per socket",
    "thread(s) per core",  "numa node(s)",   "vendor id",  "cpu(s)",
    "on-line cpu(s) list", "cpu op-mode(s)", "byte order", "hypervisor vendor"};

bool ListKey(std::string_view line) {
  std::string k, v;
  if (!KeyValue(line, &k, &v)) return false;
  k = ToLower(k);
  for (const char* x : kListKeys)
    if (k == x) return true;
  return k.starts_with("numa node") && k.ends_with("cpu(s)");
}

bool LscpuStarts(const Lines& lines, size_t i) {
  std::string t = StripMarkup(lines[i].text);
  if (t.starts_with("Architecture:")) return true;
  if (!ExtendedHeader(t).empty() || ParsableHeader(t)) return true;
  // A grep'ed list begins at its first key.
  return ListKey(t) && (i == 0 || !ListKey(lines[i - 1].text));
}

int LscpuDetect(const Lines& lines) {
  size_t keys = 0;
  bool strong = false;
  for (const auto& l : lines) {
    std::string t = StripMarkup(l.text);
    if (!ExtendedHeader(t).empty() || ParsableHeader(t)) return 90;
    if (ListKey(t)) {
      ++keys;
      std::string k, v;
      KeyValue(t, &k, &v);
      k = ToLower(k);
      if (k == "socket(s)" || k == "model name" || k == "thread(s) per core" ||
          (k.starts_with("numa node") && k.ends_with("cpu(s)")))
        strong = true;
    }
  }
  if (keys >= 3 && strong) return 90;
  if (keys >= 1 && strong) return 70;
  return 0;
}

std::string HypervisorName(std::string v) {
  v = ToLower(v);
  if (v == "kvm" || v.starts_with("qemu")) return "kvm";
  if (v == "microsoft") return "hyper-v";
  if (v == "vmware") return "vmware";
  if (v.starts_with("xen")) return "xen";
  return v;
}

// CPU -> node / socket / core from the -e table or -p lines.
struct CpuRows {
  std::map<int64_t, std::set<int64_t>> node_cpus;
  std::set<int64_t> sockets, online;
  std::set<std::pair<int64_t, int64_t>> cores;  // (socket, core)
  size_t first_line = 0;
};

void SetNodeCpus(const CpuRows& rows, const ImportSource& src, Imported* out) {
  for (const auto& [node, cpus] : rows.node_cpus) {
    NumaNode* n = nullptr;
    for (auto& e : out->machine.numa.nodes)
      if (e.id == node) n = &e;
    if (!n) {
      out->machine.numa.nodes.emplace_back();
      n = &out->machine.numa.nodes.back();
      n->id = node;
    }
    n->cpus.Set(FormatCpuList({cpus.begin(), cpus.end()}), src.At(rows.first_line));
    ++out->facts;
  }
  std::sort(out->machine.numa.nodes.begin(), out->machine.numa.nodes.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
}

Status ReadTable(const Lines& lines, size_t h, const ImportSource& src, Imported* out) {
  std::vector<std::string> cols = ExtendedHeader(lines[h].text);
  auto col = [&](const char* c) -> int {
    auto it = std::find(cols.begin(), cols.end(), c);
    return it == cols.end() ? -1 : static_cast<int>(it - cols.begin());
  };
  int cpu = col("cpu"), node = col("node"), sock = col("socket"), core = col("core"),
      online = col("online");
  CpuRows rows;
  rows.first_line = lines[h].number;
  for (size_t i = h + 1; i < lines.size(); ++i) {
    const std::string clean = StripMarkup(lines[i].text);  // Tokens views into it
    auto t = Tokens(clean);
    if (t.empty()) continue;
    // Offline CPUs print '-' in the columns lscpu cannot know; rows shorter than the header
    // (a cut paste) stop the table.
    if (t.size() <= static_cast<size_t>(std::max(cpu, core))) break;
    auto c = ParseInt(t[cpu]);
    if (!c || !PlausibleCpu(*c)) break;
    auto get = [&](int k) -> std::optional<int64_t> {
      return k >= 0 && static_cast<size_t>(k) < t.size() ? ParseInt(t[k]) : std::nullopt;
    };
    bool on = online < 0 || static_cast<size_t>(online) >= t.size() || t[online] == "yes";
    if (on) rows.online.insert(*c);
    if (auto n = get(node)) rows.node_cpus[*n].insert(*c);
    auto s = get(sock), k = get(core);
    if (s) rows.sockets.insert(*s);
    if (k) rows.cores.insert({s.value_or(0), *k});
  }
  if (rows.online.empty() && rows.node_cpus.empty())
    return Error::Invalid("the lscpu -e table has no CPU rows");
  std::string at = src.At(lines[h].number);
  if (!rows.sockets.empty()) out->machine.cpu.sockets.Set(int64_t(rows.sockets.size()), at);
  if (!rows.cores.empty()) out->machine.cpu.cores.Set(int64_t(rows.cores.size()), at);
  out->machine.cpu.threads.Set(int64_t(rows.online.size()), at);
  out->machine.cpu.online.Set(FormatCpuList({rows.online.begin(), rows.online.end()}), at);
  out->facts += 2;
  SetNodeCpus(rows, src, out);
  return OkStatus();
}

Status ReadParsable(const Lines& lines, const ImportSource& src, Imported* out) {
  // "# CPU,Core,Socket,Node,,L1d,L1i,L2,L3" names the columns (the default set when -p has no
  // list); later lines "0,0,0,0,,0,0,0,0".
  std::vector<std::string> cols = {"cpu", "core", "socket", "node"};
  CpuRows rows;
  for (const auto& l : lines) {
    std::string t = StripMarkup(l.text);
    if (t.starts_with("#")) {
      std::string_view h = Trim(std::string_view(t).substr(1));
      if (h.starts_with("CPU,")) {
        cols.clear();
        for (auto c : Split(h, ',')) cols.push_back(ToLower(Trim(c)));
        rows.first_line = l.number;
      }
      continue;
    }
    auto f = Split(t, ',');
    if (f.size() < 2) continue;
    auto get = [&](const char* c) -> std::optional<int64_t> {
      auto it = std::find(cols.begin(), cols.end(), c);
      size_t k = static_cast<size_t>(it - cols.begin());
      return it == cols.end() || k >= f.size() ? std::nullopt : ParseInt(Trim(f[k]));
    };
    auto c = get("cpu");
    if (!c || !PlausibleCpu(*c)) continue;
    if (!rows.first_line) rows.first_line = l.number;
    rows.online.insert(*c);
    if (auto n = get("node")) rows.node_cpus[*n].insert(*c);
    auto s = get("socket"), k = get("core");
    if (s) rows.sockets.insert(*s);
    if (k) rows.cores.insert({s.value_or(0), *k});
  }
  if (rows.online.empty()) return Error::Invalid("no lscpu -p CPU lines");
  std::string at = src.At(rows.first_line);
  if (!rows.sockets.empty()) out->machine.cpu.sockets.Set(int64_t(rows.sockets.size()), at);
  if (!rows.cores.empty()) out->machine.cpu.cores.Set(int64_t(rows.cores.size()), at);
  out->machine.cpu.threads.Set(int64_t(rows.online.size()), at);
  out->facts += 1;
  SetNodeCpus(rows, src, out);
  return OkStatus();
}

Status LscpuParse(const Lines& lines, const ImportSource& src, Imported* out) {
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!ExtendedHeader(lines[i].text).empty()) return ReadTable(lines, i, src, out);
    if (ParsableHeader(lines[i].text)) return ReadParsable(lines, src, out);
  }
  CpuInfo& cpu = out->machine.cpu;
  std::optional<int64_t> sockets, per_socket;
  std::string sockets_at, per_socket_at;
  CpuRows rows;
  size_t facts = 0;
  for (const auto& l : lines) {
    std::string k, v;
    if (!KeyValue(l.text, &k, &v) || v.empty()) continue;
    std::string key = ToLower(k), at = src.At(l.number);
    if (key == "model name" && v != "-") {
      cpu.model.Set(v, at);
    } else if (key == "vendor id") {
      cpu.vendor.Set(v, at);
    } else if (key == "socket(s)") {
      // "-" on ARM machines that do not say
      if (auto n = ParseInt(v))
        sockets = *n, sockets_at = at;
      else
        continue;
      cpu.sockets.Set(*sockets, at);
    } else if (key == "core(s) per socket" || key == "core(s) per cluster") {
      if (auto n = ParseInt(v))
        per_socket = *n, per_socket_at = at;
      else
        continue;
    } else if (key == "cpu(s)") {
      if (auto n = ParseInt(v))
        cpu.threads.Set(*n, at);
      else
        continue;
    } else if (key == "on-line cpu(s) list") {
      auto list = ParseCpuList(v);
      if (!list) continue;
      cpu.online.Set(FormatCpuList(*list), at);
      cpu.threads.Set(static_cast<int64_t>(list->size()), at);
    } else if (key == "hypervisor vendor") {
      out->machine.virtualization.guest.Set(true, at);
      out->machine.virtualization.hypervisor.Set(HypervisorName(v), at);
    } else if (key.starts_with("numa node") && key.ends_with("cpu(s)")) {
      auto id = ParseInt(Trim(std::string_view(key).substr(9, key.size() - 9 - 6)));
      auto list = ParseCpuList(v);
      if (!id || !list) {
        out->notes.push_back(src.file + ":" + std::to_string(l.number) + ": '" +
                             Printable(l.text, 60) + "' is not a node's CPU list; not read");
        continue;
      }
      if (!rows.first_line) rows.first_line = l.number;
      rows.node_cpus[*id].insert(list->begin(), list->end());
      continue;  // counted by SetNodeCpus
    } else {
      continue;
    }
    ++facts;
  }
  if (sockets && per_socket) {
    cpu.cores.Set(*sockets * *per_socket, per_socket_at + " x " + sockets_at);
    ++facts;
  }
  if (!rows.node_cpus.empty()) SetNodeCpus(rows, src, out);
  out->facts += facts;
  if (facts == 0 && rows.node_cpus.empty())
    return Error::Invalid("no lscpu line with a value (Model name, Socket(s), CPU(s), NUMA …)");
  return OkStatus();
}

}  // namespace

Importer LscpuImporter() {
  return {"lscpu",
          "lscpu (full, grep'ed, -e, -p): CPU model, sockets, cores, threads, NUMA node CPUs, "
          "hypervisor",
          {"lscpu"},
          LscpuStarts,
          LscpuDetect,
          LscpuParse};
}

}  // namespace dossier::import
