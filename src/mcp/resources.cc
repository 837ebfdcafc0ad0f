#include "mcp/resources.h"

#include <dirent.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "store/regular_file.h"
#include "util/redact.h"

namespace dossier::mcp {
namespace {

using nlohmann::json;

constexpr size_t kMaxFile = 64u << 20;
constexpr size_t kMaxListed = 10000;  // a dossier of years; the newest are listed past that
constexpr const char* kRecordPrefix = "dossier://records/";

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string NoLeadingZeros(std::string s) {
  size_t first = s.find_first_not_of('0');
  return first == std::string::npos ? "0" : s.substr(first);
}

// Record files as the store names them: NNNNNN-kind-machine.json, in sequence order.
std::vector<std::string> RecordFiles(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    size_t dash = n.find('-');
    if (dash == std::string_view::npos || !AllDigits(n.substr(0, dash)) || !n.ends_with(".json"))
      continue;
    names.emplace_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  if (names.size() > kMaxListed) names.erase(names.begin(), names.end() - kMaxListed);
  return names;
}

}  // namespace

json ListResources(const ServerOptions& o) {
  json list = json::array({
      {{"uri", "dossier://report.md"},
       {"name", "report.md"},
       {"title", "The dossier's report (Markdown)"},
       {"description", "every machine's latest view, findings and steps, as `dossier report`"},
       {"mimeType", "text/markdown"}},
      {{"uri", "dossier://report.json"},
       {"name", "report.json"},
       {"title", "The dossier's report (JSON)"},
       {"description", "the same as data, schema dossier/1, with each fact's provenance"},
       {"mimeType", "application/json"}},
      {{"uri", "dossier://notes.toml"},
       {"name", "notes.toml"},
       {"title", "The notes"},
       {"description", "goal, targets, machines, stated facts, what was tried, next steps"},
       {"mimeType", "application/toml"}},
  });
  for (const auto& f : RecordFiles(o.dossier_dir + "/records")) {
    std::string seq = f.substr(0, f.find('-'));
    list.push_back({{"uri", kRecordPrefix + seq},
                    {"name", f},
                    {"description", "a record of the dossier (append-only)"},
                    {"mimeType", "application/json"}});
  }
  return list;
}

Result<ResourcePlan> PlanResource(const std::string& uri, const ServerOptions& o) {
  ResourcePlan p;
  p.uri = uri;
  if (uri == "dossier://report.md" || uri == "dossier://report.json") {
    bool md = uri.ends_with(".md");
    p.mime = md ? "text/markdown" : "application/json";
    Invocation inv;
    inv.argv = {"report", std::string("--format=") + (md ? "md" : "json"),
                "--dossier=" + o.dossier_dir};
    p.run = std::move(inv);
    return p;
  }
  if (uri == "dossier://notes.toml") {
    p.mime = "application/toml";
    auto text = ReadRegularFile(o.dossier_dir + "/notes.toml", kMaxFile);
    if (!text) {
      if (text.error().kind == Error::kNotFound)
        return Error::NotFound("the dossier has no notes.toml yet (the note tool writes it)");
      return text.error();
    }
    p.text = RedactPaste(*text);
    return p;
  }
  if (uri.starts_with(kRecordPrefix)) {
    std::string seq = uri.substr(std::string_view(kRecordPrefix).size());
    if (!AllDigits(seq) || seq.size() > 9)
      return Error::NotFound(
          fmt::format("{}: a record is named by its sequence number, "
                      "dossier://records/000001",
                      uri));
    for (const auto& f : RecordFiles(o.dossier_dir + "/records")) {
      std::string fseq = f.substr(0, f.find('-'));
      if (NoLeadingZeros(fseq) != NoLeadingZeros(seq)) continue;
      auto text = ReadRegularFile(o.dossier_dir + "/records/" + f, kMaxFile);
      if (!text) return text.error();
      p.mime = "application/json";
      p.text = std::move(*text);
      return p;
    }
    return Error::NotFound(fmt::format("{}: no such record in {}", uri, o.dossier_dir));
  }
  return Error::NotFound(
      fmt::format("{}: not a resource of this server (resources/list names "
                  "them)",
                  uri));
}

}  // namespace dossier::mcp
