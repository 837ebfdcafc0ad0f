// Terminal transcripts as a person pastes them back from a machine dossier cannot reach, written
// from a fixture tree (tests/fixture_trees.h): prompts included, each command's output as that
// machine would print it. The PCI commands run the real lspci on the tree (`lspci -A linux-sysfs
// -O sysfs.path=TREE/sys/bus/pci`); the others are rendered here from the files of the tree and
// from dossier's own collect of it (`dossier collect --root TREE --format json`), in the shape
// the tools print: numactl -H, lscpu, dmidecode, qm config, the qm start error, a dmesg grep,
// nvidia-smi topo -m and topo -p2p r. Nothing here replays one story: any tree gives its own
// transcript, so the tests that import them hold for every tree.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "run_process.h"

namespace dossier::testing {

inline std::vector<std::string> LspciOn(const std::string& tree) {
  std::vector<std::string> a = {"lspci", "-A", "linux-sysfs", "-O",
                                "sysfs.path=" + tree + "/sys/bus/pci"};
  const std::string ids = tree + "/usr/share/misc/pci.ids";
  if (std::filesystem::exists(ids)) {
    a.push_back("-i");
    a.push_back(ids);
  }
  return a;
}

// `lspci ARGS` on the tree: its standard output.
inline std::string LspciText(const std::string& tree, std::vector<std::string> args) {
  std::vector<std::string> argv = LspciOn(tree);
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv).out;
}

inline std::string FileText(const std::string& path) {
  return std::filesystem::exists(path) ? ReadWholeFile(path) : std::string();
}

inline std::string WithNewline(std::string s) {
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s;
}

// "0-31,64-95" -> "0 1 2 … 31 64 … 95" (numactl -H lists every CPU).
inline std::string CpuListWords(const std::string& list) {
  std::string out;
  size_t i = 0;
  while (i < list.size()) {
    size_t comma = list.find(',', i);
    std::string part = list.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
    size_t dash = part.find('-');
    int lo = std::stoi(part.substr(0, dash));
    int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
    for (int c = lo; c <= hi; ++c) out += (out.empty() ? "" : " ") + std::to_string(c);
    if (comma == std::string::npos) break;
    i = comma + 1;
  }
  return out;
}

// The for loop people paste to list IOMMU groups, and its output: the tree's group directories in
// the shell's glob order, each device through `lspci -nns`.
inline std::string IommuLoop(const std::string& tree, const std::string& prompt) {
  std::string out =
      prompt +
      "for d in /sys/kernel/iommu_groups/*/devices/*; do n=${d#*/iommu_groups/*}; n=${n%%/*}; "
      "printf 'IOMMU group %s ' \"$n\"; lspci -nns \"${d##*/}\"; done\n";
  std::vector<std::string> paths;
  const std::string base = tree + "/sys/kernel/iommu_groups";
  if (!std::filesystem::exists(base)) return out;
  for (const auto& g : std::filesystem::directory_iterator(base))
    if (std::filesystem::exists(g.path() / "devices"))
      for (const auto& d : std::filesystem::directory_iterator(g.path() / "devices"))
        paths.push_back(g.path().filename().string() + "/devices/" + d.path().filename().string());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    std::string group = p.substr(0, p.find('/'));
    std::string dev = p.substr(p.rfind('/') + 1);
    out += "IOMMU group " + group + " " + WithNewline(LspciText(tree, {"-nns", dev}));
  }
  return out;
}

inline std::string NumactlH(const nlohmann::json& m) {
  const auto& nodes = m["numa"]["nodes"];
  if (!nodes.is_array() || nodes.empty()) return "No NUMA available on this system\n";
  std::string out = fmt::format("available: {} nodes (0-{})\n", nodes.size(), nodes.size() - 1);
  for (const auto& n : nodes) {
    int id = n["id"].get<int>();
    out += fmt::format("node {} cpus: {}\n", id,
                       CpuListWords(n["cpus"].is_string() ? n["cpus"].get<std::string>() : ""));
    uint64_t mb = n["memory_bytes"].is_number() ? n["memory_bytes"].get<uint64_t>() >> 20 : 0;
    out += fmt::format("node {} size: {} MB\nnode {} free: {} MB\n", id, mb, id, mb * 9 / 10);
  }
  out += "node distances:\nnode ";
  for (const auto& n : nodes) out += fmt::format("{:>4}", n["id"].get<int>());
  out += " \n";
  for (const auto& n : nodes) {
    out += fmt::format("{:>4}: ", n["id"].get<int>());
    for (const auto& d : n["distances"]) out += fmt::format("{:>4}", d.get<int>());
    out += " \n";
  }
  return out;
}

inline std::string Lscpu(const nlohmann::json& m) {
  const auto& c = m["cpu"];
  auto num = [](const nlohmann::json& v) { return v.is_number() ? v.get<int64_t>() : 0; };
  int64_t sockets = std::max<int64_t>(1, num(c["sockets"]));
  int64_t cores = num(c["cores"]), threads = num(c["threads"]);
  std::string out = "Architecture:             x86_64\n";
  out += fmt::format("CPU(s):                   {}\n", threads);
  out += fmt::format("On-line CPU(s) list:      {}\n",
                     c["online"].is_string() ? c["online"].get<std::string>() : "");
  out += fmt::format("Vendor ID:                {}\n",
                     c["vendor"].is_string() ? c["vendor"].get<std::string>() : "");
  out += fmt::format("Model name:               {}\n",
                     c["model"].is_string() ? c["model"].get<std::string>() : "");
  out += fmt::format("Thread(s) per core:       {}\n", cores ? threads / cores : 1);
  out += fmt::format("Core(s) per socket:       {}\n", cores / sockets);
  out += fmt::format("Socket(s):                {}\n", sockets);
  const auto& nodes = m["numa"]["nodes"];
  out += fmt::format("NUMA node(s):             {}\n", nodes.is_array() ? nodes.size() : 0);
  if (nodes.is_array())
    for (const auto& n : nodes)
      out += fmt::format("NUMA node{} CPU(s):{:>8}{}\n", n["id"].get<int>(), "",
                         n["cpus"].is_string() ? n["cpus"].get<std::string>() : "");
  return out;
}

inline std::string Dmidecode(const nlohmann::json& m) {
  const auto& d = m["dmi"];
  auto s = [&](const char* k) {
    return d[k].is_string() ? d[k].get<std::string>() : "Not Specified";
  };
  return "# dmidecode 3.4\nGetting SMBIOS data from sysfs.\nSMBIOS 3.5.0 present.\n\n"
         "Handle 0x0000, DMI type 0, 26 bytes\nBIOS Information\n\tVendor: " +
         s("bios_vendor") + "\n\tVersion: " + s("bios_version") +
         "\n\tRelease Date: " + s("bios_date") +
         "\n\nHandle 0x0001, DMI type 1, 27 bytes\nSystem Information\n\t"
         "Manufacturer: " +
         s("sys_vendor") + "\n\tProduct Name: " + s("product_name") +
         "\n\nHandle 0x0002, DMI type 2, 15 bytes\nBase Board Information\n\tManufacturer: " +
         s("board_vendor") + "\n\tProduct Name: " + s("board_name") + "\n";
}

// What `qm start VMID` prints when a PCI mapping the VM uses is stale (Proxmox stops at the first):
// from dossier's check of the tree's mappings.
inline std::string QmStartError(const nlohmann::json& m, const std::string& conf) {
  for (const auto& mp : m["hypervisor"]["pci_mappings"])
    for (const auto& e : mp["entries"]) {
      if (e.value("status", nlohmann::json()) != "stale") continue;
      std::string name = mp["name"].get<std::string>();
      std::string slot = "hostpci0";
      size_t at = conf.find("mapping=" + name);
      if (at != std::string::npos) {
        size_t line = conf.rfind('\n', at);
        line = line == std::string::npos ? 0 : line + 1;
        slot = conf.substr(line, conf.find(':', line) - line);
      }
      return "TASK ERROR: PCI device mapping invalid (" + slot +
             "): " + e["problem"].get<std::string>() + "\n";
    }
  return "";
}

// The lines of the tree's kernel log a person greps for when passthrough fails.
inline std::string DmesgGrep(const std::string& tree) {
  std::string text = FileText(tree + "/var/log/dmesg"), out;
  size_t i = 0;
  while (i < text.size()) {
    size_t nl = text.find('\n', i);
    std::string line = text.substr(i, nl == std::string::npos ? std::string::npos : nl - i);
    std::string low = line;
    std::transform(low.begin(), low.end(), low.begin(), ::tolower);
    for (const char* w : {"iommu", "vfio", "amd-vi", "dmar", "bar ", "acs"})
      if (low.find(w) != std::string::npos) {
        out += line + "\n";
        break;
      }
    if (nl == std::string::npos) break;
    i = nl + 1;
  }
  return out;
}

struct HostTranscriptOptions {
  std::string prompt = "root@pve:~# ";
  std::string vmid = "100";
  bool with_vvv_gpus = true;  // `lspci -vvv -d VENDOR:DEVICE` of the first GPU's id
  bool with_acs_grep = true;  // `lspci -vvv | grep ACSCtl`
  bool with_others = true;    // numactl -H, lscpu, dmidecode, dmesg grep
};

// A host's whole terminal session: /proc/cmdline, lspci -tv, the IOMMU-group loop, lspci -vvv of
// the GPUs, the ACSCtl grep, pci.cfg, qm config, the qm start error, numactl -H, lscpu,
// dmidecode, a dmesg grep; `collected` is dossier's collect of the same tree (its machine object).
inline std::string HostTranscript(const std::string& tree, const nlohmann::json& collected,
                                  const HostTranscriptOptions& o = {}) {
  const std::string& p = o.prompt;
  std::string out;
  out += p + "cat /proc/cmdline\n" + WithNewline(FileText(tree + "/proc/cmdline"));
  out += p + "lspci -tv\n" + WithNewline(LspciText(tree, {"-tv"}));
  out += IommuLoop(tree, p);
  if (o.with_vvv_gpus) {
    // The id of the first NVIDIA display function, as a person would filter on it.
    std::string id;
    for (const auto& d : collected["pci"]["devices"]) {
      std::string v = d["vendor_id"].is_string() ? d["vendor_id"].get<std::string>() : "";
      std::string c = d["class"].is_string() ? d["class"].get<std::string>() : "";
      if (v == "0x10de" && c.rfind("0x03", 0) == 0) {
        id = "10de:" + d["device_id"].get<std::string>().substr(2);
        break;
      }
    }
    if (!id.empty())
      out += p + "lspci -vvv -d " + id + "\n" + WithNewline(LspciText(tree, {"-vvv", "-d", id}));
  }
  if (o.with_acs_grep) {
    std::string all = LspciText(tree, {"-vvv"}), grep;
    size_t i = 0;
    while (i < all.size()) {
      size_t nl = all.find('\n', i);
      std::string line = all.substr(i, nl == std::string::npos ? std::string::npos : nl - i);
      if (line.find("ACSCtl") != std::string::npos) grep += line + "\n";
      if (nl == std::string::npos) break;
      i = nl + 1;
    }
    out += p + "lspci -vvv | grep ACSCtl\n" + grep;
  }
  std::string cfg = FileText(tree + "/etc/pve/mapping/pci.cfg");
  if (!cfg.empty()) out += p + "cat /etc/pve/mapping/pci.cfg\n" + WithNewline(cfg);
  std::string conf = FileText(tree + "/etc/pve/qemu-server/" + o.vmid + ".conf");
  if (!conf.empty()) {
    out += p + "qm config " + o.vmid + "\n" + WithNewline(conf);
    std::string err = QmStartError(collected, conf);
    if (!err.empty()) out += p + "qm start " + o.vmid + "\n" + err;
  }
  if (o.with_others) {
    out += p + "numactl -H\n" + NumactlH(collected);
    out += p + "lscpu\n" + Lscpu(collected);
    out += p + "dmidecode -t bios -t system -t baseboard\n" + Dmidecode(collected);
    std::string dm = DmesgGrep(tree);
    if (!dm.empty())
      out += p + "dmesg | grep -i -e iommu -e vfio -e amd-vi -e dmar -e 'bar ' -e acs\n" + dm;
  }
  return out + p + "\n";
}

// `nvidia-smi topo -m` of a collected machine: its GPU levels (dossier's PCI walk, the meaning
// nvidia-smi prints), CPU and NUMA affinity.
inline std::string TopoM(const nlohmann::json& m) {
  const auto& gpus = m["gpus"];
  const auto& lv = m["topology"]["gpu_levels"];
  std::string out = "\t";
  for (size_t j = 0; j < gpus.size(); ++j) out += fmt::format("GPU{}\t", j);
  out += "CPU Affinity\tNUMA Affinity\tGPU NUMA ID\n";
  for (size_t i = 0; i < gpus.size(); ++i) {
    out += fmt::format("GPU{}\t", i);
    for (size_t j = 0; j < gpus.size(); ++j) {
      std::string l = lv[i][j].get<std::string>();
      out += (l == "X" ? " X " : l) + "\t";
    }
    const auto& g = gpus[i];
    std::string cpus = g["cpu_affinity"].is_string() ? g["cpu_affinity"].get<std::string>() : "";
    std::string node = g["numa_node"].is_number() && g["numa_node"].get<int64_t>() >= 0
                           ? std::to_string(g["numa_node"].get<int64_t>())
                           : "N/A";
    out += (cpus.empty() ? "N/A" : cpus) + "\t" + node + "\t\tN/A\n";
  }
  out +=
      "\nLegend:\n\n  X    = Self\n  SYS  = Connection traversing PCIe as well as the SMP "
      "interconnect between NUMA nodes (e.g., QPI/UPI)\n  NODE = Connection traversing PCIe as "
      "well as the interconnect between PCIe Host Bridges within a NUMA node\n  PHB  = "
      "Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n  PXB  = "
      "Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
      "  PIX  = Connection traversing at most a single PCIe bridge\n  NV#  = Connection "
      "traversing a bonded set of # NVLinks\n";
  return out;
}

// `nvidia-smi topo -p2p r` as a guest's driver answers without a P2P clique (NS between every
// pair: the virtual topology, FIELD_NOTES.md), else OK.
inline std::string TopoP2pRead(const nlohmann::json& m) {
  const size_t n = m["gpus"].size();
  bool guest =
      m["virtualization"]["guest"].is_boolean() && m["virtualization"]["guest"].get<bool>();
  std::string out = " \t";
  for (size_t j = 0; j < n; ++j) out += fmt::format("GPU{}\t", j);
  out += "\n";
  for (size_t i = 0; i < n; ++i) {
    out += fmt::format(" GPU{}\t", i);
    for (size_t j = 0; j < n; ++j) out += std::string(i == j ? "X" : guest ? "NS" : "OK") + "\t";
    out += "\n";
  }
  out +=
      "\nLegend:\n\n  X    = Self\n  OK   = Status Ok\n  CNS  = Chipset not supported\n  GNS  = "
      "GPU not supported\n  TNS  = Topology not supported\n  NS   = Not supported\n  U    = "
      "Unknown\n";
  return out;
}

// A guest's session: topo -m and topo -p2p r.
inline std::string GuestTranscript(const nlohmann::json& collected,
                                   const std::string& prompt = "user@guest:~$ ") {
  return prompt + "nvidia-smi topo -m\n" + TopoM(collected) + prompt + "nvidia-smi topo -p2p r\n" +
         TopoP2pRead(collected) + prompt + "\n";
}

}  // namespace dossier::testing
