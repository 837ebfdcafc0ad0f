// What dossier writes is acted on (#30) and checked by what consumes it (#29): a libvirt block
// pasted into `virsh edit`, a systemd unit installed as root, a Proxmox args: line, shell lines
// in the notes, an NCCL topology file, a pci.cfg; the files --output and --save-result name; the
// records a stop must not lose; the fleet's nodes. Each test feeds the input that broke it (an
// alias closing <qemu:override>, a machine name holding "\n[Service]\n", two SIGTERMs, two
// machines under one name …) and reads the artifact back the way its consumer does: pugixml and
// xmllint, systemd-analyze verify, /bin/sh with stand-in commands that record the argv they get,
// the project's own pci.cfg parser.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "generate/generator.h"
#include "generate/quote.h"
#include "generate/unified_diff.h"
#include "hypervisor/pci_cfg.h"
#include "tests/artifact_checks.h"
#include "tests/fixture_trees.h"
#include "tests/front_door.h"
#include "tests/generator_views.h"
#include "tests/hostile_server.h"
#include "tests/run_process.h"
#include "tests/standin_paths.h"
#include "tests/standins/openai_standin.h"
#include "tests/temp_dir.h"
#include "util/machine_name.h"
#include "util/text.h"

namespace dossier::advart {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::GeneratorFields;
using testing::GeneratorView;
using testing::RunDossier;
using testing::RunProcess;
using testing::Slurp;
using testing::TempDir;

const std::string kServiceName = "pve\n[Service]\nExecStartPre=/bin/touch /tmp/PWNED\n#";
const std::string kOverrideAlias =
    "x'/></qemu:device></qemu:override><qemu:commandline><qemu:arg value='-chardev'/>"
    "<qemu:arg value='pipe,id=pwn,path=/tmp/PWNED'/></qemu:commandline><qemu:override>"
    "<qemu:device alias='y";
// Values a shell treats specially, each alone and together.
const std::vector<std::string> kShellHostile = {"it's",       "say \"hi\"", "$HOME",
                                                "a\\b",       "two words",  "line\nbreak",
                                                "$(touch x)", "`id`",       "'\"$\\ \n;|&"};

std::string Collect(const std::string& dossier, const std::string& tree,
                    std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"collect",   "-q",   "--root", testing::FixtureTree(tree),
                                "--dossier", dossier};
  a.insert(a.end(), extra.begin(), extra.end());
  auto r = RunDossier(a);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.err;
}

// A string as it is inside a JSON string (no quotes).
std::string JsonInner(const std::string& s) {
  std::string d = json(s).dump();
  return d.substr(1, d.size() - 2);
}

// Every record of the dossier with `from` replaced by `to` (JSON-escaped): records that came from
// elsewhere can hold anything.
void RewriteRecords(const std::string& dossier, const std::string& from, const std::string& to) {
  for (const auto& e : fs::directory_iterator(dossier + "/records")) {
    std::string text = Slurp(e.path());
    for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
      text.replace(at, from.size(), to);
    std::ofstream(e.path(), std::ios::binary | std::ios::trunc) << text;
  }
}

// A directory of stand-in commands, each writing the arguments it got (NUL after each) to
// $ARGV_OUT/<name>.
struct StandinBin {
  TempDir t;
  std::string bin = t.path() + "/bin", out = t.path() + "/argv";
  explicit StandinBin(const std::vector<std::string>& names) {
    fs::create_directories(bin);
    fs::create_directories(out);
    for (const auto& n : names) {
      std::string p = bin + "/" + n;
      std::ofstream(p) << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >> \"" << out
                       << "/" << n << "\"\n";
      fs::permissions(p, fs::perms::owner_all);
    }
  }
  // Runs `line` with /bin/sh, the stand-ins first on PATH.
  testing::ProcessResult Sh(const std::string& line) const {
    return RunProcess({"/bin/sh", "-c", "PATH='" + bin + "':\"$PATH\"; export PATH; " + line});
  }
  std::vector<std::string> Argv(const std::string& name) const {
    std::string text = Slurp(out + "/" + name);
    std::vector<std::string> v;
    for (size_t b = 0, e; (e = text.find('\0', b)) != std::string::npos; b = e + 1)
      v.push_back(text.substr(b, e - b));
    return v;
  }
};

bool XmllintAccepts(const std::string& xml, std::string* out) {
  TempDir t;
  std::ofstream(t.path() + "/f.xml") << xml;
  auto r = RunProcess({"xmllint", "--noout", t.path() + "/f.xml"});
  *out = r.err;
  return r.exit_code == 0;
}

// --- 1. Code injection into root-run artifacts --------------------------------------------------

// An alias from the domain XML cannot close <qemu:override> and open <qemu:commandline> (QEMU
// arguments run as root): it is outside libvirt's alias syntax and left out, and what is written
// parses back to qemu:device elements only.
TEST(Adversarial, LibvirtAliasCannotCloseTheOverrideBlock) {
  for (bool json_devices : {true, false}) {
    SCOPED_TRACE(json_devices ? "override" : "commandline");
    GeneratorFields f;
    f.libvirt = true;
    f.json_devices = json_devices;
    f.slots = {kOverrideAlias, "hostdev2", "ua-gpu_3", "hostdev4"};
    auto r = GenerateQemuArgs({}, GeneratorView(f), Analysis{});
    ASSERT_TRUE(r) << r.error().message;
    std::vector<std::string> ids;
    EXPECT_EQ(testing::LibvirtBlockProblem(r->text, &ids), "") << r->text;
    EXPECT_EQ(ids, (std::vector<std::string>{"hostdev2", "ua-gpu_3", "hostdev4"})) << r->text;
    EXPECT_EQ(r->text.find("PWNED"), std::string::npos) << r->text;
    EXPECT_NE(r->notes.find("is not a valid libvirt alias"), std::string::npos) << r->notes;
    // The left-out GPU is named once, where it is said why; no pair or clique line has it.
    const std::string start = kOverrideAlias.substr(0, 24);  // the notes cut a long id
    size_t named = 0;
    for (size_t at = r->notes.find(start); at != std::string::npos;
         at = r->notes.find(start, at + 1))
      ++named;
    EXPECT_EQ(named, 1u) << r->notes;
    if (testing::OnPath("xmllint")) {
      std::string err;
      EXPECT_TRUE(
          XmllintAccepts("<domain xmlns:qemu='http://libvirt.org/schemas/domain/qemu/"
                         "1.0'>\n" +
                             r->text + "</domain>\n",
                         &err))
          << err;
    }
  }
}

// The same through the front door: the alias is in the host's stored record (an import from
// elsewhere, a hand-edited file); whatever generate prints has no injected element.
TEST(Adversarial, LibvirtAliasFromTheRecordsIsLeftOut) {
  TempDir t;
  const std::string d = t.path() + "/d";
  Collect(d, "libvirt-guest");
  Collect(d, "libvirt-host");
  RewriteRecords(d, "hostdev2", JsonInner(kOverrideAlias));
  auto r = RunDossier({"generate", "qemu-args", "--machine", "gpuvm", "--dossier", d});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << r.err;
  EXPECT_EQ(r.out.find("commandline"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("PWNED"), std::string::npos) << r.out;
  if (!r.out.empty()) {
    EXPECT_EQ(testing::LibvirtBlockProblem(r.out, nullptr), "") << r.out;
  }
  EXPECT_NE(r.err.find("is not a valid libvirt alias"), std::string::npos) << r.err;
}

TEST(Adversarial, MachineNamesAreCheckedWhereTheyEnter) {
  TempDir t;
  const std::string d = t.path() + "/d";
  t.Write("smi.txt", "");
  const std::vector<std::vector<std::string>> doors = {
      {"collect", "-q", "--root", testing::FixtureTree("seed-host"), "--machine"},
      {"import", t.path() + "/smi.txt", "--machine"},
      {"note", "machine"},
      {"note", "tried", "something", "--machine"},
      {"note", "fact", "ACS", "off", "--machine"},
      {"note", "machine", "guest", "--host"},
      {"serve-bench", "http://127.0.0.1:9/v1", "--model", "m", "--machine"},
      {"p2p", "--machine"},
  };
  for (const std::string& bad : {kServiceName, std::string(""), std::string(" "),
                                 std::string(".hidden"), std::string("a b"), std::string("a/b")}) {
    for (auto door : doors) {
      SCOPED_TRACE(door[0] + " " + door[1] + " '" + bad + "'");
      door.push_back(bad);
      door.insert(door.end(), {"--dossier", d});
      auto r = RunDossier(door);
      EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
      EXPECT_NE(r.err.find("a machine name is letters, digits"), std::string::npos) << r.err;
    }
  }
  EXPECT_FALSE(fs::exists(d + "/records")) << "nothing is stored";
  EXPECT_FALSE(fs::exists(d + "/notes.toml"));
  // Hostname-like names pass, '--' included (punycode labels hold it).
  Collect(d, "seed-host", {"--machine", "xn--pve-host_01.lab"});
}

// A machine name in a stored record (from elsewhere, or a hostname read from a tree) can hold
// anything: the unit still has only its own sections and keys.
TEST(Adversarial, NewlineInAStoredMachineNameAddsNoUnitSection) {
  TempDir t;
  const std::string d = t.path() + "/d";
  Collect(d, "seed-guest");
  Collect(d, "seed-host");
  RewriteRecords(d, "\"gpu-vm\"", "\"" + JsonInner("gpu-vm\n" + kServiceName) + "\"");
  RewriteRecords(d, "\"pve\"", "\"" + JsonInner(kServiceName) + "\"");
  const std::string unit = t.path() + "/dossier-gpu-numa.service";
  auto r = RunDossier({"generate", "numa-affinity", "--dossier", d, "--output", unit});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = Slurp(unit);
  std::vector<std::string> commands;
  EXPECT_EQ(testing::UnitProblem(text, &commands), "") << text;
  EXPECT_EQ(commands.size(), 8u) << text;
  EXPECT_EQ(text.find("\nExecStartPre"), std::string::npos) << text;
  EXPECT_NE(text.find("\\x0a[Service]\\x0aExecStartPre"), std::string::npos) << text;
  if (testing::OnPath("systemd-analyze")) {
    auto v = RunProcess({"systemd-analyze", "verify", unit});
    // Outside a booted systemd (a container), verify may fail on the environment: it must not
    // fail on this file's syntax.
    EXPECT_EQ(v.err.find("Unknown section"), std::string::npos) << v.err;
    EXPECT_EQ(v.err.find("ExecStartPre"), std::string::npos) << v.err;
    EXPECT_EQ(v.err.find("Invalid"), std::string::npos) << v.err;
  }
}

TEST(Adversarial, DashesInANameKeepTheNcclTopoWellFormed) {
  TempDir t;
  const std::string d = t.path() + "/d";
  Collect(d, "seed-guest", {"--machine", "gpu--vm-"});
  Collect(d, "seed-host", {"--machine", "pve--"});
  auto r = RunDossier({"generate", "nccl-topo", "--dossier", d});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t pci = 0;
  EXPECT_EQ(testing::NcclTopoProblem(r.out, &pci), "") << r.out;
  EXPECT_GE(pci, 8u);
  if (testing::OnPath("xmllint")) {
    std::string err;
    EXPECT_TRUE(XmllintAccepts(r.out, &err)) << err << r.out;
  }
}

// Every field a generator copies, hostile in turn: each artifact reads back as its consumer
// reads it, holding only what the generator writes.
TEST(Adversarial, GeneratorsQuoteEveryHostileField) {
  std::vector<std::string> hostile = kShellHostile;
  hostile.insert(hostile.end(),
                 {kServiceName, kOverrideAlias, "--x-->", "%n%%%i", "$$X", "]]><!--", "&amp;<>"});
  for (const auto& h : hostile) {
    for (int field = 0; field < 20; ++field) {
      SCOPED_TRACE("field " + std::to_string(field % 10) + (field >= 10 ? " libvirt: " : ": ") + h);
      GeneratorFields f;
      f.libvirt = field >= 10;
      const int which = field % 10;
      std::string* slot[] = {
          &f.guest,    &f.host,      &f.vm_id,      &f.slots[0],  &f.guest_addresses[1],
          &f.class_id, &f.vendor_id, &f.cpu_vendor, &f.vm_config, &f.source};
      *slot[which] = h;
      View v = GeneratorView(f);
      auto numa = GenerateNumaAffinity({}, v, Analysis{});
      ASSERT_TRUE(numa) << numa.error().message;
      std::vector<std::string> commands;
      EXPECT_EQ(testing::UnitProblem(numa->text, &commands), "") << numa->text;
      EXPECT_EQ(commands.size(), which == 4 ? 3u : 4u) << numa->text;
      if (which == 4) {  // the hostile guest address: skipped, quoted, said why
        EXPECT_NE(numa->text.find("# skipped: '" + generate::CommentText(Printable(h)) +
                                  "': not a PCI address (DDDD:BB:DD.F)\n"),
                  std::string::npos)
            << numa->text;
      }
      auto topo = GenerateNcclTopo({}, v, Analysis{});
      ASSERT_TRUE(topo) << topo.error().message;
      EXPECT_EQ(testing::NcclTopoProblem(topo->text), "") << topo->text;
      auto qa = GenerateQemuArgs({}, v, Analysis{});
      ASSERT_TRUE(qa) << qa.error().message;
      if (f.libvirt) {
        EXPECT_EQ(testing::LibvirtBlockProblem(qa->text, nullptr), "") << qa->text;
      } else {
        std::string problem;
        auto w = testing::ShellWords(qa->text.substr(5, qa->text.size() - 6), &problem);
        EXPECT_EQ(problem, "") << qa->text;
        EXPECT_EQ(w.size(), which == 3 ? 6u : 8u) << qa->text;
      }
    }
  }
}

// --- 5. Artifacts checked by their consumers (#29) -----------------------------------------------

// The Proxmox args: line through /bin/sh: the argv that arrives is the -set pairs, one word each.
TEST(ArtifactConsumers, ProxmoxArgsLineArrivesAsItsWords) {
  GeneratorFields f;
  f.slots = {"hostpci0", "hostpci1.0", "hostpci2", "hostpci3"};
  auto r = GenerateQemuArgs({}, GeneratorView(f), Analysis{});
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->text.starts_with("args: ")) << r->text;
  StandinBin sb({"qemu"});
  auto sh = sb.Sh("qemu " + r->text.substr(6));
  ASSERT_EQ(sh.exit_code, 0) << sh.err;
  std::vector<std::string> want;
  for (const char* id : {"hostpci0", "hostpci1.0", "hostpci2", "hostpci3"})
    want.insert(want.end(), {"-set", std::string("device.") + id + ".x-nv-gpudirect-clique=0"});
  EXPECT_EQ(sb.Argv("qemu"), want);
}

// A GPU whose host NUMA node is not known is left out of the topology and said in a comment:
// the file still parses, holds the other GPUs, and the comment names the GPU and why (hostile
// text in the reason stays inside the comment).
TEST(ArtifactConsumers, NcclTopoWithASkippedGpuParsesAndSaysWhichAndWhy) {
  View v = GeneratorView(GeneratorFields{});
  v.links[0].gpus[3].host_numa_node = Fact<int64_t>();
  v.links[0].gpus[3].host_numa_node.Unknown("--> <evil/>", "test");
  v.links[0].gpus[2].host_address = "";
  v.links[0].gpus[2].why = "no host device --><x/>";
  auto topo = GenerateNcclTopo({}, v, Analysis{});
  ASSERT_TRUE(topo) << topo.error().message;
  size_t pci = 0;
  EXPECT_EQ(testing::NcclTopoProblem(topo->text, &pci), "") << topo->text;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(topo->text.c_str(), pugi::parse_default | pugi::parse_comments));
  std::vector<std::string> comments, busids;
  for (auto n : doc.children())
    if (n.type() == pugi::node_comment) comments.push_back(n.value());
  for (auto n : doc.select_nodes("//pci[@busid]"))
    busids.push_back(n.node().attribute("busid").value());
  auto has = [&](const std::string& what) {
    for (const auto& c : comments)
      if (c.find(what) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("skipped: 0000:04:00.0: 0000:82:00.0 has no known host NUMA node")) << topo->text;
  EXPECT_TRUE(has("skipped: 0000:03:00.0: no host device")) << topo->text;
  // The last comment says how to check NCCL read the file, for every GPU of the guest.
  ASSERT_FALSE(comments.empty());
  EXPECT_EQ(comments.back().find(" Verify: NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH "
                                 "NCCL_TOPO_FILE=nccl_topo.xml all_reduce_perf -b 8K -e 1M -g " +
                                 std::to_string(v.links[0].gpus.size()) + " 2>&1 | grep"),
            0u)
      << comments.back();
  for (const char* gone : {"0000:03:00.0", "0000:04:00.0"})
    EXPECT_EQ(std::find(busids.begin(), busids.end(), gone), busids.end()) << gone;
  for (const char* kept : {"0000:01:00.0", "0000:02:00.0"})
    EXPECT_NE(std::find(busids.begin(), busids.end(), kept), busids.end()) << kept;
}

// The numa-affinity unit's suggested binding splits the VM's memory over the host nodes only
// when the memory is known and above zero: unknown or 0 MiB writes no memory= at all.
TEST(ArtifactConsumers, NumaBindLinesSplitTheVmMemoryOnlyWhenKnown) {
  struct Case {
    std::optional<int64_t> mib;
    std::string line0, line1;
  };
  for (const Case& c :
       std::vector<Case>{{std::nullopt, "#   numa0: cpus=0-3,hostnodes=0,policy=bind\n",
                          "#   numa1: cpus=4-7,hostnodes=1,policy=bind\n"},
                         {0, "#   numa0: cpus=0-3,hostnodes=0,policy=bind\n",
                          "#   numa1: cpus=4-7,hostnodes=1,policy=bind\n"},
                         {8192, "#   numa0: cpus=0-3,hostnodes=0,memory=4096,policy=bind\n",
                          "#   numa1: cpus=4-7,hostnodes=1,memory=4096,policy=bind\n"}}) {
    SCOPED_TRACE(c.mib ? std::to_string(*c.mib) : "unknown");
    View v = GeneratorView(GeneratorFields{});
    if (c.mib) v.machines[0].machine.hypervisor.vms[0].memory_mib.Set(*c.mib, "test");
    auto numa = GenerateNumaAffinity({}, v, Analysis{});
    ASSERT_TRUE(numa) << numa.error().message;
    EXPECT_NE(numa->text.find(c.line0), std::string::npos) << numa->text;
    EXPECT_NE(numa->text.find(c.line1), std::string::npos) << numa->text;
    std::string problem = testing::UnitProblem(numa->text, nullptr);
    EXPECT_EQ(problem, "") << numa->text;
  }
}

// The commands in notes and verify lines carry a VM id, a path, a mapping name from the dossier:
// the argv that arrives is exactly that value, whatever it holds.
TEST(ArtifactConsumers, VerifyCommandsPassHostileValuesAsOneArgument) {
  for (const auto& h : kShellHostile) {
    SCOPED_TRACE(h);
    GeneratorFields f;
    f.vm_id = h;
    auto r = GenerateQemuArgs({}, GeneratorView(f), Analysis{});
    ASSERT_TRUE(r) << r.error().message;
    StandinBin sb({"qm", "grep"});
    std::string first = r->verify.substr(0, r->verify.find(" | "));
    auto sh = sb.Sh(first);
    EXPECT_EQ(sh.exit_code, 0) << first << sh.err;
    EXPECT_EQ(sb.Argv("qm"), (std::vector<std::string>{"showcmd", h})) << first;

    GenerateArgs a;
    a.output = "/tmp/" + h + ".xml";
    auto topo = GenerateNcclTopo(a, GeneratorView(GeneratorFields{}), Analysis{});
    ASSERT_TRUE(topo) << topo.error().message;
    StandinBin nb({"all_reduce_perf"});
    std::string line = topo->verify.substr(0, topo->verify.find(" 2>&1"));
    // The stand-in records the variable the command set for it.
    std::ofstream(nb.bin + "/all_reduce_perf")
        << "#!/bin/sh\nprintf '%s\\0' \"$NCCL_TOPO_FILE\" > \"" << nb.out << "/all_reduce_perf\"\n";
    auto sh2 = nb.Sh(line);
    EXPECT_EQ(sh2.exit_code, 0) << line << sh2.err;
    EXPECT_EQ(nb.Argv("all_reduce_perf"), std::vector<std::string>{a.output}) << line;
  }
}

// A Proxmox host named and noded "pve" whose pci.cfg is `cfg` (read from `path`) with `mappings`.
MachineView PveHostWithPciCfg(const std::string& cfg, const std::string& path,
                              const std::vector<PciMapping>& mappings) {
  MachineView host;
  host.machine.name = "pve";
  HypervisorInfo& hv = host.machine.hypervisor;
  hv.kind.Set("proxmox", "test");
  hv.node.Set("pve", "test");
  hv.pci_cfg.Set(cfg, path);
  hv.pci_mappings = mappings;
  return host;
}

// What the generator could not read in pci.cfg (an unknown map item, a path that is no PCI
// address, a group that is no number) is said in its notes, one "Note:" line each, even when
// there is nothing to correct.
TEST(ArtifactConsumers, PveMappingNotesWhatItCouldNotRead) {
  const std::string path = "/etc/pve/mapping/pci.cfg";
  const std::string cfg =
      "gpu0\n\tmap id=10de:2bb1,iommugroup=44,node=pve,path=0000:f1:00.0,colour=blue\n"
      "\tmap id=10de:2bb1,iommugroup=x,node=pve,path=nonsense\n";
  auto parsed = hypervisor::ParsePciCfg(cfg, path);
  ASSERT_EQ(parsed.problems.size(), 3u);
  View v;
  v.machines = {PveHostWithPciCfg(cfg, path, parsed.mappings)};
  auto r = GeneratePveMapping({}, v, Analysis{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(r->notes.find("Nothing to correct"), std::string::npos) << r->notes;
  for (const auto& p : parsed.problems)
    EXPECT_NE(r->notes.find("Note: " + p + "\n"), std::string::npos) << p << "\n" << r->notes;
  for (const char* what : {"'colour'", "'nonsense'", "'x'"})
    EXPECT_NE(r->notes.find(what), std::string::npos) << what << "\n" << r->notes;
}

// Nothing stale: the notes say so and name the node checked, the file printed unchanged (or an
// empty diff with --diff); a host whose node is not known names the nodes its file has.
TEST(ArtifactConsumers, PveMappingWithNothingToCorrectSaysWhichNode) {
  const std::string cfg =
      "gpu0\n\tmap id=10de:2bb1,iommugroup=44,node=pve1,path=0000:f1:00.0\n"
      "\tmap id=10de:2bb1,iommugroup=45,node=pve2,path=0000:e1:00.0\n";
  auto parsed = hypervisor::ParsePciCfg(cfg, "pci.cfg");
  for (bool diff : {false, true}) {
    SCOPED_TRACE(diff);
    View v;
    v.machines = {PveHostWithPciCfg(cfg, "/etc/pve/mapping/pci.cfg", parsed.mappings)};
    GenerateArgs args;
    args.diff = diff;
    auto r = GeneratePveMapping(args, v, Analysis{});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->text, diff ? "" : cfg);
    EXPECT_NE(r->notes.find(
                  "Nothing to correct in /etc/pve/mapping/pci.cfg: no entry of node "
                  "'pve' has a stale IOMMU group" +
                  std::string(diff ? " (empty diff).\n" : "; the file is printed unchanged.\n")),
              std::string::npos)
        << r->notes;
    v.machines[0].machine.hypervisor.node = Fact<std::string>();
    r = GeneratePveMapping(args, v, Analysis{});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_NE(r->notes.find("no entry of node 'pve1', 'pve2' has"), std::string::npos) << r->notes;
  }
}

// pve-mapping --diff is read by patch(1): applied with no fuzz to the original it gives the
// corrected text exactly, with no hunk found at an offset (each header's line numbers are right),
// for changes at the start, the end, near each other (one hunk) and apart (two).
TEST(ArtifactConsumers, UnifiedDiffAppliesWithPatchExactly) {
  if (!testing::OnPath("patch")) GTEST_SKIP() << "no patch(1)";
  std::string a;
  for (int i = 1; i <= 30; ++i) a += "line " + std::to_string(i) + "\n";
  struct Case {
    std::vector<int> changed;  // 0-based lines
    size_t hunks;
  };
  const Case cases[] = {{{0}, 1},     {{2}, 1},     {{3}, 1},        {{29}, 1},
                        {{5, 11}, 1}, {{5, 12}, 2}, {{0, 29}, 2},    {{3, 4, 5}, 1},
                        {{26}, 1},    {{1, 8}, 2},  {{4, 10, 16}, 1}};
  for (const auto& c : cases) {
    std::string trace;
    for (int l : c.changed) trace += std::to_string(l) + " ";
    SCOPED_TRACE(trace);
    std::vector<std::string> lines;
    for (int i = 1; i <= 30; ++i) lines.push_back("line " + std::to_string(i));
    for (int l : c.changed) lines[static_cast<size_t>(l)] += " corrected";
    std::string b;
    for (const auto& l : lines) b += l + "\n";
    std::string diff = generate::UnifiedDiffSameLines(a, b, "a.cfg", "a.cfg (corrected)");
    size_t hunks = 0;
    for (size_t at = 0; (at = diff.find("\n@@ ", at)) != std::string::npos; ++at) ++hunks;
    EXPECT_EQ(hunks, c.hunks) << diff;
    TempDir t;
    std::ofstream(t.path() + "/a.cfg") << a;
    std::ofstream(t.path() + "/fix.patch") << diff;
    auto r = testing::RunProcess({"patch", "--fuzz=0", "-o", t.path() + "/out.cfg",
                                  t.path() + "/a.cfg", t.path() + "/fix.patch"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err << diff;
    EXPECT_EQ(testing::Slurp(t.path() + "/out.cfg"), b) << diff;
    EXPECT_EQ(r.out.find("offset"), std::string::npos) << r.out << diff;
    EXPECT_EQ(r.out.find("fuzz"), std::string::npos) << r.out << diff;
  }
  EXPECT_EQ(generate::UnifiedDiffSameLines(a, a, "a", "b"), "");
}

// A VM whose guest nodes are bound crosswise (guest 0 on host node 1, guest 1 on host node 0):
// the NCCL topology puts each GPU under the guest node bound to its host node, not under the
// guest node of the same number, and a guest node with no binding is passed over.
TEST(ArtifactConsumers, NcclTopoPutsGpusUnderTheGuestNodeBoundToTheirHostNode) {
  View v = GeneratorView(GeneratorFields{});
  Vm& vm = v.machines[0].machine.hypervisor.vms[0];
  VmNumaNode unbound, n0, n1;
  unbound.id = 2;  // listed first, bound nowhere: never the answer
  n0.id = 0;
  n0.hostnodes.Set("1", "test");
  n1.id = 1;
  n1.hostnodes.Set("0", "test");
  vm.numa_nodes = {unbound, n0, n1};
  auto topo = GenerateNcclTopo({}, v, Analysis{});
  ASSERT_TRUE(topo) << topo.error().message;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(topo->text.c_str()));
  std::map<std::string, std::string> node_of;  // GPU (guest address) -> numaid of its <cpu>
  for (auto cpu : doc.child("system").children("cpu"))
    for (auto p : cpu.select_nodes(".//pci[@busid]"))
      node_of[p.node().attribute("busid").value()] = cpu.attribute("numaid").value();
  EXPECT_EQ(node_of["0000:01:00.0"], "1") << topo->text;  // host node 0 -> guest node 1
  EXPECT_EQ(node_of["0000:02:00.0"], "1") << topo->text;
  EXPECT_EQ(node_of["0000:03:00.0"], "0") << topo->text;  // host node 1 -> guest node 0
  EXPECT_EQ(node_of["0000:04:00.0"], "0") << topo->text;
}

// Each way a machine name is refused, the message in full: the name quoted and escaped, and the
// rule; 253 characters pass and 254 do not.
TEST(MachineName, EachRefusalQuotesTheNameAndStatesTheRule) {
  const std::string rule =
      ": a machine name is letters, digits, '.', '-' and '_', starting with a letter or a digit "
      "(like a hostname), at most 253 characters";
  EXPECT_EQ(MachineNameProblem(""), "'' is empty" + rule);
  EXPECT_EQ(MachineNameProblem(" \t"), "' \\x09' is empty" + rule);
  EXPECT_EQ(MachineNameProblem("-pve"), "'-pve'" + rule);
  EXPECT_EQ(MachineNameProblem("_pve"), "'_pve'" + rule);
  EXPECT_EQ(MachineNameProblem("pve/1"), "'pve/1'" + rule);
  EXPECT_EQ(MachineNameProblem("pve\nx"), "'pve\\x0ax'" + rule);
  EXPECT_EQ(MachineNameProblem("pve x"), "'pve x'" + rule);
  EXPECT_EQ(MachineNameProblem(std::string(254, 'a')), "the name is 254 characters" + rule);
  for (const std::string& ok :
       std::vector<std::string>{"pve", "0node", "Z", "gpu-vm_01.lab", std::string(253, 'a'),
                                std::string("a") + std::string(252, '-')})
    EXPECT_EQ(MachineNameProblem(ok), "") << ok;
}

// A pci.cfg known from a paste is corrected as the host's file: the diff and the notes name
// /etc/pve/mapping/pci.cfg (what to patch on the host), and the notes say where it was read from;
// a collected one has no such line.
TEST(ArtifactConsumers, PveMappingFromAPasteNamesTheHostsFile) {
  const std::string cfg =
      "gpu0\n\tmap id=10de:2bb1,iommugroup=44,node=pve,path=0000:f1:00.0,subsystem-id=10de:204b\n";
  for (const std::string source :
       {"imported: host.txt:40 (pve-pci-cfg)", "/etc/pve/mapping/pci.cfg"}) {
    SCOPED_TRACE(source);
    auto parsed = hypervisor::ParsePciCfg(cfg, "pci.cfg");
    MachineView host = PveHostWithPciCfg(cfg, source, parsed.mappings);
    host.machine.hypervisor.pci_mappings[0].entries[0].status.Set("stale", "t");
    host.machine.hypervisor.pci_mappings[0].entries[0].iommu_group_now.Set(36, "t");
    View v;
    v.machines = {host};
    GenerateArgs args;
    args.diff = true;
    auto r = GeneratePveMapping(args, v, Analysis{});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->text.rfind(
                  "--- /etc/pve/mapping/pci.cfg\n+++ /etc/pve/mapping/pci.cfg (corrected)\n", 0),
              0u)
        << r->text;
    EXPECT_NE(r->notes.find("write it over /etc/pve/mapping/pci.cfg on the host"),
              std::string::npos)
        << r->notes;
    EXPECT_EQ(
        r->notes.find("Read from imported: host.txt:40 (pve-pci-cfg).\n") != std::string::npos,
        source.starts_with("imported: "))
        << r->notes;
    EXPECT_EQ(r->notes.find("imported: host.txt") != std::string::npos,
              source.starts_with("imported: "))
        << r->notes;
    // Each VM that uses the corrected mapping is started and its command line checked, one
    // command after the other (run by sh with stand-ins for qm and grep: each call as it arrives).
    EXPECT_EQ(r->verify, "qm start VMID && qm showcmd VMID --pretty | grep vfio-pci");
    Vm a, b;
    a.id = "101";
    b.id = "100";
    VmHostPci h;
    h.mapping.Set("gpu0", "t");
    a.hostpci = b.hostpci = {h};
    v.machines[0].machine.hypervisor.vms = {a, b};
    r = GeneratePveMapping(args, v, Analysis{});
    ASSERT_TRUE(r) << r.error().message;
    const std::string cmd = r->verify.substr(0, r->verify.find("   #"));
    EXPECT_EQ(cmd,
              "qm start 101 && qm showcmd 101 --pretty | grep vfio-pci; "
              "qm start 100 && qm showcmd 100 --pretty | grep vfio-pci");
    auto ran = testing::RunProcess(
        {"sh", "-c",
         "qm() { echo \"qm $*\"; }; grep() { cat >/dev/null; echo \"grep $*\"; }; " + cmd});
    EXPECT_EQ(ran.out, "qm start 101\ngrep vfio-pci\nqm start 100\ngrep vfio-pci\n")
        << ran.out << ran.err;
  }
  // A source from a shared dossier can hold any bytes: the notes (printed to the terminal) show
  // a terminal escape as text.
  auto parsed = hypervisor::ParsePciCfg(cfg, "pci.cfg");
  View v;
  v.machines = {
      PveHostWithPciCfg(cfg, "imported: a\x1b]0;pwned\x07.txt:4 (pve-pci-cfg)", parsed.mappings)};
  auto r = GeneratePveMapping({}, v, Analysis{});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_NE(r->notes.find("Read from imported: a\\x1b]0;pwned\\x07.txt:4"), std::string::npos)
      << r->notes;
  EXPECT_EQ(r->notes.find('\x1b'), std::string::npos);
}

// A host whose pci.cfg has two stale entries (one mapping's name and node hostile): the corrected
// file, read by the project's own parser, says field by field what the original said except the
// two groups; the pvesh lines in the notes hand pvesh the mapping's path and map lines intact.
TEST(ArtifactConsumers, PveMappingReadsBackFieldByField) {
  const std::string name = "gpu$(id)'\";|&`x`\\";  // no blank, no ':' (pci.cfg's name syntax)
  const std::string cfg =
      "# comment\n" + name +
      "\n\tmap id=10de:2bb1,iommugroup=44,node=pve,path=0000:f1:00.0,subsystem-id=10de:204b\n"
      "\tmap id=10de:2bb1,iommugroup=7,node=other,path=0000:e1:00.0\n\ngpu1\n"
      "\tdescription keep me\n"
      "\tmap id=10de:2bb1,iommugroup=40,node=pve,path=0000:e1:00.0,subsystem-id=10de:204b\n";
  auto before = hypervisor::ParsePciCfg(cfg, "pci.cfg");
  ASSERT_EQ(before.mappings.size(), 2u);
  MachineView host = PveHostWithPciCfg(cfg, "/etc/pve/mapping/pci.cfg", before.mappings);
  HypervisorInfo& hv = host.machine.hypervisor;
  hv.pci_mappings[0].entries[0].status.Set("stale", "t");
  hv.pci_mappings[0].entries[0].iommu_group_now.Set(36, "t");
  hv.pci_mappings[0].entries[1].status.Set("other-node", "t");
  hv.pci_mappings[1].entries[0].status.Set("stale", "t");
  hv.pci_mappings[1].entries[0].iommu_group_now.Set(32, "t");
  View v;
  v.machines = {host};
  auto r = GeneratePveMapping({}, v, Analysis{});
  ASSERT_TRUE(r) << r.error().message;
  auto after = hypervisor::ParsePciCfg(r->text, "pci.cfg");
  ASSERT_EQ(after.mappings.size(), 2u);
  const int64_t want_group[2][2] = {{36, 7}, {32, -1}};
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(after.mappings[i].name, before.mappings[i].name);
    ASSERT_EQ(after.mappings[i].entries.size(), before.mappings[i].entries.size());
    for (size_t j = 0; j < before.mappings[i].entries.size(); ++j) {
      SCOPED_TRACE(std::to_string(i) + "/" + std::to_string(j));
      const auto &x = before.mappings[i].entries[j], &y = after.mappings[i].entries[j];
      EXPECT_EQ(y.path.value_or("?"), x.path.value_or("?"));
      EXPECT_EQ(y.id.value_or("?"), x.id.value_or("?"));
      EXPECT_EQ(y.subsystem_id.value_or("?"), x.subsystem_id.value_or("?"));
      EXPECT_EQ(y.node.value_or("?"), x.node.value_or("?"));
      EXPECT_EQ(y.iommugroup.value_or(-1), want_group[i][j]);
    }
  }
  EXPECT_NE(r->text.find("# comment\n"), std::string::npos);
  EXPECT_NE(r->text.find("\tdescription keep me\n"), std::string::npos);
  // The pvesh lines through /bin/sh.
  StandinBin sb({"pvesh"});
  std::string lines;
  for (size_t b = 0, e; (e = r->notes.find('\n', b)) != std::string::npos; b = e + 1) {
    std::string l = r->notes.substr(b, e - b);
    if (l.starts_with("  pvesh set ")) lines += l + "\n";
  }
  ASSERT_NE(lines, "") << r->notes;
  auto sh = sb.Sh(lines);
  ASSERT_EQ(sh.exit_code, 0) << lines << sh.err;
  EXPECT_EQ(sb.Argv("pvesh"),
            (std::vector<std::string>{
                "set", "/cluster/mapping/pci/" + name, "--map",
                "id=10de:2bb1,iommugroup=36,node=pve,path=0000:f1:00.0,subsystem-id=10de:204b",
                "--map", "id=10de:2bb1,iommugroup=7,node=other,path=0000:e1:00.0", "set",
                "/cluster/mapping/pci/gpu1", "--map",
                "id=10de:2bb1,iommugroup=32,node=pve,path=0000:e1:00.0,subsystem-id=10de:204b"}))
      << lines;
}

// The unit as systemd reads it: systemd-analyze verify where it is installed (a container
// without a booted systemd cannot verify at all: said, and skipped).
TEST(ArtifactConsumers, NumaAffinityUnitPassesSystemdAnalyzeVerify) {
  if (!testing::OnPath("systemd-analyze")) GTEST_SKIP() << "systemd-analyze is not installed";
  TempDir t;
  const std::string known_good = t.path() + "/dossier-known-good.service";
  std::ofstream(known_good) << "[Unit]\nDescription=x\n[Service]\nType=oneshot\n"
                               "ExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n";
  auto base = RunProcess({"systemd-analyze", "verify", known_good});
  if (base.exit_code != 0)
    GTEST_SKIP() << "systemd-analyze verify fails on a minimal unit here: " << base.err;
  GeneratorFields f;
  f.guest = kServiceName;
  f.vm_id = "100%n$X";
  auto r = GenerateNumaAffinity({}, GeneratorView(f), Analysis{});
  ASSERT_TRUE(r) << r.error().message;
  const std::string unit = t.path() + "/dossier-gpu-numa.service";
  std::ofstream(unit) << r->text;
  auto v = RunProcess({"systemd-analyze", "verify", unit});
  EXPECT_EQ(v.exit_code, 0) << v.err << r->text;
  EXPECT_EQ(v.err, "") << r->text;
}

// The unit's ExecStart commands through /bin/sh: `echo N > PATH` with the stand-in printing
// where the redirection went.
TEST(ArtifactConsumers, NumaAffinityCommandsWriteTheNodeToTheGpusFile) {
  auto r = GenerateNumaAffinity({}, GeneratorView(GeneratorFields{}), Analysis{});
  ASSERT_TRUE(r) << r.error().message;
  std::vector<std::string> commands;
  ASSERT_EQ(testing::UnitProblem(r->text, &commands), "") << r->text;
  ASSERT_EQ(commands.size(), 4u);
  TempDir t;
  for (size_t i = 0; i < 4; ++i) {
    // The same command with its path moved under the temporary directory.
    std::string c = commands[i];
    const std::string sys = "/sys/bus/pci/devices/";
    size_t at = c.find(sys);
    ASSERT_NE(at, std::string::npos) << c;
    c.replace(at, sys.size(), t.path() + sys);
    fs::create_directories(t.path() + sys + "0000:0" + std::to_string(i + 1) + ":00.0");
    auto sh = RunProcess({"/bin/sh", "-c", c});
    ASSERT_EQ(sh.exit_code, 0) << c << sh.err;
    EXPECT_EQ(Slurp(t.path() + sys + "0000:0" + std::to_string(i + 1) + ":00.0/numa_node"),
              std::to_string(i / 2) + "\n")
        << c;
  }
}

// --- 2. Files it writes -------------------------------------------------------------------------

TEST(Adversarial, GenerateOutputWritesDevicesAndDescriptorsWithoutReplacingThem) {
  TempDir t;
  const std::string d = t.path() + "/d";
  Collect(d, "seed-host");
  auto args = [&](const std::string& out) {
    return std::vector<std::string>{"generate", "pve-mapping", "--dossier", d, "--output", out};
  };
  auto plain = RunDossier({"generate", "pve-mapping", "--dossier", d});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_FALSE(plain.out.empty());
  // /dev/stdout and /proc/self/fd/1: the descriptor the shell opened gets the artifact.
  for (const std::string& p : {std::string("/dev/stdout"), std::string("/proc/self/fd/1")}) {
    auto r = RunDossier(args(p));
    EXPECT_EQ(r.exit_code, 0) << p << r.err;
    EXPECT_EQ(r.out, plain.out) << p;
  }
  // A symlink to /dev/full: ENOSPC said, exit 1, the link (not the device) still a link.
  t.Link("/dev/full", "full");
  auto full = RunDossier(args(t.path() + "/full"));
  EXPECT_EQ(full.exit_code, 1) << full.err;
  EXPECT_NE(full.err.find(std::strerror(ENOSPC)), std::string::npos) << full.err;
  EXPECT_TRUE(fs::is_symlink(t.path() + "/full"));
  // A FIFO is written, not replaced.
  const std::string fifo = t.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = Slurp(fifo); });
  auto rf = RunDossier(args(fifo));
  reader.join();
  EXPECT_EQ(rf.exit_code, 0) << rf.err;
  EXPECT_EQ(got, plain.out);
  EXPECT_TRUE(fs::is_fifo(fifo));
  // A directory is refused before anything is generated.
  auto dir = RunDossier(args(t.path()));
  EXPECT_EQ(dir.exit_code, 2) << dir.err;
  EXPECT_NE(dir.err.find("is a directory"), std::string::npos) << dir.err;
  // An existing 0600 file stays 0600.
  const std::string file = t.path() + "/pci.cfg";
  t.Write("pci.cfg", "old");
  ASSERT_EQ(::chmod(file.c_str(), 0600), 0);
  EXPECT_EQ(RunDossier(args(file)).exit_code, 0);
  EXPECT_EQ(Slurp(file), plain.out);
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

// serve-bench --save-result: the same rules (store/output_file.h), checked before the run.
TEST(Adversarial, SaveResultWritesDescriptorsAndRefusesADirectoryBeforeTheRun) {
  testing::StandinConfig c;
  c.lifetime_s = 60;
  testing::StandinServer server(c);
  ASSERT_TRUE(server.Start());
  TempDir t;
  auto bench = [&](const std::string& file) {
    return RunDossier({"serve-bench", server.base_url(), "--concurrency", "1", "--num-prompts", "2",
                       "--input-len", "8", "--output-len", "4", "--dossier", t.path() + "/d",
                       "--machine", "box", "-q", "--save-result", file});
  };
  auto r = bench("/dev/stdout");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"request_throughput\""), std::string::npos) << r.out;
  t.Link("/dev/null", "null");
  EXPECT_EQ(bench(t.path() + "/null").exit_code, 0);
  EXPECT_TRUE(fs::is_symlink(t.path() + "/null"));
  auto dir = bench(t.path());
  EXPECT_EQ(dir.exit_code, 2) << dir.err;
  EXPECT_NE(dir.err.find("is a directory"), std::string::npos) << dir.err;
}

// --- 3. Signals: one stop delivered twice does not lose the run --------------------------------

TEST(Adversarial, TwoSigtermsBackToBackKeepTheServeBenchRecord) {
  for (int round = 0; round < 4; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    testing::HostileServer server(testing::HostileServer::kSilent, /*lifetime_s=*/60);
    TempDir t;
    const std::string d = t.path() + "/d";
    int err[2];
    ASSERT_EQ(::pipe(err), 0);
    pid_t p = ::fork();
    if (p == 0) {
      ::dup2(err[1], 2);
      ::close(err[0]);
      ::close(err[1]);
      std::string url = server.base_url();
      ::execl(DOSSIER_BINARY, "dossier", "serve-bench", url.c_str(), "--model", "m",
              "--concurrency", "1", "--num-prompts", "4", "--timeout", "600", "--deadline", "600",
              "--machine", "box", "--dossier", d.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(err[1]);
    std::string text;
    char buf[512];
    while (text.find("serve-bench ") == std::string::npos) {
      ssize_t n = ::read(err[0], buf, sizeof buf);
      if (n <= 0) break;
      text.append(buf, static_cast<size_t>(n));
    }
    ASSERT_NE(text.find("serve-bench "), std::string::npos) << text;
    // As `timeout` does: the process, then its group (here: the process again), at once; the
    // second lands while the first stop is being handled.
    ::kill(p, SIGTERM);
    std::this_thread::sleep_for(std::chrono::milliseconds(round * 5));
    ::kill(p, SIGTERM);
    for (ssize_t n; (n = ::read(err[0], buf, sizeof buf)) > 0;)
      text.append(buf, static_cast<size_t>(n));
    ::close(err[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(p, &status, 0), p);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status) << "\n" << text;
    EXPECT_EQ(WEXITSTATUS(status), 1) << text;
    bool found = false;
    if (fs::exists(d + "/records"))
      for (const auto& e : fs::directory_iterator(d + "/records")) {
        auto j = json::parse(Slurp(e.path()), nullptr, false);
        if (!j.is_discarded() && j.value("kind", "") == "serve-bench") found = true;
      }
    EXPECT_TRUE(found) << text;
  }
}

// p2p the same: two SIGTERMs while copies run, the record is stored, marked interrupted.
TEST(Adversarial, TwoSigtermsBackToBackKeepTheP2pRecord) {
  TempDir dir;
  int err[2];
  ASSERT_EQ(::pipe(err), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("DOSSIER_STANDIN", "seed-guest", 1);
    ::dup2(err[1], 2);
    ::close(err[0]);
    std::string cuda = testing::CudaStandin(), nvml = testing::NvmlStandin();
    std::string out = dir.path() + "/d";
    ::execl(DOSSIER_BINARY, DOSSIER_BINARY, "p2p", "--cuda-lib", cuda.c_str(), "--nvml-lib",
            nvml.c_str(), "--sizes", "1M,2M", "--machine", "guest", "--dossier", out.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(err[1]);
  std::string seen;
  char buf[512];
  while (seen.find("p2p [2/") == std::string::npos) {
    ssize_t n = ::read(err[0], buf, sizeof buf);
    if (n <= 0) break;
    seen.append(buf, static_cast<size_t>(n));
  }
  ASSERT_NE(seen.find("p2p [2/"), std::string::npos) << seen;
  ::kill(pid, SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ::kill(pid, SIGTERM);
  while (::read(err[0], buf, sizeof buf) > 0) {
  }
  ::close(err[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the second signal";
  EXPECT_EQ(WEXITSTATUS(status), 1);
  bool stored = false;
  for (const auto& e : fs::directory_iterator(dir.path() + "/d/records")) {
    auto j = json::parse(Slurp(e.path()), nullptr, false);
    if (!j.is_discarded() && j.value("kind", "") == "p2p")
      stored = j["p2p"].value("interrupted", false);
  }
  EXPECT_TRUE(stored);
}

// --- 4. fleet: two machines under one name are two, and a machine only measured is shown ------

TEST(Adversarial, FleetKeepsTwoMachinesCollectedUnderOneNameApart) {
  TempDir t;
  const std::string a = t.path() + "/a", b = t.path() + "/b", one = t.path() + "/one";
  Collect(a, "seed-host", {"--machine", "box"});
  Collect(b, "baremetal-switch", {"--machine", "box"});
  auto r = RunDossier({"fleet", a, b, "--format", "json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_EQ(j["nodes"], 2) << r.out;
  EXPECT_EQ(j["uniform"], false);
  ASSERT_EQ(j["conflicts"].size(), 1u) << r.out;
  EXPECT_NE(
      j["conflicts"][0].get<std::string>().find("two different machines under the name 'box'"),
      std::string::npos);
  // One dossier holding both under one name: the same conflict, from the dossier's history.
  Collect(one, "seed-host", {"--machine", "box"});
  Collect(one, "baremetal-switch", {"--machine", "box"});
  auto r1 = RunDossier({"fleet", one});
  EXPECT_EQ(r1.exit_code, 1) << r1.out << r1.err;
  EXPECT_NE(r1.out.find("two different machines collected under the name 'box'"), std::string::npos)
      << r1.out;
  // One machine collected twice (two dossiers, same boot) stays one node, uniform.
  const std::string c = t.path() + "/c";
  Collect(c, "seed-host", {"--machine", "box"});
  auto same = RunDossier({"fleet", a, c, "--format", "json"});
  json js = json::parse(same.out, nullptr, false);
  ASSERT_FALSE(js.is_discarded()) << same.out << same.err;
  EXPECT_EQ(js["nodes"], 1);
  EXPECT_TRUE(js["conflicts"].empty()) << same.out;
}

TEST(Adversarial, FleetShowsAMachineThatWasOnlyMeasured) {
  testing::HostileServer server(testing::HostileServer::kSilent, /*lifetime_s=*/20);
  TempDir t;
  const std::string d = t.path() + "/d";
  auto sb = RunDossier({"serve-bench", server.base_url(), "--model", "m", "--concurrency", "1",
                        "--num-prompts", "1", "--deadline", "1", "--machine", "bench-only",
                        "--dossier", d, "-q"});
  ASSERT_TRUE(fs::exists(d + "/records")) << sb.err;
  Collect(d, "seed-host");
  auto r = RunDossier({"fleet", d, "--format", "json"});
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out << r.err;
  EXPECT_EQ(j["nodes"], 2) << r.out;
  EXPECT_EQ(j["not_collected"], json::array({"bench-only"})) << r.out;
  EXPECT_TRUE(j["outliers"].contains("bench-only")) << r.out;
  EXPECT_EQ(r.exit_code, 1);
  auto md = RunDossier({"fleet", d});
  EXPECT_NE(md.out.find("Never collected"), std::string::npos) << md.out;
}

}  // namespace
}  // namespace dossier::advart
