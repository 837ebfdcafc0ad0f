// DMI (SMBIOS) identity from /sys/class/dmi/id, and the processor's version string from the
// type 4 structure. Readable without root except the serial numbers, which we do not read: they
// identify the owner's hardware and add nothing to a diagnosis; the raw structures, which need
// root; and product_uuid (root only), which we do read: in a VM it equals the VM's configured
// SMBIOS UUID and is how a guest is linked to its VM on the host (view/links.cc).
#include "probe/dmi_processor.h"
#include "probe/probe.h"
#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {
namespace {

// The n-th (1-based) string of the set after the formatted area; empty when absent.
std::string DmiString(std::string_view raw, size_t formatted_len, uint8_t n) {
  if (n == 0 || formatted_len > raw.size()) return {};
  std::string_view strings = raw.substr(formatted_len);
  for (uint8_t i = 1; !strings.empty(); ++i) {
    size_t end = strings.find('\0');
    if (end == std::string_view::npos || end == 0) return {};  // cut short, or the set's end
    if (i == n) return Printable(Trim(strings.substr(0, end)), 120);
    strings.remove_prefix(end + 1);
  }
  return {};
}

}  // namespace

DmiProcessor DecodeDmiProcessor(std::string_view raw, const std::string& source) {
  DmiProcessor p;
  // Type 4: 0 type, 1 length of the formatted area, 7 manufacturer string, 0x10 version string.
  if (raw.size() < 0x11 || static_cast<uint8_t>(raw[0]) != 4 ||
      static_cast<uint8_t>(raw[1]) < 0x11) {
    p.manufacturer.Unknown("not an SMBIOS processor (type 4) structure", source);
    p.version.Unknown("not an SMBIOS processor (type 4) structure", source);
    return p;
  }
  size_t len = static_cast<uint8_t>(raw[1]);
  auto set = [&](uint8_t index, const char* what, Fact<std::string>* out) {
    std::string s = DmiString(raw, len, index);
    if (s.empty())
      out->Unknown(std::string("no ") + what + " string", source);
    else
      out->Set(s, source + " (" + what + ")");
  };
  set(static_cast<uint8_t>(raw[7]), "manufacturer", &p.manufacturer);
  set(static_cast<uint8_t>(raw[0x10]), "version", &p.version);
  return p;
}

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
  const std::string raw_path = "/sys/firmware/dmi/entries/4-0/raw";
  auto raw = ctx.fs.Read(raw_path, 64 << 10);
  if (raw) {
    DmiProcessor p = DecodeDmiProcessor(*raw, raw_path);
    m->dmi.processor_manufacturer = p.manufacturer;
    m->dmi.processor_version = p.version;
  } else {
    m->dmi.processor_manufacturer.Unknown(ReasonFor(raw.error()), raw_path);
    m->dmi.processor_version.Unknown(ReasonFor(raw.error()), raw_path);
  }
  if (m->dmi.product_uuid.known()) m->dmi.product_uuid.value = ToLower(*m->dmi.product_uuid);
}

}  // namespace dossier
