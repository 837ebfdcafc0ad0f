// `numactl -H` / `numactl --hardware`: the NUMA nodes with their CPUs, memory size and free memory
// (numactl prints MB, 2^20 bytes), and the distance matrix:
//   available: 2 nodes (0-1)
//   node 0 cpus: 0 1 2 3 …
//   node 0 size: 257655 MB
//   node 0 free: 251234 MB
//   node distances:
//   node   0   1
//     0:  10  32
// Facts: numa.nodes[] (id, cpus as a cpulist, memory_bytes, memory_free_bytes, distances, kind),
// the same fields collect reads from /sys/devices/system/node. A node whose cpus line is empty is
// memory-only (a GPU's memory on Grace Hopper, CXL). Pasted through a chat the lines may have
// lost their indentation or gained markup: each line is read on its own.
#include <algorithm>
#include <map>
#include <regex>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

// The line without markup and without the quoting a mail or a Markdown comment added ("> ",
// "# ").
std::string NumaLine(std::string_view raw) {
  std::string t = StripMarkup(raw);
  size_t i = 0;
  while (i < t.size() && (t[i] == '>' || t[i] == '#' || t[i] == ' ')) ++i;
  return t.substr(i);
}

bool NumaAvailable(std::string_view line) {
  std::string t = NumaLine(line);
  return t.starts_with("available:") && t.find("node") != std::string::npos;
}

bool NumactlStarts(const Lines& lines, size_t i) {
  return NumaAvailable(lines[i].text);
}

int NumactlDetect(const Lines& lines) {
  bool avail = false, node = false, dist = false;
  static const std::regex kNode(R"(^node\s+\d+\s+(cpus|size|free):)");
  for (const auto& l : lines) {
    if (l.text.size() > 4096) continue;
    std::string t = NumaLine(l.text);
    if (NumaAvailable(t)) avail = true;
    if (std::regex_search(t, kNode)) node = true;
    if (t.starts_with("node distances")) dist = true;
  }
  if (node && (avail || dist)) return 95;
  return node ? 60 : 0;
}

Status NumactlParse(const Lines& lines, const ImportSource& src, Imported* out) {
  static const std::regex kNode(R"(^node\s+(\d+)\s+(cpus|size|free):\s*(.*)$)");
  static const std::regex kMem(R"(^(\d+)\s*(MB|kB|KB|GB)?$)");
  static const std::regex kRow(R"(^(\d+):\s*([\d\s]+)$)");
  std::map<int64_t, NumaNode> nodes;
  std::vector<int64_t> dist_cols;
  bool in_dist = false;
  size_t facts = 0;
  for (const auto& l : lines) {
    if (l.text.size() > 4096) continue;
    std::string t = NumaLine(l.text);
    std::smatch m;
    std::string at = src.At(l.number);
    if (std::regex_match(t, m, kNode)) {
      auto id = ParseInt(m[1].str());
      if (!id) continue;
      NumaNode& n = nodes[*id];
      n.id = *id;
      std::string what = m[2].str(), val(Trim(m[3].str()));
      if (what == "cpus") {
        std::vector<int64_t> cpus;
        bool ok = true;
        for (auto tok : Tokens(val)) {
          auto c = ParseInt(tok);
          if (!c || !PlausibleCpu(*c))
            ok = false;
          else
            cpus.push_back(*c);
        }
        if (!ok) {
          out->notes.push_back(src.file + ":" + std::to_string(l.number) +
                               ": the CPU list is not CPU numbers; not read");
          continue;
        }
        n.cpus.Set(FormatCpuList(cpus), at);
        ++facts;
      } else {
        std::smatch mm;
        if (!std::regex_match(val, mm, kMem)) {
          out->notes.push_back(src.file + ":" + std::to_string(l.number) + ": '" +
                               Printable(val, 40) + "' is not a size; not read");
          continue;
        }
        uint64_t v = std::stoull(mm[1].str());
        std::string unit = mm[2].str();
        uint64_t bytes = unit == "GB"                     ? v << 30
                         : (unit == "kB" || unit == "KB") ? v << 10
                                                          : v << 20;
        (what == "size" ? n.memory_bytes : n.memory_free_bytes).Set(bytes, at);
        ++facts;
      }
      continue;
    }
    if (t.starts_with("node distances")) {
      in_dist = true;
      continue;
    }
    if (in_dist && t.starts_with("node")) {
      dist_cols.clear();
      for (auto tok : Tokens(std::string_view(t).substr(4)))
        if (auto c = ParseInt(tok)) dist_cols.push_back(*c);
      continue;
    }
    if (in_dist && std::regex_match(t, m, kRow)) {
      auto id = ParseInt(m[1].str());
      std::vector<int64_t> ds;
      const std::string row = m[2].str();  // Tokens views into it
      for (auto tok : Tokens(row))
        if (auto d = ParseInt(tok)) ds.push_back(*d);
      if (!id) continue;
      if (!dist_cols.empty() && ds.size() != dist_cols.size()) {
        out->notes.push_back(src.file + ":" + std::to_string(l.number) + ": " +
                             std::to_string(ds.size()) + " distances for " +
                             std::to_string(dist_cols.size()) + " nodes (cut off?); not read");
        continue;
      }
      NumaNode& n = nodes[*id];
      n.id = *id;
      n.distances.Set(ds, at);
      ++facts;
    }
  }
  if (facts == 0) return Error::Invalid("no 'node N cpus/size/free' line or distance row");
  for (auto& [id, n] : nodes) {
    if (n.cpus.known() && n.memory_bytes.known()) {
      bool cpus = !n.cpus->empty(), mem = *n.memory_bytes > 0;
      n.kind.Set(cpus && mem ? "cpu+memory"
                 : cpus      ? "cpu-only"
                 : mem       ? "memory-only"
                             : "empty",
                 n.cpus.source);
    }
    // A node already imported (another paste) keeps what this one does not say.
    NumaNode* have = nullptr;
    for (auto& e : out->machine.numa.nodes)
      if (e.id == id) have = &e;
    if (!have) {
      out->machine.numa.nodes.push_back(n);
      continue;
    }
    if (n.cpus.known()) have->cpus = n.cpus;
    if (n.memory_bytes.known()) have->memory_bytes = n.memory_bytes;
    if (n.memory_free_bytes.known()) have->memory_free_bytes = n.memory_free_bytes;
    if (n.distances.known()) have->distances = n.distances;
    if (n.kind.known()) have->kind = n.kind;
  }
  std::sort(out->machine.numa.nodes.begin(), out->machine.numa.nodes.end(),
            [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
  out->facts += facts;
  return OkStatus();
}

}  // namespace

Importer NumactlImporter() {
  return {"numactl",
          "numactl -H / --hardware: NUMA nodes, their CPUs, size and free memory, distances",
          {"numactl -H", "numactl --hardware", "numactl --H"},
          NumactlStarts,
          NumactlDetect,
          NumactlParse};
}

}  // namespace dossier::import
