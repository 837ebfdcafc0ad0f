// Markdown sections for the machine's identity, CPUs and NUMA, virtualization and kernel.
#include <fmt/format.h>

#include "render/markdown.h"
#include "render/md_util.h"

namespace dossier {

void MdIdentity(const MachineView& mv, std::string* out) {
  const Machine& m = mv.machine;
  md::FactTable t;
  t.Add("Hostname", m.hostname);
  t.Add("Boot id", m.boot_id);
  t.Add("OS", m.os.pretty_name);
  t.Add("Kernel", m.kernel.release);
  t.Add("System vendor", m.dmi.sys_vendor);
  t.Add("Product", m.dmi.product_name);
  t.Add("Board", m.dmi.board_name);
  t.Add("Board vendor", m.dmi.board_vendor);
  t.Add("BIOS", m.dmi.bios_version);
  t.Add("BIOS vendor", m.dmi.bios_vendor);
  t.Add("BIOS date", m.dmi.bios_date);
  *out += t.Render();
}

void MdCpuNuma(const MachineView& mv, std::string* out) {
  const Machine& m = mv.machine;
  md::FactTable t;
  t.Add("CPU", m.cpu.model);
  t.Add("Vendor", m.cpu.vendor);
  t.Add("Sockets", m.cpu.sockets);
  // Dies, books and drawers only where the kernel has them (x86 die_id; s390).
  if (m.cpu.dies.known()) t.Add("Dies", m.cpu.dies);
  if (m.cpu.drawers.known()) t.Add("Drawers", m.cpu.drawers);
  if (m.cpu.books.known()) t.Add("Books", m.cpu.books);
  t.Add("Cores", m.cpu.cores);
  t.Add("Threads (online CPUs)", m.cpu.threads);
  if (m.cpu.offline.known() && !m.cpu.offline->empty()) {
    t.Add("Offline CPUs", m.cpu.offline);
    t.Add("Present CPUs", m.cpu.present);
  }
  if (m.memory.total_bytes.known()) {
    t.AddText("Memory", md::Bytes(*m.memory.total_bytes), md::Source(m.memory.total_bytes));
  } else {
    t.Add("Memory", m.memory.total_bytes);
  }
  *out += t.Render();
  if (md::NotPasted(mv.coverage, Family::kNuma, out)) return;
  if (m.numa.nodes.empty()) {
    *out += mv.coverage.collected ? "\nNo NUMA nodes listed (/sys/devices/system/node absent).\n"
                                  : "\nNo NUMA nodes in the pasted outputs.\n";
    return;
  }
  *out += "\n";
  md::Table n({"node", "CPUs", "memory", "distances", "kind"});
  for (const auto& node : m.numa.nodes) {
    std::string mem =
        node.memory_bytes.known() ? md::Bytes(*node.memory_bytes) : md::Cell(node.memory_bytes);
    std::string kind = md::Cell(node.kind);
    if (node.gpu.known()) kind += " (GPU " + md::Escape(*node.gpu) + ")";
    n.Row({std::to_string(node.id), md::Cell(node.cpus), mem, md::Cell(node.distances), kind});
  }
  *out += n.Render();
  *out += "\n" +
          md::SourceLine(mv.coverage, Family::kNuma,
                         "`/sys/devices/system/node/node*/{cpulist|cpumap,meminfo,distance}`; a "
                         "memory-only node's GPU from the GPU's `numa_node`.") +
          "\n";
}

void MdVirtualization(const MachineView& mv, std::string* out) {
  const Machine& m = mv.machine;
  md::FactTable t;
  t.Add("Guest (virtual machine)", m.virtualization.guest);
  const VirtualizationInfo& v = m.virtualization;
  if (v.hypervisor.known() && *v.hypervisor == "kvm" && v.platform.known() &&
      *v.platform == "microvm") {
    // A microVM has no DMI for anything else to name it by: say what it is.
    t.AddText("Hypervisor", "KVM (no DMI: a microVM such as Firecracker or Cloud Hypervisor)",
              md::Source(v.hypervisor) + "; " + md::Source(v.platform));
  } else {
    t.Add("Hypervisor", v.hypervisor);
  }
  t.Add("QEMU machine type", m.virtualization.chipset);
  t.Add("CPU hypervisor flag", m.cpu.hypervisor_flag);
  *out += t.Render();
}

void MdKernel(const MachineView& mv, std::string* out) {
  const Machine& m = mv.machine;
  md::FactTable t;
  t.Add("Release", m.kernel.release);
  t.Add("Command line", m.kernel.cmdline);
  t.Add("Kernel log read", m.kernel_log.source);
  *out += t.Render();
  if (m.kernel_log.pci_problems.empty()) {
    if (md::NotPasted(mv.coverage, Family::kKernelLog, out)) return;
    if (m.kernel_log.source.known()) *out += "\nNo PCI resource problems in the kernel log.\n";
    return;
  }
  // Problems the same log shows resolved later (a bridge window assigned after pci=realloc) are
  // listed apart: they are history, not problems.
  md::Table p({"device", "message"}), r({"device", "message", "resolved"});
  for (const auto& pr : m.kernel_log.pci_problems) {
    if (pr.resolved.empty())
      p.Row({md::Escape(pr.address.value_or("-")), md::Code(pr.message)});
    else
      r.Row({md::Escape(pr.address.value_or("-")), md::Code(pr.message), md::Prose(pr.resolved)});
  }
  if (p.empty()) {
    *out +=
        "\nNo unresolved PCI resource problems in the kernel log; resolved later in the same "
        "log:\n\n" +
        r.Render();
    return;
  }
  *out += "\nPCI resource problems in the kernel log:\n\n";
  *out += p.Render();
  if (!r.empty()) *out += "\nResolved later in the same log:\n\n" + r.Render();
}

}  // namespace dossier
