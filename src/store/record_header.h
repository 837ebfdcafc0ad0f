// A record's header without its body: the top-level strings every command needs to choose records
// (schema, kind, time, tool, machine name, boot id, host name, root), read by streaming the file
// through nlohmann's SAX parser. The whole text is still checked as JSON — by the same parser a
// full parse uses, so a damaged record is refused with the same message at the same byte — but
// nothing is built: memory stays a few KiB whatever the record's size, and a dossier of a
// thousand multi-MB measurements is listed without holding any of them (issue #12).
//
// Why nlohmann's SAX rather than simdjson (also a dependency): simdjson's On-Demand parser needs
// the whole file in memory (padded) and validates only what it visits, so a truncated body could
// pass and its errors would not match the full parse's; the SAX parser reads from a 64 KiB buffer
// and rejects exactly what json::parse rejects.
#pragma once

#include <cstddef>
#include <string>

#include "util/result.h"

namespace dossier {

struct RecordHeader {
  bool object = false;            // the document is a JSON object
  bool schema_is_string = false;  // "schema" present and a string
  std::string schema, kind, time, tool, boot_id, hostname, root;
  bool has_root = false;
  bool machine_object = false;  // "machine" is an object (a collect or import), not a name
  std::string machine;          // "machine" when a string, else machine.name (when a string)
  // Not JSON: the line of the byte the parser stopped at (1-based); 0 when the text parsed.
  size_t bad_json_line = 0;
};

// Errors: those of ReadRegularFile (not found, not a regular file, larger than max_bytes). Text
// that is not JSON is a header with bad_json_line set (the caller words the warning).
Result<RecordHeader> ReadRecordHeader(const std::string& path, size_t max_bytes);

}  // namespace dossier
