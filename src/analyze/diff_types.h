// The result of comparing two collect records of one machine (analyze/diff.h computes it): what
// changed in the hardware and its wiring, the IOMMU groups, the links, drivers, kernel command
// line, software, P2P status, and which findings appeared or cleared. Plain data for the renderers.
#pragma once

#include <string>
#include <vector>

namespace dossier {

struct Change {
  // "device-added", "device-removed", "device-moved", "iommu-renumbered", "iommu-regrouped",
  // "link", "driver", "kernel-cmdline", "software", "p2p", "finding-appeared",
  // "finding-cleared", "fact"
  std::string kind;
  std::string subject;  // a PCI address, "IOMMU group 23", a fact path
  std::string before;   // "" when there was nothing
  std::string after;
  std::string detail;  // one sentence for a person
  template <class V>
  void visit(V& v) {
    v("kind", kind);
    v("subject", subject);
    v("before", before);
    v("after", after);
    v("detail", detail);
  }
};

struct DiffSide {
  std::string file;  // record file
  std::string time;
  std::string boot_id;
  std::string kind = "collect";  // "collect" or "import" (a state known from pasted outputs)
  template <class V>
  void visit(V& v) {
    v("file", file);
    v("time", time);
    v("boot_id", boot_id);
    v("kind", kind);
  }
};

struct MachineDiff {
  std::string machine;
  DiffSide from, to;
  bool rebooted = false;  // boot ids differ
  std::vector<Change> changes;
  // What was not compared, and why: a side known from pasted outputs holds only what was pasted,
  // so a device or fact one side does not show is not a change.
  std::vector<std::string> not_compared;
  template <class V>
  void visit(V& v) {
    v("machine", machine);
    v("from", from);
    v("to", to);
    v("rebooted", rebooted);
    v("changes", changes);
    v("not_compared", not_compared);
  }
};

}  // namespace dossier
