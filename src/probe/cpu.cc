// CPU from /proc/cpuinfo (model, vendor, sockets, cores, threads, the hypervisor flag) and total
// memory from /proc/meminfo. Where cpuinfo has no "physical id" (some ARM kernels), sockets come
// from sysfs topology instead.
#include <set>
#include <utility>

#include "probe/probe.h"
#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {
namespace {

void ProbeMemory(const RootFs& fs, Machine* m) {
  auto text = fs.Read("/proc/meminfo", 1 << 20);
  if (!text) return m->memory.total_bytes.Unknown(ReasonFor(text.error()), "/proc/meminfo");
  int n = 0;
  for (std::string_view line : SplitLines(*text)) {
    ++n;
    if (!line.starts_with("MemTotal:")) continue;
    auto words = SplitAny(line.substr(9), " \t");
    auto kb = words.empty() ? std::nullopt : ParseUint(words[0]);
    std::string src = "/proc/meminfo:" + std::to_string(n);
    if (!kb) return m->memory.total_bytes.Unknown("MemTotal is not a number", src);
    return m->memory.total_bytes.Set(*kb * 1024, src);
  }
  m->memory.total_bytes.Unknown("no MemTotal line", "/proc/meminfo");
}

// Sockets from /sys/devices/system/cpu/cpuN/topology/physical_package_id.
std::optional<int64_t> SocketsFromSysfs(const RootFs& fs) {
  auto cpus = fs.List("/sys/devices/system/cpu");
  if (!cpus) return std::nullopt;
  std::set<std::string> packages;
  for (const auto& c : *cpus) {
    if (!c.starts_with("cpu") || !ParseInt(std::string_view(c).substr(3))) continue;
    auto id = fs.ReadValue("/sys/devices/system/cpu/" + c + "/topology/physical_package_id");
    if (id) packages.insert(*id);
  }
  if (packages.empty()) return std::nullopt;
  return static_cast<int64_t>(packages.size());
}

}  // namespace

void ProbeCpu(const ProbeContext& ctx, Machine* m) {
  const RootFs& fs = ctx.fs;
  ProbeMemory(fs, m);
  CpuInfo& cpu = m->cpu;
  const std::string path = "/proc/cpuinfo";
  auto text = fs.Read(path, 64 << 20);
  if (!text) {
    std::string why = ReasonFor(text.error());
    for (auto* f : {&cpu.model, &cpu.vendor}) f->Unknown(why, path);
    for (auto* f : {&cpu.sockets, &cpu.cores, &cpu.threads}) f->Unknown(why, path);
    cpu.hypervisor_flag.Unknown(why, path);
    return;
  }
  int64_t threads = 0;
  std::set<std::string> packages;
  std::set<std::pair<std::string, std::string>> cores;
  std::string phys;
  bool saw_flags = false, hypervisor = false;
  int n = 0;
  for (std::string_view line : SplitLines(*text)) {
    ++n;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = Trim(line.substr(0, colon));
    std::string_view val = Trim(line.substr(colon + 1));
    std::string src = path + ":" + std::to_string(n);
    if (key == "processor") {
      ++threads;
      phys.clear();
    } else if (key == "model name" && !cpu.model.known()) {
      cpu.model.Set(std::string(val), src);
    } else if (key == "vendor_id" && !cpu.vendor.known()) {
      cpu.vendor.Set(std::string(val), src);
    } else if (key == "physical id") {
      phys = val;
      packages.insert(phys);
    } else if (key == "core id") {
      cores.insert({phys, std::string(val)});
    } else if ((key == "flags" || key == "Features") && !saw_flags) {
      saw_flags = true;
      for (auto f : SplitAny(val, " ")) hypervisor = hypervisor || f == "hypervisor";
    }
  }
  if (!cpu.model.known()) cpu.model.Unknown("no 'model name' line", path);
  if (!cpu.vendor.known()) cpu.vendor.Unknown("no 'vendor_id' line", path);
  if (threads > 0) {
    cpu.threads.Set(threads, path);
  } else {
    cpu.threads.Unknown("no 'processor' lines", path);
  }
  if (!packages.empty()) {
    cpu.sockets.Set(static_cast<int64_t>(packages.size()), path + " (physical id)");
  } else if (auto s = SocketsFromSysfs(fs)) {
    cpu.sockets.Set(*s, "/sys/devices/system/cpu/cpu*/topology/physical_package_id");
  } else {
    cpu.sockets.Unknown("no 'physical id' lines and no sysfs topology", path);
  }
  if (!cores.empty()) {
    cpu.cores.Set(static_cast<int64_t>(cores.size()), path + " (physical id, core id)");
  } else {
    cpu.cores.Unknown("no 'core id' lines", path);
  }
  if (saw_flags) {
    cpu.hypervisor_flag.Set(hypervisor, path + " (flags)");
  } else {
    cpu.hypervisor_flag.Unknown("no flags line", path);
  }
}

}  // namespace dossier
