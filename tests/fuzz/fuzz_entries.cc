#include "tests/fuzz/fuzz_entries.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "fleet/fleet_compare.h"
#include "fleet/fleet_reader.h"
#include "measure/serve/request_trace.h"
#include "model/json_io.h"
#include "util/redact.h"
#include "util/text.h"

namespace dossier::fuzz {
namespace {

std::string_view View(const uint8_t* d, size_t n) {
  return {reinterpret_cast<const char*>(d), n};
}

void CpuList(const uint8_t* d, size_t n) {
  if (auto v = ParseCpuList(View(d, n))) (void)FormatCpuList(*v);
}

void Redaction(const uint8_t* d, size_t n) {
  std::string_view s = View(d, n);
  (void)RedactCommandLine(s);
  (void)RedactUrl(s);
}

// A record file as `dossier report` reads it: JSON, then the machine model.
void Record(const uint8_t* d, size_t n) {
  nlohmann::json j = nlohmann::json::parse(View(d, n), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return;
  std::vector<std::string> warnings;
  auto m = j.find("machine");
  if (m != j.end()) (void)MachineFromJson(*m, &warnings);
}

// A streamed response body as serve-bench reads it (SSE framing, then each event's JSON), in
// pieces cut where a socket might cut it: every 1 + (first byte % 64) bytes.
void Stream(const uint8_t* d, size_t n) {
  std::string_view s = View(d, n);
  size_t step = n > 0 ? 1 + d[0] % 64 : 1;
  serve::RequestTrace trace(0, 0, 0, 1);
  for (size_t i = 0; i < s.size(); i += step) {
    if (!trace.OnBody(static_cast<int64_t>(i), 200, s.substr(i, step))) break;
  }
  (void)trace.Finish(static_cast<int64_t>(n), 200, serve::TransferEnd{});
}

// One file as `dossier fleet` reads it (a collect record or collect/report JSON output): JSON,
// the machine model, the analysis, the facts compared, and the comparison itself.
void FleetFile(const uint8_t* d, size_t n) {
  fleet::FleetComparer cmp;
  (void)fleet::ReadFleetDocument(
      std::string(View(d, n)), "fuzz.json", [&](const fleet::NodeFacts& f) { cmp.Add(f); },
      [](std::string) {});
  (void)cmp.Finish();
}

}  // namespace

const std::vector<FuzzEntry>& FuzzEntries() {
  static const std::vector<FuzzEntry> kEntries = {
      {"cpulist", CpuList}, {"redact", Redaction}, {"record", Record},
      {"stream", Stream},   {"fleet", FleetFile},
  };
  return kEntries;
}

}  // namespace dossier::fuzz
