// Markdown: the GPUs as the NVIDIA driver sees them (NVML), its pair matrices in the shape of
// `nvidia-smi topo -m` and `nvidia-smi topo -p2p`, and the PCI walk's level beside NVML's.
#include <fmt/format.h>

#include "render/markdown.h"
#include "render/md_util.h"

namespace dossier {
namespace {

std::string Link(const PciLinkState& s) {
  if (!s.gen.known() && !s.width.known()) return md::Cell(s.gen);
  std::string gen = s.gen.known() ? "Gen" + std::to_string(*s.gen) : "Gen?";
  std::string width = s.width.known() ? " x" + std::to_string(*s.width) : " x?";
  return gen + width;
}

// md::Cell for a fact whose value type md::Str does not format (double): the unknown form only.
template <class T>
std::string UnknownCell(const Fact<T>& f) {
  return "unknown (" + md::Escape(f.unknown.empty() ? "not recorded" : f.unknown) + ")";
}

template <class T>
std::string BytesCell(const Fact<T>& f) {
  return f.known() ? md::Bytes(*f) : md::Cell(f);
}

std::string NvLinks(const NvmlGpu& g) {
  if (g.nvlinks.empty()) return "none";
  int active = 0;
  for (const auto& l : g.nvlinks) active += l.active.value_or(false) ? 1 : 0;
  return fmt::format("{} of {} active", active, g.nvlinks.size());
}

void Matrix(const std::vector<std::vector<std::string>>& m, std::string* out) {
  if (auto v = md::UniformOffDiagonal(m)) {
    *out += fmt::format("{} for all {} ordered pairs of the {} GPUs.\n", md::Code(*v, false),
                        m.size() * (m.size() - 1), m.size());
    return;
  }
  std::vector<std::string> header{" "};
  for (size_t j = 0; j < m.size(); ++j) header.push_back("GPU" + std::to_string(j));
  md::Table t(header);
  for (size_t i = 0; i < m.size(); ++i) {
    std::vector<std::string> row{"**GPU" + std::to_string(i) + "**"};
    for (size_t j = 0; j < m[i].size(); ++j) row.push_back(md::Escape(m[i][j]));
    t.Row(row);
  }
  *out += t.Render();
}

// What nvidia-smi -q shows when a GPU misbehaves: one row per GPU.
void HealthTable(const NvmlInfo& n, std::string* out) {
  md::Table t({"GPU", "VBIOS", "max SM / memory clock", "clocks event reasons",
               "power draw / limit", "temperature",
               "ECC corrected / uncorrected (volatile; aggregate)",
               "remapped rows (corr / uncorr, pending)", "PCIe replays", "PCIe device max",
               "recovery action"});
  auto num = [](const Fact<int64_t>& f) { return f.known() ? std::to_string(*f) : md::Cell(f); };
  for (const auto& g : n.gpus) {
    const NvmlHealth& h = g.health;
    std::string clocks = h.clock_sm_max_mhz.known() || h.clock_mem_max_mhz.known()
                             ? num(h.clock_sm_max_mhz) + " / " + num(h.clock_mem_max_mhz) + " MHz"
                             : md::Cell(h.clock_sm_max_mhz);
    std::string power = h.power_draw_w.known()
                            ? fmt::format("{:.0f} W / {}", *h.power_draw_w,
                                          h.power_limit_enforced_w.known()
                                              ? fmt::format("{:.0f} W", *h.power_limit_enforced_w)
                                              : UnknownCell(h.power_limit_enforced_w))
                            : UnknownCell(h.power_draw_w);
    std::string ecc =
        h.ecc_corrected_volatile.known()
            ? fmt::format("{} / {}; {} / {}", num(h.ecc_corrected_volatile),
                          num(h.ecc_uncorrected_volatile), num(h.ecc_corrected_aggregate),
                          num(h.ecc_uncorrected_aggregate))
            : md::Cell(h.ecc_corrected_volatile);
    std::string rows = h.remap_pending.known()
                           ? fmt::format("{} / {}, {}", num(h.remapped_rows_corrected),
                                         num(h.remapped_rows_uncorrected),
                                         *h.remap_pending ? "**pending**" : "none pending")
                           : (h.retired_pages_pending.known()
                                  ? (*h.retired_pages_pending ? "retired pages **pending**"
                                                              : "no retired pages pending")
                                  : md::Cell(h.remap_pending));
    std::string temp =
        h.temperature_c.known() ? num(h.temperature_c) + " C" : md::Cell(h.temperature_c);
    std::string gen = h.pcie_device_max_gen.known() ? "Gen" + num(h.pcie_device_max_gen)
                                                    : md::Cell(h.pcie_device_max_gen);
    t.Row({std::to_string(g.index), md::Cell(h.vbios_version), clocks,
           md::Cell(h.clocks_event_reasons), power, temp, ecc, rows, num(h.pcie_replay_count), gen,
           md::Cell(h.recovery_action)});
  }
  *out += "\nHealth (NVML, what `nvidia-smi -q` shows):\n\n" + t.Render();
  *out +=
      "\n`gpu_idle` among the clocks event reasons is not a throttle; a slowdown reason beside it "
      "is (rule gpu.health). nvidia-smi's `Host Max` PCIe generation has no public NVML call; the "
      "PCI walk shows the link from the host's side.\n";
}

void GpuTables(const NvmlInfo& n, std::string* out) {
  md::Table id({"GPU", "PCI bus id", "PCI-walk GPU", "name", "UUID", "serial", "compute capability",
                "memory", "BAR1"});
  for (const auto& g : n.gpus) {
    id.Row({std::to_string(g.index), md::Cell(g.pci_bus_id), md::Cell(g.gpu_index),
            md::Cell(g.name), md::Cell(g.uuid), md::Cell(g.serial), md::Cell(g.compute_capability),
            BytesCell(g.memory_total_bytes), BytesCell(g.bar1_total_bytes)});
  }
  *out += id.Render() + "\n";
  md::Table st({"GPU", "PCIe now", "PCIe max", "NUMA node", "persistence", "ECC", "power limit",
                "SM clock", "memory clock", "MIG", "NVLink"});
  for (const auto& g : n.gpus) {
    std::string power = g.power_limit_w.known() ? fmt::format("{:.0f} W", *g.power_limit_w)
                                                : UnknownCell(g.power_limit_w);
    auto mhz = [](const Fact<int64_t>& f) {
      return f.known() ? std::to_string(*f) + " MHz" : md::Cell(f);
    };
    st.Row({std::to_string(g.index), Link(g.pcie.current), Link(g.pcie.max), md::Cell(g.numa_node),
            md::Cell(g.persistence_mode), md::Cell(g.ecc_enabled), power, mhz(g.clock_sm_mhz),
            mhz(g.clock_mem_mhz), md::Cell(g.mig_enabled), NvLinks(g)});
  }
  *out += st.Render();
  *out +=
      "\nA current PCIe generation below the maximum is normal on an idle GPU (it drops its "
      "link speed to save power); a narrower width is not.\n";
  HealthTable(n, out);
}

void P2pMatrices(const P2pStatusMatrices& p, std::string* out) {
  struct {
    const char* name;
    const char* flag;
    const std::vector<std::vector<std::string>>* m;
  } caps[] = {{"read", "r", &p.read},
              {"write", "w", &p.write},
              {"NVLink", "n", &p.nvlink},
              {"atomics", "a", &p.atomics},
              {"PCI", "p", &p.pci}};
  for (const auto& c : caps) {
    if (c.m->empty()) continue;
    *out += fmt::format("\nP2P {} (`nvidia-smi topo -p2p {}`):\n\n", c.name, c.flag);
    Matrix(*c.m, out);
  }
}

// The PCI walk's level beside NVML's, for every pair both know; disagreements listed.
void Compare(const Machine& m, std::string* out) {
  const auto& walk = m.topology.gpu_levels;
  const auto& nv = m.topology.nvml_levels;
  *out += "\nThe PCI walk's level beside NVML's:\n\n";
  if (walk.empty()) {
    *out += "The PCI walk gave no GPU levels to compare with.\n";
    return;
  }
  std::vector<std::string> header{" "};
  for (size_t j = 0; j < nv.size(); ++j) header.push_back("GPU" + std::to_string(j));
  md::Table t(header);
  std::vector<std::string> differ, unmatched;
  auto walk_index = [&](size_t i) -> int64_t {
    const auto& g = m.nvml.gpus[i].gpu_index;
    if (!g.known() || *g < 0 || static_cast<size_t>(*g) >= walk.size()) return -1;
    return *g;
  };
  for (size_t i = 0; i < nv.size() && i < m.nvml.gpus.size(); ++i) {
    if (walk_index(i) < 0)
      unmatched.push_back(fmt::format("NVML GPU {} has no PCI-walk match ({})", i,
                                      md::Cell(m.nvml.gpus[i].gpu_index)));
    std::vector<std::string> row{"**GPU" + std::to_string(i) + "**"};
    for (size_t j = 0; j < nv[i].size() && j < m.nvml.gpus.size(); ++j) {
      int64_t a = walk_index(i), b = walk_index(j);
      if (i == j) {
        row.push_back("X");
        continue;
      }
      std::string w =
          a >= 0 && b >= 0 && static_cast<size_t>(b) < walk[a].size() ? walk[a][b] : "?";
      const std::string& n = nv[i][j];
      bool comparable = w != "?" && n != "?" && !n.starts_with("NV");
      bool same = !comparable || w == n;
      row.push_back(same ? md::Escape(w + " / " + n) : "**" + md::Escape(w + " / " + n) + "**");
      if (!same && i < j)
        differ.push_back(
            fmt::format("GPU{}–GPU{}: the PCI walk says {}, NVML says {}", i, j, w, n));
    }
    t.Row(row);
  }
  if (differ.empty()) {
    // Agreement needs no table: it would repeat the matrix above.
    for (const auto& u : unmatched) *out += "- " + md::Escape(u) + "\n";
    *out += "The PCI walk and NVML agree on every pair both could place.\n";
    return;
  }
  *out += t.Render() + "\n";
  for (const auto& u : unmatched) *out += "- " + md::Escape(u) + "\n";
  *out += "They disagree on " + std::to_string(differ.size()) +
          " pair(s); in a virtual machine the guest's PCI tree is flattened, so the driver's "
          "answer describes the guest, not the host:\n\n";
  for (const auto& d : differ) *out += "- " + md::Escape(d) + "\n";
}

// A machine known from pastes: what `nvidia-smi -q`, `topo -m` and each `topo -p2p` paste said,
// each with the paste it came from; a capability no paste showed is said to be not pasted, never
// read from another one.
void PastedNvml(const MachineView& mv, std::string* out) {
  const Machine& m = mv.machine;
  const Coverage& c = mv.coverage;
  if (std::string s = md::NotPastedText(c, Family::kNvml); !s.empty()) {
    *out += s + "\n";
  } else {
    md::FactTable f;
    f.Add("Driver version", m.nvml.driver_version);
    f.Add("CUDA driver version", m.nvml.cuda_driver_version);
    f.Add("GPUs", m.nvml.gpu_count);
    *out += f.Render() + "\n";
    if (!m.nvml.gpus.empty()) GpuTables(m.nvml, out);
  }
  struct Part {
    Family family;
    const char* what;
    const std::vector<std::vector<std::string>>* matrix;
  } parts[] = {{Family::kGpuTopology, "GPU pairs", &m.topology.nvml_levels},
               {Family::kP2pRead, "P2P read", &m.topology.p2p_status.read},
               {Family::kP2pWrite, "P2P write", &m.topology.p2p_status.write},
               {Family::kP2pNvlink, "P2P NVLink", &m.topology.p2p_status.nvlink},
               {Family::kP2pAtomics, "P2P atomics", &m.topology.p2p_status.atomics},
               {Family::kP2pPci, "P2P PCI", &m.topology.p2p_status.pci}};
  for (const auto& p : parts) {
    if (!c.Covers(p.family)) {
      // The read and write status always say where they stand; the rarer ones only when pasted.
      if (p.family == Family::kGpuTopology || p.family == Family::kP2pRead ||
          p.family == Family::kP2pWrite)
        md::NotPasted(c, p.family, out);
      continue;
    }
    *out += fmt::format("\n{} (`{}`, {}):\n\n", p.what, InfoOf(p.family).paste,
                        md::Escape(c.From(p.family)));
    Matrix(*p.matrix, out);
  }
  if (!m.topology.p2p_status.unstated.empty()) {
    *out +=
        "\nP2P status of a capability the paste did not name (`nvidia-smi topo -p2p` without "
        "its command line):\n\n";
    Matrix(m.topology.p2p_status.unstated, out);
  }
}

}  // namespace

void MdNvml(const MachineView& mv, std::string* out) {
  const Machine& m = mv.machine;
  const NvmlInfo& n = m.nvml;
  if (!mv.coverage.collected) {
    PastedNvml(mv, out);
    return;
  }
  if (!n.loaded) {
    *out += "NVML not loaded: " + md::Escape(n.error.empty() ? "not collected" : n.error) + ".\n";
    // What pasted `nvidia-smi topo` outputs said about this collected machine is shown all the
    // same (a guest collected without the driver's library, its `topo -m` pasted in).
    const std::pair<const char*, const std::vector<std::vector<std::string>>*> pasted[] = {
        {"GPU pairs (`nvidia-smi topo -m`", &m.topology.nvml_levels},
        {"P2P read (`nvidia-smi topo -p2p r`", &m.topology.p2p_status.read},
        {"P2P write (`nvidia-smi topo -p2p w`", &m.topology.p2p_status.write},
        {"P2P NVLink (`nvidia-smi topo -p2p n`", &m.topology.p2p_status.nvlink},
        {"P2P atomics (`nvidia-smi topo -p2p a`", &m.topology.p2p_status.atomics},
        {"P2P PCI (`nvidia-smi topo -p2p p`", &m.topology.p2p_status.pci},
        {"P2P status of a capability the paste did not name (`nvidia-smi topo -p2p`",
         &m.topology.p2p_status.unstated}};
    for (const auto& [what, matrix] : pasted) {
      if (matrix->empty()) continue;
      *out += std::string("\n") + what + ", imported from a paste):\n\n";
      Matrix(*matrix, out);
    }
    return;
  }
  md::FactTable f;
  f.AddText("Library", md::Code(n.library));
  f.Add("Driver version", n.driver_version);
  f.Add("CUDA driver version", n.cuda_driver_version);
  f.Add("GPUs", n.gpu_count);
  *out += f.Render() + "\n";
  if (n.gpus.empty()) return;
  GpuTables(n, out);

  *out += "\nGPU pairs (`nvidia-smi topo -m`):\n\n";
  Matrix(m.topology.nvml_levels, out);
  P2pMatrices(m.topology.p2p_status, out);
  Compare(m, out);
  if (!n.pair_errors.empty()) {
    *out += "\nPair calls that failed:\n\n";
    const size_t kShown = 20;  // the same failure on every pair says nothing more after a few
    for (size_t i = 0; i < n.pair_errors.size() && i < kShown; ++i)
      *out += "- " + md::Code(n.pair_errors[i], false) + "\n";
    if (n.pair_errors.size() > kShown)
      *out += "- … and " + std::to_string(n.pair_errors.size() - kShown) + " more\n";
  }
}

}  // namespace dossier
