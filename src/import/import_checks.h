// What every import passes through (import_run.cc, after each file), so no importer can forget it.
//
// Redaction: a paste is text from elsewhere, and a dossier JSON file from another machine is a
// record from elsewhere (its redaction was not ours to trust). The facts, the measurements, the
// notes, the commands of the pasted prompts and the originals all go through util/redact.h, as
// collect's probes do with what they read (import_redact.cc).
//
// Numbers: a number outside its domain (model/number_domain.h: a negative count, size or
// generation) is a wrong fact, not a fact: it becomes unknown with the reason, and a note names
// the file, line and key (import_numbers.cc). Records read back get the same check in
// model/json_io.cc.
#pragma once

#include "import/importer.h"

namespace dossier::import {

// Every string of the machine (facts, their sources and reasons, argv through RedactArgv, env and
// flag maps by their names), of the measurements, and the notes: made valid UTF-8 (what a parser
// library decoded may not be) and redacted.
void RedactImported(Imported* imported);
// One string said about an import (a note, a pasted prompt's command, why a part was refused),
// the same way.
std::string RedactImportedText(std::string text);

// Every integer and real fact of the machine and the measurements checked against its domain;
// what is outside becomes unknown, and one note per value is added to `notes`.
void CheckNumberDomains(Imported* imported, std::vector<std::string>* notes);

}  // namespace dossier::import
