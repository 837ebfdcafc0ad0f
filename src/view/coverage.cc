#include "view/coverage.h"

#include <algorithm>
#include <map>
#include <type_traits>

#include "model/fact_paths.h"

namespace dossier {

const std::vector<FamilyInfo>& FamilyTable() {
  static const std::vector<FamilyInfo> kTable = {
      {Family::kSystem,
       "system",
       "hostname, OS and DMI",
       {"/hostname", "/boot_id", "/os", "/dmi"},
       {},
       "hostnamectl; cat /etc/os-release; dmidecode -t system -t bios -t baseboard"},
      {Family::kCpu, "cpu", "CPU and memory", {"/cpu", "/memory"}, {}, "lscpu; free -b"},
      {Family::kNuma, "numa", "NUMA nodes", {"/numa"}, {"/numa/nodes"}, "numactl -H"},
      {Family::kPciLinks, "pci_links", "PCIe links", {"/pci/devices[*]/link"}, {}, "lspci -vvv"},
      {Family::kAcs,
       "acs",
       "ACS",
       {"/pci/devices[*]/acs", "/pci/acs_lines"},
       {},
       "lspci -vvv | grep -E '^[0-9a-f]|ACSCtl'"},
      {Family::kPciDevices,
       "pci",
       "PCI devices",
       {"/pci/devices", "/pci/count"},
       {"/pci/devices"},
       "lspci -tvnn; lspci -vvv"},
      {Family::kIommu,
       "iommu",
       "IOMMU groups",
       {"/iommu"},
       {"/iommu/groups"},
       "for d in /sys/kernel/iommu_groups/*/devices/*; do n=${d#*/iommu_groups/*}; n=${n%%/*}; "
       "printf 'IOMMU group %s ' \"$n\"; lspci -nns \"${d##*/}\"; done"},
      {Family::kVirtualization,
       "virtualization",
       "virtualization",
       {"/virtualization"},
       {},
       "systemd-detect-virt"},
      {Family::kHypervisor,
       "hypervisor",
       "VMs and PCI mappings",
       {"/hypervisor"},
       {"/hypervisor/vms", "/hypervisor/pci_mappings"},
       "qm config VMID; cat /etc/pve/mapping/pci.cfg"},
      {Family::kKernelCmdline,
       "kernel_cmdline",
       "kernel command line",
       {"/kernel/cmdline"},
       {},
       "cat /proc/cmdline"},
      {Family::kKernelRelease,
       "kernel_release",
       "kernel release",
       {"/kernel/release"},
       {},
       "uname -r"},
      {Family::kKernelLog,
       "kernel_log",
       "kernel log",
       {"/kernel_log"},
       {"/kernel_log/pci_problems"},
       "dmesg"},
      {Family::kGpus, "gpus", "compute GPUs", {"/gpus"}, {"/gpus"}, "lspci -nn -d 10de:"},
      {Family::kNvidiaDriver,
       "nvidia_driver",
       "NVIDIA driver",
       {"/software/nvidia_driver", "/nvml/driver_version"},
       {},
       "nvidia-smi -q"},
      {Family::kNvml,
       "nvml",
       "the driver's view of the GPUs",
       {"/nvml"},
       {"/nvml/gpus"},
       "nvidia-smi -q"},
      {Family::kGpuTopology,
       "gpu_topology",
       "GPU pair levels from the driver",
       {"/topology/nvml_levels"},
       {"/topology/nvml_levels"},
       "nvidia-smi topo -m"},
      {Family::kP2pRead,
       "p2p_read",
       "P2P read status",
       {"/topology/p2p_status/read"},
       {"/topology/p2p_status/read"},
       "nvidia-smi topo -p2p r"},
      {Family::kP2pWrite,
       "p2p_write",
       "P2P write status",
       {"/topology/p2p_status/write"},
       {"/topology/p2p_status/write"},
       "nvidia-smi topo -p2p w"},
      {Family::kP2pNvlink,
       "p2p_nvlink",
       "P2P NVLink status",
       {"/topology/p2p_status/nvlink"},
       {"/topology/p2p_status/nvlink"},
       "nvidia-smi topo -p2p n"},
      {Family::kP2pAtomics,
       "p2p_atomics",
       "P2P atomics status",
       {"/topology/p2p_status/atomics"},
       {"/topology/p2p_status/atomics"},
       "nvidia-smi topo -p2p a"},
      {Family::kP2pPci,
       "p2p_pci",
       "P2P PCI status",
       {"/topology/p2p_status/pci"},
       {"/topology/p2p_status/pci"},
       "nvidia-smi topo -p2p p"},
      {Family::kCuda,
       "cuda",
       "CUDA toolkits",
       {"/software/cuda_toolkits", "/software/cuda_default"},
       {"/software/cuda_toolkits"},
       "ls -d /usr/local/cuda*; nvcc --version"},
      {Family::kPython,
       "python",
       "Python environments",
       {"/software/python_envs"},
       {"/software/python_envs"},
       "pip list (in the server's environment)"},
      {Family::kEnv,
       "env",
       "the caller's environment",
       {"/software/env"},
       {"/software/env"},
       "env | grep -E '^(NCCL|CUDA|TORCH|SGLANG|VLLM)_'"},
      {Family::kServers,
       "servers",
       "inference server processes",
       {"/servers"},
       {"/servers"},
       "ps -eo pid,args | grep -E 'sglang|vllm|trtllm|llama-server|text-generation'"},
      {Family::kNccl, "nccl", "NCCL", {"/nccl"}, {}, "NCCL_DEBUG=INFO log of a run"},
  };
  return kTable;
}

const FamilyInfo& InfoOf(Family f) {
  for (const auto& i : FamilyTable())
    if (i.family == f) return i;
  return FamilyTable().front();  // every family has a row (coverage_test checks)
}

namespace {

// Whether `path` starts with `pattern`, where "[*]" in the pattern matches one "[KEY]" of the
// path; and the match ends at a component boundary. Returns the length matched, or 0.
size_t MatchPrefix(const std::string& path, std::string_view pattern) {
  size_t p = 0, q = 0;
  while (q < pattern.size()) {
    if (pattern.substr(q).starts_with("[*]")) {
      if (p >= path.size() || path[p] != '[') return 0;
      size_t end = path.find(']', p);
      if (end == std::string::npos) return 0;
      p = end + 1;
      q += 3;
      continue;
    }
    if (p >= path.size() || path[p] != pattern[q]) return 0;
    ++p, ++q;
  }
  if (p < path.size() && path[p] != '/' && path[p] != '[') return 0;
  return pattern.size();
}

}  // namespace

bool FamilyOfPath(const std::string& path, Family* out) {
  size_t best = 0;
  for (const auto& info : FamilyTable())
    for (const char* pat : info.paths)
      if (size_t n = MatchPrefix(path, pat); n > best) {
        best = n;
        *out = info.family;
      }
  return best > 0;
}

std::string Coverage::Absent(Family f) const {
  if (Covers(f)) return "";
  return std::string(kNotPasted) + " (paste: `" + InfoOf(f).paste + "`)";
}

std::string Coverage::From(Family f) const {
  if (collected) return "collected";
  auto it = pasted.find(f);
  if (it == pasted.end() || it->second.empty()) return kNotPasted;
  return "pasted: " + it->second.front();
}

void AddImportCoverage(const Machine& imported, const std::string& file, Coverage* out) {
  // One entry per pasted part: "FILE:LINE (format)" of its first fact, not one per line; the
  // file alone only for a family whose facts carry no source (matrices, device lists).
  // "s.txt:517 (qemu-server-conf) (args not set)" -> "s.txt (qemu-server-conf)".
  auto part = [](const std::string& w) {
    size_t open = w.find(" (");
    size_t colon = w.rfind(':', open == std::string::npos ? std::string::npos : open);
    if (colon == std::string::npos) return w;
    std::string format;
    // `w` is already cut after its format's ')' (below), so the format is the rest.
    if (open != std::string::npos) format = w.substr(open);
    return w.substr(0, colon) + format;
  };
  std::map<Family, std::vector<std::string>> sourced;
  std::map<Family, bool> plain;
  auto note = [&](const std::string& path, const std::string& source) {
    Family f;
    if (!FamilyOfPath(path, &f)) return;
    if (source.empty()) {
      plain[f] = true;
      return;
    }
    std::string where = source.rfind("imported: ", 0) == 0 ? source.substr(10) : source;
    if (size_t open = where.find(" ("); open != std::string::npos) {
      size_t close = where.find(')', open);
      if (close != std::string::npos) where.resize(close + 1);  // "FILE:LINE (format)" alone
    }
    auto& v = sourced[f];
    for (const auto& have : v)
      if (part(have) == part(where)) return;
    if (v.size() < 8) v.push_back(where);
  };
  WalkPaths(const_cast<Machine&>(imported), [&](const std::string& path, auto& leaf) {
    using L = std::remove_cvref_t<decltype(leaf)>;
    if constexpr (IsFactType<L>::value) {
      if (leaf.known()) note(path, leaf.source);
    } else if constexpr (std::is_same_v<L, std::string>) {
      if (!leaf.empty() && path != "/name") note(path, "");
    } else if constexpr (requires {
                           leaf.empty();
                           leaf.begin();
                         }) {
      if (!leaf.empty()) note(path, "");
    }
  });
  for (const auto& [f, is] : plain)
    if (is && !sourced.count(f)) sourced[f] = {file};
  for (const auto& [f, v] : sourced) {
    auto& have = out->pasted[f];
    for (const auto& w : v)
      if (std::find(have.begin(), have.end(), w) == have.end()) have.push_back(w);
  }
}

}  // namespace dossier
