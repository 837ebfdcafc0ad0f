// The importer table: every foreign format `dossier import` reads is one row, in the order
// `dossier help formats` lists them. Detection asks every row; the surest wins. Where a pasted
// session is cut, the first row whose starts() says yes names the part: order matters there.
#include "import/importer.h"

#include <exception>
#include <string>

namespace dossier::import {

const std::vector<Importer>& ImporterTable() {
  // nvbandwidth's JSON begins with a lone "{" as a dossier JSON file does: it comes before
  // collect-json so that its starts() (which looks at the next line) is asked first.
  static const std::vector<Importer> kTable = {
      TopoMatrixImporter(),     TopoP2pImporter(),     NvidiaSmiQImporter(),
      LspciVerboseImporter(),   LspciTreeImporter(),   IommuGroupsImporter(),
      ProcCmdlineImporter(),    KernelLogImporter(),   P2pBandwidthImporter(),
      NvbandwidthImporter(),    ServeBenchImporter(),  NcclLogImporter(),
      NcclTopoImporter(),       CollectJsonImporter(), PciCfgImporter(),
      QemuServerConfImporter(), QemuCmdlineImporter(), VirshDumpxmlImporter(),
      NumactlImporter(),        LscpuImporter(),       DmidecodeImporter(),
      VmStartErrorImporter(),   P2pTableImporter(),    ServerLogImporter(),
  };
  return kTable;
}

namespace {

std::string LineRange(const Lines& lines) {
  if (lines.empty()) return "the part";
  return "lines " + std::to_string(lines.front().number) + "-" +
         std::to_string(lines.back().number);
}

}  // namespace

Status ParseGuarded(const Importer& imp, const Lines& lines, const ImportSource& src,
                    Imported* out) {
  try {
    return imp.parse(lines, src, out);
  } catch (const std::exception& e) {
    return Error::Invalid(LineRange(lines) + ": the " + imp.name + " reader failed on this part (" +
                          e.what() + "); please report it with the paste");
  } catch (...) {
    return Error::Invalid(LineRange(lines) + ": the " + imp.name +
                          " reader failed on this part; please report it with the paste");
  }
}

bool StartsGuarded(const Importer& imp, const Lines& lines, size_t i) {
  try {
    return imp.starts(lines, i);
  } catch (...) {
    return false;
  }
}

int DetectGuarded(const Importer& imp, const Lines& lines) {
  try {
    return imp.detect(lines);
  } catch (...) {
    return 0;
  }
}

const Importer* FindImporter(std::string_view name) {
  for (const auto& imp : ImporterTable())
    if (name == imp.name) return &imp;
  return nullptr;
}

}  // namespace dossier::import
