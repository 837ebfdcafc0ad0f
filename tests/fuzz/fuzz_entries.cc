#include "tests/fuzz/fuzz_entries.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "import/import_run.h"
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

// A pasted text as `dossier import` reads it: detected and split (kImportAuto), or forced through
// one importer (--as). The facts are then written as the record would be: JSON that cannot be
// dumped (invalid UTF-8 let through) throws, and fails the entry.
constexpr const char* kImportAuto = "";
template <const char* const* Name>
void ImportAs(const uint8_t* d, size_t n) {
  import::ImportRun run;
  const import::Importer* forced = **Name ? import::FindImporter(*Name) : nullptr;
  if (**Name && !forced) __builtin_trap();  // the entry names an importer the table lacks
  if (!import::ImportText(View(d, n), "fuzz", forced, &run)) return;
  (void)MachineToJson(run.imported.machine).dump();
  for (const auto& m : run.imported.p2p) (void)P2pToJson(m).dump();
  for (const auto& m : run.imported.serve) (void)ServeToJson(m).dump();
  for (const auto& f : run.files) (void)nlohmann::json(f.notes).dump();
}
constexpr const char* kImpAuto = kImportAuto;
constexpr const char* kImpTopoM = "topo-m";
constexpr const char* kImpTopoP2p = "topo-p2p";
constexpr const char* kImpSmiQ = "nvidia-smi-q";
constexpr const char* kImpLspci = "lspci";
constexpr const char* kImpLspciTree = "lspci-tree";
constexpr const char* kImpIommu = "iommu-groups";
constexpr const char* kImpCmdline = "cmdline";
constexpr const char* kImpKlog = "kernel-log";
constexpr const char* kImpP2pBw = "p2p-bandwidth-latency";
constexpr const char* kImpServe = "serve-bench";
constexpr const char* kImpJson = "dossier-json";
constexpr const char* kImpNccl = "nccl-log";

}  // namespace

const std::vector<FuzzEntry>& FuzzEntries() {
  static const std::vector<FuzzEntry> kEntries = {
      {"cpulist", CpuList},
      {"redact", Redaction},
      {"record", Record},
      {"stream", Stream},
      // dossier import: the whole path, then each importer alone (tests/corpus/import-*).
      {"import", ImportAs<&kImpAuto>},
      {"import-topo-m", ImportAs<&kImpTopoM>},
      {"import-topo-p2p", ImportAs<&kImpTopoP2p>},
      {"import-nvidia-smi-q", ImportAs<&kImpSmiQ>},
      {"import-lspci", ImportAs<&kImpLspci>},
      {"import-lspci-tree", ImportAs<&kImpLspciTree>},
      {"import-iommu-groups", ImportAs<&kImpIommu>},
      {"import-cmdline", ImportAs<&kImpCmdline>},
      {"import-kernel-log", ImportAs<&kImpKlog>},
      {"import-p2p-bandwidth-latency", ImportAs<&kImpP2pBw>},
      {"import-serve-bench", ImportAs<&kImpServe>},
      {"import-dossier-json", ImportAs<&kImpJson>},
      {"import-nccl-log", ImportAs<&kImpNccl>},
  };
  return kEntries;
}

}  // namespace dossier::fuzz
