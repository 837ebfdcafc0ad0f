// PCIe link rules on the GPUs' paths: a link narrower than both of its ends support (a real fault)
// and one slower than they support (normal at idle: GPUs train down to save power).
#include <algorithm>
#include <set>

#include "analyze/evidence.h"
#include "analyze/pci_walk.h"
#include "analyze/roles.h"
#include "analyze/rule.h"

namespace dossier {
namespace {

struct LinkCheck {
  const PciDevice* dev;
  const PciDevice* up;  // the other end, when it is a real bridge we know
  int64_t cur_gen = 0, cur_width = 0, want_gen = 0, want_width = 0;
  bool gen_known = false, width_known = false;
};

// Every link on a GPU's way up, once, seen from its downstream end. In a guest only the GPUs'
// own links: the bridges above them are emulated and report what the hypervisor chose.
std::vector<LinkCheck> GpuPathLinks(const Machine& m) {
  bool guest = IsGuest(m);
  std::vector<const PciDevice*> devs;
  std::set<const PciDevice*> seen;
  for (const PciDevice* g : GpuDevices(m)) {
    if (seen.insert(g).second) devs.push_back(g);
    if (guest) continue;
    for (const PciDevice* b : UpstreamChain(m, *g))
      if (seen.insert(b).second) devs.push_back(b);
  }
  std::vector<LinkCheck> out;
  for (const PciDevice* d : devs) {
    const PciDevice* up = d->parent.known() ? m.FindPci(*d->parent) : nullptr;
    if (!up && d->port_type.known() && *d->port_type == "root_port") continue;  // its child's link
    if (guest) up = nullptr;
    LinkCheck c{d, up};
    const PciLink& l = d->link;
    if (l.current.gen.known() && l.max.gen.known()) {
      c.gen_known = true;
      c.cur_gen = *l.current.gen;
      c.want_gen = *l.max.gen;
      if (up && up->link.max.gen.known()) c.want_gen = std::min(c.want_gen, *up->link.max.gen);
    }
    if (l.current.width.known() && l.max.width.known()) {
      c.width_known = true;
      c.cur_width = *l.current.width;
      c.want_width = *l.max.width;
      if (up && up->link.max.width.known())
        c.want_width = std::min(c.want_width, *up->link.max.width);
    }
    out.push_back(c);
  }
  return out;
}

Evidence LinkEvidence(const LinkCheck& c) {
  const PciLink& l = c.dev->link;
  std::string v = "Gen" + FactText(l.current.gen) + " x" + FactText(l.current.width) +
                  " (device max Gen" + FactText(l.max.gen) + " x" + FactText(l.max.width);
  if (c.up) {
    v += "; upstream " + c.up->address + " max Gen" + FactText(c.up->link.max.gen) + " x" +
         FactText(c.up->link.max.width);
  }
  return Ev(Describe(*c.dev) + " link", v + ")", l.current.gen.source);
}

}  // namespace

std::optional<Finding> RulePcieLinkWidthDegraded(const RuleContext& ctx) {
  std::vector<LinkCheck> bad;
  for (const auto& c : GpuPathLinks(ctx.m()))
    if (c.width_known && c.cur_width < c.want_width) bad.push_back(c);
  if (bad.empty()) return std::nullopt;
  Finding f;
  f.title = std::to_string(bad.size()) +
            " link(s) on the GPUs' paths run narrower than both ends " + "support (x" +
            std::to_string(bad[0].cur_width) + " of x" + std::to_string(bad[0].want_width) +
            " on " + bad[0].dev->address + ")";
  for (const auto& c : bad) f.evidence.push_back(LinkEvidence(c));
  f.explanation =
      "A link trains to the widest width both ends support. Fewer lanes than that is not power "
      "saving (GPUs lower speed at idle, not width): it is a fault in the path — a card not fully "
      "seated, a riser or cable that loses lanes, a slot bifurcated (x16 split as x8x8) in the "
      "BIOS, or damaged contacts. Bandwidth to and from that GPU is cut in proportion.";
  for (const auto& c : bad) {
    f.actions.push_back({"Check " + c.dev->address +
                             ": reseat the card, check the riser or cable, and the slot's "
                             "bifurcation setting in the BIOS (should be x" +
                             std::to_string(c.want_width) + ")",
                         "lspci -vv -s " + c.dev->address + " | grep -E 'LnkCap|LnkSta'", ""});
  }
  f.not_helping = {"Driver or kernel updates: link width is negotiated by the hardware."};
  return f;
}

std::optional<Finding> RulePcieLinkSpeedLow(const RuleContext& ctx) {
  std::vector<LinkCheck> low;
  for (const auto& c : GpuPathLinks(ctx.m()))
    if (c.gen_known && c.cur_gen < c.want_gen) low.push_back(c);
  if (low.empty()) return std::nullopt;
  Finding f;
  f.title = std::to_string(low.size()) + " link(s) on the GPUs' paths run below their top speed " +
            "(normal at idle; recheck under load)";
  for (const auto& c : low) f.evidence.push_back(LinkEvidence(c));
  f.explanation =
      "GPUs train their PCIe link down to a lower speed when idle to save power and back up under "
      "load, so a low current speed read while the GPUs are idle is expected, not a fault. The "
      "same reading while the GPUs are busy is a fault (signal integrity, a riser, a BIOS speed "
      "limit).";
  f.actions.push_back(
      {"Read the link speed while the GPUs are under load (a p2p run, or the server serving)",
       "dossier p2p & sleep 5; nvidia-smi --query-gpu=index,pci.bus_id,pcie.link.gen.current,"
       "pcie.link.gen.max,pcie.link.width.current --format=csv",
       ""});
  f.not_helping = {
      "Disabling ASPM or forcing the speed at idle: it costs power and changes nothing under "
      "load."};
  return f;
}

}  // namespace dossier
