// nccl-topo: an NCCL topology file (NCCL_TOPO_FILE, read by NCCL's src/graph/xml.cc) for a guest,
// giving its GPUs — by their guest bus ids, the ones NCCL finds through NVML — the host's real
// tree: one <cpu numaid=…> per host NUMA node (numbered as the guest node bound to it), under it
// the host's root ports and switches as <pci> nodes (host bus ids: they need not exist in the
// guest), GPUs on separate root complexes under their socket, link speed and width from the host.
// Without a linked host it refuses: the flattened guest tree is what NCCL already sees.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "generate/generator.h"
#include "generate/quote.h"
#include "generate/select.h"
#include "generate/vm_lookup.h"
#include "util/text.h"

namespace dossier {

using generate::ShellWord;
using generate::XmlCommentText;
using generate::XmlEscape;
using generate::XmlProblem;
namespace {

std::string SpeedText(const Fact<int64_t>& gen) {
  static const char* const kSpeeds[] = {"", "2.5", "5.0", "8.0", "16.0", "32.0", "64.0"};
  if (!gen.known() || *gen < 1 || *gen > 6) return "";
  return std::string(kSpeeds[*gen]) + " GT/s PCIe";
}

std::string Attr(const char* name, const std::string& v) {
  return v.empty() ? "" : fmt::format(" {}=\"{}\"", name, XmlEscape(v));
}

// The PCI attributes NCCL reads for a <pci> node.
std::string PciAttrs(const std::string& busid, const PciDevice& d) {
  std::string cls = d.class_id.value_or("");
  return Attr("busid", busid) + Attr("class", cls) + Attr("vendor", d.vendor_id.value_or("")) +
         Attr("device", d.device_id.value_or("")) +
         Attr("subsystem_vendor", d.subsystem_vendor_id.value_or("")) +
         Attr("subsystem_device", d.subsystem_device_id.value_or("")) +
         Attr("link_speed",
              SpeedText(d.link.current.gen.known() ? d.link.current.gen : d.link.max.gen)) +
         Attr("link_width", d.link.current.width.known() ? std::to_string(*d.link.current.width)
                            : d.link.max.width.known()   ? std::to_string(*d.link.max.width)
                                                         : "");
}

// A cpulist ("0-31,64-95") as the cpumask NCCL's affinity attribute holds ("ffffffff,…").
std::string CpuMask(const std::string& cpulist) {
  auto cpus = ParseCpuList(cpulist);
  if (!cpus || cpus->empty()) return "";
  int64_t max = 0;
  for (auto c : *cpus) max = std::max<int64_t>(max, c);
  std::vector<uint32_t> words(static_cast<size_t>(max / 32 + 1), 0);
  for (auto c : *cpus) words[static_cast<size_t>(c / 32)] |= 1u << (c % 32);
  std::string out;
  for (size_t i = words.size(); i-- > 0;)
    out += fmt::format("{}{:08x}", out.empty() ? "" : ",", words[i]);
  return out;
}

struct Node {
  std::string busid;  // host address for bridges, guest address for the GPU
  const PciDevice* dev = nullptr;
  std::vector<std::string> children;  // keys into the node map, in insertion order
  bool gpu = false;
};

}  // namespace

Result<Artifact> GenerateNcclTopo(const GenerateArgs& args, const View& view, const Analysis&) {
  auto picked = generate::PickLinkedGuest(args, view);
  if (!picked) return picked.error();
  const Machine& g = *picked->guest;
  const MachineLink& l = *picked->link;
  const generate::HostSide& hs = picked->host_side;
  const Machine& host = hs.host->machine;

  // Tree per host NUMA node: root port -> switches -> GPU, merged where GPUs share bridges.
  std::map<int64_t, std::vector<std::string>> tops;  // host node -> top-level keys
  std::map<std::string, Node> nodes;
  std::vector<std::string> skipped;
  for (const auto& p : l.gpus) {
    const PciDevice* hd = p.host_address.empty() ? nullptr : host.FindPci(p.host_address);
    if (!hd || !p.host_numa_node.known() || *p.host_numa_node < 0) {
      skipped.push_back(
          p.guest_address + ": " +
          (p.host_address.empty() ? p.why : p.host_address + " has no known host NUMA node"));
      continue;
    }
    std::vector<const PciDevice*> chain;  // bridges from the GPU up to the root port
    std::set<std::string> seen;
    for (const PciDevice* d = hd; d && d->parent.known() && seen.insert(d->address).second;) {
      d = host.FindPci(*d->parent);
      if (d) chain.push_back(d);
    }
    std::string key = "gpu:" + p.guest_address;
    nodes[key] = Node{p.guest_address, hd, {}, true};
    for (const PciDevice* b : chain) {
      std::string bk = "bridge:" + b->address;
      if (!nodes.count(bk)) nodes[bk] = Node{b->address, b, {}, false};
      auto& ch = nodes[bk].children;
      if (std::find(ch.begin(), ch.end(), key) == ch.end()) ch.push_back(key);
      key = bk;
    }
    auto& top = tops[*p.host_numa_node];
    if (std::find(top.begin(), top.end(), key) == top.end()) top.push_back(key);
  }
  if (tops.empty()) {
    std::string why;
    for (const auto& s : skipped) why += "\n  " + s;
    return Error::Invalid("no GPU of '" + g.name +
                          "' has a known host GPU with a NUMA node:" + why);
  }

  // Values from the dossier: attributes through XmlEscape (in Attr), comments through
  // XmlCommentText ("--" in a machine name would end the file's well-formedness).
  std::string x = "<!-- " +
                  XmlCommentText("NCCL topology for the guest '" + g.name + "', from the host '" +
                                 l.host + "' (VM " + l.vm_id + ", linked by " + l.how +
                                 "). GPUs by their guest bus ids; bridges by host bus ids (they "
                                 "need not exist in the guest). Generated by dossier " +
                                 std::string(DOSSIER_VERSION) + ".") +
                  " -->\n";
  x += "<system version=\"1\">\n";
  std::string vendor = g.cpu.vendor.value_or(host.cpu.vendor.value_or(""));
  std::function<void(const std::string&, int)> emit = [&](const std::string& key, int depth) {
    const Node& n = nodes[key];
    std::string ind(static_cast<size_t>(depth) * 2, ' ');
    if (n.gpu) {
      x += ind + "<pci" + PciAttrs(n.busid, *n.dev) + "/>\n";
      return;
    }
    x += ind + "<pci" + PciAttrs(n.busid, *n.dev) + ">\n";
    for (const auto& c : n.children) emit(c, depth + 1);
    x += ind + "</pci>\n";
  };
  for (const auto& [h, keys] : tops) {
    int64_t gn = hs.vm ? generate::GuestNodeBoundTo(*hs.vm, h) : -1;
    if (gn < 0) gn = h;
    std::string cpus;
    for (const auto& n : g.numa.nodes)
      if (n.id == gn && n.cpus.known()) cpus = *n.cpus;
    x += "  <cpu" + Attr("numaid", std::to_string(gn)) + Attr("affinity", CpuMask(cpus)) +
         Attr("arch", "x86_64") + Attr("vendor", vendor) + ">\n";
    x += "    <!-- host NUMA node " + std::to_string(h) + " -->\n";
    for (const auto& k : keys) emit(k, 2);
    x += "  </cpu>\n";
  }
  x += "</system>\n";
  for (const auto& s : skipped) x += "<!-- " + XmlCommentText("skipped: " + s) + " -->\n";
  std::string verify =
      "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH NCCL_TOPO_FILE=" +
      ShellWord(args.output.empty() ? std::string("nccl_topo.xml") : args.output) +
      " all_reduce_perf -b 8K -e 1M -g " + std::to_string(l.gpus.size()) +
      " 2>&1 | grep -E 'TOPO_FILE|CPU/|GPU/'   # look for 'NCCL_TOPO_FILE set by environment' and "
      "each GPU under the CPU/" +
      "node above";
  x += "<!-- " + XmlCommentText("Verify: " + verify) + " -->\n";
  // Built as text for its layout; proved well-formed before anyone gets it.
  if (std::string why = XmlProblem(x); !why.empty())
    return Error{Error::kOther, "the generated topology is not well-formed XML (" + why +
                                    "): a bug in dossier, please report it"};
  Artifact a;
  a.text = std::move(x);
  a.notes =
      "Copy it to the guest '" + Printable(g.name) +
      "' and set NCCL_TOPO_FILE for the serving engine (and NCCL_TOPO_DUMP_FILE=/tmp/fused.xml "
      "to see what NCCL made of it). It changes NCCL's path choices, not the hardware: P2P "
      "between the GPUs still needs the host to allow it.";
  a.verify = verify;
  return a;
}

}  // namespace dossier
