// PCIe rules: ACS redirect on the bridges between two GPUs (or a GPU and a NIC) inside one root
// complex, and GPU BARs the kernel could not assign.
#include <algorithm>
#include <map>

#include "analyze/evidence.h"
#include "analyze/pci_walk.h"
#include "analyze/roles.h"
#include "analyze/rule.h"

namespace dossier {
namespace {

bool HasBit(const PciAcs& acs, const char* bit) {
  if (!acs.control.known()) return false;
  const auto& c = *acs.control;
  return std::find(c.begin(), c.end(), bit) != c.end();
}

bool Redirects(const PciDevice& d) {
  return HasBit(d.acs, "RR") || HasBit(d.acs, "CR");
}

std::string Label(const PciDevice& d) {
  return (IsNvidiaGpu(d) ? "GPU " : IsNic(d) ? "NIC " : "") + d.address;
}

// ACSCtl lines pasted without their devices (`lspci -vvv | grep ACSCtl`, imported): redirect on
// any of them is the same finding, though which bridges it is on cannot be said.
std::optional<Finding> AcsRedirectInLines(const Machine& m) {
  std::vector<const PciAcsLine*> hits;
  for (const auto& l : m.pci.acs_lines) {
    if (!l.control.known()) continue;
    const auto& c = *l.control;
    if (std::find(c.begin(), c.end(), "RR") != c.end() ||
        std::find(c.begin(), c.end(), "CR") != c.end())
      hits.push_back(&l);
  }
  if (hits.empty()) return std::nullopt;
  Finding f;
  f.title = "ACS redirect is on in " + std::to_string(hits.size()) + " of " +
            std::to_string(m.pci.acs_lines.size()) +
            " pasted ACSCtl line(s): P2P below those bridges goes up through the root complex";
  for (size_t i = 0; i < hits.size() && i < 8; ++i)
    f.evidence.push_back(Ev("ACSCtl (device not pasted)", hits[i]->control));
  if (hits.size() > 8)
    f.evidence.push_back(
        Ev("more ACSCtl lines with redirect", std::to_string(hits.size() - 8), hits[8]->line));
  f.explanation =
      "ACS P2P Request Redirect (ReqRedir+) and Completion Redirect (CmpltRedir+) make a bridge "
      "send peer-to-peer requests up towards the root complex for the IOMMU to check, instead of "
      "across to the peer: slower, and on some platforms NCCL hangs. The pasted lines are a grep "
      "of lspci -vvv: they do not say which bridges they belong to (the evidence names the lines), "
      "so whether GPUs sit below them is not known from them.";
  f.actions.push_back(
      {"Paste the whole `lspci -vvv` (or `lspci -vvv | grep -E "
       "'^[0-9a-f]|ACSCtl'`) so the bridges are named, and import it",
       "dossier import lspci.txt --machine " + m.name, ""});
  f.actions.push_back(
      {"Clear ACS redirect at boot on the bridges above the GPUs: kernel option "
       "`pci=disable_acs_redir=ADDR;ADDR` (Linux 4.19+), or disable ACS in the BIOS setup",
       "lspci -vvv | grep ACSCtl   # ReqRedir- CmpltRedir- on every line", ""});
  f.not_helping = {
      "pcie_acs_override=…: it splits IOMMU groups for passthrough; it does not clear redirect "
      "bits."};
  return f;
}

}  // namespace

std::optional<Finding> RulePcieAcsRedirect(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  // In a guest the bridges are emulated: their ACS bits do not route anything on the host, and
  // p2p.vm-isolated explains what does.
  if (IsGuest(m)) return std::nullopt;
  auto gpus = GpuDevices(m);
  auto nics = NicDevices(m);
  std::vector<std::pair<const PciDevice*, const PciDevice*>> pairs;
  for (size_t i = 0; i < gpus.size(); ++i) {
    for (size_t j = i + 1; j < gpus.size(); ++j) pairs.push_back({gpus[i], gpus[j]});
    for (const PciDevice* n : nics) pairs.push_back({gpus[i], n});
  }
  // Bridge -> the pairs whose P2P it redirects, in the order found.
  std::vector<const PciDevice*> bridges;
  std::map<const PciDevice*, std::vector<std::string>> affected;
  for (const auto& [a, b] : pairs) {
    PairPath p = PathBetween(m, *a, *b);
    if (p.kind != PairPath::kSharedBridge && p.kind != PairPath::kSameRootComplex) continue;
    std::vector<const PciDevice*> below = p.below_a;
    below.insert(below.end(), p.below_b.begin(), p.below_b.end());
    std::string meet = p.kind == PairPath::kSharedBridge ? "bridge " + p.ancestor->address
                                                         : "root complex " + p.root_complex;
    for (const PciDevice* br : below) {
      if (!Redirects(*br)) continue;
      if (!affected.count(br)) bridges.push_back(br);
      affected[br].push_back(Label(*a) + " <-> " + Label(*b) + " (meet at " + meet + ")");
    }
  }
  // Redirect bits in pasted lines that name no bridge matter only where ACS can stand in the way;
  // where the machine's verdict says it cannot (each GPU alone under its root complex), the
  // verdict says so in p2p.separate-root-complexes and there is nothing to clear.
  if (bridges.empty())
    return ctx.V().acs.answer == Answer::kNo ? std::nullopt : AcsRedirectInLines(m);

  Finding f;
  f.title = "ACS redirect is on for " + std::to_string(bridges.size()) +
            " bridge(s) between GPUs: their P2P goes up through the root complex and the IOMMU";
  std::vector<std::string> addrs;
  for (const PciDevice* br : bridges) {
    addrs.push_back(br->address);
    std::string what = br->address;
    if (br->port_type.known()) what += " (" + *br->port_type + ")";
    f.evidence.push_back(Ev(what + " ACS control", br->acs.control));
    const auto& pairs_here = affected[br];
    f.evidence.push_back(
        Ev(br->address + " redirects P2P of", JoinList(pairs_here, 4), "PCI walk (parent chain)"));
  }
  f.explanation =
      "ACS P2P Request Redirect (RR) and Completion Redirect (CR) make a bridge send peer-to-peer "
      "requests up towards the root complex instead of across to the peer, so that the IOMMU can "
      "check them. Between these devices P2P then climbs through the root complex and the IOMMU: "
      "slower, and on some platforms it hangs (NCCL all-reduce deadlocks with ACS redirect on AMD "
      "root ports and switch downstream ports). Clearing ACS on these bridges lets devices below "
      "them reach each other without IOMMU checks: the kernel merges their IOMMU groups at the "
      "next boot, so devices meant for different VMs can no longer be passed through separately.";
  f.not_helping = {
      "pcie_acs_override=…: it pretends devices are isolated to split IOMMU groups for "
      "passthrough; it does not clear redirect bits.",
      "NCCL_P2P_LEVEL=SYS: NCCL may then choose P2P, but the bridges still redirect the traffic "
      "through the root complex.",
  };
  for (const PciDevice* br : bridges) {
    f.actions.push_back(
        {"Clear the ACS control register of " + br->address +
             " now, as root (offset 6 of the ACS capability; lost at the next reboot, and IOMMU "
             "groups formed at boot are not recomputed): `setpci -s " +
             br->address + " ECAP_ACS+6.w=0000`",
         "lspci -vvv -s " + br->address + " | grep ACSCtl   # ReqRedir- CmpltRedir-", ""});
  }
  std::string list;
  for (const auto& a : addrs) list += (list.empty() ? "" : ";") + a;
  f.actions.push_back(
      {"Make it last, at boot, before IOMMU groups form: the kernel option "
       "`pci=disable_acs_redir=" +
           list +
           "` (Linux 4.19+: clears RR, CR and egress control on those bridges; newer kernels also "
           "have pci=config_acs=), added to the boot loader's command line",
       "cat /proc/cmdline; lspci -vvv | grep ACSCtl", ""});
  f.actions.push_back(
      {"Or disable ACS in the BIOS setup (AMD: often under NBIO/CBS 'ACS Enable'; Intel: PCIe "
       "'ACS Control'), or run the setpci lines from a boot-time systemd oneshot unit "
       "(ExecStart=/usr/bin/setpci -s ADDR ECAP_ACS+6.w=0000, one line per bridge)",
       "lspci -vvv | grep ACSCtl   # after a reboot; then: dossier p2p", ""});
  return f;
}

std::optional<Finding> RulePcieBarAllocationFailed(const RuleContext& ctx) {
  const Machine& m = ctx.m();
  auto gpus = GpuDevices(m);
  std::vector<const PciProblem*> hits;
  for (const auto& pr : m.kernel_log.pci_problems) {
    if (!pr.resolved.empty()) continue;  // the same log shows it assigned after all
    bool gpu = false;
    for (const PciDevice* g : gpus) gpu = gpu || pr.address.value_or("") == g->address;
    // NVRM names its BAR complaints without a PCI address in the kernel's prefix.
    bool nvrm = !pr.address.known() && pr.message.find("NVRM") != std::string::npos &&
                pr.message.find("BAR") != std::string::npos;
    if (gpu || nvrm) hits.push_back(&pr);
  }
  if (hits.empty()) return std::nullopt;
  Finding f;
  f.title = "The kernel could not assign GPU BARs (" + std::to_string(hits.size()) +
            " message(s) in the kernel log)";
  std::string src = m.kernel_log.source.value_or("kernel log");
  for (size_t i = 0; i < hits.size() && i < 8; ++i) {
    f.evidence.push_back(Ev(hits[i]->address.value_or("kernel log"), hits[i]->message, src));
  }
  f.explanation =
      "A GPU's BARs are the windows through which the CPU and peers reach its memory; BAR1 of a "
      "large GPU spans tens of GB and must sit in 64-bit address space. When the firmware leaves "
      "too small a window, the kernel cannot place it: the driver fails to start on that GPU or "
      "works with a shrunken BAR1, and P2P into that GPU is impossible.";
  std::string target = hits.front()->address.known() ? *hits.front()->address
                       : !gpus.empty()               ? gpus.front()->address
                                                     : "ADDR";
  bool guest = IsGuest(m);
  if (guest) {
    f.actions.push_back(
        {"Let the guest kernel reassign bridge windows: add `pci=realloc` to the guest kernel "
         "command line",
         "cat /proc/cmdline; dmesg | grep -iE 'BAR|no space'   # no failures", ""});
    f.actions.push_back(
        {"Enlarge the hypervisor's 64-bit MMIO window: QEMU Q35 `-global "
         "q35-pcihost.pci-hole64-size=2048G`; with OVMF `-fw_cfg "
         "name=opt/ovmf/X-PciMmio64Mb,string=262144` (Proxmox: on the VM's args: line)",
         "lspci -vv -s " + target + " | grep Region   # every BAR assigned", ""});
  } else {
    f.actions.push_back(
        {"Enable 'Above 4G Decoding' in the BIOS (and 'Resizable BAR' when the full BAR1 is "
         "wanted), so the firmware maps BARs above 4 GiB",
         "lspci -vv -s " + target + " | grep -E 'Region|BAR'", ""});
    f.actions.push_back(
        {"Let the kernel reassign bridge windows: add `pci=realloc` to the kernel command line",
         "cat /proc/cmdline; dmesg | grep -iE 'BAR|no space'   # no failures", ""});
  }
  f.not_helping = {
      "Reinstalling or updating the NVIDIA driver: the address space is set up before the "
      "driver loads."};
  return f;
}

}  // namespace dossier
