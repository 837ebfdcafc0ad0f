#include "probe/cpu_topology.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {
namespace {

constexpr const char* kCpuDir = "/sys/devices/system/cpu";

// One online CPU's topology/ files. An id is nullopt when its file is absent or unreadable, and
// -1 is kept as read: the kernel's way of saying it does not know.
struct CpuPlace {
  std::optional<int64_t> package, die, core, book, drawer;
  Fact<std::vector<int64_t>> core_set, package_set;
};

std::optional<int64_t> ReadTopologyId(const RootFs& fs, const std::string& path) {
  auto v = fs.ReadValue(path);
  if (!v) return std::nullopt;
  return ParseInt(*v);
}

// cpuN directory names, as numbers.
std::vector<int64_t> CpuDirs(const RootFs& fs) {
  std::vector<int64_t> out;
  auto entries = fs.List(kCpuDir);
  if (!entries) return out;
  for (const auto& e : *entries) {
    if (!e.starts_with("cpu")) continue;
    auto n = ParseInt(std::string_view(e).substr(3));
    if (n && *n >= 0) out.push_back(*n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A cpulist file at /sys/devices/system/cpu/NAME; else `fallback` computed from the cpuN
// directories (with `how` in its source).
Fact<std::vector<int64_t>> ReadCpuMaskFile(const RootFs& fs, const char* name,
                                           const std::vector<int64_t>& fallback,
                                           const std::string& how) {
  Fact<std::vector<int64_t>> out;
  std::string path = std::string(kCpuDir) + "/" + name;
  auto v = fs.ReadValue(path);
  if (v) {
    if (auto list = ParseCpuList(*v)) {
      out.Set(*list, path);
      return out;
    }
    out.Unknown("not a cpulist: '" + Printable(*v, 40) + "'", path);
  } else {
    out.Unknown(ReasonFor(v.error()), path);
  }
  if (!fallback.empty()) out.Set(fallback, how);
  return out;
}

// The online CPUs from each cpuN/online ("1"/"0"); a CPU without the file (cpu0 on most
// machines: it cannot be taken offline) is online.
std::vector<int64_t> OnlineFromDirs(const RootFs& fs, const std::vector<int64_t>& cpus) {
  std::vector<int64_t> out;
  for (int64_t c : cpus) {
    auto v = fs.ReadValue(std::string(kCpuDir) + "/cpu" + std::to_string(c) + "/online");
    if (!v || Trim(*v) != "0") out.push_back(c);
  }
  return out;
}

CpuPlace ReadPlace(const RootFs& fs, int64_t cpu) {
  std::string t = std::string(kCpuDir) + "/cpu" + std::to_string(cpu) + "/topology/";
  CpuPlace p;
  p.package = ReadTopologyId(fs, t + "physical_package_id");
  p.die = ReadTopologyId(fs, t + "die_id");
  p.core = ReadTopologyId(fs, t + "core_id");
  p.book = ReadTopologyId(fs, t + "book_id");
  p.drawer = ReadTopologyId(fs, t + "drawer_id");
  // core_cpus (5.6+) is the newer name of thread_siblings; package_cpus of core_siblings.
  p.core_set = ReadCpuSet(fs, t, "core_cpus_list", "core_cpus");
  if (!p.core_set.known())
    p.core_set = ReadCpuSet(fs, t, "thread_siblings_list", "thread_siblings");
  p.package_set = ReadCpuSet(fs, t, "package_cpus_list", "package_cpus");
  if (!p.package_set.known())
    p.package_set = ReadCpuSet(fs, t, "core_siblings_list", "core_siblings");
  return p;
}

// "/sys/devices/system/cpu/cpu3/topology/core_cpus_list" -> "/sys/devices/system/cpu/cpu*/…".
std::string AllCpus(const std::string& path) {
  auto t = path.find("/topology/");
  return t == std::string::npos ? path : std::string(kCpuDir) + "/cpu*" + path.substr(t);
}

using Key = std::tuple<int64_t, int64_t, int64_t, int64_t>;

// Distinct keys over every CPU; nullopt when some CPU lacks a part of its key.
template <class F>
std::optional<size_t> CountDistinct(const std::vector<CpuPlace>& places, F key) {
  std::set<Key> seen;
  for (const auto& p : places) {
    auto k = key(p);
    if (!k) return std::nullopt;
    seen.insert(*k);
  }
  return seen.size();
}

void CountCores(const std::vector<CpuPlace>& places, const std::string& t, SysfsCpuTopology* out) {
  std::set<std::vector<int64_t>> sets;
  bool all_sets = true;
  for (const auto& p : places) {
    if (!p.core_set.known() || p.core_set->empty()) {
      all_sets = false;
      break;
    }
    sets.insert(*p.core_set);
  }
  if (all_sets) {
    out->cores.Set(static_cast<int64_t>(sets.size()),
                   AllCpus(places.front().core_set.source) + " (distinct sets)");
    return;
  }
  // Without sibling lists: (drawer, book, package, die, core_id), since core_id repeats on each
  // package and, on AMD multi-die packages, on each die.
  auto n = CountDistinct(places, [](const CpuPlace& p) -> std::optional<Key> {
    if (!p.core || *p.core < 0) return std::nullopt;
    int64_t place = (p.drawer.value_or(0) << 20) + (p.book.value_or(0) << 10);
    return Key{place, p.package.value_or(-1), p.die.value_or(0), *p.core};
  });
  if (n) {
    out->cores.Set(static_cast<int64_t>(*n), t + "{physical_package_id,die_id,core_id}");
  } else {
    out->cores.Unknown("no thread_siblings_list, core_cpus_list or core_id for every online CPU",
                       t + "core_cpus_list");
  }
}

void CountSockets(const std::vector<CpuPlace>& places, const std::string& t,
                  SysfsCpuTopology* out) {
  bool any_minus_one = false;
  auto n = CountDistinct(places, [&](const CpuPlace& p) -> std::optional<Key> {
    if (!p.package) return std::nullopt;
    if (*p.package < 0) {
      any_minus_one = true;
      return std::nullopt;
    }
    return Key{p.drawer.value_or(0), p.book.value_or(0), *p.package, 0};
  });
  if (n) {
    bool s390 = places.front().book.has_value();
    out->sockets.Set(static_cast<int64_t>(*n), t + (s390 ? "{drawer_id,book_id,physical_package_id}"
                                                         : "physical_package_id"));
    return;
  }
  std::string why = any_minus_one
                        ? "physical_package_id is -1 (the kernel does not know the package)"
                        : "no physical_package_id for every online CPU";
  // What the kernel gives instead: the CPUs of each package (core_siblings_list).
  std::set<std::vector<int64_t>> sets;
  for (const auto& p : places) {
    if (!p.package_set.known() || p.package_set->empty()) {
      out->sockets.Unknown(why, t + "physical_package_id");
      return;
    }
    sets.insert(*p.package_set);
  }
  out->sockets.Set(static_cast<int64_t>(sets.size()),
                   AllCpus(places.front().package_set.source) + " (distinct sets; " + why + ")");
}

// Distinct ids at one level. `depth` says what an id is numbered within: a drawer is global (0),
// a book is numbered within its drawer (1), a die within its package (3).
void CountLevel(const std::vector<CpuPlace>& places, const std::string& path, const char* what,
                std::optional<int64_t> CpuPlace::*id, int depth, Fact<int64_t>* out) {
  bool minus_one = false;
  auto n = CountDistinct(places, [&](const CpuPlace& p) -> std::optional<Key> {
    if (!(p.*id)) return std::nullopt;
    if (*(p.*id) < 0) minus_one = true;
    int64_t v = *(p.*id);
    if (depth == 0) return Key{v, 0, 0, 0};
    if (depth == 1) return Key{p.drawer.value_or(0), v, 0, 0};
    return Key{p.drawer.value_or(0), p.book.value_or(0), p.package.value_or(0), v};
  });
  if (n && !minus_one)
    out->Set(static_cast<int64_t>(*n), path);
  else
    out->Unknown(minus_one ? std::string(what) + " is -1" : std::string("no ") + what, path);
}

}  // namespace

Fact<std::vector<int64_t>> ReadCpuSet(const RootFs& fs, const std::string& dir,
                                      const std::string& list_name, const std::string& mask_name) {
  Fact<std::vector<int64_t>> out;
  std::string lpath = JoinPath(dir, list_name);
  auto list = fs.ReadValue(lpath);
  if (list) {
    if (auto cpus = ParseCpuList(*list)) {
      out.Set(*cpus, lpath);
      return out;
    }
    out.Unknown("not a cpulist: '" + Printable(*list, 40) + "'", lpath);
  } else {
    out.Unknown(ReasonFor(list.error()), lpath);
  }
  std::string mpath = JoinPath(dir, mask_name);
  auto mask = fs.ReadValue(mpath);
  if (!mask) return out;
  if (auto cpus = ParseCpuMask(*mask)) {
    out.Set(*cpus, mpath);
  } else if (!list) {
    out.Unknown("not a CPU mask: '" + Printable(*mask, 40) + "'", mpath);
  }
  return out;
}

SysfsCpuTopology ReadSysfsCpuTopology(const RootFs& fs) {
  SysfsCpuTopology out;
  std::vector<int64_t> dirs = CpuDirs(fs);
  out.has_cpu_dir = !dirs.empty();
  std::string dirs_src = std::string(kCpuDir) + "/cpu* directories";
  out.present = ReadCpuMaskFile(fs, "present", dirs, dirs_src);
  out.online = ReadCpuMaskFile(fs, "online", OnlineFromDirs(fs, dirs),
                               std::string(kCpuDir) + "/cpu*/online");
  const std::string t = std::string(kCpuDir) + "/cpu*/topology/";
  std::vector<CpuPlace> places;
  bool complete = out.online.known() && !out.online->empty();
  for (int64_t c : out.online.value_or({})) {
    if (!fs.IsDir(std::string(kCpuDir) + "/cpu" + std::to_string(c) + "/topology")) {
      complete = false;  // an online CPU without topology/: counts would be short
      break;
    }
    places.push_back(ReadPlace(fs, c));
  }
  if (!complete) {
    std::string why = !out.online.known() ? "online CPUs unknown: " + out.online.unknown
                                          : "no topology directory for every online CPU";
    for (auto* f : {&out.sockets, &out.cores, &out.dies, &out.books, &out.drawers})
      f->Unknown(why, t);
    return out;
  }
  CountCores(places, t, &out);
  CountSockets(places, t, &out);
  CountLevel(places, t + "die_id", "die_id", &CpuPlace::die, 3, &out.dies);
  CountLevel(places, t + "book_id", "book_id (s390 only)", &CpuPlace::book, 1, &out.books);
  CountLevel(places, t + "drawer_id", "drawer_id (s390 only)", &CpuPlace::drawer, 0, &out.drawers);
  return out;
}

}  // namespace dossier
