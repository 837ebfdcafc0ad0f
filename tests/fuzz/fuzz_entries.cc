#include "tests/fuzz/fuzz_entries.h"

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "analyze/analysis.h"
#include "measure/serve/request_trace.h"
#include "model/json_io.h"
#include "render/render.h"
#include "store/notes_file.h"
#include "util/redact.h"
#include "util/text.h"
#include "util/utf8.h"
#include "view/build_view.h"

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

// A notes file as `note` and `report` read it (toml_depth's bound, then toml++, then the notes
// model).
void NotesFile(const uint8_t* d, size_t n) {
  (void)ParseNotes(View(d, n), "notes.toml");
}

// A record all the way through, as `report` takes it: parsed, made a view with its history,
// analyzed by every rule, rendered in every format. The rendered text must be valid UTF-8.
void RecordReport(const uint8_t* d, size_t n) {
  dossier::Record r;
  r.doc = nlohmann::json::parse(View(d, n), nullptr, /*allow_exceptions=*/false);
  if (r.doc.is_discarded() || !r.doc.is_object()) return;
  r.file = "records/000001-fuzz.json";
  r.sequence = 1;
  r.kind =
      r.doc.value("kind", nlohmann::json()).is_string() ? r.doc["kind"].get<std::string>() : "";
  if (auto m = r.doc.find("machine"); m != r.doc.end() && m->is_object())
    if (auto name = m->find("name"); name != m->end() && name->is_string())
      r.machine = name->get<std::string>();
  std::vector<dossier::Record> records = {r, r};  // twice: the history and diff paths run too
  records[1].file = "records/000002-fuzz.json";
  records[1].sequence = 2;
  dossier::View v = BuildView(records, Notes{}, {});
  Analysis a = Analyze(v);
  for (const auto& renderer : RendererTable()) {
    std::string text = renderer.render(v, a);
    if (!IsValidUtf8(text)) __builtin_trap();
  }
}

// Redaction must hold whatever surrounds a secret: the input is cut into words, and secrets in
// each form redaction knows are planted between them; none may survive, in an argv, a command
// line or an environment value. The plant is marked so that input bytes cannot forge it.
void RedactPlanted(const uint8_t* d, size_t n) {
  std::string_view s = View(d, n);
  std::vector<std::string> words;
  for (auto w : SplitAny(s, " \t\n")) words.emplace_back(w.substr(0, 64));
  if (words.size() > 64) words.resize(64);
  const std::string secret = "PLANTED0SECRET9x";
  for (const auto& rule : RedactionRules()) {
    // The rule's own example with its secret replaced by ours, between the fuzzer's words.
    std::string form = rule.redacted;
    size_t at = form.find(rule.secret);
    if (at == std::string::npos) continue;
    if (std::string(rule.secret) == "UzNDUjNUOng=") {
      form.replace(at, std::strlen(rule.secret), Base64(secret + ":x"));
    } else {
      form.replace(at, std::strlen(rule.secret), secret);
    }
    std::string line;
    for (size_t i = 0; i < words.size() / 2; ++i) line += words[i] + " ";
    line += form;
    for (size_t i = words.size() / 2; i < words.size(); ++i) line += " " + words[i];
    std::string out = RedactCommandLine(line);
    if (out.find(secret) != std::string::npos ||
        out.find(Base64(secret + ":x")) != std::string::npos)
      __builtin_trap();
  }
  std::vector<std::string> argv = words;
  argv.insert(argv.begin() + static_cast<long>(argv.size() / 2), {"--api-key", secret});
  for (const auto& w : RedactArgv(argv))
    if (w.find(secret) != std::string::npos) __builtin_trap();
  std::string env = RedactEnvValue("HF_TOKEN", std::string(s) + secret);
  if (env.find(secret) != std::string::npos) __builtin_trap();
}

}  // namespace

const std::vector<FuzzEntry>& FuzzEntries() {
  static const std::vector<FuzzEntry> kEntries = {
      {"cpulist", CpuList},
      {"redact", Redaction},
      {"record", Record},
      {"stream", Stream},
      {"notes", NotesFile},
      {"record_report", RecordReport},
      {"redact_planted", RedactPlanted},
  };
  return kEntries;
}

}  // namespace dossier::fuzz
