// Every rule of the table on a machine that triggers it and on one that must not.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "../tests/model_builders.h"
#include "analyze/memory_plan.h"
#include "analyze/p2p_status.h"
#include "analyze/pci_walk.h"
#include "analyze/rule.h"

namespace dossier {
namespace {

PciProblem Problem(const std::string& addr, const std::string& msg) {
  PciProblem p;
  p.address.Set(addr, "test");
  p.message = msg;
  return p;
}

using testing::GpuDev;
using testing::SeedGuest;
using testing::SeedHost;
using testing::SetAcs;
using testing::SetLink;
using testing::SwitchBox;
using testing::ViewOf;

const Finding* Find(const std::vector<Finding>& fs, const std::string& id) {
  for (const auto& f : fs)
    if (f.id == id) return &f;
  return nullptr;
}

std::vector<Finding> RunOn(const View& v, size_t i = 0, const MachineDiff& changes = {}) {
  return RunRules({v.machines[i], v, v.notes, changes});
}

bool Fires(const View& v, const std::string& id, size_t i = 0) {
  return Find(RunOn(v, i), id) != nullptr;
}

std::string AllActions(const Finding& f) {
  std::string s;
  for (const auto& a : f.actions) s += a.step + "\n" + a.verify + "\n";
  return s;
}

PciDevice* Pci(Machine* m, const std::string& addr) {
  for (auto& d : m->pci.devices)
    if (d.address == addr) return &d;
  return nullptr;
}

TEST(RuleTable, IdsAreUniqueAndEveryRowIsComplete) {
  std::set<std::string> ids;
  for (const auto& r : RuleTable()) {
    EXPECT_TRUE(ids.insert(r.id).second) << r.id;
    EXPECT_NE(std::string(r.what), "");
    EXPECT_TRUE(std::string(r.severity) == kCritical || std::string(r.severity) == kWarning ||
                std::string(r.severity) == kInfo);
  }
  for (const char* id : {"p2p.vm-isolated", "p2p.separate-root-complexes", "pcie.acs-redirect",
                         "iommu.translated-p2p", "pcie.link-width-degraded", "pcie.link-speed-low",
                         "vm.legacy-chipset", "pcie.bar-allocation-failed",
                         "numa.gpu-affinity-unknown", "build.cuda-arch-mismatch", "gpu.p2p-not-ok",
                         "p2p.bytes-corrupted", "p2p.below-expectation", "serve.below-target"})
    EXPECT_TRUE(ids.count(id)) << id;
}

TEST(RuleVmIsolated, FiresOnTheSeedGuestAndSaysAcsCannotHelp) {
  View v = ViewOf({SeedGuest(), SeedHost()});
  auto fs = RunOn(v);
  const Finding* f = Find(fs, "p2p.vm-isolated");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, kWarning);
  EXPECT_NE(f->title.find("8 GPUs"), std::string::npos);
  // The host is in the dossier with each GPU on its own root complex: said plainly.
  EXPECT_NE(f->explanation.find("pve-host"), std::string::npos);
  std::string nh;
  for (const auto& s : f->not_helping) nh += s + "\n";
  EXPECT_NE(nh.find("ACS inside the guest"), std::string::npos);
  // The host's verdict, in its one line: ACS cannot act on pve-host.
  EXPECT_NE(nh.find("Changing ACS (BIOS, setpci, pci=disable_acs_redir): each of the 8 GPUs of "
                    "pve-host sits alone"),
            std::string::npos)
      << nh;
  std::string acts = AllActions(*f);
  EXPECT_NE(acts.find("-set device.hostpci7.x-nv-gpudirect-clique=0"), std::string::npos);
  EXPECT_NE(acts.find("NCCL_TOPO_FILE"), std::string::npos);
  EXPECT_NE(acts.find("pipeline parallel"), std::string::npos);
  EXPECT_NE(acts.find("bare metal"), std::string::npos);
  for (const auto& a : f->actions) EXPECT_FALSE(a.verify.empty());
  // Evidence carries provenance.
  for (const auto& e : f->evidence) EXPECT_FALSE(e.source.empty()) << e.fact;
}

TEST(RuleVmIsolated, SilentOnBareMetalAndWhenTwoGuestGpusShareASwitch) {
  EXPECT_FALSE(Fires(ViewOf({SwitchBox()}), "p2p.vm-isolated"));
  Machine g = SeedGuest(2);
  // Put both GPUs behind one virtual switch downstream port pair: P2P inside the guest is possible.
  g.pci.devices.push_back(
      testing::Dev("0000:00:1d.0", "0x1b36", "0x000c", "0x060400", "", "pci0000:00", "root_port"));
  Pci(&g, "0000:00:1c.0")->parent = Known(std::string("0000:00:1d.0"), "x");
  Pci(&g, "0000:00:1c.1")->parent = Known(std::string("0000:00:1d.0"), "x");
  EXPECT_FALSE(Fires(ViewOf({g}), "p2p.vm-isolated"));
  EXPECT_FALSE(Fires(ViewOf({SeedGuest(1)}), "p2p.vm-isolated"));
}

TEST(RuleSeparateRootComplexes, FiresOnTheSeedHostOnly) {
  auto fs = RunOn(ViewOf({SeedHost()}));
  const Finding* f = Find(fs, "p2p.separate-root-complexes");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, kInfo);
  EXPECT_NE(f->explanation.find("vfio-pci"), std::string::npos);
  EXPECT_FALSE(Fires(ViewOf({SwitchBox()}), "p2p.separate-root-complexes"));
  EXPECT_FALSE(Fires(ViewOf({SeedGuest()}), "p2p.separate-root-complexes"));
}

TEST(RuleAcsRedirect, GivesTheSetpciCommandForEachRedirectingBridge) {
  auto fs = RunOn(ViewOf({SwitchBox()}));
  const Finding* f = Find(fs, "pcie.acs-redirect");
  ASSERT_NE(f, nullptr);
  std::string acts = AllActions(*f);
  for (const char* port : {"0000:02:00.0", "0000:02:01.0", "0000:02:02.0"})
    EXPECT_NE(acts.find(std::string("setpci -s ") + port + " ECAP_ACS+6.w=0000"), std::string::npos)
        << port;
  EXPECT_NE(acts.find("lost at the next reboot"), std::string::npos);
  EXPECT_NE(acts.find("pci=disable_acs_redir=0000:02:00.0;0000:02:01.0;0000:02:02.0"),
            std::string::npos);
  EXPECT_NE(acts.find("BIOS"), std::string::npos);
  EXPECT_NE(acts.find("systemd"), std::string::npos);
  // The root port above the switch is not on the path below the common ancestor.
  EXPECT_EQ(acts.find("setpci -s 0000:00:01.0"), std::string::npos);
}

TEST(RuleAcsRedirect, SilentWithoutRedirectAcrossRootComplexesAndInGuests) {
  Machine m = SwitchBox();
  for (auto& d : m.pci.devices)
    if (d.acs.control.known()) SetAcs(&d, {"SV"});
  EXPECT_FALSE(Fires(ViewOf({m}), "pcie.acs-redirect"));
  // Root ports of the seed host redirect, but every GPU is on its own root complex.
  EXPECT_FALSE(Fires(ViewOf({SeedHost()}), "pcie.acs-redirect"));
  EXPECT_FALSE(Fires(ViewOf({SeedGuest()}), "pcie.acs-redirect"));
  // ACS unreadable (not root): no finding rather than a guess.
  Machine u = SwitchBox();
  for (auto& d : u.pci.devices) d.acs.control.Unknown("needs root");
  EXPECT_FALSE(Fires(ViewOf({u}), "pcie.acs-redirect"));
}

TEST(RuleAcsRedirect, FiresOnRootPortsOfOneRootComplex) {
  // Two GPUs on two root ports of the same root complex (Threadripper-style, PHB).
  Machine m;
  m.name = "wrx90";
  m.virtualization.guest = Known(false, "x");
  for (const char* rp : {"0000:c0:01.1", "0000:c0:03.1"}) {
    PciDevice p = testing::Dev(rp, "0x1022", "0x14ab", "0x060400", "", "pci0000:c0", "root_port");
    SetAcs(&p, {"SV", "RR", "CR"});
    m.pci.devices.push_back(p);
  }
  m.pci.devices.push_back(GpuDev("0000:c1:00.0", "0000:c0:01.1", "pci0000:c0", "nvidia"));
  m.pci.devices.push_back(GpuDev("0000:c2:00.0", "0000:c0:03.1", "pci0000:c0", "nvidia"));
  auto fs = RunOn(ViewOf({m}));
  const Finding* f = Find(fs, "pcie.acs-redirect");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(AllActions(*f).find("setpci -s 0000:c0:03.1 ECAP_ACS+6.w=0000"), std::string::npos);
}

TEST(RuleIommuTranslated, FiresOnBareMetalWithDmaDomainsOnly) {
  auto fs = RunOn(ViewOf({SwitchBox()}));
  const Finding* f = Find(fs, "iommu.translated-p2p");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(AllActions(*f).find("iommu=pt"), std::string::npos);
  EXPECT_NE(AllActions(*f).find("/sys/kernel/iommu_groups/5/type"), std::string::npos);
  Machine pt = SwitchBox();
  for (auto& g : pt.iommu.groups) g.type = Known(std::string("identity"), "x");
  EXPECT_FALSE(Fires(ViewOf({pt}), "iommu.translated-p2p"));
  // The seed host translates for its guests: that is the point of vfio-pci.
  EXPECT_FALSE(Fires(ViewOf({SeedHost()}), "iommu.translated-p2p"));
}

TEST(RuleLinkWidth, FiresOnANarrowLinkButNotOnOneTheSlotLimits) {
  Machine m = SwitchBox();
  SetLink(Pci(&m, "0000:03:00.0"), 4, 8, 4, 16);
  auto fs = RunOn(ViewOf({m}));
  const Finding* f = Find(fs, "pcie.link-width-degraded");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, kWarning);
  EXPECT_NE(f->title.find("x8 of x16 on 0000:03:00.0"), std::string::npos);
  EXPECT_FALSE(Fires(ViewOf({SwitchBox()}), "pcie.link-width-degraded"));
  // A x16 GPU in a slot wired x8: the link is as wide as the narrower end allows.
  Machine s = SwitchBox();
  SetLink(Pci(&s, "0000:03:00.0"), 4, 8, 4, 16);
  SetLink(Pci(&s, "0000:02:00.0"), 4, 8, 4, 8);
  EXPECT_FALSE(Fires(ViewOf({s}), "pcie.link-width-degraded"));
}

TEST(RuleLinkSpeed, IdleDowntrainingIsInfoWithARecheckUnderLoad) {
  Machine m = SwitchBox();
  SetLink(Pci(&m, "0000:04:00.0"), 1, 16, 4, 16);
  auto fs = RunOn(ViewOf({m}));
  const Finding* f = Find(fs, "pcie.link-speed-low");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, kInfo);
  EXPECT_NE(f->explanation.find("idle"), std::string::npos);
  EXPECT_NE(f->actions[0].verify.find("pcie.link.gen.current"), std::string::npos);
  EXPECT_FALSE(Find(fs, "pcie.link-width-degraded"));
  EXPECT_FALSE(Fires(ViewOf({SwitchBox()}), "pcie.link-speed-low"));
}

TEST(RuleLegacyChipset, FiresOnI440fxGuestsOnly) {
  Machine g = SeedGuest(2);
  g.virtualization.chipset = Known(std::string("i440fx"), "/sys/class/dmi/id/product_name");
  auto fs = RunOn(ViewOf({g}));
  const Finding* f = Find(fs, "vm.legacy-chipset");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(AllActions(*f).find("--machine q35"), std::string::npos);
  EXPECT_EQ(f->severity, kWarning);
  EXPECT_FALSE(Fires(ViewOf({SeedGuest(2)}), "vm.legacy-chipset"));
}

TEST(RuleLegacyChipset, AnI440fxGuestWithoutPassedThroughPcieDevicesIsAtMostInfo) {
  Machine g = SeedGuest(0);
  g.gpus.clear();
  g.pci.devices.clear();
  g.virtualization.chipset = Known(std::string("i440fx"), "/sys/class/dmi/id/product_name");
  auto fs = RunOn(ViewOf({g}));
  const Finding* f = Find(fs, "vm.legacy-chipset");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, kInfo);
  EXPECT_EQ(f->title.find("move to Q35"), std::string::npos);
}

// What counts as a device that needs PCIe on an i440FX guest without GPUs: an endpoint or a
// legacy endpoint (each alone makes it a warning); a bridge or an unknown port type does not.
TEST(RuleLegacyChipset, EachEndpointKindAloneNeedsPcie) {
  for (const char* type : {"endpoint", "legacy_endpoint", "pci_bridge", ""}) {
    SCOPED_TRACE(type);
    Machine g = SeedGuest(0);
    g.gpus.clear();
    g.virtualization.chipset = Known(std::string("i440fx"), "/sys/class/dmi/id/product_name");
    PciDevice nic =
        testing::Dev("0000:00:10.0", "0x15b3", "0x101b", "0x020000", "", "pci0000:00", type);
    if (std::string(type).empty()) nic.port_type.Unknown("no PCIe capability read", "test");
    g.pci.devices = {nic};
    auto fs = RunOn(ViewOf({g}));
    const Finding* f = Find(fs, "vm.legacy-chipset");
    ASSERT_NE(f, nullptr);
    const bool needs = std::string(type) == "endpoint" || std::string(type) == "legacy_endpoint";
    EXPECT_EQ(f->severity, needs ? kWarning : kInfo);
    EXPECT_EQ(f->title.find("passed-through PCIe devices") != std::string::npos, needs) << f->title;
  }
}

// The plan beside the server's log: only checks more than 10 % off count; the title and the step
// name the first of them (the plan lists its checks in the order to look at them), every one
// off is evidence, one within 10 % is not.
TEST(RulePlanServerDisagrees, TheFirstCheckOffNamesTheTitleAndTheStep) {
  View v = ViewOf({SeedGuest(2)});
  MemoryPlan p;
  p.label = "served";
  auto check = [](const char* what, double plan, double server, const char* inputs) {
    PlanCheck c;
    c.what = what;
    c.plan = plan;
    c.server = server;
    c.unit = "GiB";
    c.server_source = "server.log:1";
    c.check_inputs = inputs;
    return c;
  };
  p.checks = {check("weights per GPU", 10.5, 10.0, "the quantization config"),  // +5 %: fine
              check("KV cache per GPU", 30.0, 20.0, "--mem-fraction-static"),
              check("KV tokens per GPU", 100.0, 250.0, "the KV cache dtype")};
  std::vector<MemoryPlan> plans = {p};
  RuleContext ctx{v.machines[0], v, v.notes, {}};
  ctx.memory_plans = &plans;
  auto f = RulePlanServerDisagrees(ctx);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->title, "The memory plan and the server's log disagree on KV cache per GPU (+50 %)");
  ASSERT_EQ(f->actions.size(), 1u);
  EXPECT_EQ(f->actions[0].step,
            "Check --mem-fraction-static against the server's start-up log and command line");
  std::vector<std::string> facts;
  for (const auto& e : f->evidence)
    if (e.fact.starts_with("plan: ") || e.fact.starts_with("server: ")) facts.push_back(e.fact);
  EXPECT_EQ(facts,
            (std::vector<std::string>{"plan: KV cache per GPU", "server: KV cache per GPU",
                                      "plan: KV tokens per GPU", "server: KV tokens per GPU"}));
  plans[0].checks.resize(1);
  EXPECT_FALSE(RulePlanServerDisagrees(ctx));
}

TEST(RuleBarAllocation, FiresOnAGpuBarMessageOnly) {
  Machine g = SeedGuest(2);
  g.kernel_log.source = Known(std::string("/var/log/kern.log"), "/var/log/kern.log");
  g.kernel_log.pci_problems.push_back(Problem(
      "0000:01:00.0", "pci 0000:01:00.0: BAR 1: no space for [mem size 0x2000000000 64bit pref]"));
  auto fs = RunOn(ViewOf({g}));
  const Finding* f = Find(fs, "pcie.bar-allocation-failed");
  ASSERT_NE(f, nullptr);
  std::string acts = AllActions(*f);
  EXPECT_NE(acts.find("pci=realloc"), std::string::npos);
  EXPECT_NE(acts.find("pci-hole64-size"), std::string::npos);
  Machine b = SwitchBox();
  b.kernel_log.pci_problems.push_back(Problem("0000:05:00.0", "BAR 0: no space"));
  EXPECT_FALSE(Fires(ViewOf({b}), "pcie.bar-allocation-failed"));
  b.kernel_log.pci_problems.push_back(Problem("0000:03:00.0", "BAR 1: failed to assign"));
  auto fb = RunOn(ViewOf({b}));
  ASSERT_NE(Find(fb, "pcie.bar-allocation-failed"), nullptr);
  EXPECT_NE(AllActions(*Find(fb, "pcie.bar-allocation-failed")).find("Above 4G"),
            std::string::npos);
}

// The step's lspci line names the device the kernel complained about, else (an NVRM message
// names none) the first GPU, else a placeholder — on a guest and on bare metal alike.
TEST(RuleBarAllocation, TheVerifyLineNamesTheDeviceComplainedAboutElseTheFirstGpu) {
  auto lspci_target = [](const Machine& m) {
    auto fs = RunOn(ViewOf({m}));
    const Finding* f = Find(fs, "pcie.bar-allocation-failed");
    if (!f) return std::string("silent");
    for (const auto& a : f->actions)
      if (a.verify.starts_with("lspci -vv -s "))
        return a.verify.substr(13, a.verify.find(' ', 13) - 13);
    return std::string("no lspci line");
  };
  for (bool guest : {true, false}) {
    SCOPED_TRACE(guest ? "guest" : "bare metal");
    Machine m = guest ? SeedGuest(3) : SwitchBox();
    const std::string first = GpuDevices(m).front()->address, last = GpuDevices(m).back()->address;
    ASSERT_NE(first, last);
    PciProblem nvrm;
    nvrm.address.Unknown("NVRM names no address", "dmesg");
    nvrm.message = "NVRM: BAR1 is 0M @ 0x0 (PCI:0000:02:00)";
    m.kernel_log.pci_problems = {nvrm};
    EXPECT_EQ(lspci_target(m), first);
    m.kernel_log.pci_problems = {Problem(last, "BAR 1: no space for [mem size 0x2000000000]"),
                                 nvrm};
    EXPECT_EQ(lspci_target(m), last);
    m.kernel_log.pci_problems = {nvrm};
    m.gpus.clear();
    m.pci.devices.erase(std::remove_if(m.pci.devices.begin(), m.pci.devices.end(),
                                       [](const PciDevice& d) {
                                         return d.class_id.value_or("").starts_with("0x03");
                                       }),
                        m.pci.devices.end());
    EXPECT_EQ(lspci_target(m), "ADDR");
  }
}

TEST(RuleNumaAffinity, FiresOnAGuestWithTwoNodesAndGpusAtMinusOne) {
  View v = ViewOf({SeedGuest(), SeedHost()});
  auto fs = RunOn(v);
  const Finding* f = Find(fs, "numa.gpu-affinity-unknown");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(AllActions(*f).find("/numa_node"), std::string::npos);
  // The host's real layout is shown beside.
  bool host_ev = false;
  for (const auto& e : f->evidence) host_ev = host_ev || e.fact.find("host pve-host") == 0;
  EXPECT_TRUE(host_ev);
  Machine one = SeedGuest();
  one.numa.nodes.pop_back();
  EXPECT_FALSE(Fires(ViewOf({one}), "numa.gpu-affinity-unknown"));
  EXPECT_FALSE(Fires(ViewOf({SeedHost()}), "numa.gpu-affinity-unknown"));
}

TEST(RuleCudaArch, TenPointZeroOnSm120Fires) {
  auto fs = RunOn(ViewOf({SeedGuest(2)}));
  const Finding* f = Find(fs, "build.cuda-arch-mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("12.0"), std::string::npos);
  EXPECT_NE(AllActions(*f).find("TORCH_CUDA_ARCH_LIST=\"12.0\""), std::string::npos);
  EXPECT_NE(AllActions(*f).find("sm_120"), std::string::npos);
  for (const char* ok : {"12.0", "8.0;12.0", "9.0+PTX", "12.0a"}) {
    Machine m = SeedGuest(2);
    m.servers[0].env["TORCH_CUDA_ARCH_LIST"] = ok;
    EXPECT_FALSE(Fires(ViewOf({m}), "build.cuda-arch-mismatch")) << ok;
  }
  Machine caller = SeedGuest(2);
  caller.servers.clear();
  caller.software.env["TORCH_CUDA_ARCH_LIST"] = "Hopper";
  EXPECT_TRUE(Fires(ViewOf({caller}), "build.cuda-arch-mismatch"));
  caller.software.env["TORCH_CUDA_ARCH_LIST"] = "not a list";
  EXPECT_FALSE(Fires(ViewOf({caller}), "build.cuda-arch-mismatch"));
}

// A healthy idle GPU as NVML reports it (issue 26's H200): gpu_idle alone, nothing pending.
NvmlGpu HealthyNvmlGpu(int64_t index, const std::string& bus) {
  NvmlGpu g;
  g.index = index;
  g.pci_bus_id = Known(bus, "nvml");
  g.health.clocks_event_mask = Known<int64_t>(0x1, "nvml");
  g.health.clocks_event_reasons = Known<std::string>("gpu_idle", "nvml");
  for (Fact<int64_t>* f : {&g.health.ecc_corrected_volatile, &g.health.ecc_uncorrected_volatile,
                           &g.health.ecc_corrected_aggregate, &g.health.ecc_uncorrected_aggregate,
                           &g.health.pcie_replay_count})
    *f = Known<int64_t>(0, "nvml");
  g.health.remap_pending = Known(false, "nvml");
  g.health.remap_failed = Known(false, "nvml");
  g.health.recovery_action = Known<std::string>("none", "nvml");
  return g;
}

TEST(RuleGpuHealth, IdleIsNotAThrottleButASlowdownAtIdleIs) {
  Machine m = SeedGuest(2);
  m.nvml.gpus = {HealthyNvmlGpu(0, "0000:01:00.0"), HealthyNvmlGpu(1, "0000:02:00.0")};
  EXPECT_FALSE(Fires(ViewOf({m}), "gpu.health"));
  // NOT_SUPPORTED everywhere: unknown is no evidence, the rule stays silent.
  Machine u = m;
  for (auto& g : u.nvml.gpus) {
    g.health = NvmlHealth{};
    g.health.clocks_event_mask.Unknown("nvmlDeviceGetCurrentClocksEventReasons: NOT_SUPPORTED");
  }
  EXPECT_FALSE(Fires(ViewOf({u}), "gpu.health"));

  m.nvml.gpus[1].health.clocks_event_mask = Known<int64_t>(0x1 | 0x8, "nvml");
  m.nvml.gpus[1].health.clocks_event_reasons = Known<std::string>("gpu_idle, hw_slowdown", "nvml");
  auto fs = RunOn(ViewOf({m}));
  const Finding* f = Find(fs, "gpu.health");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, kWarning);
  EXPECT_NE(f->title.find("GPU 1 (0000:02:00.0) throttles while idle"), std::string::npos)
      << f->title;
  // Busy and power-capped is not "at idle".
  m.nvml.gpus[1].health.clocks_event_mask = Known<int64_t>(0x4, "nvml");
  EXPECT_FALSE(Fires(ViewOf({m}), "gpu.health"));
}

TEST(RuleGpuHealth, EccRemapAndRecoveryAreCritical) {
  Machine m = SeedGuest(2);
  m.nvml.gpus = {HealthyNvmlGpu(0, "0000:01:00.0"), HealthyNvmlGpu(1, "0000:02:00.0")};
  m.nvml.gpus[0].health.ecc_corrected_volatile = Known<int64_t>(40, "nvml");  // corrected: fine
  EXPECT_FALSE(Fires(ViewOf({m}), "gpu.health"));
  m.nvml.gpus[0].health.ecc_uncorrected_aggregate = Known<int64_t>(1, "nvml");
  auto fs = RunOn(ViewOf({m}));
  ASSERT_TRUE(Find(fs, "gpu.health"));
  EXPECT_EQ(Find(fs, "gpu.health")->severity, kCritical);

  Machine r = SeedGuest(2);
  r.nvml.gpus = {HealthyNvmlGpu(0, "0000:01:00.0")};
  r.nvml.gpus[0].health.remap_pending = Known(true, "nvml");
  // The findings are kept: Find points into them.
  std::vector<Finding> remap = RunOn(ViewOf({r}));
  const Finding* f = Find(remap, "gpu.health");
  ASSERT_TRUE(f);
  EXPECT_NE(f->title.find("row remap pending"), std::string::npos);
  r.nvml.gpus[0].health.remap_pending = Known(false, "nvml");
  r.nvml.gpus[0].health.recovery_action = Known<std::string>("drain_and_reset", "nvml");
  std::vector<Finding> recovery = RunOn(ViewOf({r}));
  f = Find(recovery, "gpu.health");
  ASSERT_TRUE(f);
  EXPECT_NE(f->title.find("asks for drain_and_reset"), std::string::npos);
}

TEST(RuleGpuHealth, ReplaysClimbingWithinOneBoot) {
  Machine earlier = SeedGuest(1);
  earlier.nvml.gpus = {HealthyNvmlGpu(0, "0000:01:00.0")};
  earlier.nvml.gpus[0].health.pcie_replay_count = Known<int64_t>(3, "nvml");
  Machine now = earlier;
  View v = ViewOf({now});
  // A count alone, however high, is not climbing.
  v.machines[0].machine.nvml.gpus[0].health.pcie_replay_count = Known<int64_t>(3, "nvml");
  EXPECT_FALSE(Fires(v, "gpu.health"));
  v.machines[0].earlier_same_boot =
      PreviousBoot{{"r1.json", "collect", "t", "dossier"}, "b", earlier};
  EXPECT_FALSE(Fires(v, "gpu.health"));  // the same count: not climbing
  v.machines[0].machine.nvml.gpus[0].health.pcie_replay_count = Known<int64_t>(57, "nvml");
  std::vector<Finding> climbed = RunOn(v);
  const Finding* f = Find(climbed, "gpu.health");
  ASSERT_TRUE(f);
  EXPECT_NE(f->title.find("PCIe replays climbed from 3 to 57"), std::string::npos) << f->title;
  EXPECT_EQ(f->severity, kWarning);
}

// Each trouble alone, on one GPU of a healthy pair: it gets its own explanation and its own steps
// (the drain-and-reset step for each of ECC, remap and recovery alone), never another's.
TEST(RuleGpuHealth, EachTroubleAloneGetsItsOwnStepsAndExplanation) {
  const std::string kReset = "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT";
  const std::string kPerf = "nvidia-smi -q -d PERFORMANCE";
  const std::string kReplay = "nvidia-smi -q | grep -i replay";
  struct Case {
    const char* name;
    std::function<void(NvmlHealth*)> set;
    std::vector<std::string> verify;
    const char* says;
  };
  const std::vector<Case> cases = {
      {"uncorrected ECC",
       [](NvmlHealth* h) { h->ecc_uncorrected_volatile = Known<int64_t>(2, "nvml"); },
       {kReset, "dossier collect"},
       "Uncorrected ECC errors"},
      {"remap pending",
       [](NvmlHealth* h) { h->remap_pending = Known(true, "nvml"); },
       {kReset, "dossier collect"},
       "A pending row remap"},
      {"retired pages pending",
       [](NvmlHealth* h) { h->retired_pages_pending = Known(true, "nvml"); },
       {kReset, "dossier collect"},
       "A pending row remap"},
      {"recovery action",
       [](NvmlHealth* h) { h->recovery_action = Known<std::string>("gpu_reset", "nvml"); },
       {kReset, "dossier collect"},
       "The driver itself asks"},
      {"slowdown at idle",
       [](NvmlHealth* h) { h->clocks_event_mask = Known<int64_t>(0x1 | 0x80, "nvml"); },
       {kPerf, "dossier collect"},
       "An idle GPU reports gpu_idle alone"},
  };
  const char* kSentences[] = {"Uncorrected ECC errors", "A pending row remap",
                              "The driver itself asks", "An idle GPU reports gpu_idle alone",
                              "PCIe replays are link-level"};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Machine m = SeedGuest(2);
    m.nvml.gpus = {HealthyNvmlGpu(0, "0000:01:00.0"), HealthyNvmlGpu(1, "0000:02:00.0")};
    c.set(&m.nvml.gpus[1].health);
    std::vector<Finding> fs = RunOn(ViewOf({m}));
    const Finding* f = Find(fs, "gpu.health");
    ASSERT_TRUE(f);
    std::vector<std::string> verify;
    for (const auto& a : f->actions) verify.push_back(a.verify);
    EXPECT_EQ(verify, c.verify);
    for (const char* s : kSentences)
      EXPECT_EQ(f->explanation.find(s) != std::string::npos, std::string(s) == c.says) << s;
    EXPECT_NE(f->title.find("GPU 1 (0000:02:00.0)"), std::string::npos) << f->title;
  }
  // Replays climbing alone: the reseat step, not a reset.
  Machine earlier = SeedGuest(1);
  earlier.nvml.gpus = {HealthyNvmlGpu(0, "0000:01:00.0")};
  View v = ViewOf({earlier});
  v.machines[0].earlier_same_boot =
      PreviousBoot{{"r1.json", "collect", "t", "dossier"}, "b", earlier};
  v.machines[0].machine.nvml.gpus[0].health.pcie_replay_count = Known<int64_t>(9, "nvml");
  std::vector<Finding> fs = RunOn(v);
  const Finding* f = Find(fs, "gpu.health");
  ASSERT_TRUE(f);
  ASSERT_EQ(f->actions.size(), 2u);
  EXPECT_EQ(f->actions[0].verify, kReplay);
  EXPECT_EQ(f->severity, kWarning);
}

TEST(RuleP2pNotOk, FiresOnNsPairsAndNotWhenAllOk) {
  Machine m = SeedGuest(2);
  CodeMatrix ns = {{"X", "NS"}, {"NS", "X"}}, ok = {{"X", "OK"}, {"OK", "X"}};
  auto f = P2pNotOkFrom(m, {&ns, &ns});
  ASSERT_TRUE(f.has_value());
  EXPECT_NE(f->title.find("2 GPU pair(s)"), std::string::npos);
  EXPECT_NE(f->explanation.find("NS = not supported"), std::string::npos);
  EXPECT_FALSE(P2pNotOkFrom(m, {&ok, &ok}).has_value());
  EXPECT_FALSE(P2pNotOkFrom(m, {}).has_value());  // no NVML data: does not fire
}

// The accessor finds the NVML matrices in the shapes topology.p2p_status may take once the NVML
// work adds it (a map keyed by capability, or a struct with read/write members).
struct TopoWithMap {
  std::map<std::string, CodeMatrix> p2p_status;
};
struct TopoWithStruct {
  struct {
    CodeMatrix read, write, nvlink;
  } p2p_status;
};
struct TopoWithout {};

TEST(RuleP2pNotOk, FindsTheMatricesInTheShapesTheModelMayUse) {
  TopoWithMap a;
  a.p2p_status["read"] = {{"X", "NS"}, {"NS", "X"}};
  a.p2p_status["write"] = {{"X", "OK"}, {"OK", "X"}};
  P2pStatusView va = p2p_status_detail::From(a);
  ASSERT_NE(va.read, nullptr);
  EXPECT_EQ((*va.read)[0][1], "NS");
  TopoWithStruct b;
  b.p2p_status.write = {{"X", "CNS"}, {"CNS", "X"}};
  P2pStatusView vb = p2p_status_detail::From(b);
  ASSERT_NE(vb.write, nullptr);
  EXPECT_EQ((*vb.write)[1][0], "CNS");
  EXPECT_EQ(p2p_status_detail::From(TopoWithout{}).read, nullptr);
}

P2pResult MakeResult(int64_t s, int64_t d, const char* mode, uint64_t size, const char* verdict,
                     double gbps, double pct) {
  P2pResult r;
  r.src = s;
  r.dst = d;
  r.mode = mode;
  r.size_bytes = size;
  r.verdict = verdict;
  r.gbps_median = Known(gbps, "p2p");
  r.percent_of_limit = Known(pct, "p2p");
  r.link_limit_gbps = Known(63.0, "p2p");
  return r;
}

TEST(RuleP2pMeasurements, CorruptedIsCriticalAndStaleAfterAReboot) {
  View v = ViewOf({SwitchBox()});
  P2pMeasurement pm;
  pm.time = "2026-12-01T10:00:00Z";
  pm.boot_id = "33333333-switch-boot";
  pm.results.push_back(MakeResult(0, 1, "uni-p2p", 16 << 20, "corrupted", 20, 30));
  pm.results.back().detail = "first difference at byte 4096";
  v.machines[0].p2p.push_back(pm);
  auto fs = RunOn(v);
  const Finding* f = Find(fs, "p2p.bytes-corrupted");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, kCritical);
  EXPECT_TRUE(f->stale.empty());
  EXPECT_NE(f->evidence[0].value.find("byte 4096"), std::string::npos);
  v.machines[0].p2p[0].boot_id = "an-earlier-boot";
  EXPECT_EQ(Find(RunOn(v), "p2p.bytes-corrupted")->stale,
            "the p2p measurement ran in boot an-earli, before the machine's latest reboot");
  // A measurement without a boot id (an import) or a machine whose boot is unknown: nothing to
  // compare, so not stale.
  v.machines[0].p2p[0].boot_id = "";
  EXPECT_EQ(Find(RunOn(v), "p2p.bytes-corrupted")->stale, "");
  v.machines[0].p2p[0].boot_id = "an-earlier-boot";
  v.machines[0].machine.boot_id.Unknown("not recorded", "test");
  EXPECT_EQ(Find(RunOn(v), "p2p.bytes-corrupted")->stale, "");
  v.machines[0].p2p[0].results[0].verdict = "ok";
  EXPECT_FALSE(Fires(v, "p2p.bytes-corrupted"));
}

TEST(RuleP2pMeasurements, BelowExpectationAtLargeSizesOnly) {
  View v = ViewOf({SwitchBox()});
  P2pMeasurement pm;
  pm.results.push_back(MakeResult(0, 1, "uni-p2p", 64 << 20, "ok", 12.0, 19.0));
  v.machines[0].p2p.push_back(pm);
  const auto fs = RunOn(v);
  ASSERT_NE(Find(fs, "p2p.below-expectation"), nullptr);
  EXPECT_NE(Find(fs, "p2p.below-expectation")->evidence[0].value.find("12.00 GB/s"),
            std::string::npos);
  v.machines[0].p2p[0].results[0] = MakeResult(0, 1, "uni-p2p", 64 << 20, "ok", 50, 80);
  EXPECT_FALSE(Fires(v, "p2p.below-expectation"));
  v.machines[0].p2p[0].results[0] = MakeResult(0, 1, "uni-p2p", 4096, "ok", 1, 2);
  EXPECT_FALSE(Fires(v, "p2p.below-expectation"));
}

ServeRun MakeRun(int64_t conc, double total, double output) {
  ServeRun r;
  r.concurrency = Known(conc, "serve-bench");
  r.total_tokens_per_s = total;
  r.output_tokens_per_s = output;
  r.completed = 16;  // a run in which nothing completed measured nothing (plan.cc)
  return r;
}

TEST(RuleServeBelowTarget, ComparesTheRunAtTheTargetsConcurrency) {
  View v = ViewOf({SeedGuest(2)});
  v.notes.path = "dossier/notes.toml";
  v.notes.targets.push_back({"total_tokens_per_s", ">=", 1000, 64, "", 7});
  v.notes.targets.push_back({"single_stream_tokens_per_s", ">=", 100, 0, "", 12});
  ServeMeasurement sm;
  sm.time = "2026-12-01T12:00:00Z";
  sm.endpoint = "http://127.0.0.1:30000";
  sm.input_len = 1024;
  sm.output_len = 256;
  sm.runs = {MakeRun(1, 30, 11), MakeRun(64, 485, 300)};
  v.machines[0].serve.push_back(sm);
  auto fs = RunOn(v);
  const Finding* f = Find(fs, "serve.below-target");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->title.find("2 target(s)"), std::string::npos);
  EXPECT_NE(f->actions[0].verify.find("--concurrency 1,64"), std::string::npos);
  bool measured = false;
  for (const auto& e : f->evidence) measured = measured || e.value == "485.0";
  EXPECT_TRUE(measured);
  v.machines[0].serve[0].runs = {MakeRun(1, 300, 120), MakeRun(64, 1200, 800)};
  EXPECT_FALSE(Fires(v, "serve.below-target"));
  v.notes.targets.clear();
  EXPECT_FALSE(Fires(v, "serve.below-target"));
}

TEST(RuleIommuGroupsChanged, FiresForPassedThroughDevices) {
  View v = ViewOf({SeedHost(30)});
  MachineDiff changes;
  changes.changes.push_back({"iommu-renumbered", "IOMMU group 20", "group 20", "group 30",
                             "same members, new number: 0000:01:00.0, 0000:01:00.1"});
  auto fs = RunOn(v, 0, changes);
  const Finding* f = Find(fs, "iommu.groups-changed");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->actions[0].step.find("0000:01:00.0 iommugroup=30"), std::string::npos);
  EXPECT_NE(f->actions[0].verify.find("/etc/pve/mapping/pci.cfg"), std::string::npos);
  EXPECT_FALSE(Fires(ViewOf({SeedHost(30)}), "iommu.groups-changed"));
}

TEST(RuleEvidence, AFindingOnAStaleFactIsStale) {
  Machine m = SwitchBox();
  Pci(&m, "0000:02:00.0")->acs.control.stale = "seen in boot aaaa, before the latest reboot";
  const Finding* f = nullptr;
  auto fs = RunOn(ViewOf({m}));
  f = Find(fs, "pcie.acs-redirect");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->stale.find("seen in boot aaaa"), std::string::npos);
}

}  // namespace
}  // namespace dossier
