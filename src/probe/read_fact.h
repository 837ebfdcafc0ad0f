// Reading one sysfs/procfs attribute into a fact: the value and its source, or unknown with the
// reason (file absent, needs root, not a number). Shared by every probe.
#pragma once

#include <string>
#include <string_view>

#include "fs/root_fs.h"
#include "model/fact.h"

namespace dossier {

// The reason to record for a failed read: "file absent", "needs root", or the message.
std::string ReasonFor(const Error& e);
// The same for a directory that could not be listed: "directory absent", "needs root", …
std::string ReasonForDir(const Error& e);

// First line of the file, trimmed; an empty file is unknown ("empty").
void ReadStringFact(const RootFs& fs, std::string_view path, Fact<std::string>* out);
// A whole decimal integer (base 0: also 0x hex); anything else is unknown with the text shown.
void ReadIntFact(const RootFs& fs, std::string_view path, Fact<int64_t>* out, int base = 10);

}  // namespace dossier
