// CPUs and total memory. Counts come from the kernel's sysfs topology first (cpu_topology.h), as
// lscpu and hwloc read them, and from /proc/cpuinfo only where sysfs has none; the model and
// vendor come from /proc/cpuinfo in whichever form the architecture writes it (x86 "model name",
// ARM64 "CPU implementer"/"CPU part", POWER "cpu", s390 "machine"), then from SMBIOS and the
// device tree. /proc/meminfo gives the memory.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>
#include <utility>

#include "probe/cpu_names.h"
#include "probe/cpu_topology.h"
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

// What /proc/cpuinfo says, whatever the architecture. Keys seen only once per file keep their
// first line for the source.
struct Cpuinfo {
  bool read = false;
  std::string unreadable;  // why it could not be read
  int64_t processors = 0;
  std::set<std::string> packages;                       // "physical id"
  std::set<std::pair<std::string, std::string>> cores;  // ("physical id", "core id")
  std::map<std::string, int64_t> cores_per_package;     // "cpu cores", per physical id
  Fact<std::string> model_name, vendor_id, vendor, family, power_cpu, s390_machine;
  std::vector<std::pair<uint64_t, uint64_t>> arm_parts;  // distinct (implementer, part)
  std::string arm_src;
  bool saw_flags = false, hypervisor = false;
  std::string flags_src;
};

void SetOnce(Fact<std::string>* f, std::string_view v, const std::string& src) {
  if (!f->known() && !v.empty()) f->Set(std::string(v), src);
}

Cpuinfo ReadCpuinfo(const RootFs& fs) {
  const std::string path = "/proc/cpuinfo";
  Cpuinfo ci;
  auto text = fs.Read(path, 64 << 20);
  if (!text) {
    ci.unreadable = ReasonFor(text.error());
    return ci;
  }
  ci.read = true;
  std::string phys;
  std::optional<uint64_t> implementer;
  int n = 0;
  for (std::string_view line : SplitLines(*text)) {
    ++n;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = Trim(line.substr(0, colon));
    std::string_view val = Trim(line.substr(colon + 1));
    std::string src = path + ":" + std::to_string(n);
    if (key == "processor" || (key.starts_with("processor ") && ParseInt(key.substr(10)))) {
      // s390 writes "processor 0: version = FF, identification = …, machine = 3931".
      ++ci.processors;
      phys.clear();
      auto m = val.find("machine = ");
      if (m != std::string_view::npos)
        SetOnce(&ci.s390_machine, Trim(SplitAny(val.substr(m + 10), ", ")[0]), src);
    } else if (key == "model name") {
      SetOnce(&ci.model_name, val, src);
    } else if (key == "vendor_id") {
      SetOnce(&ci.vendor_id, val, src);
    } else if (key == "vendor") {  // IA-64
      SetOnce(&ci.vendor, val, src);
    } else if (key == "family") {  // IA-64: "Itanium 2"
      SetOnce(&ci.family, val, src);
    } else if (key == "cpu" && val.starts_with("POWER")) {  // "POWER9, altivec supported"
      SetOnce(&ci.power_cpu, Trim(val.substr(0, val.find(','))), src);
    } else if (key == "machine") {  // s390 "3931"; POWER's "PowerNV 8335-GTH" is the board
      SetOnce(&ci.s390_machine, val, src);
    } else if (key == "CPU implementer") {
      implementer = ParseUint(val, 0);
    } else if (key == "CPU part") {
      auto part = ParseUint(val, 0);
      if (implementer && part) {
        std::pair<uint64_t, uint64_t> ip{*implementer, *part};
        if (std::find(ci.arm_parts.begin(), ci.arm_parts.end(), ip) == ci.arm_parts.end())
          ci.arm_parts.push_back(ip);
        if (ci.arm_src.empty()) ci.arm_src = src;
      }
    } else if (key == "physical id") {
      phys = val;
      ci.packages.insert(phys);
    } else if (key == "core id") {
      ci.cores.insert({phys, std::string(val)});
    } else if (key == "cpu cores") {
      if (auto c = ParseInt(val)) ci.cores_per_package[phys] = *c;
    } else if (key == "flags" && !ci.saw_flags) {  // x86 only: ARM's "Features" has no such flag
      ci.saw_flags = true;
      ci.flags_src = src;
      for (auto f : SplitAny(val, " ")) ci.hypervisor = ci.hypervisor || f == "hypervisor";
    }
  }
  return ci;
}

// "Neoverse-V2", or "Cortex-X925 + Cortex-A725" for a big.LITTLE part mix.
std::optional<std::string> ArmModel(const Cpuinfo& ci) {
  std::string out;
  for (auto [impl, part] : ci.arm_parts) {
    auto name = ArmPartName(impl, part);
    char code[64];
    std::snprintf(
        code, sizeof code, "%s part 0x%03llx",
        ArmImplementerName(impl).value_or("ARM implementer " + std::to_string(impl)).c_str(),
        static_cast<unsigned long long>(part));
    out += (out.empty() ? "" : " + ") + name.value_or(code);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// The first string of a device-tree property (NUL-separated strings).
std::optional<std::string> DtString(const RootFs& fs, const std::string& path) {
  auto v = fs.Read(path, 4096);
  if (!v) return std::nullopt;
  std::string s = Printable(Trim(std::string_view(*v).substr(0, v->find('\0'))), 120);
  if (s.empty()) return std::nullopt;
  return s;
}

// From the device tree: a CPU node's compatible ("arm,cortex-a72"), a POWER CPU node's name
// ("PowerPC,POWER9@0"), else the board's model.
bool ModelFromDeviceTree(const RootFs& fs, Fact<std::string>* model) {
  const std::string cpus = "/sys/firmware/devicetree/base/cpus";
  if (auto nodes = fs.List(cpus)) {
    for (const auto& e : *nodes) {
      if (e.starts_with("PowerPC,")) {
        model->Set(std::string(e.substr(8, e.find('@') - 8)), cpus + "/" + e + " (node name)");
        return true;
      }
      if (!e.starts_with("cpu@")) continue;
      if (auto c = DtString(fs, cpus + "/" + e + "/compatible")) {
        model->Set(*c, cpus + "/" + e + "/compatible");
        return true;
      }
    }
  }
  const std::string board = "/sys/firmware/devicetree/base/model";
  if (auto b = DtString(fs, board)) {
    model->Set(*b + " (the board; the device tree names no CPU)", board);
    return true;
  }
  return false;
}

void SetModel(const RootFs& fs, const Machine& m, const Cpuinfo& ci, CpuInfo* cpu) {
  const std::string path = "/proc/cpuinfo";
  auto arm = ArmModel(ci);
  if (ci.model_name.known() && !(arm && ci.model_name->starts_with("ARMv"))) {
    cpu->model = ci.model_name;
  } else if (arm) {
    cpu->model.Set(*arm, ci.arm_src + " (CPU implementer, CPU part)");
  } else if (ci.power_cpu.known()) {
    cpu->model = ci.power_cpu;
  } else if (ci.s390_machine.known()) {
    auto name = S390MachineName(*ci.s390_machine);
    cpu->model.Set(
        name ? *name + " (machine " + *ci.s390_machine + ")" : "IBM Z machine " + *ci.s390_machine,
        ci.s390_machine.source);
  } else if (ci.family.known()) {
    cpu->model = ci.family;
  } else if (m.dmi.processor_version.known()) {
    cpu->model = m.dmi.processor_version;
  } else if (!ModelFromDeviceTree(fs, &cpu->model)) {
    cpu->model.Unknown(ci.read ? "no model name, CPU part, cpu or machine line; no SMBIOS "
                                 "processor or device tree"
                               : ci.unreadable + "; no SMBIOS processor or device tree",
                       path);
  }

  if (ci.vendor_id.known()) {
    cpu->vendor = ci.vendor_id;
  } else if (ci.vendor.known()) {
    cpu->vendor = ci.vendor;
  } else if (!ci.arm_parts.empty() && ArmImplementerName(ci.arm_parts[0].first)) {
    cpu->vendor.Set(*ArmImplementerName(ci.arm_parts[0].first), ci.arm_src + " (CPU implementer)");
  } else if (ci.power_cpu.known()) {
    cpu->vendor.Set("IBM", ci.power_cpu.source + " (a POWER processor)");
  } else if (m.dmi.processor_manufacturer.known()) {
    cpu->vendor = m.dmi.processor_manufacturer;
  } else {
    cpu->vendor.Unknown(ci.read ? "no vendor_id, vendor or CPU implementer line" : ci.unreadable,
                        path);
  }
}

// Counts from /proc/cpuinfo, for what sysfs left unknown.
void CountsFromCpuinfo(const Cpuinfo& ci, CpuInfo* cpu) {
  const std::string path = "/proc/cpuinfo";
  std::string why = ci.read ? "" : ci.unreadable;
  if (!cpu->threads.known()) {
    if (ci.processors > 0)
      cpu->threads.Set(ci.processors, path + " (processor lines)");
    else
      cpu->threads.Unknown(ci.read ? "no 'processor' lines" : why, path);
  }
  if (!cpu->sockets.known() && cpu->sockets.unknown.find("-1") == std::string::npos) {
    if (!ci.packages.empty())
      cpu->sockets.Set(static_cast<int64_t>(ci.packages.size()), path + " (physical id)");
    else
      cpu->sockets.Unknown(ci.read ? "no sysfs topology and no 'physical id' lines" : why, path);
  }
  if (cpu->cores.known()) return;
  // "cpu cores" is the kernel's count per package; (physical id, core id) pairs undercount
  // where core ids repeat on each die of a package.
  if (!ci.cores_per_package.empty() && ci.cores_per_package.size() == ci.packages.size()) {
    int64_t total = 0;
    for (const auto& [pkg, n] : ci.cores_per_package) total += n;
    cpu->cores.Set(total, path + " (cpu cores, per physical id)");
  } else if (!ci.cores.empty()) {
    cpu->cores.Set(static_cast<int64_t>(ci.cores.size()), path + " (physical id, core id)");
  } else {
    cpu->cores.Unknown(ci.read ? "no sysfs topology and no 'core id' lines" : why, path);
  }
}

}  // namespace

void ProbeCpu(const ProbeContext& ctx, Machine* m) {
  const RootFs& fs = ctx.fs;
  ProbeMemory(fs, m);
  CpuInfo& cpu = m->cpu;
  SysfsCpuTopology topo = ReadSysfsCpuTopology(fs);
  Cpuinfo ci = ReadCpuinfo(fs);

  if (topo.online.known()) {
    cpu.threads.Set(static_cast<int64_t>(topo.online->size()), topo.online.source);
    cpu.online.Set(FormatCpuList(*topo.online), topo.online.source);
  } else {
    cpu.online.Unknown(topo.online.unknown, topo.online.source);
  }
  if (topo.present.known()) {
    cpu.present.Set(FormatCpuList(*topo.present), topo.present.source);
  } else {
    cpu.present.Unknown(topo.present.unknown, topo.present.source);
  }
  if (topo.online.known() && topo.present.known()) {
    std::vector<int64_t> off;
    std::set_difference(topo.present->begin(), topo.present->end(), topo.online->begin(),
                        topo.online->end(), std::back_inserter(off));
    cpu.offline.Set(FormatCpuList(off), topo.present.source + " minus " + topo.online.source);
  } else {
    cpu.offline.Unknown("online or present CPUs unknown", "/sys/devices/system/cpu");
  }
  cpu.sockets = topo.sockets;
  cpu.cores = topo.cores;
  cpu.dies = topo.dies;
  cpu.books = topo.books;
  cpu.drawers = topo.drawers;
  CountsFromCpuinfo(ci, &cpu);
  SetModel(fs, *m, ci, &cpu);
  if (ci.saw_flags)
    cpu.hypervisor_flag.Set(ci.hypervisor, ci.flags_src + " (flags)");
  else
    cpu.hypervisor_flag.Unknown(ci.read ? "no x86 flags line (ARM, POWER and s390 CPUs have no "
                                          "hypervisor flag)"
                                        : ci.unreadable,
                                "/proc/cpuinfo");
}

}  // namespace dossier
