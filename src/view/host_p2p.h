// What a host can do for P2P between two of its GPUs, from the host's own facts: the level between
// them (PIX, PXB, PHB, NODE, SYS from its PCI walk) and whether peer traffic can be routed there.
// One verdict for every reader: the passthrough map (view/links.cc), `dossier generate qemu-args`
// and the rule p2p.vm-isolated — so the report, the finding and the generated clique agree.
//
// A pair can carry P2P when the host driver reported P2P read and write OK between the two (NVML,
// or an imported `nvidia-smi topo -p2p`), or, without a status, when they share a PCIe switch on
// the host (PIX/PXB). A status other than OK keeps the pair out. Across root complexes with no
// status the answer depends on the CPU and is not assumed. Pure.
#pragma once

#include <string>

#include "model/machine.h"

namespace dossier {

struct HostP2p {
  std::string level;  // between the two host GPUs; "" when the host's facts do not say
  bool can = false;   // the host can route P2P between them: a clique may be advertised
  // `can` is settled: true, or false because the host driver reported a status other than OK.
  // False when the host's facts cannot tell (across root complexes without a P2P status, a GPU
  // not known): then neither "a clique will help" nor "it will not" is true.
  bool decided = false;
  std::string why;  // the reason, in words for a person
};

// `a` and `b` are host GPU addresses (0000:43:00.0); either missing from the host's GPUs gives
// can = false with the reason.
HostP2p HostP2pBetween(const Machine& host, const std::string& a, const std::string& b);

}  // namespace dossier
