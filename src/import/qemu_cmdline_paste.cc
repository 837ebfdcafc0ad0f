// A QEMU command line pasted back from a host: `qm showcmd VMID` (one line) or `qm showcmd VMID
// --pretty` (one option per line, backslash-continued), a `ps aux`/`ps -ef`/`pgrep -a` line of a
// running QEMU, or /proc/PID/cmdline made readable (`tr '\0' ' '`, `xargs -0`). The argv is read
// by hypervisor/qemu_cmdline.cc, the parser the host probe uses on /proc/PID/cmdline; here its
// facts get the pasted line of each argument. What it says becomes hypervisor.vms[]: the VM (by
// -id, or the VMID of the pasted command, or -name), its vfio-pci devices per Proxmox slot
// (hostpciN; hostpciN.F are the functions of one slot) with host address, guest bus and
// x-nv-gpudirect-clique, machine type, SMBIOS UUID, guest NUMA nodes and their host binding.
// A `qm config` of the same VM earlier in the paste gets these as its running facts instead.
//
// Whether the VM runs: a `ps` line or /proc/PID/cmdline is a running process; `qm showcmd` is
// the command the NEXT start would run (generated from the configuration), no proof that the VM
// runs or that a running VM was started with it, so `running` stays unknown with that reason.
#include <regex>

#include "hypervisor/qemu_cmdline.h"
#include "import/import_text.h"
#include "import/part_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

// Where argv[0] is: the index of the first word that names a QEMU binary, or npos.
size_t QcBinaryWord(const std::vector<std::string>& words) {
  for (size_t i = 0; i < words.size() && i < 64; ++i) {
    if (hypervisor::LooksLikeQemu({words[i]})) return i;
  }
  return std::string::npos;
}

// A line that starts a QEMU command: the binary, then options (or nothing after it when the
// line is continued with a backslash).
bool QcStartLine(std::string_view line) {
  if (line.size() > 65536) return false;
  static const std::regex kBin(
      R"((^|[\s/])(qemu-system-[A-Za-z0-9_]+|kvm|qemu-kvm)(\s+-|\s*\\$|\s*$))");
  std::string s(line.substr(0, 512));
  if (!std::regex_search(s, kBin)) return false;
  // "kvm" alone is a common word; it counts only as a path (/usr/bin/kvm) or before options.
  return s.find(" -") != std::string::npos || Trim(s).ends_with("\\") ||
         s.find("/") != std::string::npos;
}

bool QcStarts(const Lines& lines, size_t i) {
  if (!QcStartLine(lines[i].text)) return false;
  // The same command continued from the previous line is not a new output.
  return i == 0 || !Trim(lines[i - 1].text).ends_with("\\");
}

int QcDetect(const Lines& lines) {
  size_t starts = 0, devices = 0;
  for (const auto& l : lines) {
    if (QcStartLine(l.text)) ++starts;
    if (l.text.find("-device") != std::string::npos) ++devices;
  }
  if (starts == 0) return 0;
  return devices > 0 ? 90 : 40;
}

// One QEMU command in the part: its words with the line each began on, and what the text before
// the binary said (a `ps` row: the PID).
struct QcCommand {
  std::vector<std::string> argv;
  std::vector<size_t> arg_line;  // pasted line of argv[k]
  size_t first_line = 0;
  int64_t ps_pid = -1;
  std::string prefix;      // text before the binary on its line
  bool continued = false;  // backslash-continued (qm showcmd --pretty style)
  std::string error;
};

// `ps aux`: USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND; `ps -ef`: UID PID PPID C
// STIME TTY TIME CMD; `pgrep -a`: PID COMMAND. The PID is the first or second word.
int64_t QcPsPid(const std::string& prefix) {
  auto tok = Tokens(prefix);
  if (tok.empty()) return -1;
  if (tok.size() == 1) return ParseInt(tok[0]).value_or(-1);
  if (auto p = ParseInt(tok[1]); p && tok.size() >= 4) return *p;
  return -1;
}

std::vector<QcCommand> QcCommands(const Lines& lines,
                                  std::vector<std::string>* pending_errors_out) {
  std::vector<QcCommand> out;
  std::vector<std::string>& pending_errors = *pending_errors_out;
  QcCommand* cur = nullptr;
  bool continues = false;  // the previous line of the current command ended with '\'
  for (const auto& l : lines) {
    std::string_view t = l.text;
    if (Trim(t).empty()) {
      continues = false;
      cur = nullptr;
      continue;
    }
    if (Trim(t).starts_with("#")) continue;  // a comment in a notes file
    std::string err;
    std::vector<std::string> words = hypervisor::SplitShellWords(std::string(t) + "\n", &err);
    bool start = !continues && QcStartLine(t);
    if (!err.empty()) {
      // An argument whose quote never closes: the paste was cut (or a line lost); the line's
      // words are not complete, so none of them is read.
      if (start || cur) {
        std::string note =
            std::to_string(l.number) + ": " + err + ": the line is incomplete (cut off?); left out";
        if (cur && cur->error.empty()) cur->error = note;
        if (!cur) pending_errors.push_back(note);
      }
      continues = false;
      if (!start) cur = nullptr;
      continue;
    }
    if (start) {
      size_t b = QcBinaryWord(words);
      if (b == std::string::npos) continue;
      out.emplace_back();
      cur = &out.back();
      cur->first_line = l.number;
      size_t pos = t.find(words[b]);
      cur->prefix = pos == std::string_view::npos ? "" : std::string(t.substr(0, pos));
      cur->ps_pid = QcPsPid(cur->prefix);
      words.erase(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(b));
    } else if (!cur) {
      continue;
    } else if (!continues && !Trim(t).starts_with("-")) {
      // Neither continued nor an option: the command ended on the line before.
      cur = nullptr;
      continue;
    }
    continues = Trim(t).ends_with("\\");
    cur->continued = cur->continued || continues;
    for (auto& w : words) {
      cur->argv.push_back(std::move(w));
      cur->arg_line.push_back(l.number);
    }
  }
  return out;
}

std::string QcVmidFromCommand(const std::string& command) {
  static const std::regex kShow(R"(qm\s+show(?:cmd)?\s+(\d+))");
  std::smatch m;
  if (std::regex_search(command, m, kShow)) return m[1];
  return "";
}

int64_t QcPidFromCommand(const std::string& command) {
  static const std::regex kProc(R"(/proc/(\d+)/cmdline)");
  std::smatch m;
  if (std::regex_search(command, m, kProc)) return ParseInt(m[1].str()).value_or(-1);
  return -1;
}

// "NAME: argument K…" from the parser: the pasted line of argument K.
std::string QcProblem(const std::string& p, const std::string& name, const QcCommand& c,
                      const ImportSource& src) {
  if (p.rfind(name, 0) != 0) return p;
  std::string rest = p.substr(name.size());
  static const std::regex kArg(R"(^: argument (\d+))");
  std::smatch m;
  size_t line = c.first_line;
  if (std::regex_search(rest, m, kArg)) {
    auto k = ParseInt(m[1].str());
    if (k && *k >= 0 && static_cast<size_t>(*k) < c.arg_line.size())
      line = c.arg_line[static_cast<size_t>(*k)];
  }
  return src.file + ":" + std::to_string(line) + rest;
}

// Proxmox names the functions of one hostpciN slot hostpciN.0, hostpciN.1…
std::string QcSlotOf(const std::string& id) {
  if (id.rfind("hostpci", 0) == 0) return id.substr(0, id.find('.'));
  return id;
}

Status QcParse(const Lines& lines, const ImportSource& src, Imported* out) {
  std::vector<std::string> lost;
  std::vector<QcCommand> cmds = QcCommands(lines, &lost);
  for (const auto& e : lost) out->notes.push_back(src.file + ":" + e);
  if (cmds.empty()) return Error::Invalid("no QEMU command line (qemu-system-…, kvm) in it");
  bool showcmd = src.command.find("qm show") != std::string::npos;
  std::string cmd_vmid = QcVmidFromCommand(src.command);
  int64_t cmd_pid = QcPidFromCommand(src.command);
  bool ps = src.command.find("ps ") != std::string::npos ||
            src.command.find("pgrep") != std::string::npos;
  const std::string name = "\x01qemu";
  auto& hv = out->machine.hypervisor;
  for (const QcCommand& c : cmds) {
    hypervisor::QemuCmdline q = hypervisor::ParseQemuArgv(c.argv, name);
    auto at_arg = [&](int64_t k) {
      size_t line = k >= 0 && static_cast<size_t>(k) < c.arg_line.size()
                        ? c.arg_line[static_cast<size_t>(k)]
                        : c.first_line;
      return src.At(line);
    };
    std::string first = src.At(c.first_line);
    std::string vmid = !q.vmid.empty() ? q.vmid : !cmd_vmid.empty() ? cmd_vmid : "";
    bool proxmox = !q.vmid.empty() || q.pidfile.find("qemu-server") != std::string::npos || showcmd;
    // Running or not, and how we know.
    bool is_process = c.ps_pid > 0 || cmd_pid > 0 || (ps && !showcmd);
    bool next_start = showcmd || (!is_process && c.continued);
    // The VM: one already imported from a `qm config` of this id, else a new one.
    Vm* vm = nullptr;
    for (auto& v : hv.vms)
      if (!vmid.empty() && v.id == vmid) vm = &v;
    bool merge = vm != nullptr;
    if (!vm) {
      hv.vms.emplace_back();
      vm = &hv.vms.back();
      vm->id = !vmid.empty()     ? vmid
               : !q.name.empty() ? q.name
               : c.ps_pid > 0    ? "pid-" + std::to_string(c.ps_pid)
                                 : "?";
      vm->config.Unknown(next_start ? "a pasted `qm showcmd` (generated from the configuration, "
                                      "which was not pasted)"
                                    : "a pasted QEMU command line; its configuration was not "
                                      "pasted",
                         first);
    }
    if (!hv.kind.known()) hv.kind.Set(proxmox ? "proxmox" : "qemu", first);
    if (!q.name.empty() && !vm->name.known()) vm->name.Set(q.name, first);
    if (!q.machine.empty() && !vm->machine.known()) vm->machine.Set(q.machine, first);
    if (!q.smbios_uuid.empty() && !vm->smbios_uuid.known())
      vm->smbios_uuid.Set(q.smbios_uuid, first);
    if (next_start) {
      vm->running.Unknown(
          "`qm showcmd` prints the command the next start would run, not proof the VM runs "
          "(qm status VMID says whether it does)",
          first);
      vm->pid.Unknown("not in `qm showcmd` output", first);
    } else if (is_process) {
      vm->running.Set(true, first);
      int64_t pid = c.ps_pid > 0 ? c.ps_pid : cmd_pid;
      if (pid > 0)
        vm->pid.Set(pid, first);
      else
        vm->pid.Unknown("the pasted process line does not show its PID", first);
    } else {
      vm->running.Unknown(
          "a QEMU command line pasted without the command that printed it: whether it runs is "
          "not known (paste `ps -ef | grep qemu` or `qm status VMID`)",
          first);
      vm->pid.Unknown("not in the paste", first);
    }
    if (!merge && !q.numa.empty()) {
      for (const auto& n : q.numa) {
        VmNumaNode vn;
        vn.id = n.id;
        vn.cpus.Set(n.cpus, first);
        if (!n.hostnodes.empty())
          vn.hostnodes.Set(n.hostnodes, first);
        else
          vn.hostnodes.Unknown("memory backend without host-nodes=", first);
        if (!n.policy.empty()) vn.policy.Set(n.policy, first);
        vm->numa_nodes.push_back(std::move(vn));
      }
      vm->numa.Set(true, first);
    }
    // The vfio-pci devices, by slot: the first function stands for the slot.
    const char* given = next_start ? "given at the next start (qm showcmd)" : "given";
    for (const auto& d : q.vfio) {
      std::string slot = !d.id.empty() ? QcSlotOf(d.id) : "";
      VmHostPci* h = nullptr;
      for (auto& x : vm->hostpci)
        if (!slot.empty() && x.slot == slot) h = &x;
      if (h && h->running_host_address.known()) continue;  // a later function of the slot
      if (!h) {
        vm->hostpci.emplace_back();
        h = &vm->hostpci.back();
        h->slot = !slot.empty() ? slot : "vfio" + std::to_string(vm->hostpci.size() - 1);
      }
      std::string at = at_arg(d.arg);
      if (!d.host.empty()) {
        if (!h->host.known()) h->host.Set(d.host, at);
        if (next_start)
          h->running_host_address.Unknown(std::string("the address ") + given + " is " + d.host +
                                              "; whether a running VM has it is not known",
                                          at);
        else
          h->running_host_address.Set(d.host, at);
      } else {
        h->running_host_address.Unknown("vfio-pci given by sysfsdev=, not host=", at);
      }
      if (!d.bus.empty()) h->guest_bus.Set(d.bus, at);
      if (!d.clique.empty())
        h->gpudirect_clique.Set(d.clique, at);
      else
        h->gpudirect_clique.Unknown("no x-nv-gpudirect-clique on the command line", at);
      ++out->facts;
    }
    if (merge) {
      // Slots of the configuration that the command line does not have.
      for (auto& h : vm->hostpci)
        if (!h.running_host_address.known() && h.running_host_address.unknown.empty())
          h.running_host_address.Unknown("no vfio-pci device id=" + h.slot +
                                             " on the pasted "
                                             "command line",
                                         first);
    }
    ++out->facts;
    if (!c.error.empty()) out->notes.push_back(src.file + ":" + c.error);
    for (const auto& p : q.problems) {
      std::string text = QcProblem(p, name, c, src);
      out->notes.push_back(text);
      hv.problems.push_back(text);
    }
    if (vmid.empty() && proxmox)
      out->notes.push_back(src.file + ":" + std::to_string(c.first_line) +
                           ": the VM id is not in the paste (show the command: qm showcmd VMID)");
  }
  return OkStatus();
}

}  // namespace

Importer QemuCmdlineImporter() {
  return {"qemu-cmdline",
          "a QEMU command line: Proxmox qm showcmd VMID [--pretty] (the next start), or a running "
          "QEMU from ps or /proc/PID/cmdline: vfio-pci devices, guest bus, clique, NUMA",
          {"qm showcmd", "qm show ", "ps aux", "ps -ef", "ps -eo", "ps axww", "ps auxww",
           "pgrep -a", "xargs -0", "tr '\\0'"},
          QcStarts,
          QcDetect,
          QcParse};
}

}  // namespace dossier::import
