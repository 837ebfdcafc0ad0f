// numa-affinity: a systemd unit (and the same as a script) for a guest that writes each GPU's
// NUMA node, the node of the host GPU behind it, to /sys/bus/pci/devices/ADDR/numa_node at boot.
// A guest kernel sees numa_node -1 for passed-through devices, so NCCL and the serving engine
// cannot place threads and buffers. The node written is a GUEST node: the one bound to the GPU's
// host node (numaN: hostnodes=H), else the node with the host's number, said as an assumption.
#include <fmt/format.h>

#include <algorithm>

#include "generate/generator.h"
#include "generate/quote.h"
#include "generate/select.h"
#include "generate/vm_lookup.h"
#include "util/text.h"

namespace dossier {

using generate::CommentText;
using generate::ShellWord;
using generate::SystemdExecArg;
using generate::ValidPciAddress;
namespace {

struct GpuNode {
  const PassthroughGpu* gpu;
  int64_t guest_node;
};

// The VM config lines that bind guest nodes to host nodes (what really places memory).
std::string BindLines(const Machine& guest, const Vm* vm, const std::vector<int64_t>& host_nodes) {
  std::string out = "#   numa: 1\n";
  int64_t total = vm && vm->memory_mib.known() ? *vm->memory_mib : 0;
  size_t n = guest.numa.nodes.size();  // 2 or more: GenerateNumaAffinity refuses fewer
  for (size_t i = 0; i < host_nodes.size() && i < n; ++i) {
    std::string cpus;
    if (vm)
      for (const auto& vn : vm->numa_nodes)
        if (vn.id == static_cast<int64_t>(i) && vn.cpus.known()) cpus = *vn.cpus;
    if (cpus.empty() && i < n && guest.numa.nodes[i].cpus.known()) cpus = *guest.numa.nodes[i].cpus;
    std::string line = fmt::format("#   numa{}: cpus={},hostnodes={}", i,
                                   cpus.empty() ? "CPUS" : cpus, host_nodes[i]);
    if (total > 0 && !host_nodes.empty())
      line += fmt::format(",memory={}", total / static_cast<int64_t>(host_nodes.size()));
    out += CommentText(line + ",policy=bind") + "\n";
  }
  return out;
}

}  // namespace

Result<Artifact> GenerateNumaAffinity(const GenerateArgs& args, const View& view, const Analysis&) {
  auto picked = generate::PickLinkedGuest(args, view);
  if (!picked) return picked.error();
  const Machine& g = *picked->guest;
  const MachineLink& l = *picked->link;
  const generate::HostSide& hs = picked->host_side;
  if (g.numa.nodes.size() < 2)
    return Error::Invalid("the guest '" + g.name + "' has " + std::to_string(g.numa.nodes.size()) +
                          " NUMA node(s): there is no node to choose; give the VM guest NUMA "
                          "nodes first (numa: 1, numaN: cpus=…,hostnodes=…,policy=bind)");

  // Host nodes in use, and the guest node for each.
  std::vector<GpuNode> placed;
  std::vector<std::string> skipped;
  std::vector<int64_t> host_nodes;
  bool assumed = false;
  for (const auto& p : l.gpus) {
    // The address goes into a command run as root at boot: one outside the kernel's syntax (a
    // record from elsewhere can hold anything) is skipped, never written.
    if (!ValidPciAddress(p.guest_address)) {
      skipped.push_back("'" + Printable(p.guest_address) + "': not a PCI address (DDDD:BB:DD.F)");
      continue;
    }
    if (!p.host_numa_node.known() || *p.host_numa_node < 0) {
      skipped.push_back(p.guest_address + ": host node unknown (" +
                        (p.host_address.empty()
                             ? p.why
                             : p.host_address + ": " +
                                   (p.host_numa_node.unknown.empty() ? std::string("numa_node -1")
                                                                     : p.host_numa_node.unknown)) +
                        ")");
      continue;
    }
    int64_t h = *p.host_numa_node;
    int64_t gn = hs.vm ? generate::GuestNodeBoundTo(*hs.vm, h) : -1;
    if (gn < 0) {
      assumed = true;
      gn = h;
    }
    if (gn >= static_cast<int64_t>(g.numa.nodes.size())) {
      skipped.push_back(p.guest_address + ": host node " + std::to_string(h) +
                        " has no guest node of that number");
      continue;
    }
    placed.push_back({&p, gn});
    if (std::find(host_nodes.begin(), host_nodes.end(), h) == host_nodes.end())
      host_nodes.push_back(h);
  }
  if (placed.empty()) {
    std::string why;
    for (const auto& s : skipped) why += "\n  " + s;
    return Error::Invalid("no GPU of '" + g.name + "' has a known host NUMA node:" + why);
  }
  std::sort(host_nodes.begin(), host_nodes.end());

  std::string t;
  // Every value from the dossier in a comment goes through CommentText (a newline in a machine
  // name would start a [Service] section of its own), in a command through SystemdExecArg and
  // ShellWord.
  t += "# " +
       CommentText("dossier-gpu-numa.service: sets the NUMA node of each GPU of the guest '" +
                   g.name + "' to the node of the host GPU behind it (host '" + l.host + "', VM " +
                   l.vm_id + ").") +
       "\n";
  t += "# A guest kernel sees numa_node -1 for passed-through GPUs; NCCL and the serving engine\n"
       "# then cannot place their threads and buffers near the GPU.\n#\n";
  t += "# This fixes what the kernel tells NCCL and the serving engine, NOT where memory lives:\n"
       "# guest memory is placed by the VM's NUMA configuration. Unless the guest nodes are bound\n"
       "# to host nodes, a guest node's memory may sit on any host node.\n#\n";
  bool bound = hs.vm && !hs.vm->numa_nodes.empty();
  for (const auto& vn : hs.vm ? hs.vm->numa_nodes : std::vector<VmNumaNode>{})
    bound = bound && vn.hostnodes.known();
  if (bound) {
    t += "# The VM's guest NUMA nodes are bound to host nodes already:\n";
    for (const auto& vn : hs.vm->numa_nodes)
      t += "#   " +
           CommentText(fmt::format("numa{}: hostnodes={} ({})", vn.id, *vn.hostnodes,
                                   vn.hostnodes.source)) +
           "\n";
  } else {
    t += "# The VM's guest NUMA nodes are not bound to host nodes" +
         CommentText(hs.vm
                         ? " (no numaN: hostnodes= in " + hs.vm->config.value_or("its config") + ")"
                         : " (the host's facts do not list VM " + l.vm_id + ")") +
         ". To place memory too,\n# set in the VM config on the host (qm set " +
         CommentText(ShellWord(l.vm_id)) +
         " --numa 1 --numa0 … or edit the file), then restart the VM:\n";
    t += BindLines(g, hs.vm, host_nodes);
  }
  if (assumed)
    t += "#\n# Guest node N is taken to be host node N (no guest node is bound to a host node):\n"
         "# with the binding above this holds.\n";
  t += "#\n# Install: copy to /etc/systemd/system/dossier-gpu-numa.service, then\n"
       "#   systemctl daemon-reload && systemctl enable --now dossier-gpu-numa.service\n\n";
  t += "[Unit]\nDescription=Set guest GPU NUMA nodes to their host nodes (dossier)\n"
       "DefaultDependencies=no\nAfter=systemd-modules-load.service\n"
       "Before=multi-user.target\nConditionPathIsDirectory=/sys/bus/pci/devices\n\n"
       "[Service]\nType=oneshot\nRemainAfterExit=yes\n";
  std::string script, check;
  for (const auto& pn : placed) {
    const PassthroughGpu& p = *pn.gpu;
    std::string what = fmt::format("{}{} -> host {} (host node {}, {})", p.guest_address,
                                   p.slot.empty() ? "" : " (" + p.slot + ")", p.host_address,
                                   *p.host_numa_node, p.source);
    const std::string command =
        fmt::format("echo {} > {}", pn.guest_node,
                    ShellWord("/sys/bus/pci/devices/" + p.guest_address + "/numa_node"));
    t += "# " + CommentText(what) + "\n";
    t += "ExecStart=/bin/sh -c " + SystemdExecArg(command) + "\n";
    script += "#   " + CommentText(command + "   # " + what) + "\n";
    check += " " + ShellWord(p.guest_address);
  }
  for (const auto& s : skipped) t += "# skipped: " + CommentText(s) + "\n";
  t += "\n[Install]\nWantedBy=multi-user.target\n\n";
  t += "# The same as a script (for /etc/rc.local or by hand, as root):\n" + script;
  std::string verify = "for d in" + check +
                       "; do echo $d $(cat /sys/bus/pci/devices/$d/numa_node); done   "
                       "# each prints the node above; nvidia-smi topo -m shows it as NUMA Affinity";
  t += "#\n# Verify after a reboot: " + CommentText(verify) + "\n";
  Artifact a;
  a.text = std::move(t);
  a.notes = "Review the unit, then install it on the guest '" + Printable(g.name) +
            "' (see the comments at its top). Writing numa_node needs root and marks the kernel "
            "tainted (firmware workaround).";
  a.verify = verify;
  return a;
}

}  // namespace dossier
