// The importer table: every foreign format `dossier import` reads is one row, in the order
// `dossier help formats` lists them. Detection asks every row; the surest wins.
#include "import/importer.h"

namespace dossier::import {

const std::vector<Importer>& ImporterTable() {
  static const std::vector<Importer> kTable = {
      TopoMatrixImporter(),   TopoP2pImporter(),        NvidiaSmiQImporter(),
      LspciVerboseImporter(), LspciTreeImporter(),      IommuGroupsImporter(),
      ProcCmdlineImporter(),  KernelLogImporter(),      P2pBandwidthImporter(),
      ServeBenchImporter(),   NcclLogImporter(),        CollectJsonImporter(),
      PciCfgImporter(),       QemuServerConfImporter(), QemuCmdlineImporter(),
      VirshDumpxmlImporter(), NvbandwidthImporter(),    NcclTopoImporter(),
  };
  return kTable;
}

const Importer* FindImporter(std::string_view name) {
  for (const auto& imp : ImporterTable())
    if (name == imp.name) return &imp;
  return nullptr;
}

}  // namespace dossier::import
