// NCCL's topology dump (NCCL_TOPO_DUMP_FILE=FILE): <system version="1"> with a <cpu numaid
// affinity arch vendor> per NUMA node, under it <pci busid class vendor device link_speed
// link_width> nodes (PCI switches, holding more <pci>) and the GPUs' <pci> with a <gpu dev sm
// rank gdr> holding <nvlink target count tclass/>, and NICs (<nic><net name …/></nic>). Attribute
// names as NCCL's src/graph/xml.cc writes them. NCCL builds the tree from sysfs by going up two
// levels at a time (device -> the switch's upstream port; a root port leads to the <cpu>), so a
// <pci> between a GPU and its <cpu> is a PCIe switch, and a GPU right under a <cpu> sits on a
// root port. From that shape the levels nvidia-smi and NCCL use: PIX (same switch), PXB (switches
// joined further up), PHB (through the CPU's root complex; NCCL makes no NODE), SYS (another
// NUMA node). link_speed/link_width are NCCL's reading of max_link_speed/max_link_width (the
// lesser of the device's and its port's): what the link can do, not what it trained to.
//
// Facts: gpus[] in PCI bus order (as nvidia-smi numbers them) with address, numa_node,
// cpu_affinity and compute capability; pci.devices[] for every <pci> (class, ids, link.max,
// numa_node, local_cpus); nvml.gpus[] with the NVLinks (one per link to its target; link numbers
// are counted, the dump does not give them); nccl.ranks[] (rank, CUDA device, bus id);
// topology.gpu_levels, and topology.nics with gpu_nic_levels / nic_levels when the dump has NICs.
#include <algorithm>
#include <map>
#include <pugixml.hpp>
#include <unordered_map>

#include "import/import_text.h"
#include "import/part_text.h"
#include "util/line_index.h"
#include "util/text.h"

namespace dossier::import {
namespace {

bool NtSystemLine(std::string_view t) {
  t = Trim(t);
  return t.starts_with("<system version=") || t == "<system>";
}

bool NtStarts(const Lines& lines, size_t i) {
  std::string_view t = Trim(lines[i].text);
  if (NtSystemLine(t)) return i == 0 || !Trim(lines[i - 1].text).starts_with("<?xml");
  return t.starts_with("<?xml") && i + 1 < lines.size() && NtSystemLine(lines[i + 1].text);
}

int NtDetect(const Lines& lines) {
  bool system = false, inner = false;
  for (const auto& l : lines) {
    std::string_view t = Trim(l.text);
    if (NtSystemLine(t)) system = true;
    if (t.starts_with("<cpu ") || t.starts_with("<gpu ") ||
        (t.starts_with("<pci ") && t.find("busid=") != std::string_view::npos))
      inner = true;
  }
  return system && inner ? 95 : system || inner ? 50 : 0;
}

// One GPU or NIC: where it hangs in the tree.
struct NtEnd {
  std::string busid;
  size_t cpu = 0;                     // index of its <cpu>
  std::vector<std::string> switches;  // <pci> nodes above its own, outermost first
  std::string at;
};

struct NtGpu {
  NtEnd end;
  int64_t dev = -1, rank = -1;
  std::string sm;
  struct Link {
    std::string target;
    int64_t count = 0;
    std::string at;
  };
  std::vector<Link> nvlinks;
};

struct NtCpu {
  std::string numaid, affinity_list, at;
};

// Bounds that keep the work linear in the input, far above any real machine: PCIe switches
// nest a few levels (NCCL's own limit on path length is far below 64), and the level matrices
// grow as the square of the GPUs and NICs, so past kMaxMatrixEnds they are not computed.
constexpr size_t kMaxPciDepth = 64;
constexpr size_t kMaxMatrixEnds = 256;

struct NtWalk {
  const LineIndex* text_lines;  // of the joined text (pugixml keeps byte offsets)
  const Lines* lines;
  const ImportSource* src;
  Imported* out;
  std::vector<NtCpu> cpus;
  std::vector<NtGpu> gpus;
  std::vector<std::pair<std::string, NtEnd>> nics;  // name, where
  std::unordered_map<std::string, size_t> devices;  // address -> index in machine.pci.devices
  bool too_deep = false;
};

// The pasted line of a node.
size_t NtLine(const NtWalk& w, const pugi::xml_node& n) {
  size_t k = std::max<size_t>(1, w.text_lines->LineOf(n.offset_debug()));
  return k <= w.lines->size() ? (*w.lines)[k - 1].number : w.lines->back().number;
}

// DeviceAt without its search: the walk keeps the index of every address.
PciDevice& NtDevice(NtWalk* w, const std::string& address) {
  auto& devs = w->out->machine.pci.devices;
  auto [it, added] = w->devices.emplace(address, devs.size());
  if (added) {
    devs.emplace_back();
    devs.back().address = address;
  }
  return devs[it->second];
}

std::string NtAt(const NtWalk& w, const pugi::xml_node& n) {
  return w.src->At(NtLine(w, n));
}

// "16.0 GT/s PCIe", "8 GT/s", "32.0 GT/s" -> generation
std::optional<int64_t> NtGen(std::string s) {
  std::string t;
  for (char c : s)
    if (c != ' ') t += c;
  if (t.ends_with("PCIe")) t.resize(t.size() - 4);
  size_t dot = t.find(".0GT/s");
  if (dot != std::string::npos) t.erase(dot, 2);
  return GenFromSpeed(t);
}

std::string NtHex(const pugi::xml_node& n, const char* attr) {
  std::string v = n.attribute(attr).value();
  return v.empty() ? v : ToLower(v);
}

void NtPci(NtWalk* w, const pugi::xml_node& pci, size_t cpu, std::vector<std::string>* switches) {
  if (switches->size() >= kMaxPciDepth) {
    if (!w->too_deep)
      w->out->notes.push_back(w->src->file + ":" + std::to_string(NtLine(*w, pci)) +
                              ": <pci> nested more than " + std::to_string(kMaxPciDepth) +
                              " deep (no real PCIe tree is); what lies deeper is left out");
    w->too_deep = true;
    return;
  }
  auto addr = NormalizePciAddress(pci.attribute("busid").value());
  std::string at = NtAt(*w, pci);
  if (!addr) {
    w->out->notes.push_back(w->src->file + ":" + std::to_string(NtLine(*w, pci)) +
                            ": <pci busid='" + Printable(pci.attribute("busid").value(), 40) +
                            "'> is not a PCI address; its subtree is left out");
    return;
  }
  PciDevice& d = NtDevice(w, *addr);
  auto set_str = [&](Fact<std::string>* f, const char* attr) {
    std::string v = NtHex(pci, attr);
    if (!v.empty()) f->Set(v, at);
  };
  set_str(&d.class_id, "class");
  set_str(&d.vendor_id, "vendor");
  set_str(&d.device_id, "device");
  set_str(&d.subsystem_vendor_id, "subsystem_vendor");
  set_str(&d.subsystem_device_id, "subsystem_device");
  if (auto g = NtGen(pci.attribute("link_speed").value())) d.link.max.gen.Set(*g, at);
  if (auto wd = ParseInt(pci.attribute("link_width").value()); wd && *wd > 0)
    d.link.max.width.Set(*wd, at);
  const NtCpu& c = w->cpus[cpu];
  if (auto numa = ParseInt(c.numaid)) d.numa_node.Set(*numa, c.at);
  if (!c.affinity_list.empty()) d.local_cpus.Set(c.affinity_list, c.at);
  ++w->out->facts;
  NtEnd here{*addr, cpu, *switches, at};
  bool leaf = true;
  for (auto child : pci.children()) {
    std::string tag = child.name();
    if (tag == "gpu") {
      leaf = false;
      NtGpu g;
      g.end = here;
      g.end.at = NtAt(*w, child);
      g.dev = ParseInt(child.attribute("dev").value()).value_or(-1);
      g.rank = ParseInt(child.attribute("rank").value()).value_or(-1);
      g.sm = child.attribute("sm").value();
      for (auto l : child.children("nvlink")) {
        auto t = NormalizePciAddress(l.attribute("target").value());
        auto cnt = ParseInt(l.attribute("count").value());
        if (t && cnt && *cnt > 0 && *cnt <= 64) g.nvlinks.push_back({*t, *cnt, NtAt(*w, l)});
      }
      w->gpus.push_back(std::move(g));
    } else if (tag == "nic") {
      leaf = false;
      for (auto net : child.children("net")) {
        std::string name = net.attribute("name").value();
        if (!name.empty() && w->nics.size() < 256) w->nics.push_back({Printable(name, 64), here});
      }
    } else if (tag == "pci") {
      switches->push_back(*addr);  // one path, extended and restored: no copy per level
      leaf = false;
      NtPci(w, child, cpu, switches);
      switches->pop_back();
    }
  }
  (void)leaf;
}

// The level between two ends, from where they hang.
std::string NtLevel(const NtEnd& a, const NtEnd& b) {
  if (a.busid == b.busid) return "X";
  if (a.cpu != b.cpu) return "SYS";
  size_t common = 0;
  while (common < a.switches.size() && common < b.switches.size() &&
         a.switches[common] == b.switches[common])
    ++common;
  if (common == 0) return "PHB";
  return common == a.switches.size() && common == b.switches.size() ? "PIX" : "PXB";
}

Status NtParse(const Lines& lines, const ImportSource& src, Imported* out) {
  std::string text = JoinPartLines(lines);
  CutXml cx = CloseCutXml(text);
  pugi::xml_document doc;
  pugi::xml_parse_result r = doc.load_buffer(cx.text.data(), cx.text.size(), pugi::parse_default);
  const LineIndex text_lines(cx.text);
  if (!r) {
    size_t k = text_lines.LineOf(r.offset);
    size_t line = k <= lines.size() ? lines[k - 1].number : lines.back().number;
    return Error::Invalid("not valid XML at line " + std::to_string(line) + " (" + r.description() +
                          ")");
  }
  pugi::xml_node sys = doc.child("system");
  if (!sys) return Error::Invalid("no <system> element (not an NCCL topology dump)");
  NtWalk w{&text_lines, &lines, &src, out, {}, {}, {}, {}, false};
  for (size_t i = 0; i < out->machine.pci.devices.size(); ++i)
    w.devices.emplace(out->machine.pci.devices[i].address, i);
  if (cx.cut) {
    size_t line = cx.stopped_at >= 1 && cx.stopped_at <= lines.size()
                      ? lines[cx.stopped_at - 1].number
                      : lines.back().number;
    out->notes.push_back(src.file + ":" + std::to_string(line) +
                         ": the topology dump stops here (cut off) inside <" + cx.open +
                         ">; kept what came before it, the rest is not captured");
  }
  for (auto cpu : sys.children("cpu")) {
    NtCpu c;
    c.at = NtAt(w, cpu);
    c.numaid = cpu.attribute("numaid").value();
    if (auto cpus = ParseCpuMask(cpu.attribute("affinity").value()); cpus && !cpus->empty())
      c.affinity_list = FormatCpuList(*cpus);
    w.cpus.push_back(c);
    for (auto pci : cpu.children("pci")) {
      std::vector<std::string> switches;
      NtPci(&w, pci, w.cpus.size() - 1, &switches);
    }
    for (auto nic : cpu.children("nic"))
      for (auto net : nic.children("net")) {
        std::string name = net.attribute("name").value();
        // A NIC NCCL could not place on the PCI tree: it hangs off the CPU.
        if (!name.empty() && w.nics.size() < 256)
          w.nics.push_back(
              {Printable(name, 64), NtEnd{"nic:" + name, w.cpus.size() - 1, {}, c.at}});
      }
  }
  if (w.cpus.empty()) return Error::Invalid("no <cpu> in the <system> (not an NCCL topology dump)");
  // GPUs in PCI bus order, as nvidia-smi and NVML number them.
  std::sort(w.gpus.begin(), w.gpus.end(),
            [](const NtGpu& a, const NtGpu& b) { return a.end.busid < b.end.busid; });
  Machine& m = out->machine;
  // GpuAt, NvmlGpuAt and the rank lookup without their searches: indices kept once.
  std::unordered_map<int64_t, size_t> gpu_at, nvml_at, rank_at;
  for (size_t k = 0; k < m.gpus.size(); ++k) gpu_at.emplace(m.gpus[k].index, k);
  for (size_t k = 0; k < m.nvml.gpus.size(); ++k) nvml_at.emplace(m.nvml.gpus[k].index, k);
  for (size_t k = 0; k < m.nccl.ranks.size(); ++k) rank_at.emplace(m.nccl.ranks[k].rank, k);
  auto gpu_of = [&](int64_t i) -> Gpu& {
    auto [it, added] = gpu_at.emplace(i, m.gpus.size());
    if (added) m.gpus.emplace_back().index = i;
    return m.gpus[it->second];
  };
  auto nvml_of = [&](int64_t i) -> NvmlGpu& {
    auto [it, added] = nvml_at.emplace(i, m.nvml.gpus.size());
    if (added) m.nvml.gpus.emplace_back().index = i;
    return m.nvml.gpus[it->second];
  };
  for (size_t i = 0; i < w.gpus.size(); ++i) {
    const NtGpu& g = w.gpus[i];
    const NtCpu& c = w.cpus[g.end.cpu];
    Gpu& gpu = gpu_of(static_cast<int64_t>(i));
    gpu.address = g.end.busid;
    if (auto numa = ParseInt(c.numaid)) gpu.numa_node.Set(*numa, c.at);
    if (!c.affinity_list.empty()) gpu.cpu_affinity.Set(c.affinity_list, c.at);
    if (auto sm = ParseInt(g.sm); sm && *sm > 0 && *sm < 1000)
      gpu.compute_capability.Set(std::to_string(*sm / 10) + "." + std::to_string(*sm % 10),
                                 g.end.at);
    NvmlGpu& n = nvml_of(static_cast<int64_t>(i));
    n.pci_bus_id.Set(g.end.busid, g.end.at);
    n.gpu_index.Set(static_cast<int64_t>(i), g.end.at);
    int64_t link = 0;
    for (const auto& l : g.nvlinks)
      for (int64_t k = 0; k < l.count; ++k) {
        NvmlNvLink nl;
        nl.link = link++;
        nl.active.Set(true, l.at);
        nl.remote_pci_bus_id.Set(l.target, l.at);
        n.nvlinks.push_back(std::move(nl));
      }
    if (g.rank >= 0) {
      auto [it, added] = rank_at.emplace(g.rank, m.nccl.ranks.size());
      if (added) m.nccl.ranks.emplace_back().rank = g.rank;
      NcclRank* rk = &m.nccl.ranks[it->second];
      if (g.dev >= 0) rk->cuda_device.Set(g.dev, g.end.at);
      rk->bus_id.Set(g.end.busid, g.end.at);
    }
    out->facts += 3;
  }
  if (w.gpus.size() > kMaxMatrixEnds || w.nics.size() > kMaxMatrixEnds) {
    out->notes.push_back(src.file + ": " + std::to_string(w.gpus.size()) + " GPUs and " +
                         std::to_string(w.nics.size()) + " NICs: more than " +
                         std::to_string(kMaxMatrixEnds) +
                         " (no real node has as many); the levels between them are not computed");
  } else if (!w.gpus.empty()) {
    auto& lv = m.topology.gpu_levels;
    lv.assign(w.gpus.size(), std::vector<std::string>(w.gpus.size()));
    for (size_t i = 0; i < w.gpus.size(); ++i)
      for (size_t j = 0; j < w.gpus.size(); ++j) lv[i][j] = NtLevel(w.gpus[i].end, w.gpus[j].end);
  }
  if (!w.nics.empty() && m.topology.nics.empty() && w.gpus.size() <= kMaxMatrixEnds) {
    auto& t = m.topology;
    for (const auto& [name, end] : w.nics) t.nics.push_back(name);
    t.gpu_nic_levels.assign(w.gpus.size(), std::vector<std::string>(w.nics.size()));
    for (size_t i = 0; i < w.gpus.size(); ++i)
      for (size_t j = 0; j < w.nics.size(); ++j)
        t.gpu_nic_levels[i][j] = NtLevel(w.gpus[i].end, w.nics[j].second);
    t.nic_levels.assign(w.nics.size(), std::vector<std::string>(w.nics.size()));
    for (size_t i = 0; i < w.nics.size(); ++i)
      for (size_t j = 0; j < w.nics.size(); ++j)
        t.nic_levels[i][j] = i == j ? "X" : NtLevel(w.nics[i].second, w.nics[j].second);
  }
  if (w.gpus.empty()) out->notes.push_back(src.file + ": the topology dump names no GPU (<gpu>)");
  return OkStatus();
}

}  // namespace

Importer NcclTopoImporter() {
  return {"nccl-topo-xml",
          "NCCL topology dump (NCCL_TOPO_DUMP_FILE): GPUs with bus ids, NUMA, link speed and "
          "width, NVLinks, the PIX/PXB/PHB/SYS levels between GPUs and NICs",
          {"NCCL_TOPO_DUMP_FILE"},
          NtStarts,
          NtDetect,
          NtParse};
}

}  // namespace dossier::import
