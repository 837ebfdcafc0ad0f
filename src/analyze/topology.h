// GPU-to-GPU topology from the PCI walk: for every pair of GPUs, the level nvidia-smi topo -m
// would print, and (for rules such as ACS) the bridges between a pair and their common ancestor.
//
// Pure functions of the model: they read machine.pci.devices (parent, root_complex, port_type,
// numa_node) and machine.numa, never the file system, so imported and replayed machines get the
// same answer as live ones.
//
// Levels, with nvidia-smi's meaning (its legend, FIELD_NOTES.md):
//   X     the GPU itself (the diagonal)
//   PIX   the path crosses at most one PCIe switch (or bridge): e.g. two downstream ports of one
//         switch. A switch is its upstream port plus its downstream ports, counted once.
//   PXB   the path crosses several switches/bridges but not the host bridge: e.g. two switches
//         below a third one.
//   PHB   the pair meets at a host bridge: same root complex, different root ports (or both on the
//         root bus). A Q35 guest shows this for every pair: each passthrough GPU sits behind its
//         own pcie-root-port on one root complex.
//   NODE  different root complexes in one NUMA node (traffic crosses the interconnect between
//         host bridges, e.g. AMD's data fabric).
//   SYS   different root complexes in different NUMA nodes (crosses the inter-socket link).
// and two markers of our own, when the model lacks what the level needs:
//   NODE/SYS  different root complexes, and the NUMA node of one of the GPUs is unknown or -1 on a
//             machine with several NUMA nodes: the pair is NODE or SYS, the PCI walk cannot tell.
//             (With at most one NUMA node listed, an unknown node is taken as that one: NODE.)
//   unknown   a GPU is not among the PCI devices, or the walk cannot reach a root complex.
// NVLink is invisible to the PCI walk: a pair nvidia-smi prints as NV# shows its PCIe level here.
//
// How the walk reads the model: each device's `parent` is its upstream bridge; a device whose
// parent is unknown is at the top of its chain, directly on a root complex's bus (a root port, or
// an endpoint on the root bus). Without port types, every bridge counts as its own switch, which
// can only make a PIX pair look PXB, never hide a host bridge.
#pragma once

#include <string>
#include <vector>

#include "model/machine.h"

namespace dossier {

inline constexpr const char* kLevelSelf = "X";
inline constexpr const char* kLevelPix = "PIX";
inline constexpr const char* kLevelPxb = "PXB";
inline constexpr const char* kLevelPhb = "PHB";
inline constexpr const char* kLevelNode = "NODE";
inline constexpr const char* kLevelSys = "SYS";
inline constexpr const char* kLevelNodeOrSys = "NODE/SYS";
inline constexpr const char* kLevelUnknown = "unknown";

// The PCI path between two devices, as the walk up from each one sees it.
struct PciPath {
  std::string a, b;  // the two device addresses asked about
  // Bridges above `a`, nearest first, up to but not including the common ancestor. When the two
  // meet only at a host bridge (or not at all), the whole chain up to the root complex's bus.
  std::vector<std::string> bridges_a;
  std::vector<std::string> bridges_b;
  // The lowest bridge above both (a switch's upstream or downstream port, a root port); empty
  // when they share no bridge and meet at a host bridge, or are on different root complexes.
  std::string common_ancestor;
  std::string root_complex_a, root_complex_b;  // "pci0000:00"; empty when unknown
  // Empty when the walk reached the top of both chains through devices in the model; else why
  // not ("0000:41:00.0 is not among the PCI devices", "parent loop at …").
  std::string problem;

  bool complete() const { return problem.empty(); }
  bool same_root_complex() const {
    return !root_complex_a.empty() && root_complex_a == root_complex_b;
  }
};

PciPath PathBetween(const Machine& m, const std::string& address_a, const std::string& address_b);

// The level between two devices (one of the kLevel* strings).
std::string TopologyLevel(const Machine& m, const std::string& address_a,
                          const std::string& address_b);

// Fills m->topology.gpu_levels for m->gpus in index order: a square matrix with X on the diagonal.
void DeriveTopology(Machine* m);

}  // namespace dossier
