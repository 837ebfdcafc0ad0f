#include "view/host_p2p.h"

namespace dossier {
namespace {

std::string MatrixCell(const std::vector<std::vector<std::string>>& m, size_t i, size_t j) {
  return i < m.size() && j < m[i].size() ? m[i][j] : "";
}

// Index of the GPU at `address` in host.gpus, or -1.
int GpuIndex(const Machine& host, const std::string& address) {
  for (size_t i = 0; i < host.gpus.size(); ++i)
    if (host.gpus[i].address == address) return static_cast<int>(i);
  return -1;
}

}  // namespace

HostP2p HostP2pBetween(const Machine& host, const std::string& a, const std::string& b) {
  HostP2p out;
  int ia = GpuIndex(host, a), ib = GpuIndex(host, b);
  if (ia < 0 || ib < 0) {
    // No GPU at all: the host's GPUs were neither collected nor named by any paste; some GPUs
    // but not this one: the facts really disagree with the passthrough map.
    out.why = host.gpus.empty()
                  ? "the host's GPUs are not known (no collect of the host, and no paste names "
                    "them: paste `lspci -nn -d 10de:`)"
                  : "the host's facts list no GPU at " + (ia < 0 ? a : b);
    return out;
  }
  const Topology& t = host.topology;
  const size_t i = static_cast<size_t>(ia), j = static_cast<size_t>(ib);
  out.level = MatrixCell(t.gpu_levels, i, j);
  if (out.level == "?" || out.level == "unknown") out.level.clear();
  std::string r = MatrixCell(t.p2p_status.read, i, j), w = MatrixCell(t.p2p_status.write, i, j);
  if (r == "OK" && w == "OK") {
    out.can = out.decided = true;
    out.why = "the host driver reports P2P read and write OK";
  } else if (!r.empty() && r != "?" && r != "OK") {
    out.decided = true;
    out.why = "the host driver reports P2P read " + r + " (nvidia-smi topo -p2p)";
  } else if (!w.empty() && w != "?" && w != "OK") {
    out.decided = true;
    out.why = "the host driver reports P2P write " + w + " (nvidia-smi topo -p2p)";
  } else if (out.level == "PIX" || out.level == "PXB") {
    out.can = out.decided = true;
    out.why = "they share a PCIe switch on the host (" + out.level + ")";
  } else {
    out.why = "host level " + (out.level.empty() ? std::string("unknown") : out.level) +
              ": across root complexes P2P depends on the CPU, and the host gave no P2P status "
              "(its GPUs are bound to vfio-pci there)";
  }
  return out;
}

}  // namespace dossier
