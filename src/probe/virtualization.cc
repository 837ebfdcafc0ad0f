// Guest or bare metal, which hypervisor, and (for QEMU) the machine type. Evidence, strongest
// first: the x86 cpu "hypervisor" flag (set by KVM, Xen HVM, VMware, Hyper-V), /sys/hypervisor/type
// (Xen), the device tree's /hypervisor node (ARM guests), and the DMI vendor and product name,
// which QEMU fills with "QEMU" and "Standard PC (Q35 + ICH9, 2009)" or "Standard PC (i440FX + PIIX,
// 1996)". Runs after cpu and dmi.
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

}  // namespace

void ProbeVirtualization(const ProbeContext& ctx, Machine* m) {
  VirtualizationInfo& v = m->virtualization;
  std::string vendor = ToLower(m->dmi.sys_vendor.value_or(""));
  std::string product = ToLower(m->dmi.product_name.value_or(""));
  std::string dmi_src = "/sys/class/dmi/id/sys_vendor";

  std::string hv;
  std::string hv_src;
  for (const auto& h : kDmiHints) {
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
  } else if (!hv.empty()) {
    v.guest.Set(true, hv_src);
  } else if (flag.known()) {
    v.guest.Set(false, flag.source);
  } else {
    v.guest.Unknown("no evidence either way: " + flag.unknown +
                        "; no hypervisor in DMI, the device tree or /sys/hypervisor",
                    flag.source);
  }
  if (hv == "unknown") {
    v.hypervisor.Unknown("the device tree has a hypervisor node naming no known hypervisor",
                         hv_src);
  } else if (!hv.empty()) {
    v.hypervisor.Set(hv, hv_src);
  } else if (v.guest.known() && *v.guest) {
    v.hypervisor.Unknown("guest, but DMI names no known hypervisor", dmi_src);
  } else if (v.guest.known()) {
    v.hypervisor.Unknown("bare metal", flag.source);
  } else {
    v.hypervisor.Unknown("unknown whether this is a guest");
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
