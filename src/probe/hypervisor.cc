// The virtualization host's layer: Proxmox VE VM configs (/etc/pve/qemu-server/*.conf), its PCI
// resource mappings (/etc/pve/mapping/pci.cfg) checked against this machine as Proxmox checks them
// at VM start, the running VMs (/var/run/qemu-server/VMID.pid -> /proc/PID/cmdline: the truth of
// what a running VM was given), libvirt domains (/etc/libvirt/qemu, /run/libvirt/qemu), and any
// other running QEMU with vfio-pci devices. The parsing is in src/hypervisor/ (pure functions,
// shared with `dossier import`); this file only reads files through RootFs and joins the pieces.
// Runs after the pci and iommu probes: mapping checks compare against their devices and groups.
#include <algorithm>
#include <map>
#include <set>

#include "hypervisor/libvirt_domain.h"
#include "hypervisor/mapping_check.h"
#include "hypervisor/options.h"
#include "hypervisor/pci_cfg.h"
#include "hypervisor/qemu_cmdline.h"
#include "hypervisor/qemu_server_conf.h"
#include "probe/probe.h"
#include "probe/read_fact.h"
#include "probe/server_cmdline.h"
#include "util/redact.h"
#include "util/text.h"

namespace dossier {
namespace {

constexpr size_t kMaxVmFileBytes = 1 << 20;
constexpr size_t kMaxQemuArgvBytes = 1 << 20;
constexpr size_t kMaxVmCount = 4096;
constexpr const char* kPveConfDir = "/etc/pve/qemu-server";

struct QemuProcess {
  int64_t pid = 0;
  std::string source;  // /proc/PID/cmdline
  hypervisor::QemuCmdline cmd;
  bool claimed = false;  // belongs to a Proxmox or libvirt VM
};

std::map<int64_t, QemuProcess> QemuProcesses(const RootFs& fs) {
  std::map<int64_t, QemuProcess> out;
  auto names = fs.List("/proc");
  if (!names) return out;
  for (const auto& n : *names) {
    auto pid = ParseInt(n);
    if (!pid || *pid <= 0) continue;
    std::string path = "/proc/" + n + "/cmdline";
    auto data = fs.ReadPrefix(path, kMaxQemuArgvBytes);
    if (!data) continue;
    std::vector<std::string> argv = SplitNul(*data);
    if (!hypervisor::LooksLikeQemu(argv)) continue;
    QemuProcess p;
    p.pid = *pid;
    p.source = path;
    p.cmd = hypervisor::ParseQemuArgv(argv, path);
    out[*pid] = std::move(p);
  }
  return out;
}

// The vfio-pci devices of a running VM attributed to its hostpciN: Proxmox names them hostpciN
// (one function) or hostpciN.F (every function of a device); the first function's address stands
// for the slot.
void ApplyCmdline(const QemuProcess& p, Vm* vm) {
  vm->qemu_json_devices = Known(p.cmd.json_devices, p.source);
  for (auto& h : vm->hostpci) {
    const hypervisor::QemuVfioDevice* best = nullptr;
    for (const auto& d : p.cmd.vfio) {
      if (d.id == h.slot || (d.id.rfind(h.slot + ".", 0) == 0 && (!best || d.id < best->id)))
        best = &d;
    }
    std::string src = p.source + " (argument " + (best ? std::to_string(best->arg) : "?") + ")";
    if (!best) {
      h.running_host_address.Unknown("no vfio-pci device id=" + h.slot + " in the running VM",
                                     p.source);
      h.gpudirect_clique.Unknown("no vfio-pci device id=" + h.slot + " in the running VM",
                                 p.source);
      continue;
    }
    if (!best->host.empty())
      h.running_host_address = Known(best->host, src);
    else
      h.running_host_address.Unknown("vfio-pci given by sysfsdev=, not host=", src);
    if (!best->bus.empty()) h.guest_bus = Known(best->bus, src);
    if (!best->clique.empty())
      h.gpudirect_clique = Known(best->clique, src);
    else
      h.gpudirect_clique.Unknown("no x-nv-gpudirect-clique on the command line", src);
  }
}

void NotRunning(Vm* vm, const std::string& why, const std::string& src) {
  vm->running = Known(false, src);
  vm->pid.Unknown(why, src);
  vm->qemu_json_devices.Unknown("VM not running", src);
  for (auto& h : vm->hostpci) {
    h.running_host_address.Unknown("VM not running", src);
    h.guest_bus.Unknown("VM not running", src);
    if (!h.gpudirect_clique.known()) h.gpudirect_clique.Unknown("VM not running", src);
  }
}

void ProxmoxVms(const RootFs& fs, std::map<int64_t, QemuProcess>* procs, HypervisorInfo* hv) {
  auto names = fs.List(kPveConfDir);
  if (!names) return;
  std::vector<std::pair<int64_t, std::string>> ids;
  for (const auto& n : *names) {
    if (n.size() < 6 || n.substr(n.size() - 5) != ".conf") continue;
    auto id = ParseInt(n.substr(0, n.size() - 5));
    if (!id) continue;
    ids.push_back({*id, n});
  }
  std::sort(ids.begin(), ids.end());
  for (const auto& [id, file] : ids) {
    if (hv->vms.size() >= kMaxVmCount) break;
    std::string path = std::string(kPveConfDir) + "/" + file;
    auto text = fs.Read(path, kMaxVmFileBytes);
    if (!text) {
      hv->problems.push_back(path + ": " + ReasonFor(text.error()));
      continue;
    }
    auto parsed = hypervisor::ParseQemuServerConf(*text, path, std::to_string(id));
    for (auto& p : parsed.problems) hv->problems.push_back(std::move(p));
    Vm vm = std::move(parsed.vm);
    if (vm.args.known()) vm.args.value = RedactCommandLine(*vm.args);
    // Running: the pid file, and a QEMU process of that id behind it.
    std::string pidfile = "/var/run/qemu-server/" + std::to_string(id) + ".pid";
    auto pidtext = fs.Read(pidfile, 64);
    if (!pidtext) {
      pidfile = "/run/qemu-server/" + std::to_string(id) + ".pid";
      pidtext = fs.Read(pidfile, 64);
    }
    // Without a pid file that names this VM's QEMU (none captured, removed, or stale), a QEMU
    // process started with this VM's "-id" is still this VM running: it is never said not running
    // while its QEMU runs, nor listed a second time as a QEMU of neither Proxmox nor libvirt.
    auto by_id = [&]() -> std::map<int64_t, QemuProcess>::iterator {
      for (auto it = procs->begin(); it != procs->end(); ++it)
        if (!it->second.claimed && it->second.cmd.vmid == std::to_string(id)) return it;
      return procs->end();
    };
    std::string no_pid;  // why the pid file did not lead to this VM's QEMU
    std::map<int64_t, QemuProcess>::iterator it = procs->end();
    if (!pidtext) {
      no_pid = "no pid file (" + ReasonFor(pidtext.error()) + ")";
    } else if (auto pid = ParseInt(Trim(*pidtext)); !pid) {
      no_pid = "pid file holds '" + std::string(Trim(*pidtext)) + "'";
    } else if (it = procs->find(*pid);
               it == procs->end() ||
               (!it->second.cmd.vmid.empty() && it->second.cmd.vmid != std::to_string(id))) {
      no_pid = "pid " + std::to_string(*pid) + " from the pid file is not this VM's QEMU";
      it = procs->end();
    }
    if (!no_pid.empty()) it = by_id();
    if (it == procs->end()) {
      NotRunning(&vm, no_pid, pidfile);
    } else {
      const std::string src = no_pid.empty() ? pidfile
                                             : it->second.source + " (-id " + std::to_string(id) +
                                                   "; " + no_pid + " at " + pidfile + ")";
      vm.running = Known(true, src);
      vm.pid = Known(it->first, src);
      it->second.claimed = true;
      ApplyCmdline(it->second, &vm);
      for (const auto& p : it->second.cmd.problems) hv->problems.push_back(p);
    }
    hv->vms.push_back(std::move(vm));
  }
}

void PciMappings(const RootFs& fs, const Machine& m, HypervisorInfo* hv) {
  auto text = fs.Read(hypervisor::kPciCfgPath, kMaxVmFileBytes);
  if (!text) {
    hv->pci_cfg.Unknown(ReasonFor(text.error()), hypervisor::kPciCfgPath);
    return;
  }
  hv->pci_cfg = Known(*text, hypervisor::kPciCfgPath);
  auto parsed = hypervisor::ParsePciCfg(*text, hypervisor::kPciCfgPath);
  for (auto& p : parsed.problems) hv->problems.push_back(std::move(p));
  hv->pci_mappings = std::move(parsed.mappings);
  hypervisor::CheckPciMappings(hv->node.value_or(""), m.pci, "/sys/bus/pci/devices",
                               &hv->pci_mappings);
}

void LibvirtVms(const RootFs& fs, std::map<int64_t, QemuProcess>* procs, HypervisorInfo* hv) {
  std::map<std::string, Vm> by_name;
  std::vector<std::string> order;
  for (const char* dir : {"/etc/libvirt/qemu", "/run/libvirt/qemu"}) {
    auto names = fs.List(dir);
    if (!names) continue;
    std::vector<std::string> files(names->begin(), names->end());
    std::sort(files.begin(), files.end());
    for (const auto& n : files) {
      if (n.size() < 5 || n.substr(n.size() - 4) != ".xml") continue;
      std::string path = std::string(dir) + "/" + n;
      auto text = fs.Read(path, kMaxVmFileBytes);
      if (!text) continue;
      auto d = hypervisor::ParseLibvirtDomain(*text, path);
      for (auto& p : d.problems) hv->problems.push_back(std::move(p));
      if (!d.ok) continue;
      // The running state (/run) describes the live domain: it wins over the definition.
      if (!by_name.count(d.vm.id)) order.push_back(d.vm.id);
      by_name[d.vm.id] = std::move(d.vm);
    }
  }
  for (const auto& name : order) {
    Vm& vm = by_name[name];
    if (!vm.running.known())
      NotRunning(&vm, "no running state in /run/libvirt/qemu", vm.config.value_or(""));
    if (vm.pid.known()) {
      auto it = procs->find(*vm.pid);
      if (it == procs->end()) {
        vm.qemu_json_devices.Unknown(
            "no QEMU process with pid " + std::to_string(*vm.pid) + " from the running state",
            vm.pid.source);
      } else {
        it->second.claimed = true;
        vm.qemu_json_devices = Known(it->second.cmd.json_devices, it->second.source);
        for (auto& h : vm.hostpci) {
          for (const auto& d : it->second.cmd.vfio)
            if (h.host.known() && d.host == *h.host)
              h.running_host_address = Known(d.host, it->second.source);
        }
      }
    }
    if (vm.args.known()) vm.args.value = RedactCommandLine(*vm.args);
    for (auto& h : vm.hostpci)
      if (!h.gpudirect_clique.known() && h.gpudirect_clique.unknown.empty())
        h.gpudirect_clique.Unknown("a libvirt domain: see its args (<qemu:commandline>)",
                                   vm.config.value_or(""));
    hv->vms.push_back(std::move(vm));
  }
}

// QEMU processes with passed-through devices that no Proxmox or libvirt VM claims.
void OtherQemu(const std::map<int64_t, QemuProcess>& procs, HypervisorInfo* hv) {
  for (const auto& [pid, p] : procs) {
    if (p.claimed || p.cmd.vfio.empty()) continue;
    Vm vm;
    vm.id = !p.cmd.vmid.empty()   ? p.cmd.vmid
            : !p.cmd.name.empty() ? p.cmd.name
                                  : "pid-" + std::to_string(pid);
    vm.config.Unknown("a QEMU process started by neither Proxmox nor libvirt", p.source);
    if (!p.cmd.name.empty()) vm.name = Known(p.cmd.name, p.source);
    vm.running = Known(true, p.source);
    vm.pid = Known(pid, p.source);
    vm.qemu_json_devices = Known(p.cmd.json_devices, p.source);
    if (!p.cmd.machine.empty()) vm.machine = Known(p.cmd.machine, p.source);
    if (!p.cmd.smbios_uuid.empty()) vm.smbios_uuid = Known(p.cmd.smbios_uuid, p.source);
    for (const auto& n : p.cmd.numa) {
      VmNumaNode vn;
      vn.id = n.id;
      vn.cpus = Known(n.cpus, p.source);
      if (!n.hostnodes.empty())
        vn.hostnodes = Known(n.hostnodes, p.source);
      else
        vn.hostnodes.Unknown("memory backend without host-nodes=", p.source);
      if (!n.policy.empty()) vn.policy = Known(n.policy, p.source);
      vm.numa_nodes.push_back(std::move(vn));
    }
    vm.numa = Known(!vm.numa_nodes.empty(), p.source);
    int i = 0;
    for (const auto& d : p.cmd.vfio) {
      VmHostPci h;
      h.slot = !d.id.empty() ? d.id : "vfio" + std::to_string(i);
      ++i;
      std::string src = p.source + " (argument " + std::to_string(d.arg) + ")";
      if (!d.host.empty()) {
        h.host = Known(d.host, src);
        h.running_host_address = Known(d.host, src);
      }
      if (!d.bus.empty()) h.guest_bus = Known(d.bus, src);
      if (!d.clique.empty())
        h.gpudirect_clique = Known(d.clique, src);
      else
        h.gpudirect_clique.Unknown("no x-nv-gpudirect-clique on the command line", src);
      vm.hostpci.push_back(std::move(h));
    }
    for (const auto& pr : p.cmd.problems) hv->problems.push_back(pr);
    hv->vms.push_back(std::move(vm));
  }
}

}  // namespace

void ProbeHypervisor(const ProbeContext& ctx, Machine* m) {
  const RootFs& fs = ctx.fs;
  HypervisorInfo& hv = m->hypervisor;
  // Proxmox names cluster nodes by their short hostname; mapping entries name these nodes.
  if (m->hostname.known()) {
    std::string h = *m->hostname;
    hv.node = Known(h.substr(0, h.find('.')), m->hostname.source);
  } else {
    hv.node.Unknown("hostname unknown", m->hostname.source);
  }
  std::map<int64_t, QemuProcess> procs = QemuProcesses(fs);
  bool proxmox = fs.IsDir(kPveConfDir);
  if (proxmox) {
    hv.kind = Known(std::string("proxmox"), kPveConfDir);
    ProxmoxVms(fs, &procs, &hv);
    PciMappings(fs, *m, &hv);
  } else {
    hv.pci_cfg.Unknown("not a Proxmox VE host (no /etc/pve/qemu-server)", kPveConfDir);
  }
  size_t before = hv.vms.size();
  LibvirtVms(fs, &procs, &hv);
  if (!hv.kind.known() && (hv.vms.size() > before || fs.IsDir("/etc/libvirt/qemu")))
    hv.kind = Known(std::string("libvirt"), "/etc/libvirt/qemu");
  before = hv.vms.size();
  OtherQemu(procs, &hv);
  if (!hv.kind.known() && hv.vms.size() > before)
    hv.kind = Known(std::string("qemu"), "/proc/*/cmdline");
  if (!hv.kind.known())
    hv.kind.Unknown(
        "no VMs here: no /etc/pve/qemu-server, /etc/libvirt/qemu, or QEMU process with vfio-pci",
        "/proc");
  if (ctx.log && hv.kind.known()) {
    size_t running = 0;
    for (const auto& v : hv.vms) running += v.running.value_or(false);
    ctx.log->push_back("hypervisor: " + *hv.kind + ", " + std::to_string(hv.vms.size()) + " VMs (" +
                       std::to_string(running) + " running), " +
                       std::to_string(hv.pci_mappings.size()) + " PCI mappings, " +
                       std::to_string(hv.problems.size()) + " problems");
  }
}

}  // namespace dossier
