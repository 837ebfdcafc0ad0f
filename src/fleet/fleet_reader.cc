#include "fleet/fleet_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analyze/analysis.h"
#include "fleet/fleet_json.h"
#include "model/json_io.h"
#include "store/dossier_dir.h"
#include "view/build_view.h"

namespace dossier::fleet {
namespace {

namespace fs = std::filesystem;

bool IsDossier(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir / "records", ec);
}

class Reader {
 public:
  Reader(const std::function<void(const NodeFacts&)>& node,
         const std::function<void(std::string)>& warn)
      : node_(node), warn_(warn) {}

  void Dossier(const std::string& path) {
    auto view = LoadView(DossierDir(path));
    if (!view) {
      warn_(path + ": " + view.error().message + "; skipped");
      ++counts.skipped;
      return;
    }
    for (const auto& w : view->warnings) warn_(w);
    ++counts.files;
    Analysis a = Analyze(*view);
    for (const auto& mv : view->machines) node_(FromMachineView(mv, a.Of(mv).findings));
  }

  void File(const std::string& path) {
    std::string text;
    if (Slurp(path, &text)) Document(std::move(text), path);
  }

  // One file's text: a collect record, or collect/report JSON output with machines[].
  void Document(std::string text, const std::string& path) {
    size_t bad_line = 0;
    auto parsed = ParseFleetJson(text, &bad_line);
    if (!parsed) {
      Skip(path + ":" + std::to_string(bad_line) +
           ": not valid JSON (truncated or damaged); skipped. Collect it again, or remove it.");
      return;
    }
    nlohmann::json doc = std::move(*parsed);
    text = std::string();  // the parsed document is all that is needed now
    if (!doc.is_object()) return Skip(path + ": not a dossier record or collect output; skipped");
    if (auto s = doc.find("schema");
        s != doc.end() && (!s->is_string() || s->get<std::string>() != kSchema))
      return Skip(path + ": schema " + s->dump() + ", this dossier reads " + kSchema + "; skipped");
    if (auto ms = doc.find("machines"); ms != doc.end() && ms->is_array()) {
      ++counts.files;
      std::vector<std::string> w;
      for (const auto& m : *ms)
        if (m.is_object()) node_(FromOutputMachine(m, path, &w));
      for (auto& s : w) warn_(std::move(s));
      return;
    }
    auto kind_it = doc.find("kind");
    std::string kind =
        kind_it != doc.end() && kind_it->is_string() ? kind_it->get<std::string>() : "";
    if (kind == "collect" && doc.contains("machine") && doc["machine"].is_object()) {
      ++counts.files;
      Record r;
      r.file = path;
      r.kind = kind;
      if (auto t = doc.find("time"); t != doc.end() && t->is_string())
        r.time = t->get<std::string>();
      if (auto n = doc["machine"].find("name"); n != doc["machine"].end() && n->is_string())
        r.machine = n->get<std::string>();
      r.doc = std::move(doc);
      View view = BuildView({r}, Notes{}, {});
      for (const auto& w : view.warnings) warn_(w);
      Analysis a = Analyze(view);
      for (const auto& mv : view.machines) node_(FromMachineView(mv, a.Of(mv).findings));
      return;
    }
    if (kind == "p2p" || kind == "serve-bench") {
      // A measurement names its machine but carries none of its facts: only within a dossier
      // does it join the machine's collect.
      ++counts.measurements;
      return;
    }
    Skip(path + ": not a collect record or collect/report JSON output" +
         (kind.empty() ? std::string() : " (kind '" + kind + "')") + "; skipped");
  }

  // Directories in name order; dossiers inside are read as dossiers, other files by name.
  void Walk(const fs::path& dir, int depth) {
    if (depth > 32) return Skip(dir.string() + ": deeper than 32 directories; not walked further");
    std::vector<fs::path> entries;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      entries.push_back(it->path());
    if (ec) return Skip(dir.string() + ": cannot read the directory (" + ec.message() + ")");
    std::sort(entries.begin(), entries.end());
    for (const auto& p : entries) {
      std::string name = p.filename().string();
      if (name.empty() || name[0] == '.') continue;
      std::error_code e2;
      auto st = fs::status(p, e2);
      if (fs::is_directory(st)) {
        if (IsDossier(p))
          Dossier(p.string());
        else
          Walk(p, depth + 1);
      } else if (fs::is_regular_file(st) && name.ends_with(".json")) {
        File(p.string());
      }
    }
  }

  ReadCounts counts;

 private:
  void Skip(std::string why) {
    ++counts.skipped;
    warn_(std::move(why));
  }
  bool Slurp(const std::string& path, std::string* text) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      Skip(path + ": cannot open (" + std::strerror(errno) + "); skipped");
      return false;
    }
    in.seekg(0, std::ios::end);
    auto size = static_cast<size_t>(in.tellg());
    if (size > DossierDir::kMaxRecordBytes) {
      Skip(path + ": larger than 256 MiB, not a record; skipped");
      return false;
    }
    in.seekg(0);
    text->assign(size, '\0');
    in.read(text->data(), static_cast<std::streamsize>(size));
    return true;
  }

  const std::function<void(const NodeFacts&)>& node_;
  const std::function<void(std::string)>& warn_;
};

}  // namespace

ReadCounts ReadFleetDocument(std::string text, const std::string& name,
                             const std::function<void(const NodeFacts&)>& node,
                             const std::function<void(std::string)>& warn) {
  Reader r(node, warn);
  r.Document(std::move(text), name);
  return r.counts;
}

Result<ReadCounts> ReadFleet(const std::vector<std::string>& paths,
                             const std::function<void(const NodeFacts&)>& node,
                             const std::function<void(std::string)>& warn) {
  for (const auto& p : paths) {
    struct stat st;
    if (::stat(p.c_str(), &st) != 0)
      return Error::NotFound(p + ": " + std::strerror(errno) +
                             " (give dossier directories, record files, collect JSON outputs, or "
                             "directories holding them)");
  }
  Reader r(node, warn);
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec))
      r.File(p);
    else if (IsDossier(p))
      r.Dossier(p);
    else
      r.Walk(p, 0);
  }
  return r.counts;
}

}  // namespace dossier::fleet
