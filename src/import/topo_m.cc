// `nvidia-smi topo -m`: the matrix of GPUs (and NICs) with the level of each pair (X, PIX, PXB,
// PHB, NODE, SYS, NV#), then CPU affinity, NUMA affinity and GPU NUMA ID per GPU, a legend and a
// NIC legend. Older drivers name NIC columns mlx5_0 instead of NIC0. Facts: topology.nvml_levels
// (GPU x GPU), topology.nic_levels / gpu_nic_levels / nics, gpus[] with numa_node and
// cpu_affinity (address unknown: the matrix does not say it).
//
// Pasting damage read through: a header indented or glued to a prompt, tabs or spaces, ANSI
// underline on the header, a row hard-wrapped onto the next line, rows cut off (kept up to the
// last complete one, and said).
#include <algorithm>
#include <cctype>
#include <map>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

bool TopoLevel(std::string_view t) {
  if (t == "X" || t == "PIX" || t == "PXB" || t == "PHB" || t == "NODE" || t == "SYS" || t == "SOC")
    return true;
  return t.size() > 2 && t.starts_with("NV") && ParseInt(t.substr(2)).has_value();
}

bool DeviceName(std::string_view t) {
  return (t.starts_with("GPU") && ParseInt(t.substr(3))) ||
         (t.starts_with("NIC") && ParseInt(t.substr(3))) || t.starts_with("mlx") ||
         t.starts_with("ib") || t.starts_with("eth") || t.starts_with("bnxt") ||
         t.starts_with("efa");
}

// A token whose tab was lost at a terminal wrap, two names run together ("GPU0GPU1", "NODESYS",
// "XNV18", "SYS0-31"): split at the known level and column names; a CPU list may end it. Any
// other token is kept whole.
std::vector<std::string> SplitGlued(std::string_view tok) {
  if (TopoLevel(tok) || DeviceName(tok)) return {std::string(tok)};
  std::vector<std::string> out;
  size_t p = 0;
  auto digits = [&](size_t at) {
    size_t e = at;
    while (e < tok.size() && std::isdigit(static_cast<unsigned char>(tok[e]))) ++e;
    return e;
  };
  while (p < tok.size()) {
    std::string_view rest = tok.substr(p);
    size_t n = 0;
    for (const char* pre : {"GPU", "NIC", "NV"})
      if (rest.starts_with(pre) &&
          digits(p + std::string_view(pre).size()) > p + std::string_view(pre).size())
        n = digits(p + std::string_view(pre).size()) - p;
    if (!n)
      for (const char* lv : {"PIX", "PXB", "PHB", "NODE", "SYS", "SOC", "X"})
        if (rest.starts_with(lv)) {
          n = std::string_view(lv).size();
          break;
        }
    if (!n) {
      // What is left may be the CPU affinity or a NUMA id glued after the last level.
      if (!out.empty() && (ParseCpuList(rest) || rest == "N/A")) {
        out.emplace_back(rest);
        return out;
      }
      return {std::string(tok)};
    }
    out.emplace_back(rest.substr(0, n));
    p += n;
  }
  return out;
}

// The tokens of a matrix line with glued names split, and a header glued to the command that
// printed it ("nvidia-smi topo -m    GPU0  GPU1 …") starting at GPU0.
std::vector<std::string> TopoTokens(std::string_view line) {
  std::vector<std::string> out;
  for (auto t : Tokens(line))
    for (auto& x : SplitGlued(t)) out.push_back(std::move(x));
  if (!out.empty() && out[0] != "GPU0") {
    auto g = std::find(out.begin(), out.end(), "GPU0");
    bool cmd = false;
    for (auto it = out.begin(); it != g; ++it)
      cmd |= it->find("nvidia-smi") != std::string::npos || *it == "topo" || *it == "-m";
    if (g != out.end() && cmd) out.erase(out.begin(), g);
  }
  return out;
}

// The header: device names (GPU0 first), then the column titles.
bool TopoHeader(std::string_view line, std::vector<std::string>* devices) {
  auto t = TopoTokens(line);
  if (t.empty() || t[0] != "GPU0") return false;
  std::vector<std::string> devs;
  size_t i = 0;
  for (; i < t.size() && DeviceName(t[i]); ++i) devs.emplace_back(t[i]);
  bool affinity = line.find("Affinity") != std::string_view::npos;
  if (devices) *devices = devs;
  return affinity || i == t.size();
}

bool TopoMStarts(const Lines& lines, size_t i) {
  if (!TopoHeader(lines[i].text, nullptr)) return false;
  // The next row holds levels, not P2P codes (topo -p2p has the same header).
  for (size_t j = i + 1; j < lines.size() && j < i + 3; ++j) {
    auto t = TopoTokens(lines[j].text);
    if (t.size() >= 3 && t[0] == "GPU0") return TopoLevel(t[1]) && (t[1] != "X" || TopoLevel(t[2]));
  }
  return false;
}

int TopoMDetect(const Lines& lines) {
  for (size_t i = 0; i < lines.size() && i < 50; ++i)
    if (TopoMStarts(lines, i)) return 90;
  return 0;
}

Status TopoMParse(const Lines& lines, const ImportSource& src, Imported* out) {
  MachineIndex ix(&out->machine);
  size_t h = 0;
  std::vector<std::string> devs;
  while (h < lines.size() && !(TopoHeader(lines[h].text, &devs) && TopoMStarts(lines, h))) ++h;
  if (h == lines.size()) return Error::Invalid("no nvidia-smi topo -m header (GPU0 GPU1 …)");
  std::vector<size_t> gpu_cols, nic_cols;
  for (size_t c = 0; c < devs.size(); ++c)
    (devs[c].starts_with("GPU") ? gpu_cols : nic_cols).push_back(c);
  // Columns after the devices on GPU rows: CPU Affinity, NUMA Affinity, GPU NUMA ID.
  std::string_view head = lines[h].text;
  size_t n_extra = 0;
  for (const char* title : {"CPU Affinity", "NUMA Affinity", "GPU NUMA ID"})
    if (head.find(title) != std::string_view::npos) ++n_extra;
  std::map<std::string, std::vector<std::string>> rows;   // device -> cells
  std::map<std::string, std::vector<std::string>> extra;  // GPU -> affinity columns
  std::map<std::string, size_t> row_line;
  std::map<std::string, std::string> nic_legend;
  std::string pending;  // a row that may continue on the next line (hard-wrapped)
  size_t pending_line = 0;
  bool cut = false;
  // Takes the pending row when it has every device cell; otherwise it was cut off.
  auto flush = [&](bool at_end) {
    if (pending.empty()) return;
    auto t = TopoTokens(pending);
    std::string name(t[0]);
    if (t.size() - 1 < devs.size()) {
      cut = true;
      out->notes.push_back(src.file + ":" + std::to_string(pending_line) + ": the topo -m row " +
                           name + " is incomplete (cut off" +
                           (at_end ? std::string(": the matrix stops here") : std::string()) +
                           "); left out, the rows before it are kept");
      pending.clear();
      return;
    }
    std::vector<std::string> cells;
    for (size_t c = 1; c <= devs.size(); ++c) cells.emplace_back(t[c]);
    rows[name] = cells;
    row_line[name] = pending_line;
    if (name.starts_with("GPU")) {
      std::vector<std::string> ex;
      for (size_t c = devs.size() + 1; c < t.size(); ++c) ex.emplace_back(t[c]);
      extra[name] = ex;
    }
    pending.clear();
  };
  for (size_t i = h + 1; i < lines.size(); ++i) {
    const std::string& text = lines[i].text;
    auto t0 = TopoTokens(text);
    if (t0.empty()) {
      flush(false);
      continue;
    }
    if (t0[0] == "Legend:" || t0[0] == "NIC") {
      flush(false);
      continue;
    }
    // NIC legend: "  NIC0: mlx5_0"
    if (t0.size() == 2 && t0[0].ends_with(":") && t0[0].starts_with("NIC")) {
      nic_legend[std::string(t0[0].substr(0, t0[0].size() - 1))] = std::string(t0[1]);
      continue;
    }
    if (text.find(" = ") != std::string::npos) continue;  // legend entries
    bool is_row = std::find(devs.begin(), devs.end(), std::string(t0[0])) != devs.end();
    if (is_row) {
      flush(false);
      pending = text;
      pending_line = lines[i].number;
    } else if (!pending.empty()) {
      pending += "\t" + text;  // the continuation of a hard-wrapped row
    } else {
      out->notes.push_back(src.file + ":" + std::to_string(lines[i].number) +
                           ": not part of the topo -m matrix: '" + Printable(text, 60) + "'");
      continue;
    }
    auto t = TopoTokens(pending);
    size_t want = devs.size() + (t[0].starts_with("GPU") ? n_extra : 0);
    if (t.size() - 1 >= want) flush(false);
  }
  flush(true);
  // GPU x GPU levels: only when every GPU row is complete (a partial matrix would read as pairs
  // that are not there).
  size_t ng = gpu_cols.size();
  std::vector<std::vector<std::string>> levels(ng, std::vector<std::string>(ng));
  size_t complete = 0;
  for (size_t a = 0; a < ng; ++a) {
    auto it = rows.find(devs[gpu_cols[a]]);
    if (it == rows.end()) break;
    for (size_t b = 0; b < ng; ++b) {
      std::string cell = it->second[gpu_cols[b]];
      if (!TopoLevel(cell)) cell = "?";
      levels[a][b] = cell;
    }
    ++complete;
  }
  if (complete < ng) {
    if (!cut)
      out->notes.push_back(src.file + ": the topo -m matrix has " + std::to_string(complete) +
                           " of " + std::to_string(ng) + " GPU rows (cut off)");
    levels.resize(complete);
    for (auto& r : levels) r.resize(complete);
  }
  out->machine.topology.nvml_levels = levels;
  out->facts += complete * complete;
  // Per GPU: CPU affinity, NUMA affinity, GPU NUMA ID (the columns after the devices).
  for (size_t a = 0; a < complete; ++a) {
    const std::string& name = devs[gpu_cols[a]];
    Gpu& g = ix.GpuAt(static_cast<int64_t>(a));
    const auto& ex = extra[name];
    std::string at = src.At(row_line[name]);
    if (!ex.empty() && ex[0] != "N/A" && ParseCpuList(ex[0])) {
      g.cpu_affinity.Set(ex[0], at);
      ++out->facts;
    }
    if (ex.size() >= 2) {
      if (auto n = ParseInt(ex[1])) {
        g.numa_node.Set(*n, at);
        ++out->facts;
      } else {
        g.numa_node.Unknown("topo -m says " + ex[1], at);
      }
    }
    if (ex.size() >= 3 && ex[2] != "N/A") {
      if (auto n = ParseInt(ex[2])) {
        ix.NvmlGpuAt(static_cast<int64_t>(a)).numa_node.Set(*n, at);
        ++out->facts;
      }
    }
  }
  // NICs: names from the legend, levels to each GPU and to each other.
  auto& topo = out->machine.topology;
  topo.nics.clear();
  for (size_t k : nic_cols) {
    auto it = nic_legend.find(devs[k]);
    topo.nics.push_back(it != nic_legend.end() ? it->second : devs[k]);
  }
  topo.gpu_nic_levels.assign(complete, std::vector<std::string>(nic_cols.size(), "?"));
  for (size_t a = 0; a < complete; ++a)
    for (size_t k = 0; k < nic_cols.size(); ++k)
      topo.gpu_nic_levels[a][k] = rows[devs[gpu_cols[a]]][nic_cols[k]];
  topo.nic_levels.assign(nic_cols.size(), std::vector<std::string>(nic_cols.size(), "?"));
  for (size_t k = 0; k < nic_cols.size(); ++k) {
    auto it = rows.find(devs[nic_cols[k]]);
    if (it == rows.end()) continue;
    for (size_t l = 0; l < nic_cols.size(); ++l) topo.nic_levels[k][l] = it->second[nic_cols[l]];
  }
  return OkStatus();
}

}  // namespace

Importer TopoMatrixImporter() {
  return {"topo-m",
          "nvidia-smi topo -m: GPU/NIC pair levels (PIX…SYS, NV#), CPU and NUMA affinity",
          {"nvidia-smi topo -m", "nvidia-smi topo --matrix"},
          TopoMStarts,
          TopoMDetect,
          TopoMParse};
}

}  // namespace dossier::import
