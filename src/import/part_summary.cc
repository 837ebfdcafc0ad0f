#include "import/part_summary.h"

#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "model/json_io.h"

namespace dossier::import {
namespace {

// "/pci/devices/3/name" -> ("pci/devices", "3"); "/cpu/model" -> ("cpu", "model").
std::pair<std::string, std::string> Group(const std::string& path) {
  std::vector<std::string> parts;
  size_t at = 1;
  while (at <= path.size()) {
    size_t slash = path.find('/', at);
    if (slash == std::string::npos) slash = path.size();
    parts.push_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  if (parts.size() >= 3 && !parts[2].empty() &&
      std::isdigit(static_cast<unsigned char>(parts[2][0])))
    return {parts[0] + "/" + parts[1], parts[2]};
  if (parts.size() >= 2) return {parts[0], parts[1]};
  return {parts.empty() ? "" : parts[0], ""};
}

// Words for a group of facts; "" for a group counted by its items.
struct GroupName {
  const char* group;
  const char* one;   // "PCI device"
  const char* many;  // "PCI devices"
};
const GroupName kItems[] = {
    {"pci/devices", "PCI device", "PCI devices"},
    {"iommu/groups", "IOMMU group", "IOMMU groups"},
    {"numa/nodes", "NUMA node", "NUMA nodes"},
    {"nvml/gpus", "GPU (nvidia-smi)", "GPUs (nvidia-smi)"},
    {"hypervisor/vms", "VM", "VMs"},
    {"hypervisor/pci_mappings", "PCI mapping", "PCI mappings"},
    {"nccl/connections", "NCCL connection", "NCCL connections"},
    {"nccl/ranks", "NCCL rank", "NCCL ranks"},
    {"nccl/p2p_refused", "refused P2P pair", "refused P2P pairs"},
    {"kernel_log/events", "kernel log event", "kernel log events"},
    {"hypervisor/start_errors", "VM start error", "VM start errors"},
    {"dmi/memory_devices", "DIMM", "DIMMs"},
    {"pci/acs_lines", "ACSCtl line", "ACSCtl lines"},
};
const std::pair<const char*, const char*> kSections[] = {
    {"kernel", "kernel"},
    {"os", "OS"},
    {"dmi", "DMI (vendor, board, BIOS)"},
    {"cpu", "CPU"},
    {"memory", "memory"},
    {"numa", "NUMA distances"},
    {"virtualization", "virtualization"},
    {"topology", "GPU topology"},
    {"nvml", "driver"},
    {"nccl", "NCCL"},
    {"iommu", "IOMMU"},
    {"hypervisor", "hypervisor"},
    {"software", "software"},
    {"gpus", "GPUs"},
};

std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::string PartSummary(const Imported& before, const Imported& after) {
  nlohmann::json jb = MachineToJson(before.machine);
  nlohmann::json ja = MachineToJson(after.machine);
  nlohmann::json pb = jb["provenance"];
  nlohmann::json pa = ja["provenance"];
  std::map<std::string, std::set<std::string>> items;  // group -> items (indices or field names)
  for (auto it = pa.begin(); it != pa.end(); ++it) {
    auto old = pb.find(it.key());
    if (old != pb.end() && *old == it.value()) continue;
    if (!it.value().contains("from")) continue;  // an unknown with no source: not said
    auto [g, item] = Group(it.key());
    items[g].insert(item);
  }
  std::vector<std::string> out;
  for (const auto& gn : kItems) {
    auto it = items.find(gn.group);
    if (it == items.end()) {
      // Lists whose elements carry no provenance (NCCL connections, refused pairs): by count.
      nlohmann::json::json_pointer ptr("/" + std::string(gn.group));
      size_t nb = jb.contains(ptr) && jb[ptr].is_array() ? jb[ptr].size() : 0;
      size_t na = ja.contains(ptr) && ja[ptr].is_array() ? ja[ptr].size() : 0;
      if (na > nb) out.push_back(Plural(na - nb, gn.one, gn.many));
      continue;
    }
    std::string s = Plural(it->second.size(), gn.one, gn.many);
    if (std::string(gn.group) == "pci/devices") {
      size_t gpus = 0;
      for (const auto& idx : it->second) {
        size_t i = std::stoul(idx);
        if (i >= after.machine.pci.devices.size()) continue;
        const auto& d = after.machine.pci.devices[i];
        if (d.vendor_id.value_or("") == "0x10de" && d.class_id.value_or("").starts_with("0x03"))
          ++gpus;
      }
      if (gpus) s += " (" + Plural(gpus, "GPU", "GPUs") + ")";
    }
    out.push_back(s);
    items.erase(it);
  }
  for (const auto& [section, words] : kSections) {
    bool any = false;
    for (auto it = items.begin(); it != items.end();) {
      if (it->first == section || it->first.starts_with(std::string(section) + "/")) {
        any = true;
        it = items.erase(it);
      } else {
        ++it;
      }
    }
    if (any) out.push_back(words);
  }
  for (const auto& [g, _] : items) out.push_back(g);
  // What changed without provenance (names, ids, lists of strings an importer fills): the
  // section, so a part is never said to have given nothing when it did.
  for (auto it = ja.begin(); it != ja.end(); ++it) {
    if (it.key() == "provenance" || it.key() == "name") continue;
    auto old = jb.find(it.key());
    if (old != jb.end() && *old == it.value()) continue;
    std::string words = it.key();
    for (const auto& [section, w] : kSections)
      if (it.key() == section) words = w;
    bool said = false;
    for (const auto& o : out) said |= o == words || o.find(it.key()) != std::string::npos;
    for (const auto& gn : kItems)
      if (std::string_view(gn.group).starts_with(it.key() + "/"))
        for (const auto& o : out)
          said |= o.find(gn.many) != std::string::npos || o.find(gn.one) != std::string::npos;
    if (!said) out.push_back(words);
  }
  size_t p2p = 0;
  for (size_t i = before.p2p.size(); i < after.p2p.size(); ++i) p2p += after.p2p[i].results.size();
  if (after.p2p.size() == before.p2p.size() && !after.p2p.empty())
    p2p = after.p2p.back().results.size() - before.p2p.back().results.size();
  if (p2p) out.push_back(Plural(p2p, "bandwidth/latency result", "bandwidth/latency results"));
  size_t runs = 0;
  for (const auto& s : after.serve) runs += s.runs.size();
  for (const auto& s : before.serve) runs -= s.runs.size();
  if (runs) out.push_back(Plural(runs, "benchmark run", "benchmark runs"));
  std::string s;
  for (const auto& o : out) s += (s.empty() ? "" : ", ") + o;
  return s;
}

}  // namespace dossier::import
