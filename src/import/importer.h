// Importers: what a person pasted back from a machine dossier cannot run on, turned into facts.
// One file per foreign format (topo_m.cc, lspci_vvv.cc, …), each a pure function from text to
// facts with the line every fact came from; one table (importer_table.cc) lists them for
// detection, `--as` and `dossier help formats`. No importer does I/O: the CLI reads the files
// (cli/import.cc), paste_text.h makes the text safe, split_session.h cuts a pasted session into
// one part per output.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "model/machine.h"
#include "model/measurement.h"
#include "util/result.h"

namespace dossier::import {

// One line of a pasted text: its 1-based number in the file, and its text with CR, ANSI colour
// codes and trailing spaces removed (paste_text.h).
struct TextLine {
  size_t number = 0;
  std::string text;
};
using Lines = std::vector<TextLine>;

// Where a part came from: the file (as the user named it), the format it is read as, and the
// command line a pasted prompt showed before it ("nvidia-smi topo -p2p r"), when there was one.
struct ImportSource {
  std::string file;
  std::string format;
  std::string command;
  std::string pair;  // `dossier import --pair A-B`: the GPU pair a pasted table is about
  // Provenance of a fact read from `line`: "imported: FILE:LINE (FORMAT)".
  std::string At(size_t line) const;
};

// What the parts of one import say. Importers add to it; several parts (lspci and IOMMU groups of
// one host) fill one machine.
struct Imported {
  Machine machine;  // only what the text says; everything else stays not captured
  std::vector<P2pMeasurement> p2p;
  std::vector<ServeMeasurement> serve;
  std::vector<std::string> notes;  // "line 14: the table stops here (cut off); kept GPU0-GPU3"
  size_t facts = 0;                // facts set, so a part that yields nothing is said so
};

struct Importer {
  const char* name;  // "topo-m": what --as takes and what provenance names
  const char* what;  // one line for `dossier help formats`
  // Command lines that print this format ("nvidia-smi topo -m"), matched against a pasted prompt.
  std::vector<const char*> commands;
  // Whether the output of this format begins at lines[i] (looking ahead as needed): where a
  // pasted session is cut when no prompt shows the command.
  bool (*starts)(const Lines& lines, size_t i);
  // How sure the content is this format: 0 not at all, 100 certain.
  int (*detect)(const Lines& lines);
  // Reads the part into `out`. An error means the part is not this format at all; what is merely
  // damaged is kept as far as it is complete and said in out->notes.
  Status (*parse)(const Lines& lines, const ImportSource& src, Imported* out);
};

const std::vector<Importer>& ImporterTable();
const Importer* FindImporter(std::string_view name);

// The table's functions as called from outside the importers (split_session.cc, import_run.cc):
// an exception an importer lets out (a parser library's, a bad_alloc, a bug) is caught here and
// becomes an error naming the lines of the part (ParseGuarded) or a "no" (StartsGuarded,
// DetectGuarded), never the end of the process. Importers are written not to throw; this is the
// boundary that holds when one does.
Status ParseGuarded(const Importer& imp, const Lines& lines, const ImportSource& src,
                    Imported* out);
bool StartsGuarded(const Importer& imp, const Lines& lines, size_t i);
int DetectGuarded(const Importer& imp, const Lines& lines);

// The importers, one per file under src/import/.
Importer TopoMatrixImporter();      // topo_m.cc
Importer TopoP2pImporter();         // topo_p2p.cc
Importer NvidiaSmiQImporter();      // nvidia_smi_q.cc
Importer LspciVerboseImporter();    // lspci_vvv.cc
Importer LspciTreeImporter();       // lspci_tree.cc
Importer IommuGroupsImporter();     // iommu_groups.cc
Importer ProcCmdlineImporter();     // proc_cmdline.cc
Importer KernelLogImporter();       // kernel_log.cc
Importer P2pBandwidthImporter();    // p2p_bandwidth.cc
Importer ServeBenchImporter();      // serve_bench.cc
Importer NcclLogImporter();         // nccl_log.cc
Importer CollectJsonImporter();     // collect_json.cc
Importer PciCfgImporter();          // proxmox.cc
Importer QemuServerConfImporter();  // proxmox.cc
Importer ServerLogImporter();       // server_log.cc
Importer QemuCmdlineImporter();     // qemu_cmdline_paste.cc
Importer VirshDumpxmlImporter();    // libvirt_xml.cc
Importer NvbandwidthImporter();     // nvbandwidth.cc
Importer NcclTopoImporter();        // nccl_topo.cc
Importer NumactlImporter();         // numactl.cc
Importer LscpuImporter();           // lscpu.cc
Importer DmidecodeImporter();       // dmidecode.cc
Importer VmStartErrorImporter();    // vm_start_error.cc
Importer P2pTableImporter();        // p2p_table.cc

}  // namespace dossier::import
