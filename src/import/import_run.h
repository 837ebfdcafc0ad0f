// One `dossier import`: every file read through the paste door, split into parts, each part read
// by its importer, all into one Imported; plus the account of what was done with every line range
// (which format read it, what was not recognised). Pure: the CLI does the reading and writing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "import/importer.h"
#include "import/paste_text.h"

namespace dossier::import {

struct PartReport {
  size_t first_line = 0, last_line = 0;
  std::string format;   // empty: not recognised
  std::string command;  // the pasted prompt's command, when there was one
  std::string error;    // why the importer could not read it, when it could not
  std::string took;     // what it added: "9 PCI devices (8 GPUs), 12 IOMMU groups"
};

struct FileReport {
  std::string file;
  std::vector<PartReport> parts;
  std::vector<std::string> notes;  // elisions, cut-off tables, lines that were not read
  std::string text;                // the original, kept in the record
};

struct ImportRun {
  Imported imported;
  std::vector<FileReport> files;
  size_t recognised_parts = 0;
  std::string pair;       // --pair A-B: the GPU pair of pasted tables that do not name it
  size_t held_lines = 0;  // lines of the parts `imported` holds (how big a copy of it is)
};

// Adds one file's text (already read; `file` names it). Hostile text is an error with the line,
// and nothing of that file is added. `forced` is --as, or null.
Status ImportText(std::string_view bytes, const std::string& file, const Importer* forced,
                  ImportRun* run);

// The records one import appends, in order: the import record (facts, what each line range was
// read as, the original texts), then one p2p or serve-bench record per pasted measurement.
std::vector<nlohmann::json> ImportRecords(const ImportRun& run, const std::string& machine,
                                          const std::string& time);

}  // namespace dossier::import
