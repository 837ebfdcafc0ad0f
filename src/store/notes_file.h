// notes.toml: the human-edited notes of a dossier (model/notes.h), read with toml++. A file that
// does not parse, or holds a key of the wrong type or an unknown section, is an error naming the
// file, line and column; the file is never modified by reading it.
//
// The format, section by section (every section optional):
//
//   [goal]
//   text = "Serve GLM-5-NVFP4 on 8x RTX PRO 6000 at 1000+ tok/s"
//
//   [[target]]                      # one per number to reach
//   metric = "total_tokens_per_s"   # a serve-bench metric (analyze/serve_metrics.h)
//   op = ">="
//   value = 1000
//   concurrency = 64                # optional: the run at this concurrency
//
//   [[machine]]
//   name = "pve-host"
//   role = "host"                   # guest | host | bare-metal | client
//   reachable = false
//   instructions = "commands on the host are run by a person and pasted back"
//   guest_of = ""                   # for a guest: its host's name
//
//   [[fact]]                        # what no probe can read
//   name = "ACS"
//   value = "disabled"
//   status = "just-changed"         # confirmed | unknown | just-changed
//   machine = "pve-host"
//
//   [[tried]]
//   what = "disabled ACS in the BIOS"
//   result = "IOMMU groups renumbered; P2P still NS in the guest"
//
//   [[next]]
//   do = "update /etc/pve/mapping/pci.cfg with the new IOMMU groups"
//   verify = "qm start 100"
//   blocking = true
//
//   [[file]]
//   machine = "glm-guest"
//   path = "~/nccl_topo.xml"
//   why = "NCCL topology file"
#pragma once

#include <string>
#include <string_view>

#include "model/notes.h"
#include "util/result.h"

namespace dossier {

inline constexpr size_t kMaxNotesBytes = 4u << 20;

// The notes at `path`; a file that does not exist gives empty notes (path left empty).
Result<Notes> ReadNotes(const std::string& path);
// The same from text already read; `path` names the file in messages.
Result<Notes> ParseNotes(std::string_view text, const std::string& path);

}  // namespace dossier
