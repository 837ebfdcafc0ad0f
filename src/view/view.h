// View: the dossier assembled from its records, what analysis, renderers and generators read.
// The latest collect of every machine (or the one machine of a one-shot collect) with where it
// came from, its measurements, the facts older records add, and the notes. Built by
// view/build_view.h from records only; holds no analysis results (analyze/analysis.h has those).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/machine.h"
#include "model/measurement.h"
#include "model/notes.h"
#include "view/coverage.h"

namespace dossier {

struct RecordInfo {
  std::string file;  // record file; empty for a one-shot collect
  std::string kind;  // "collect"
  std::string time;  // ISO 8601 UTC
  std::string tool;  // "dossier 0.1.0"
};

// The newest collect of the machine made in an earlier boot, as it was collected: what the
// analysis compares against for the changes since the previous boot.
struct PreviousBoot {
  RecordInfo record;
  std::string boot_id;
  Machine machine;
};

// A fact two records of a machine disagree on (a collect and an import, two imports): the report
// shows both.
struct FactDisagreement {
  std::string path;  // "/pci/devices[0000:01:00.0]/link/current/width"
  std::string kept, kept_source, kept_record;
  std::string other, other_source, other_record;
};

struct MachineView {
  Machine machine;  // the newest collect, with facts it could not read filled from older ones
  RecordInfo record;
  std::vector<P2pMeasurement> p2p;      // oldest first
  std::vector<ServeMeasurement> serve;  // oldest first
  // Why the whole record may no longer hold (a newer boot seen, or the notes say a setting just
  // changed after it); empty when it holds. Set from the records and the notes (view/history.h).
  std::string stale;
  // The machine as its newest record has it, before older records filled it in, when there is a
  // previous boot to compare with; and that previous boot.
  std::optional<Machine> as_collected;
  std::optional<PreviousBoot> previous;
  // The collect before the newest in the same boot, when there is one: counters that only grow
  // within a boot (PCIe replays) are compared with it (rule gpu.health).
  std::optional<PreviousBoot> earlier_same_boot;
  // `dossier import` records folded into `machine` (view/imports.h), oldest first, and the facts
  // they disagree with.
  std::vector<RecordInfo> imports;
  std::vector<FactDisagreement> disagreements;
  // Which fact families are known, and from what (collected, or which paste): renderers ask it
  // before reading an empty list as "none" (view/coverage.h).
  Coverage coverage;
  // Known only from its measurements (no collect, no import): nothing of it was captured.
  bool measured_only = false;
};

// One GPU of a guest and the host GPU behind it (view/passthrough.cc).
struct PassthroughGpu {
  std::string guest_address;  // "0000:01:00.0"
  std::string guest_port;     // its root port in the guest, "0000:00:10.0"; empty when none
  Fact<int64_t> port_number;  // the root port's Link Capabilities Port Number (QEMU port=)
  std::string slot;           // "hostpci4"; empty when it could not be told
  std::string host_address;   // "0000:71:00.0"; empty when it could not be told (see `why`)
  std::string source;         // "qemu-cmdline", "vm-config", "mapping-order"
  std::string why;            // how the slot and the host address were found, or why not
  Fact<int64_t> host_numa_node;
  Fact<std::string> host_root_complex;  // "pci0000:70"
  Fact<int64_t> host_iommu_group;
  PciLink host_link;  // the host GPU's link (current and max)
};

// Two GPUs of a guest and what the host can do between the host GPUs behind them
// (view/host_p2p.h): the level the guest cannot see, and whether a P2P clique can work.
struct PassthroughPair {
  size_t a = 0, b = 0;     // indices into MachineLink::gpus, a < b
  std::string host_level;  // PIX, PXB, PHB, NODE, SYS on the host; "" when unknown
  bool clique = false;     // the host can route P2P: x-nv-gpudirect-clique may join them
  bool decided = false;    // `clique` is settled (view/host_p2p.h); else the host cannot tell
  std::string why;         // the reason for `clique`, for a person
};

// A guest machine of the view and its host machine, with the VM that is the guest.
struct MachineLink {
  std::string guest, host;           // machine names
  std::string vm_id;                 // "100"
  std::string how;                   // "smbios-uuid" (automatic) or "note" (dossier note machine)
  std::string evidence;              // which facts matched, or which note said so
  std::vector<PassthroughGpu> gpus;  // in guest address order (the guest's GPU index order)
  // Every pair of `gpus` whose host GPUs are both known, in (a, b) order.
  std::vector<PassthroughPair> pairs;
  const PassthroughPair* Pair(size_t i, size_t j) const {
    if (i > j) std::swap(i, j);
    for (const auto& p : pairs)
      if (p.a == i && p.b == j) return &p;
    return nullptr;
  }
};

struct View {
  std::string generated_at;
  std::string dossier_path;  // empty for one-shot output
  std::vector<MachineView> machines;
  std::vector<std::string> warnings;  // records skipped, fields unreadable
  Notes notes;                        // notes.toml; empty when there is none (or it is broken)
  std::vector<MachineLink> links;     // guest <-> host (view/links.cc)

  const MachineView* Find(const std::string& name) const {
    for (const auto& mv : machines)
      if (mv.machine.name == name) return &mv;
    return nullptr;
  }
  // The link where `machine` is the guest, or nullptr.
  const MachineLink* HostLinkOf(const std::string& guest) const {
    for (const auto& l : links)
      if (l.guest == guest) return &l;
    return nullptr;
  }
};

}  // namespace dossier
