// The hypervisor parsers on real samples (tests/corpus/, from public Proxmox configs and the seed
// story's host) and on damaged input: facts with their lines, problems named, never a crash.
#include <gtest/gtest.h>

#include <filesystem>

#include "../tests/run_process.h"
#include "../tests/temp_dir.h"
#include "hypervisor/libvirt_domain.h"
#include "hypervisor/mapping_check.h"
#include "hypervisor/options.h"
#include "hypervisor/pci_cfg.h"
#include "hypervisor/qemu_cmdline.h"
#include "hypervisor/qemu_server_conf.h"
#include "util/text.h"

namespace dossier::hypervisor {
namespace {

std::string HvCorpus(const std::string& entry, const std::string& file) {
  return testing::Slurp(std::string(DOSSIER_SOURCE_DIR) + "/tests/corpus/" + entry + "/" + file);
}

bool HvHasProblem(const std::vector<std::string>& ps, const std::string& what) {
  for (const auto& p : ps)
    if (p.find(what) != std::string::npos) return true;
  return false;
}

TEST(QemuServerConf, SeedHostVmWithMappingsAndNuma) {
  auto p = ParseQemuServerConf(HvCorpus("qemu-server-conf", "seed-host-100.conf"),
                               "/etc/pve/qemu-server/100.conf", "100");
  EXPECT_TRUE(p.problems.empty()) << p.problems[0];
  const Vm& vm = p.vm;
  EXPECT_EQ(vm.id, "100");
  EXPECT_EQ(*vm.name, "glm5");
  EXPECT_EQ(*vm.machine, "q35");
  EXPECT_TRUE(*vm.numa);
  EXPECT_EQ(*vm.sockets, 2);
  EXPECT_EQ(*vm.memory_mib, 491520);
  EXPECT_EQ(*vm.smbios_uuid, "6f1c9e2a-4b7d-4c83-9a0e-2d5f8b1c7e64");
  ASSERT_EQ(vm.hostpci.size(), 8u);
  EXPECT_EQ(vm.hostpci[3].slot, "hostpci3");
  EXPECT_EQ(*vm.hostpci[3].mapping, "gpu3");
  EXPECT_TRUE(*vm.hostpci[3].pcie);
  EXPECT_FALSE(vm.hostpci[3].host.known());
  EXPECT_EQ(vm.hostpci[3].mapping.source, "/etc/pve/qemu-server/100.conf:10");
}

TEST(QemuServerConf, BareAddressesCommentsAndNoPcieFlag) {
  auto p = ParseQemuServerConf(
      HvCorpus("qemu-server-conf", "andrei-paul-win10-nvidia-gpu-100.conf"), "100.conf", "100");
  EXPECT_TRUE(p.problems.empty()) << p.problems[0];
  ASSERT_EQ(p.vm.hostpci.size(), 4u);
  EXPECT_EQ(*p.vm.hostpci[0].host, "0f:00");
  EXPECT_TRUE(IsWholeDevice(*p.vm.hostpci[0].host));
  EXPECT_EQ(FullPciAddress(*p.vm.hostpci[0].host), "0000:0f:00.0");
  EXPECT_FALSE(*p.vm.hostpci[2].pcie);  // no pcie=1: a conventional slot
  EXPECT_EQ(*p.vm.machine, "pc-q35-5.2");
  EXPECT_FALSE(p.vm.numa_nodes.size());
  auto nic = ParseQemuServerConf(
      HvCorpus("qemu-server-conf", "asokolsky-suprox-pfsense-100.conf-nic-passthrough"), "x",
      "100");
  EXPECT_TRUE(nic.problems.empty()) << nic.problems[0];  // the '#' notes are skipped
  EXPECT_EQ(*nic.vm.hostpci[0].host, "0000:01:00");
}

TEST(QemuServerConf, UnknownKeysAndBadValuesAreProblemsWithTheirLine) {
  auto p = ParseQemuServerConf(HvCorpus("qemu-server-conf", "bad-keys.conf"), "bad.conf", "7");
  EXPECT_TRUE(HvHasProblem(p.problems, "bad.conf:2: unknown key 'frobnicate'"));
  EXPECT_TRUE(HvHasProblem(p.problems, "bad.conf:3: hostpci0: '0000:zz:00' is not a PCI address"));
  EXPECT_TRUE(HvHasProblem(p.problems, "bad.conf:3: hostpci0: pcie=maybe is not 0 or 1"));
  EXPECT_TRUE(HvHasProblem(p.problems, "bad.conf:3: hostpci0: unknown option 'x-turbo'"));
  EXPECT_TRUE(HvHasProblem(p.problems, "bad.conf:4: numa0: unknown option 'speed'"));
  EXPECT_TRUE(HvHasProblem(p.problems, "bad.conf:5: sockets: 'two' is not an integer"));
  ASSERT_EQ(p.vm.hostpci.size(), 1u);  // the snapshot's hostpci9 is not the current config
  EXPECT_EQ(*p.vm.numa_nodes[0].hostnodes, "0");
}

TEST(PciCfg, SeedMappingWithItsGroups) {
  auto p = ParsePciCfg(HvCorpus("pci-cfg", "seed-host-pci.cfg"), "/etc/pve/mapping/pci.cfg");
  EXPECT_TRUE(p.problems.empty()) << p.problems[0];
  ASSERT_EQ(p.mappings.size(), 8u);
  EXPECT_EQ(p.mappings[0].name, "gpu0");
  EXPECT_EQ(*p.mappings[0].entries[0].path, "0000:f1:00.0");
  EXPECT_EQ(*p.mappings[0].entries[0].iommugroup, 44);
  EXPECT_EQ(*p.mappings[7].entries[0].iommugroup, 8);
  EXPECT_EQ(p.mappings[7].entries[0].iommugroup.source, "/etc/pve/mapping/pci.cfg:23");
}

TEST(PciCfg, TwoNodesCommentsAndTheByteRangeOfEachGroup) {
  std::string text = HvCorpus("pci-cfg", "two-nodes-with-comments.cfg");
  auto p = ParsePciCfg(text, "pci.cfg");
  EXPECT_TRUE(p.problems.empty()) << p.problems[0];
  ASSERT_EQ(p.mappings.size(), 2u);
  ASSERT_EQ(p.mappings[1].entries.size(), 2u);
  EXPECT_EQ(*p.mappings[1].entries[0].path, "0000:42:00.0;0000:43:00.0");
  ASSERT_EQ(p.positions.size(), 4u);
  std::vector<std::string> groups;
  for (const auto& pos : p.positions)
    groups.push_back(text.substr(pos.group_offset, pos.group_length));
  EXPECT_EQ(groups, (std::vector<std::string>{"14", "22", "15", "23"}));
}

TEST(PciCfg, MalformedLinesAreNamedNotFatal) {
  auto p = ParsePciCfg(HvCorpus("pci-cfg", "malformed.cfg"), "pci.cfg");
  EXPECT_TRUE(HvHasProblem(p.problems, "pci.cfg:2: iommugroup 'x' is not a number"));
  EXPECT_TRUE(HvHasProblem(p.problems, "pci.cfg:2: path 'not-an-address' is not a PCI address"));
  EXPECT_TRUE(HvHasProblem(p.problems, "pci.cfg:3: unknown property 'bogus'"));
  EXPECT_TRUE(HvHasProblem(p.problems, "pci.cfg:4: malformed map line: no id="));
  EXPECT_TRUE(HvHasProblem(p.problems, "pci.cfg:6: 'nic1 extra words' is not a mapping name"));
  EXPECT_TRUE(HvHasProblem(p.problems, "pci.cfg:7: property outside a mapping section"));
}

TEST(QemuCmdline, QmShowcmdWithWholeDeviceFunctions) {
  auto c =
      ParseQemuShellText(HvCorpus("qemu-cmdline", "asokolsky-qm-showcmd-400"), "qm showcmd 400");
  EXPECT_TRUE(c.problems.empty()) << c.problems[0];
  EXPECT_EQ(c.vmid, "400");
  EXPECT_EQ(c.name, "htpc");
  EXPECT_EQ(c.smbios_uuid, "b4758fe0-99b5-4c8a-b371-545a4c550732");
  EXPECT_EQ(c.machine, "q35+pve0");
  ASSERT_EQ(c.vfio.size(), 2u);
  EXPECT_EQ(c.vfio[0].host, "0000:01:00.0");
  EXPECT_EQ(c.vfio[0].id, "hostpci0.0");
  EXPECT_EQ(c.vfio[1].id, "hostpci0.1");
  EXPECT_EQ(c.vfio[0].bus, "ich9-pcie-port-1");
}

TEST(QemuCmdline, SeedHostArgvRootPortsAndNuma) {
  std::string data = HvCorpus("qemu-cmdline", "seed-host-vm100.cmdline");
  std::vector<std::string> argv;
  for (auto w : Split(data, '\0'))
    if (!w.empty()) argv.emplace_back(w);
  ASSERT_TRUE(LooksLikeQemu(argv));
  auto c = ParseQemuArgv(argv, "/proc/3021/cmdline");
  EXPECT_TRUE(c.problems.empty()) << c.problems[0];
  ASSERT_EQ(c.vfio.size(), 8u);
  EXPECT_EQ(c.vfio[4].host, "0000:71:00.0");
  EXPECT_EQ(c.vfio[4].bus, "ich9-pcie-port-5");
  // Ports 5-8 from the command line, 1-4 from Proxmox's pve-q35-4.0.cfg.
  ASSERT_EQ(c.root_ports.size(), 8u);
  EXPECT_EQ(c.root_ports[0].id, "ich9-pcie-port-5");
  EXPECT_EQ(c.root_ports[0].port, 5);
  ASSERT_EQ(c.numa.size(), 2u);
  EXPECT_EQ(c.numa[1].cpus, "32-63");
}

// A pasted command line is split into words as sh splits it: the shell itself is the oracle
// (eval "set -- TEXT", each word printed NUL-terminated). Quotes of both kinds, the escapes a
// backslash makes in double quotes and outside them, literal backslashes in single quotes,
// empty words, tabs and line continuations.
TEST(QemuCmdline, SplitShellWordsSplitsAsShDoes) {
  const std::vector<std::string> texts = {
      "qemu-system-x86_64 -device 'vfio-pci,host=0000:01:00.0,id=hostpci0' -name \"a b\"",
      "\"x\\\"y\" \"back\\\\slash\" \"dollar\\$sign\" \"tick\\`\" \"kept\\n\\a\"",
      "'single\\still' 'it''s' \"mixed\"'quotes'plain",
      "esc\\ aped \\'q \\\"d \\\\b",
      "a \\\n b \"in\\\nside\"\tc\t\t'' \"\" end",
      "-object '{\"qom-type\":\"memory-backend-ram\",\"id\":\"ram-node0\"}'",
  };
  for (const auto& t : texts) {
    SCOPED_TRACE(t);
    auto sh = testing::RunProcess(
        {"sh", "-c", "eval \"set -- $1\" && for a; do printf '%s\\0' \"$a\"; done", "sh", t});
    ASSERT_EQ(sh.exit_code, 0) << sh.err;
    std::vector<std::string> want;
    for (size_t a = 0, b; (b = sh.out.find('\0', a)) != std::string::npos; a = b + 1)
      want.push_back(sh.out.substr(a, b - a));
    std::string error;
    EXPECT_EQ(SplitShellWords(t, &error), want);
    EXPECT_EQ(error, "");
  }
}

// QEMU takes an option with two dashes as with one: "--device" is "-device".
TEST(QemuCmdline, TwoDashesAreOne) {
  for (const char* dashes : {"-", "--"}) {
    SCOPED_TRACE(dashes);
    auto c = ParseQemuArgv({"/usr/bin/qemu-system-x86_64", std::string(dashes) + "device",
                            "vfio-pci,host=0000:01:00.0,id=hostpci0,bus=pci.0"},
                           "argv");
    ASSERT_EQ(c.vfio.size(), 1u);
    EXPECT_EQ(c.vfio[0].id, "hostpci0");
  }
}

// A paste cut after a backslash inside double quotes: the backslash is kept and the quote is
// unbalanced; nothing past the end of the text is read (the view below stops before a newline
// that a read past its end would take for a line continuation).
TEST(QemuCmdline, SplitShellWordsStopsAtTheEndOfACutPaste) {
  const std::string buffer = "-name \"a\\\n";
  std::string error;
  auto words = SplitShellWords(std::string_view(buffer).substr(0, buffer.size() - 1), &error);
  EXPECT_EQ(words, (std::vector<std::string>{"-name", "a\\"}));
  EXPECT_EQ(error, "unbalanced \" quote");
}

TEST(QemuCmdline, DevicesItDoesNotUnderstandAreProblems) {
  auto c = ParseQemuShellText(HvCorpus("qemu-cmdline", "bad-devices.txt"), "pasted");
  EXPECT_TRUE(HvHasProblem(c.problems, "vfio-pci host='zz:00.0' is not a PCI address"));
  EXPECT_TRUE(HvHasProblem(c.problems, "device model 'mystery-dev' not known to dossier"));
  EXPECT_TRUE(HvHasProblem(c.problems, "vfio-pci without host= or sysfsdev="));
  EXPECT_TRUE(HvHasProblem(c.problems, "-set device.hostpci9.x-nv-gpudirect-clique=0 names no"));
  EXPECT_TRUE(HvHasProblem(c.problems, "unbalanced ' quote"));
}

TEST(LibvirtDomain, RunningDomainWithHostdevsAndNumaBinding) {
  auto d = ParseLibvirtDomain(HvCorpus("libvirt-domain", "gpu-guest-running.xml"), "llm.xml");
  ASSERT_TRUE(d.ok);
  EXPECT_TRUE(d.problems.empty()) << d.problems[0];
  EXPECT_EQ(d.vm.id, "llm-guest");
  EXPECT_EQ(*d.vm.smbios_uuid, "3b2f5c6e-8a1d-4e2b-9c7f-1a2b3c4d5e6f");
  EXPECT_TRUE(*d.vm.running);
  EXPECT_EQ(*d.vm.pid, 4242);
  EXPECT_EQ(*d.vm.machine, "pc-q35-8.2");
  ASSERT_EQ(d.vm.numa_nodes.size(), 2u);
  EXPECT_EQ(*d.vm.numa_nodes[1].hostnodes, "1");
  ASSERT_EQ(d.vm.hostpci.size(), 2u);
  EXPECT_EQ(*d.vm.hostpci[1].host, "0000:c1:00.0");
  EXPECT_EQ(*d.vm.hostpci[1].guest_bus, "0000:06:00.0");
  EXPECT_EQ(d.vm.hostpci[1].host.source, "llm.xml:33");
  // <qemu:commandline>'s arguments, in order (known first: reading an unknown fact's value is
  // undefined, and a mutant that lost the arguments survived an -O0 build on a freed string).
  ASSERT_TRUE(d.vm.args.known()) << d.vm.args.unknown;
  EXPECT_EQ(*d.vm.args, "-set device.hostdev0.x-nv-gpudirect-clique=0");
  EXPECT_EQ(d.vm.args.source, "llm.xml");
}

// libvirt with QEMU >= 6.2 passes -device and -object as JSON: the same facts as key=value.
TEST(QemuCmdline, LibvirtJsonDevicesAndMemoryBackends) {
  std::string data = HvCorpus("qemu-cmdline", "libvirt-json-devices.cmdline");
  std::vector<std::string> argv;
  for (auto w : Split(data, '\0'))
    if (!w.empty()) argv.emplace_back(w);
  ASSERT_TRUE(LooksLikeQemu(argv));
  auto c = ParseQemuArgv(argv, "/proc/41877/cmdline");
  EXPECT_TRUE(c.problems.empty()) << c.problems[0];
  EXPECT_TRUE(c.json_devices);
  EXPECT_EQ(c.name, "gpuvm");
  EXPECT_EQ(c.smbios_uuid, "8e4c2f1a-7d3b-4a96-b5e0-1c9f6a2d4e87");  // from -uuid
  ASSERT_EQ(c.vfio.size(), 4u);
  EXPECT_EQ(c.vfio[0].host, "0000:43:00.0");
  EXPECT_EQ(c.vfio[0].id, "hostdev1");
  EXPECT_EQ(c.vfio[0].bus, "pci.5");
  ASSERT_EQ(c.root_ports.size(), 8u);
  EXPECT_EQ(c.root_ports[4].id, "pci.5");
  EXPECT_EQ(c.root_ports[4].port, 20);
  ASSERT_EQ(c.numa.size(), 2u);
  EXPECT_EQ(c.numa[1].hostnodes, "1");
  EXPECT_EQ(c.numa[1].policy, "bind");
  // Key=value devices are not JSON.
  EXPECT_FALSE(ParseQemuArgv({"/usr/bin/kvm", "-device", "vfio-pci,host=01:00.0,id=hostpci0"}, "x")
                   .json_devices);
}

TEST(QemuCmdline, DamagedJsonDevicesAreProblemsNotCrashes) {
  std::string data = HvCorpus("qemu-cmdline", "libvirt-json-damaged.cmdline");
  std::vector<std::string> argv;
  for (auto w : Split(data, '\0'))
    if (!w.empty()) argv.emplace_back(w);
  auto c = ParseQemuArgv(argv, "p");
  EXPECT_TRUE(HvHasProblem(c.problems, "starts with '{' but is not a JSON object"));
  EXPECT_TRUE(HvHasProblem(c.problems, "vfio-pci host='0000:zz:00.0' is not a PCI address"));
}

// The slots are libvirt's device aliases: a USB hostdev before the GPUs takes hostdev0.
TEST(LibvirtDomain, SlotsAreTheDeviceAliasesCountingEveryHostdev) {
  auto run = ParseLibvirtDomain(HvCorpus("libvirt-domain", "libvirt-host-gpuvm-running.xml"), "r");
  ASSERT_TRUE(run.ok);
  ASSERT_EQ(run.vm.hostpci.size(), 4u);
  EXPECT_EQ(run.vm.hostpci[0].slot, "hostdev1");
  EXPECT_EQ(run.vm.hostpci[3].slot, "hostdev4");
  // Without <alias> (the defined domain): libvirt's numbering over every <hostdev>.
  std::string xml = HvCorpus("libvirt-domain", "libvirt-host-gpuvm-running.xml");
  for (size_t at; (at = xml.find("<alias name='hostdev")) != std::string::npos;)
    xml.erase(at, xml.find("/>", at) + 2 - at);
  auto def = ParseLibvirtDomain(xml, "d");
  ASSERT_EQ(def.vm.hostpci.size(), 4u);
  EXPECT_EQ(def.vm.hostpci[0].slot, "hostdev1");
  EXPECT_EQ(*def.vm.hostpci[2].host, "0000:c1:00.0");
}

// Each form of a <hostdev>'s <source><address>: hex and decimal, the domain and function
// optional, each field at its largest and one past it, each required field missing. One past or
// missing is a problem and no host address, never a partly read one.
// Property strings as Proxmox and QEMU write them: a bare first item, key=value items, QEMU's ",,"
// for a comma inside a value, an '=' inside a value, empty items dropped and empty values kept.
TEST(Options, SplitOptionsItemByItem) {
  using V = std::vector<std::pair<std::string, std::string>>;
  auto split = [](std::string_view s) {
    V v;
    for (const auto& o : SplitOptions(s)) v.emplace_back(o.key, o.value);
    return v;
  };
  EXPECT_EQ(split("0000:01:00,pcie=1,x-vga=1"),
            (V{{"", "0000:01:00"}, {"pcie", "1"}, {"x-vga", "1"}}));
  EXPECT_EQ(split("vfio-pci,host=0000:01:00.0,id=hostpci0"),
            (V{{"", "vfio-pci"}, {"host", "0000:01:00.0"}, {"id", "hostpci0"}}));
  EXPECT_EQ(split("a,,b,c=d,,e"), (V{{"", "a,b"}, {"c", "d,e"}}));
  EXPECT_EQ(split("a,,,b"), (V{{"", "a,"}, {"", "b"}}));
  EXPECT_EQ(split("k=,=v,x=a=b"), (V{{"k", ""}, {"", "v"}, {"x", "a=b"}}));
  EXPECT_EQ(split("x=1,,"), (V{{"x", "1,"}}));
  EXPECT_EQ(split(",x=1,,,"), (V{{"x", "1,"}}));
  EXPECT_EQ(split(""), V{});
  auto opts = SplitOptions("host=0000:01:00.0,id=a,id=b,multifunction=on");
  ASSERT_NE(FindOption(opts, "id"), nullptr);
  EXPECT_EQ(*FindOption(opts, "id"), "a");  // the first of two
  EXPECT_EQ(FindOption(opts, "rombar"), nullptr);
  EXPECT_EQ(FindOption(opts, ""), nullptr);
}

TEST(LibvirtDomain, EachAddressFieldAtItsLimitAndPastIt) {
  struct Case {
    const char* attrs;
    const char* want;  // "" = not usable
  };
  const Case cases[] = {
      {"domain='0x0000' bus='0x41' slot='0x00' function='0x0'", "0000:41:00.0"},
      {"bus='0x41' slot='0x00' function='0x0'", "0000:41:00.0"},   // domain defaults to 0
      {"domain='0x0001' bus='0x41' slot='0x03'", "0001:41:03.0"},  // function defaults to 0
      {"domain='0' bus='65' slot='3' function='1'", "0000:41:03.1"},
      {"domain='0xffff' bus='0xff' slot='0x1f' function='0x7'", "ffff:ff:1f.7"},
      {"domain='0x10000' bus='0x41' slot='0x00'", ""},
      {"domain='0x0000' bus='0x100' slot='0x00'", ""},
      {"domain='0x0000' bus='0x41' slot='0x20'", ""},
      {"domain='0x0000' bus='0x41' slot='0x00' function='0x8'", ""},
      {"domain='0x0000' slot='0x00' function='0x0'", ""},
      {"domain='0x0000' bus='0x41' function='0x0'", ""},
      {"domain='0x0000' bus='zz' slot='0x00'", ""},
      {"domain='0x0000' bus='0x41' slot='-1'", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.attrs);
    std::string xml = std::string(
                          "<domain type='kvm'><name>vm</name><devices>"
                          "<hostdev mode='subsystem' type='pci' managed='yes'><source><address ") +
                      c.attrs + "/></source></hostdev></devices></domain>";
    auto d = ParseLibvirtDomain(xml, "vm.xml");
    ASSERT_TRUE(d.ok);
    if (*c.want) {
      ASSERT_EQ(d.vm.hostpci.size(), 1u);
      EXPECT_EQ(d.vm.hostpci[0].host.value_or("unknown"), c.want);
      EXPECT_FALSE(HvHasProblem(d.problems, "without a usable")) << d.problems.size();
    } else {
      EXPECT_TRUE(HvHasProblem(d.problems, "<hostdev> without a usable <source><address>"));
      for (const auto& h : d.vm.hostpci) EXPECT_FALSE(h.host.known()) << *h.host;
    }
  }
}

TEST(LibvirtDomain, BrokenXmlIsAProblemWithItsLine) {
  auto d = ParseLibvirtDomain(HvCorpus("libvirt-domain", "truncated.xml"), "t.xml");
  EXPECT_FALSE(d.ok);
  EXPECT_TRUE(HvHasProblem(d.problems, "t.xml:1: not valid XML"));
  EXPECT_FALSE(ParseLibvirtDomain("<network/>", "n.xml").ok);
}

TEST(MappingCheck, AsProxmoxChecksAtVmStart) {
  auto p = ParsePciCfg(HvCorpus("pci-cfg", "two-nodes-with-comments.cfg"), "pci.cfg");
  PciInfo pci;
  auto dev = [&](const std::string& addr, int64_t group, const std::string& device) {
    PciDevice d;
    d.address = addr;
    d.vendor_id = Known(std::string("0x10de"), "x");
    d.device_id = Known(device, "x");
    d.subsystem_vendor_id = Known(std::string("0x10de"), "x");
    d.subsystem_device_id = Known(std::string("0x1851"), "x");
    d.iommu_group = Known(group, "x");
    pci.devices.push_back(d);
  };
  dev("0000:41:00.0", 15, "0x26b9");  // gpu0: group renumbered 14 -> 15
  dev("0000:42:00.0", 15, "0x26b5");  // gpu1: another device model now
  CheckPciMappings("pve1", pci, "/sys/bus/pci/devices", &p.mappings);
  const auto& g0 = p.mappings[0].entries;
  EXPECT_EQ(*g0[0].status, "stale");
  EXPECT_EQ(*g0[0].iommu_group_now, 15);
  EXPECT_EQ(*g0[0].problem, "'iommugroup' does not match for 'gpu0' (14 != 15)");
  EXPECT_EQ(*g0[1].status, "other-node");
  EXPECT_EQ(*p.mappings[1].entries[0].problem,
            "'id' does not match for 'gpu1' (10de:26b9 != 10de:26b5)");
  pci.devices.erase(pci.devices.begin());
  CheckPciMappings("pve1", pci, "/sys/bus/pci/devices", &p.mappings);
  EXPECT_EQ(*p.mappings[0].entries[0].status, "missing");
}

}  // namespace
// Each form Proxmox and QEMU write a PCI address in, the function filled only where none was
// written (an explicit .0 stays .0 whatever the default), and each way a text is not one.
TEST(FullPciAddress, EachFormAndEachRefusal) {
  EXPECT_EQ(FullPciAddress("01:00"), "0000:01:00.0");
  EXPECT_EQ(FullPciAddress("01:00", 3), "0000:01:00.3");
  EXPECT_EQ(FullPciAddress("01:00.0", 3), "0000:01:00.0");
  EXPECT_EQ(FullPciAddress("0000:01:00.0", 5), "0000:01:00.0");
  EXPECT_EQ(FullPciAddress("1:0.0"), "0000:01:00.0");
  EXPECT_EQ(FullPciAddress(" 0001:C1:1F.7 "), "0001:c1:1f.7");
  EXPECT_TRUE(IsWholeDevice("0000:01:00"));
  EXPECT_FALSE(IsWholeDevice("0000:01:00.0"));
  for (const char* bad : {"", "01", "01:20.0", "01:00.8", "00001:01:00.0", "001:00.0", "zz:00.0",
                          "01:00.0.1", "a:b:c:d"})
    EXPECT_EQ(FullPciAddress(bad), "") << bad;
}

}  // namespace dossier::hypervisor
