// nccl-topo on a built view, read back as NCCL reads the file (XML): GPUs that share a host switch
// under one <pci> chain, each host node a <cpu> numbered as the guest node bound to it with that
// node's CPUs as a mask, link speed and width from the host (current, else maximum), and GPUs the
// host's facts cannot place named in a comment, never guessed.
#include <gtest/gtest.h>

#include <pugixml.hpp>
#include <string>
#include <vector>

#include "generate/generator.h"
#include "tests/generator_views.h"

namespace dossier {
namespace {

PciDevice* HostDev(View& v, const std::string& a) {
  for (auto& d : v.machines[0].machine.pci.devices)
    if (d.address == a) return &d;
  return nullptr;
}

// GPUs 0-1 (host 01:00.0, 11:00.0, host node 0) under switch 0000:10:00.0 under root port
// 0000:00:01.1; GPUs 2-3 (host node 1) with no bridge known. The VM binds guest node 1 to host
// node 0 and guest node 0 to host node 1, so the numbering is the binding's, not the host's.
View SwitchView() {
  View v = testing::GeneratorView({});
  Machine& host = v.machines[0].machine;
  PciDevice port, sw;
  port.address = "0000:00:01.1";
  port.class_id.Set("0x060400", "t");
  sw.address = "0000:10:00.0";
  sw.class_id.Set("0x060400", "t");
  sw.parent.Set(port.address, "t");
  host.pci.devices.push_back(port);
  host.pci.devices.push_back(sw);
  HostDev(v, "0000:01:00.0")->parent.Set(sw.address, "t");
  HostDev(v, "0000:11:00.0")->parent.Set(sw.address, "t");
  // Links: current Gen5 x16; only the maximum (Gen4 x8); a generation out of range; Gen1.
  auto& l0 = HostDev(v, "0000:01:00.0")->link;
  l0.current.gen.Set(5, "t");
  l0.current.width.Set(16, "t");
  l0.max.gen.Set(6, "t");
  auto& l1 = HostDev(v, "0000:11:00.0")->link;
  l1.max.gen.Set(4, "t");
  l1.max.width.Set(8, "t");
  HostDev(v, "0000:81:00.0")->link.current.gen.Set(7, "t");
  HostDev(v, "0000:82:00.0")->link.current.gen.Set(1, "t");
  Vm& vm = host.hypervisor.vms[0];
  for (int id : {0, 1}) {
    VmNumaNode n;
    n.id = id;
    n.hostnodes.Set(id == 0 ? "1" : "0", "100.conf");
    vm.numa_nodes.push_back(n);
  }
  v.machines[1].machine.numa.nodes[1].cpus.Set("4-7,32-35", "t");
  return v;
}

struct Read {
  pugi::xml_document doc;
  std::string text;
};

void Generate(const View& v, const GenerateArgs& args, Read* out) {
  auto a = GenerateNcclTopo(args, v, Analysis{});
  ASSERT_TRUE(a.ok()) << a.error().message;
  out->text = a->text;
  ASSERT_TRUE(out->doc.load_string(a->text.c_str())) << a->text;
}

TEST(NcclTopo, TheHostTreeUnderEachBoundNodeReadBackAsXml) {
  Read r;
  Generate(SwitchView(), {}, &r);
  auto sys = r.doc.child("system");
  std::vector<pugi::xml_node> cpus;
  for (auto c : sys.children("cpu")) cpus.push_back(c);
  ASSERT_EQ(cpus.size(), 2u) << r.text;
  // Host node 0 first: guest node 1 is bound to it.
  EXPECT_STREQ(cpus[0].attribute("numaid").value(), "1");
  EXPECT_STREQ(cpus[0].attribute("affinity").value(), "0000000f,000000f0");
  EXPECT_STREQ(cpus[0].attribute("vendor").value(), "AuthenticAMD");
  EXPECT_STREQ(cpus[1].attribute("numaid").value(), "0");
  EXPECT_STREQ(cpus[1].attribute("affinity").value(), "0000000f");
  // Node 0: root port > switch > both GPUs by their guest bus ids.
  auto port = cpus[0].child("pci");
  EXPECT_STREQ(port.attribute("busid").value(), "0000:00:01.1");
  EXPECT_STREQ(port.attribute("class").value(), "0x060400");
  EXPECT_TRUE(port.next_sibling("pci").empty());
  auto sw = port.child("pci");
  EXPECT_STREQ(sw.attribute("busid").value(), "0000:10:00.0");
  std::vector<pugi::xml_node> g;
  for (auto x : sw.children("pci")) g.push_back(x);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_STREQ(g[0].attribute("busid").value(), "0000:01:00.0");
  EXPECT_STREQ(g[0].attribute("link_speed").value(), "32.0 GT/s PCIe");  // current, not max
  EXPECT_STREQ(g[0].attribute("link_width").value(), "16");
  EXPECT_STREQ(g[0].attribute("vendor").value(), "0x10de");
  EXPECT_STREQ(g[1].attribute("busid").value(), "0000:02:00.0");
  EXPECT_STREQ(g[1].attribute("link_speed").value(), "16.0 GT/s PCIe");  // the maximum
  EXPECT_STREQ(g[1].attribute("link_width").value(), "8");
  EXPECT_TRUE(g[1].first_child().empty());
  // Node 1: two GPUs at the top, no bridge known.
  std::vector<pugi::xml_node> top;
  for (auto x : cpus[1].children("pci")) top.push_back(x);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_STREQ(top[0].attribute("busid").value(), "0000:03:00.0");
  EXPECT_TRUE(top[0].attribute("link_speed").empty());  // generation 7: not a PCIe speed
  EXPECT_TRUE(top[0].attribute("link_width").empty());
  EXPECT_STREQ(top[1].attribute("busid").value(), "0000:04:00.0");
  EXPECT_STREQ(top[1].attribute("link_speed").value(), "2.5 GT/s PCIe");
  EXPECT_NE(r.text.find("<!-- host NUMA node 0 -->"), std::string::npos);
}

// Each generation's speed as NCCL spells it.
TEST(NcclTopo, EachPcieGenerationsSpeed) {
  const char* want[] = {"2.5", "5.0", "8.0", "16.0", "32.0", "64.0"};
  for (int gen = 0; gen <= 7; ++gen) {
    SCOPED_TRACE(gen);
    View v = testing::GeneratorView({});
    HostDev(v, "0000:01:00.0")->link.current.gen.Set(gen, "t");
    Read r;
    Generate(v, {}, &r);
    auto gpu = r.doc.child("system").find_node([](pugi::xml_node n) {
      return std::string(n.attribute("busid").value()) == "0000:01:00.0";
    });
    ASSERT_FALSE(gpu.empty());
    if (gen >= 1 && gen <= 6)
      EXPECT_EQ(std::string(gpu.attribute("link_speed").value()),
                std::string(want[gen - 1]) + " GT/s PCIe");
    else
      EXPECT_TRUE(gpu.attribute("link_speed").empty());
  }
}

// Without a binding the guest node has the host's number; a GPU without a host address or host
// node is skipped and said; the verify line names --output, quoted for the shell.
TEST(NcclTopo, UnboundNodesSkippedGpusAndTheOutputNamed) {
  View v = testing::GeneratorView({});
  MachineLink& l = v.links[0];
  l.gpus[1].host_numa_node = {};
  l.gpus[1].host_numa_node.Unknown("numa_node -1", "t");
  l.gpus[3].host_address.clear();
  l.gpus[3].why = "no hostpci carries it";
  GenerateArgs args;
  args.output = "/tmp/my topo.xml";
  Read r;
  Generate(v, args, &r);
  std::vector<pugi::xml_node> cpus;
  for (auto c : r.doc.child("system").children("cpu")) cpus.push_back(c);
  ASSERT_EQ(cpus.size(), 2u);
  EXPECT_STREQ(cpus[0].attribute("numaid").value(), "0");
  EXPECT_STREQ(cpus[1].attribute("numaid").value(), "1");
  EXPECT_EQ(std::distance(cpus[0].children("pci").begin(), cpus[0].children("pci").end()), 1);
  EXPECT_NE(r.text.find("<!-- skipped: 0000:02:00.0: 0000:11:00.0 has no known host NUMA node -->"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("<!-- skipped: 0000:04:00.0: no hostpci carries it -->"),
            std::string::npos);
  EXPECT_NE(r.text.find("NCCL_TOPO_FILE='/tmp/my topo.xml' all_reduce_perf -b 8K -e 1M -g 4 "),
            std::string::npos)
      << r.text;
  // Nothing placeable: refused with every reason.
  for (auto& p : l.gpus) p.host_address.clear(), p.why = "gone";
  auto none = GenerateNcclTopo({}, v, Analysis{});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "no GPU of 'gpu-vm' has a known host GPU with a NUMA node:\n  0000:01:00.0: gone\n  "
            "0000:02:00.0: gone\n  0000:03:00.0: gone\n  0000:04:00.0: gone");
}

}  // namespace
}  // namespace dossier
