// Guest or bare metal, which hypervisor, and (for QEMU) the machine type. Evidence, strongest
// first: the CPUID hypervisor leaf 0x40000000 (live only: a --root tree has no CPU to ask), the x86
// cpu "hypervisor" flag (set by KVM, Xen HVM, VMware, Hyper-V), /sys/hypervisor/type (Xen), the
// device tree's /hypervisor node (ARM guests), and the DMI vendor and product name, which QEMU
// fills with "QEMU" and "Standard PC (Q35 + ICH9, 2009)" or "Standard PC (i440FX + PIIX, 1996)".
// A KVM guest with no DMI at all and virtio-mmio devices or no QEMU PCI host bridge is a microVM
// (Firecracker, Cloud Hypervisor): said so, never left unknown. Runs after cpu and dmi.
#include "probe/probe.h"
#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {
namespace {

struct DmiHint {
  const char* vendor_substring;  // in sys_vendor, lower case
  const char* hypervisor;
};
constexpr DmiHint kDmiHints[] = {
    {"qemu", "kvm"}, {"vmware", "vmware"},  {"microsoft", "hyper-v"}, {"innotek", "virtualbox"},
    {"xen", "xen"},  {"amazon ec2", "kvm"}, {"google", "kvm"},        {"parallels", "parallels"},
};

// PCI host bridges QEMU's full machine types emulate: Q35's MCH, i440FX, the generic PCIe host of
// ARM's virt machine. A microVM has none of these (Cloud Hypervisor's is 8086:0d57).
constexpr const char* kQemuHostBridges[] = {"0x8086:0x29c0", "0x8086:0x1237", "0x1b36:0x0008"};

// Why this KVM guest is a microVM, or "" when it is not one (or there is DMI to say otherwise).
std::string MicroVmEvidence(const RootFs& fs) {
  if (fs.Exists("/sys/class/dmi/id")) return {};
  std::string mmio;
  if (auto devs = fs.List("/sys/bus/platform/devices")) {
    for (const auto& d : *devs)
      if (d.find("virtio-mmio") != std::string::npos ||
          d.find("virtio_mmio") != std::string::npos ||
          d.starts_with("LNRO0005"))  // virtio-mmio described by ACPI
        mmio = d;
  }
  if (!mmio.empty()) return "no DMI; virtio-mmio device " + mmio;
  auto pci = fs.List("/sys/bus/pci/devices");
  if (!pci || pci->empty()) return "no DMI; no PCI devices";
  std::string bridge;
  for (const auto& a : *pci) {
    std::string dir = "/sys/bus/pci/devices/" + a;
    auto cls = fs.ReadValue(dir + "/class");
    if (!cls || !ToLower(*cls).starts_with("0x0600")) continue;
    auto ven = fs.ReadValue(dir + "/vendor"), dev = fs.ReadValue(dir + "/device");
    std::string id = ToLower(ven.value_or("?")) + ":" + ToLower(dev.value_or("?"));
    for (const char* q : kQemuHostBridges)
      if (id == q) return {};  // QEMU's own machine type, only without its DMI tables
    if (bridge.empty()) bridge = a + " " + id;
  }
  return bridge.empty() ? "no DMI; no PCI host bridge"
                        : "no DMI; PCI host bridge " + bridge + " is not QEMU's";
}

}  // namespace

void ProbeVirtualization(const ProbeContext& ctx, Machine* m) {
  VirtualizationInfo& v = m->virtualization;
  std::string vendor = ToLower(m->dmi.sys_vendor.value_or(""));
  std::string product = ToLower(m->dmi.product_name.value_or(""));
  std::string dmi_src = "/sys/class/dmi/id/sys_vendor";

  // CPUID first, as systemd-detect-virt: it names the hypervisor where no file does.
  std::optional<CpuidHypervisor> cpuid;
  if (ctx.options.cpuid)
    cpuid = ReadCpuidHypervisor(ctx.options.cpuid);
  else if (ctx.fs.live())
    cpuid = ReadCpuidHypervisor(LiveCpuid());

  std::string hv;
  std::string hv_src;
  if (cpuid && !cpuid->id.empty()) {
    hv = cpuid->id;
    hv_src = cpuid->source;
  }
  for (const auto& h : kDmiHints) {
    if (!hv.empty()) break;
    if (vendor.find(h.vendor_substring) != std::string::npos) {
      // Hyper-V's vendor is Microsoft on real Surface hardware too: require its product name.
      if (std::string_view(h.hypervisor) == "hyper-v" && product != "virtual machine") continue;
      hv = h.hypervisor;
      hv_src = dmi_src;
      break;
    }
  }
  Fact<std::string> xen;
  ReadStringFact(ctx.fs, "/sys/hypervisor/type", &xen);
  if (xen.known() && hv.empty()) {
    hv = *xen;
    hv_src = xen.source;
  }
  // ARM guests have no cpu flag to tell; a device tree booted by a hypervisor carries a
  // /hypervisor node ("xen,xen", "linux,kvm" …).
  const std::string dt = "/sys/firmware/devicetree/base/hypervisor";
  if (hv.empty() && ctx.fs.IsDir(dt)) {
    Fact<std::string> compat;
    ReadStringFact(ctx.fs, dt + "/compatible", &compat);
    std::string c = compat.known() ? ToLower(compat->substr(0, compat->find('\0'))) : "";
    hv = c.starts_with("xen") ? "xen" : c.find("kvm") != std::string::npos ? "kvm" : "unknown";
    hv_src = dt;
  }

  const Fact<bool>& flag = m->cpu.hypervisor_flag;
  if (flag.known() && *flag) {
    v.guest.Set(true, flag.source);
  } else if (cpuid && cpuid->present) {
    v.guest.Set(true, "CPUID.1:ECX bit 31 (hypervisor present)");
  } else if (!hv.empty()) {
    v.guest.Set(true, hv_src);
  } else if (flag.known()) {
    v.guest.Set(false, flag.source);
  } else {
    v.guest.Unknown("no evidence either way: " + flag.unknown +
                        "; no hypervisor in DMI, the device tree or /sys/hypervisor",
                    flag.source);
  }
  // What CPUID said, or why it was not asked, for the reasons below.
  std::string cpuid_note = cpuid           ? (cpuid->present && cpuid->id.empty()
                                                  ? "; CPUID 0x40000000 says \"" + cpuid->signature +
                                              "\", a signature dossier does not know"
                                                  : "")
                           : ctx.fs.live() ? "; CPUID cannot be asked on this CPU"
                                           : "; CPUID not read (a --root tree has only files)";
  if (hv == "unknown") {
    v.hypervisor.Unknown(
        "the device tree has a hypervisor node naming no known hypervisor" + cpuid_note, hv_src);
  } else if (!hv.empty()) {
    v.hypervisor.Set(hv, hv_src);
  } else if (v.guest.known() && *v.guest) {
    std::string why = m->dmi.sys_vendor.known() ? "guest, but DMI names no known hypervisor"
                                                : "guest with no DMI to name its hypervisor";
    v.hypervisor.Unknown(why + cpuid_note, dmi_src);
  } else if (v.guest.known()) {
    v.hypervisor.Unknown("bare metal", v.guest.source);
  } else {
    v.hypervisor.Unknown("unknown whether this is a guest");
  }

  if (hv == "kvm") {
    std::string why = MicroVmEvidence(ctx.fs);
    if (!why.empty())
      v.platform.Set("microvm", why);
    else
      v.platform.Unknown("a KVM guest with DMI or QEMU's PCI host bridge: not a microVM",
                         "/sys/class/dmi/id, /sys/bus/pci/devices");
  } else {
    v.platform.Unknown(hv.empty() ? "no hypervisor named" : "not KVM");
  }

  std::string psrc = "/sys/class/dmi/id/product_name";
  if (product.find("q35") != std::string::npos) {
    v.chipset.Set("q35", psrc);
  } else if (product.find("i440fx") != std::string::npos) {
    v.chipset.Set("i440fx", psrc);
  } else if (!m->dmi.product_name.known()) {
    v.chipset.Unknown("DMI product name unknown: " + m->dmi.product_name.unknown, psrc);
  } else {
    v.chipset.Unknown("not a QEMU machine type", psrc);
  }
}

}  // namespace dossier
