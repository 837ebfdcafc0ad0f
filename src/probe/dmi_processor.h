// The processor's manufacturer and version string from the SMBIOS type 4 structure, as the
// kernel exports it in /sys/firmware/dmi/entries/4-0/raw (root only). Used for the CPU model
// where /proc/cpuinfo names none (ARM servers whose parts are not in our table).
#pragma once

#include <string>
#include <string_view>

#include "model/fact.h"

namespace dossier {

struct DmiProcessor {
  Fact<std::string> manufacturer, version;
};

// Decodes one raw SMBIOS structure; each field unknown with the reason when the bytes are not
// a type 4 structure or the string is absent. `source` names the file for the facts.
DmiProcessor DecodeDmiProcessor(std::string_view raw, const std::string& source);

}  // namespace dossier
