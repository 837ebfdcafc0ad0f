// Markdown section "GPUs and topology": the NVIDIA driver, a table of the compute GPUs, and the
// GPU matrix in the shape of `nvidia-smi topo -m` with its legend.
#include <fmt/format.h>

#include "render/markdown.h"
#include "render/md_util.h"

namespace dossier {
namespace {

// nvidia-smi's own legend wording, so the two read alike; then the markers of dossier's walk.
struct LegendRow {
  const char* level;
  const char* meaning;
};
constexpr LegendRow kLegend[] = {
    {"X", "Self"},
    {"SYS",
     "Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., "
     "QPI/UPI)"},
    {"NODE",
     "Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a "
     "NUMA node"},
    {"PHB", "Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)"},
    {"PXB",
     "Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)"},
    {"PIX", "Connection traversing at most a single PCIe bridge"},
};
constexpr LegendRow kMarkers[] = {
    {"NODE/SYS",
     "Different root complexes, but a GPU's NUMA node is unknown on a machine with several "
     "nodes: NODE or SYS"},
    {"unknown", "The PCI facts needed are missing (GPU or bridge not among the PCI devices)"},
};

std::string NumaCell(const Fact<int64_t>& n) {
  if (n.known() && *n < 0) return std::to_string(*n) + " (kernel does not know)";
  return md::Cell(n);
}

void RenderMatrix(const Machine& m, std::string* out) {
  const auto& levels = m.topology.gpu_levels;
  const size_t n = m.gpus.size();
  bool square = levels.size() == n;
  for (const auto& row : levels) square = square && row.size() == n;
  if (!square) {
    *out += "\nTopology levels were not derived for this record.\n";
    return;
  }
  bool used_markers[std::size(kMarkers)] = {};
  if (auto v = md::UniformOffDiagonal(levels)) {
    *out += fmt::format(
        "\nLevel between GPUs from the PCI walk (the meaning of `nvidia-smi topo -m`; NVLink is "
        "not visible to the walk): {} between all {} GPUs.\n",
        md::Code(*v, false), n);
    for (size_t k = 0; k < std::size(kMarkers); ++k) used_markers[k] = *v == kMarkers[k].level;
    for (size_t k = 0; k < std::size(kMarkers); ++k)
      if (used_markers[k])
        *out += fmt::format("\n`{}` = {}.\n", md::Escape(kMarkers[k].level), kMarkers[k].meaning);
    return;
  }
  std::vector<std::string> header{""};
  for (size_t j = 0; j < n; ++j) header.push_back(fmt::format("GPU{}", j));
  header.push_back("NUMA");
  md::Table t(header);
  for (size_t i = 0; i < n; ++i) {
    std::vector<std::string> row{fmt::format("GPU{}", i)};
    for (size_t j = 0; j < n; ++j) {
      row.push_back(md::Escape(levels[i][j]));
      for (size_t k = 0; k < std::size(kMarkers); ++k)
        if (levels[i][j] == kMarkers[k].level) used_markers[k] = true;
    }
    row.push_back(NumaCell(m.gpus[i].numa_node));
    t.Row(std::move(row));
  }
  *out +=
      "\nLevels between GPUs from the PCI walk, with the meaning of `nvidia-smi topo -m` "
      "(NVLink is not visible to the walk):\n\n";
  *out += t.Render();
  bool any_marker = false;
  for (bool u : used_markers) any_marker = any_marker || u;
  if (any_marker) *out += "\n";
  for (size_t k = 0; k < std::size(kMarkers); ++k) {
    if (used_markers[k])
      *out += fmt::format("- `{}` = {}\n", md::Escape(kMarkers[k].level), kMarkers[k].meaning);
  }
}

}  // namespace

void MdLegend(const View&, const Analysis&, std::string* out) {
  *out += "GPU pair levels (`nvidia-smi topo -m` and dossier's PCI walk):\n\n";
  for (const auto& l : kLegend) *out += fmt::format("- `{}` = {}\n", l.level, l.meaning);
  *out +=
      "- `NV#` = # NVLinks; `INT` = one board; `?` = the call failed\n\n"
      "P2P status (`nvidia-smi topo -p2p`): `OK` = supported; `CNS` = chipset not supported; "
      "`GNS` = GPU not supported; `TNS` = topology not supported; `DR` = disabled by registry key; "
      "`NS` = not supported; `U` = unknown; `?` = the call failed.\n\n"
      "Sizes: KiB/MiB/GiB are powers of 2; GB/s is 10^9 bytes per second. A value marked stale "
      "may no longer hold; the note at the top of its machine or section says why.\n";
}

void MdGpus(const MachineView& mv, std::string* out) {
  const Machine& m = mv.machine;
  md::FactTable d;
  d.Add("NVIDIA driver", m.software.nvidia_driver);
  *out += d.Render();
  if (m.gpus.empty() && md::NotPasted(mv.coverage, Family::kGpus, out)) return;
  if (m.gpus.empty()) {
    size_t unread = 0;  // devices whose vendor or class could not be read: could be GPUs
    for (const auto& d : m.pci.devices) unread += !d.vendor_id.known() || !d.class_id.known();
    if (!m.pci.count.known() && m.pci.devices.empty())
      *out += "\nCompute GPUs unknown: the PCI devices were not read (" +
              md::Escape(m.pci.count.unknown) + ").\n";
    else if (m.pci.devices.empty())
      *out += "\nNo compute GPU: no PCI devices are recorded for this machine.\n";
    else if (unread > 0)
      *out += fmt::format(
          "\nNo NVIDIA compute GPU recognised, but the vendor or class of {} of the {} PCI "
          "devices could not be read: whether any is a GPU is unknown.\n",
          unread, m.pci.devices.size());
    else
      *out +=
          fmt::format("\nNo NVIDIA compute GPU among the {} PCI devices.\n", m.pci.devices.size());
    return;
  }
  *out += "\n";
  md::Table t(
      {"GPU", "address", "name", "architecture", "compute capability", "NUMA node", "driver"});
  for (const auto& g : m.gpus) {
    t.Row({std::to_string(g.index), md::Code(g.address), md::Cell(g.name), md::Cell(g.architecture),
           md::Cell(g.compute_capability), NumaCell(g.numa_node), md::Cell(g.driver)});
  }
  *out += t.Render();
  RenderMatrix(m, out);
}

}  // namespace dossier
