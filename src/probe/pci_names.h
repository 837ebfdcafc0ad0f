// Vendor and device names from the PCI ID database (pci.ids) through libpci's pci_lookup_name.
// Only the name database is used, never libpci's bus access: the devices come from sysfs under
// the root. The database is the one under that root too (/usr/share/misc/pci.ids and the other
// places distributions keep it), so a captured tree that carries one is named by its own database
// (the fixture trees do, so test expectations do not depend on the machine running them); a tree
// without one is named from the portable tarball's database or this machine's, and the source
// says which (Find).
//
// libpci reports a corrupt database through its error callback, whose default prints and exits
// the process; this class installs its own and turns that into an unknown name.
#pragma once

#include <cstdint>
#include <string>

#include "fs/root_fs.h"
#include "model/fact.h"

struct pci_access;

namespace dossier {

class PciNames {
 public:
  explicit PciNames(const RootFs& fs);
  ~PciNames();
  PciNames(const PciNames&) = delete;
  PciNames& operator=(const PciNames&) = delete;

  // "NVIDIA Corporation GA102GL [RTX A6000]"; "NVIDIA Corporation Device 2bb5" (lspci's form)
  // when only the vendor is listed; unknown when neither is, or the database is unusable.
  Fact<std::string> Name(uint16_t vendor, uint16_t device);

  // Where pci.ids would be looked for under the root, first found wins.
  static const char* const kDatabasePaths[];

  // The database a lookup under `fs` uses: the root's own; else the one the portable tarball
  // carries beside the binary (share/dossier/pci.ids.gz, pciutils' file, which libpci reads
  // compressed); else, for a --root tree, the database of the machine running dossier. The
  // tarball's comes before this machine's because a captured tree is then named the same on any
  // machine the same build runs on.
  struct Database {
    std::string path;     // as sources name it: a machine path, or the bundled file and version
    std::string host;     // where it lies on this machine; empty when none was found
    std::string version;  // pci.ids' "Version:" header (or the bundled file's), when readable
  };
  static Database Find(const RootFs& fs);
  // share/dossier/pci.ids.gz beside the running binary (bin/../share/dossier), and its version
  // from pci.ids.version there; empty host when this build carries none.
  static Database Bundled();

 private:
  bool Load();

  const RootFs& fs_;
  pci_access* access_ = nullptr;
  bool tried_ = false;
  std::string path_;     // machine path of the database in use
  std::string failure_;  // why no name can be looked up; empty while usable
};

}  // namespace dossier
