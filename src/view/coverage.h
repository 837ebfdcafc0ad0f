// What is known about a machine, family by family: every family when the machine was collected,
// else only the families some pasted output covered (and which paste). A machine known from
// `dossier import` is known only as far as its pastes go: a family no paste covered is not
// "none" (no NUMA node, no CUDA toolkit, no GPU, no server) but not in the pasted outputs. The
// view fills a Coverage per machine (view/build_view.cc); renderers and generators ask it rather
// than reading an empty list as an answer.
//
// Families are found from the facts themselves (a known fact under "/numa" means a paste covered
// NUMA), so an importer added later covers its families without a row here; the table only names
// each family, where its facts sit, its JSON keys and the command to paste for it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/machine.h"

namespace dossier {

enum class Family {
  kSystem,          // hostname, OS, DMI
  kCpu,             // CPU model, sockets, cores, memory
  kNuma,            // NUMA nodes
  kPciDevices,      // PCI devices and their place in the tree
  kPciLinks,        // PCIe link speed and width
  kAcs,             // ACS capability and control
  kIommu,           // IOMMU state and groups
  kVirtualization,  // whether the machine is a guest
  kHypervisor,      // VMs and PCI mappings it runs
  kKernelCmdline,   // /proc/cmdline
  kKernelRelease,   // uname -r
  kKernelLog,       // dmesg
  kGpus,            // compute GPUs
  kNvidiaDriver,    // driver version
  kNvml,            // the driver's view of the GPUs
  kGpuTopology,     // nvidia-smi topo -m levels
  kP2pRead,         // nvidia-smi topo -p2p r
  kP2pWrite,        // nvidia-smi topo -p2p w
  kP2pNvlink,       // nvidia-smi topo -p2p n
  kP2pAtomics,      // nvidia-smi topo -p2p a
  kP2pPci,          // nvidia-smi topo -p2p p
  kCuda,            // CUDA toolkits
  kPython,          // Python environments
  kEnv,             // the caller's environment
  kServers,         // inference server processes
  kNccl,            // NCCL's view
};

struct FamilyInfo {
  Family family;
  const char* key;    // "numa": JSON "coverage" key
  const char* label;  // "NUMA nodes": for a person
  // Fact paths that belong to the family ("/numa", "/pci/devices[*]/link"): a path belongs when
  // it starts with a prefix; "[*]" matches any one element key.
  std::vector<const char*> paths;
  // JSON pointers of the family's lists and objects that would read as "none" when the family
  // was not covered (written null, with the reason in provenance).
  std::vector<const char*> json_lists;
  const char* paste;  // what to paste to cover it ("numactl -H")
};

const std::vector<FamilyInfo>& FamilyTable();
const FamilyInfo& InfoOf(Family f);

struct Coverage {
  // A collect of the machine: every family read from the machine itself. False only for a machine
  // known from imports alone (view/build_view.cc), so a view built by hand reads as collected.
  bool collected = true;
  // Family -> where a paste covered it ("FILE:LINE (format)"), first paste first.
  std::map<Family, std::vector<std::string>> pasted;

  bool Covers(Family f) const { return collected || pasted.count(f) > 0; }
  // "" when covered; else "not in the pasted outputs (paste: `numactl -H`)".
  std::string Absent(Family f) const;
  // Where it is known from: "collected", or the first paste ("pasted: FILE:LINE (format)").
  std::string From(Family f) const;
};

// The reason every fact and family no paste covered carries.
inline constexpr const char* kNotPasted = "not in the pasted outputs";
// A machine the dossier knows only from its measurements (view/build_view.cc).
inline constexpr const char* kOnlyMeasured =
    "not captured: the dossier holds only measurements of this machine (collect it, or import "
    "its outputs)";

// Adds what one import record's machine covers (the facts it knows) to `out`. `file` names the
// record's pasted file, for families known without a per-fact source (matrices).
void AddImportCoverage(const Machine& imported, const std::string& file, Coverage* out);

// The family a fact path belongs to, when any.
bool FamilyOfPath(const std::string& path, Family* out);

}  // namespace dossier
