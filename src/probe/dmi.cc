// DMI (SMBIOS) identity from /sys/class/dmi/id. Readable without root except the serial numbers,
// which we do not read: they identify the owner's hardware and add nothing to a diagnosis, and
// product_uuid (root only), which we do read: in a VM it equals the VM's configured SMBIOS UUID
// and is how a guest is linked to its VM on the host (view/links.cc).
#include "probe/probe.h"
#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {

void ProbeDmi(const ProbeContext& ctx, Machine* m) {
  static const struct {
    const char* file;
    Fact<std::string> DmiInfo::*field;
  } kFields[] = {
      {"sys_vendor", &DmiInfo::sys_vendor},     {"product_name", &DmiInfo::product_name},
      {"board_vendor", &DmiInfo::board_vendor}, {"board_name", &DmiInfo::board_name},
      {"bios_vendor", &DmiInfo::bios_vendor},   {"bios_version", &DmiInfo::bios_version},
      {"bios_date", &DmiInfo::bios_date},       {"product_uuid", &DmiInfo::product_uuid},
  };
  for (const auto& f : kFields) {
    ReadStringFact(ctx.fs, std::string("/sys/class/dmi/id/") + f.file, &(m->dmi.*f.field));
  }
  if (m->dmi.product_uuid.known()) m->dmi.product_uuid.value = ToLower(*m->dmi.product_uuid);
}

}  // namespace dossier
