// The importer table: every foreign format `dossier import` reads is one row, in the order
// `dossier help formats` lists them. Detection asks every row; the surest wins. Where a pasted
// session is cut, the first row whose starts() says yes names the part: order matters there.
#include "import/importer.h"

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
      VmStartErrorImporter(),   P2pTableImporter(),
      ServerLogImporter(),
  };
  return kTable;
}

const Importer* FindImporter(std::string_view name) {
  for (const auto& imp : ImporterTable())
    if (name == imp.name) return &imp;
  return nullptr;
}

}  // namespace dossier::import
