#include "analyze/diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analyze/rule.h"
#include "model/fact_paths.h"
#include "util/text.h"

namespace dossier {
namespace {

using DevMap = std::map<std::string, const PciDevice*>;

DevMap Devices(const Machine& m) {
  DevMap out;
  for (const auto& d : m.pci.devices) out[d.address] = &d;
  return out;
}

std::string Identity(const PciDevice& d) {
  std::string s = d.vendor_id.value_or("?") + ":" + d.device_id.value_or("?");
  if (d.subsystem_vendor_id.known() && d.subsystem_device_id.known())
    s += " (" + *d.subsystem_vendor_id + ":" + *d.subsystem_device_id + ")";
  return s;
}

std::string Place(const PciDevice& d) {
  return d.address + " under " + d.parent.value_or(d.root_complex.value_or("the root complex"));
}

std::string Name(const PciDevice& d) {
  return d.name.value_or(Identity(d));
}

// Devices present in both, for the group and fact comparisons.
struct DeviceChanges {
  std::set<std::string> added, removed;
};

// `partial`: a side is only what was pasted (an import record): only what both know is compared.
DeviceChanges DiffDevices(const Machine& a, const Machine& b, bool partial, MachineDiff* out) {
  DevMap da = Devices(a), db = Devices(b);
  DeviceChanges dc;
  // A paste may list some devices only: a device one side lacks is not gone, and one whose ids
  // one side does not show is the same device.
  auto differ = [partial](const PciDevice& x, const PciDevice& y) {
    if (!partial) return Identity(x) != Identity(y);
    return x.vendor_id.known() && y.vendor_id.known() && x.device_id.known() &&
           y.device_id.known() && (*x.vendor_id != *y.vendor_id || *x.device_id != *y.device_id);
  };
  for (const auto& [addr, d] : da) {
    auto it = db.find(addr);
    if (it == db.end() ? !partial : differ(*it->second, *d)) dc.removed.insert(addr);
  }
  for (const auto& [addr, d] : db) {
    auto it = da.find(addr);
    if (it == da.end() ? !partial : differ(*it->second, *d)) dc.added.insert(addr);
  }
  // A removed device and an added one of the same identity: the device moved.
  std::set<std::string> matched;
  for (const auto& r : dc.removed) {
    const PciDevice& old = *da[r];
    for (const auto& n : dc.added) {
      if (matched.count(n) || Identity(*db[n]) != Identity(old)) continue;
      matched.insert(n);
      out->changes.push_back({"device-moved", n, Place(old), Place(*db[n]),
                              Name(old) + " moved from " + r + " to " + n});
      break;
    }
  }
  for (const auto& r : dc.removed) {
    bool moved = false;
    for (const auto& c : out->changes)
      moved = moved || (c.kind == "device-moved" && c.before.rfind(r + " ", 0) == 0);
    if (!moved)
      out->changes.push_back({"device-removed", r, Place(*da[r]), "", Name(*da[r]) + " is gone"});
  }
  for (const auto& n : dc.added) {
    if (matched.count(n)) continue;
    out->changes.push_back({"device-added", n, "", Place(*db[n]), Name(*db[n]) + " appeared"});
  }
  // Same address, same device, another parent: moved in the tree.
  for (const auto& [addr, d] : da) {
    auto it = db.find(addr);
    if (it == db.end() || dc.removed.count(addr) || dc.added.count(addr)) continue;
    if (partial && (!d->parent.known() || !it->second->parent.known())) continue;
    if (d->parent.value_or("") != it->second->parent.value_or("")) {
      out->changes.push_back({"device-moved", addr, Place(*d), Place(*it->second),
                              Name(*d) + " now sits under another bridge"});
    }
  }
  return dc;
}

// Device -> group id, from the device facts, else from the group member lists.
std::map<std::string, int64_t> GroupOfDevice(const Machine& m) {
  std::map<std::string, int64_t> out;
  for (const auto& g : m.iommu.groups)
    for (const auto& d : g.devices) out[d] = g.id;
  for (const auto& d : m.pci.devices)
    if (d.iommu_group.known()) out[d.address] = *d.iommu_group;
  return out;
}

std::string Members(const std::set<std::string>& s, const std::string& except = "") {
  std::vector<std::string> v;
  for (const auto& x : s)
    if (x != except) v.push_back(x);
  if (v.empty()) return "alone";
  std::string out = "with ";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out;
}

void DiffGroups(const Machine& a, const Machine& b, const DeviceChanges& dc, MachineDiff* out) {
  auto ga = GroupOfDevice(a), gb = GroupOfDevice(b);
  // Members of each group, among devices present in both records.
  std::map<int64_t, std::set<std::string>> ma, mb;
  for (const auto& [d, g] : ga)
    if (gb.count(d) && !dc.removed.count(d) && !dc.added.count(d)) ma[g].insert(d);
  for (const auto& [d, g] : gb)
    if (ga.count(d) && !dc.removed.count(d) && !dc.added.count(d)) mb[g].insert(d);
  for (const auto& [id, members] : ma) {
    std::set<int64_t> targets;
    for (const auto& d : members) targets.insert(gb[d]);
    if (targets.size() == 1 && mb[*targets.begin()] == members) {
      int64_t to = *targets.begin();
      if (to != id) {
        out->changes.push_back({"iommu-renumbered", "IOMMU group " + std::to_string(id),
                                "group " + std::to_string(id), "group " + std::to_string(to),
                                "same members, new number: " + Members(members).substr(5)});
      }
      continue;
    }
    for (const auto& d : members) {
      int64_t to = gb[d];
      if (mb[to] == members && to == id) continue;
      std::string detail =
          to == id
              ? d + " stays in IOMMU group " + std::to_string(id) + ", whose members changed"
              : d + " moved from IOMMU group " + std::to_string(id) + " to " + std::to_string(to);
      out->changes.push_back(
          {"iommu-regrouped", d, "group " + std::to_string(id) + " (" + Members(members, d) + ")",
           "group " + std::to_string(to) + " (" + Members(mb[to], d) + ")", detail});
    }
  }
}

// "/pci/devices[0000:01:00.0]/link/current/gen" -> "0000:01:00.0"
std::string DeviceOf(const std::string& path) {
  const std::string pre = "/pci/devices[";
  if (path.rfind(pre, 0) != 0) return "";
  size_t end = path.find(']', pre.size());
  return end == std::string::npos ? "" : path.substr(pre.size(), end - pre.size());
}

std::string GpuOf(const std::string& path) {
  const std::string pre = "/gpus[";
  if (path.rfind(pre, 0) != 0) return "";
  size_t end = path.find(']', pre.size());
  return end == std::string::npos ? "" : path.substr(pre.size(), end - pre.size());
}

bool Covered(const std::string& path) {
  static const char* const kSuffixes[] = {"/iommu_group", "/parent", "/address"};
  for (const char* s : kSuffixes)
    if (path.ends_with(s) && !DeviceOf(path).empty()) return true;
  return path == "/boot_id" || path == "/name" || path.rfind("/iommu/groups[", 0) == 0;
}

// Byte counts the kernel reports a little differently at every boot (reserved memory).
bool Jitter(const std::string& path, const FlatFact& a, const FlatFact& b) {
  if (!path.ends_with("memory_bytes") && !path.ends_with("total_bytes")) return false;
  auto x = ParseDouble(a.value), y = ParseDouble(b.value);
  return x && y && *x > 0 && std::fabs(*x - *y) / *x < 0.01;
}

std::string KindOf(const std::string& path) {
  std::string dev = DeviceOf(path);
  if (!dev.empty() && path.find("/link/") != std::string::npos) return "link";
  if (!dev.empty() && path.ends_with("/driver")) return "driver";
  if (path == "/kernel/cmdline") return "kernel-cmdline";
  if (path.rfind("/software", 0) == 0 || path == "/kernel/release" || path.rfind("/os/", 0) == 0 ||
      path.rfind("/dmi/bios", 0) == 0)
    return "software";
  if (path.rfind("/topology", 0) == 0) return "p2p";
  return "fact";
}

std::string CmdlineDetail(const std::string& a, const std::string& b) {
  auto ta = SplitAny(a, " "), tb = SplitAny(b, " ");
  std::set<std::string_view> sa(ta.begin(), ta.end()), sb(tb.begin(), tb.end());
  std::string added, removed;
  for (auto t : tb)
    if (!sa.count(t)) added += (added.empty() ? "" : " ") + std::string(t);
  for (auto t : ta)
    if (!sb.count(t)) removed += (removed.empty() ? "" : " ") + std::string(t);
  std::string out;
  if (!added.empty()) out += "added: " + added;
  if (!removed.empty()) out += std::string(out.empty() ? "" : "; ") + "removed: " + removed;
  return out.empty() ? "reordered" : out;
}

void DiffFacts(const Machine& a, const Machine& b, const DeviceChanges& dc, bool partial,
               MachineDiff* out) {
  auto fa = Flatten(a), fb = Flatten(b);
  std::set<std::string> gone_gpus, new_gpus;
  for (const auto& g : a.gpus)
    if (dc.removed.count(g.address)) gone_gpus.insert(g.address);
  for (const auto& g : b.gpus)
    if (dc.added.count(g.address)) new_gpus.insert(g.address);
  auto skip = [&](const std::string& p) {
    std::string dev = DeviceOf(p), gpu = GpuOf(p);
    if (!dev.empty() && (dc.removed.count(dev) || dc.added.count(dev))) return true;
    if (!gpu.empty() && (gone_gpus.count(gpu) || new_gpus.count(gpu))) return true;
    return Covered(p);
  };
  std::set<std::string> paths;
  for (const auto& [p, v] : fa) paths.insert(p);
  for (const auto& [p, v] : fb) paths.insert(p);
  for (const auto& p : paths) {
    if (skip(p)) continue;
    auto ia = fa.find(p), ib = fb.find(p);
    if (partial && (ia == fa.end() || ib == fb.end() || !ia->second.known || !ib->second.known ||
                    ia->second.value.empty() || ib->second.value.empty()))
      continue;  // one side did not paste it: not a change
    // A paste prints names and classes in its own words (`lspci -nn` drops the prog-if, a tree
    // shortens names), and a VM's config names where it was read: not changes of the machine.
    if (partial && (p.ends_with("/name") || p.ends_with("/class") || p.ends_with("/config")))
      continue;
    std::string va = ia == fa.end() ? "" : ia->second.value;
    std::string vb = ib == fb.end() ? "" : ib->second.value;
    if (va == vb) continue;
    if (ia != fa.end() && ib != fb.end() && Jitter(p, ia->second, ib->second)) continue;
    std::string kind = KindOf(p);
    std::string subject = DeviceOf(p).empty() ? p : DeviceOf(p) + " " + p.substr(p.find(']') + 2);
    std::string detail;
    if (kind == "kernel-cmdline") detail = CmdlineDetail(va, vb);
    if (kind == "driver") detail = "driver rebound: " + (va.empty() ? "none" : va) + " -> " + vb;
    out->changes.push_back({kind, subject, va, vb, detail});
  }
}

MachineDiff DiffParts(const Machine& a, const Machine& b, bool partial) {
  MachineDiff d;
  d.machine = b.name;
  d.from.boot_id = a.boot_id.value_or("");
  d.to.boot_id = b.boot_id.value_or("");
  d.rebooted = a.boot_id.known() && b.boot_id.known() && *a.boot_id != *b.boot_id;
  DeviceChanges dc = DiffDevices(a, b, partial, &d);
  DiffGroups(a, b, dc, &d);
  DiffFacts(a, b, dc, partial, &d);
  return d;
}

}  // namespace

MachineDiff DiffMachines(const Machine& a, const Machine& b) {
  return DiffParts(a, b, false);
}

void DiffFindings(const std::vector<Finding>& a, const std::vector<Finding>& b, MachineDiff* d) {
  auto has = [](const std::vector<Finding>& v, const std::string& id) {
    return std::any_of(v.begin(), v.end(), [&](const Finding& f) { return f.id == id; });
  };
  for (const auto& f : b)
    if (!has(a, f.id)) d->changes.push_back({"finding-appeared", f.id, "", f.severity, f.title});
  for (const auto& f : a)
    if (!has(b, f.id)) d->changes.push_back({"finding-cleared", f.id, f.severity, "", f.title});
}

// The findings of one state of a machine, with the verdicts decided for that state (in the
// dossier as it is, the machine's place taken by this state): a question is answered from the
// facts the findings are built on.
std::vector<Finding> FindingsOfState(const Machine& m, const View& view) {
  View v = view;
  MachineView* slot = nullptr;
  for (auto& mv : v.machines)
    if (mv.machine.name == m.name) slot = &mv;
  if (!slot) slot = &v.machines.emplace_back();
  *slot = MachineView{};  // the state alone, as the rules saw it before: no measurements
  slot->machine = m;
  VerdictTable verdicts = DecideVerdicts(v);
  const MachineDiff none;
  return RunRules({*slot, v, v.notes, none, &verdicts});
}

MachineDiff DiffStates(const Machine& a, bool a_pasted, const Machine& b, bool b_pasted,
                       const View& view) {
  if (!a_pasted && !b_pasted) return DiffRecords(a, b, view);
  MachineDiff d = DiffParts(a, b, true);
  d.not_compared = {
      "devices and facts that only one side shows: a paste holds only what it printed",
      "device names and classes, and where a VM's configuration was read: a paste prints them "
      "in its own words",
      "findings: the rules need the whole machine, and a paste holds part of it"};
  return d;
}

MachineDiff DiffRecords(const Machine& a, const Machine& b, const View& view) {
  MachineDiff d = DiffMachines(a, b);
  DiffFindings(FindingsOfState(a, view), FindingsOfState(b, view), &d);
  return d;
}

}  // namespace dossier
