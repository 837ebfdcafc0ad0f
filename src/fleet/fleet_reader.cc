#include "fleet/fleet_reader.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "analyze/analysis.h"
#include "fleet/fleet_json.h"
#include "measure/p2p/record.h"
#include "measure/serve/serve_records.h"
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
    DossierDir dir(path);
    std::vector<std::string> load_warnings;
    auto records = dir.Load(&load_warnings);
    if (!records) {
      warn_(path + ": " + records.error().message + "; skipped");
      ++counts.skipped;
      return;
    }
    View view = DossierView(dir, *records, std::move(load_warnings));
    for (const auto& w : view.warnings) warn_(w);
    ++counts.files;
    Analysis a = Analyze(view);
    for (const auto& mv : view.machines)
      if (!mv.measured_only) node_(FromMachineView(mv, a.Of(mv).findings));
    NeverCollected(*records, view);
  }

  // Machines of the dossier with measurements but no collect (a serve-bench into an empty
  // dossier): shown as nodes with their figures and no facts, not hidden.
  void NeverCollected(const std::vector<Record>& records, const View& view) {
    std::vector<std::string> names;
    for (const auto& r : records) {
      if ((r.kind != "p2p" && r.kind != "serve-bench") || r.machine.empty()) continue;
      if (const MachineView* mv = view.Find(r.machine); mv && !mv->measured_only) continue;
      if (std::find(names.begin(), names.end(), r.machine) == names.end())
        names.push_back(r.machine);
    }
    if (names.empty()) return;
    std::vector<std::string> w;
    auto serve = serve::ServeMeasurementsByMachine(records, &w);
    for (const auto& name : names) {
      MachineView mv;
      mv.machine.name = name;
      mv.p2p = p2p::P2pFromRecords(records, name, &w);
      if (auto it = serve.find(name); it != serve.end()) mv.serve = it->second;
      for (const auto& r : records)
        if (r.machine == name) mv.record = {r.file, r.kind, r.time, r.tool};
      NodeFacts n = FromMachineView(mv, {});
      n.collected = false;
      n.board = "not collected";
      n.gpu_model = "unknown";
      n.attributes.clear();  // nothing was read: no fact to compare
      node_(n);
    }
    for (auto& s : w) warn_(std::move(s));
  }

  void File(const std::string& path) {
    std::string text;
    if (Slurp(path, &text)) Document(std::move(text), path);
  }

  // One file's text: a collect record, or collect/report JSON output with machines[].
  void Document(std::string text, const std::string& path) {
    std::string problem;
    auto parsed = ParseFleetJson(text, &problem);
    if (!parsed) {
      Skip(path + problem + "; skipped. Collect it again, or remove it.");
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
      FillHeaderFromDoc(&r);
      std::vector<Record> one;  // moved in: an initializer list would copy the whole document
      one.push_back(std::move(r));
      View view = BuildView(one, Notes{}, {});
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

// What to read, in the order the results are reported: files, and dossier directories.
struct Item {
  std::string path;
  bool dossier = false;
};

// Directories in name order; dossiers inside are read as dossiers, other files by name. Only
// paths are kept (a few dozen bytes per node), never contents.
void Walk(const fs::path& dir, int depth, std::vector<Item>* items,
          std::vector<std::string>* problems) {
  if (depth > 32) {
    problems->push_back(dir.string() + ": deeper than 32 directories; not walked further");
    return;
  }
  std::vector<fs::path> entries;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    entries.push_back(it->path());
  if (ec) {
    problems->push_back(dir.string() + ": cannot read the directory (" + ec.message() + ")");
    return;
  }
  std::sort(entries.begin(), entries.end());
  for (const auto& p : entries) {
    std::string name = p.filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code e2;
    auto st = fs::status(p, e2);
    if (fs::is_directory(st)) {
      if (IsDossier(p))
        items->push_back({p.string(), true});
      else
        Walk(p, depth + 1, items, problems);
    } else if (fs::is_regular_file(st) && name.ends_with(".json")) {
      items->push_back({p.string(), false});
    }
  }
}

// One item read: its nodes, warnings and counts, handed to the caller in item order.
struct ItemResult {
  std::vector<NodeFacts> nodes;
  std::vector<std::string> warnings;
  ReadCounts counts;
};

ItemResult ReadItem(const Item& item) {
  ItemResult out;
  std::function<void(const NodeFacts&)> node = [&](const NodeFacts& n) { out.nodes.push_back(n); };
  std::function<void(std::string)> warn = [&](std::string w) {
    out.warnings.push_back(std::move(w));
  };
  Reader r(node, warn);
  if (item.dossier)
    r.Dossier(item.path);
  else
    r.File(item.path);
  out.counts = r.counts;
  return out;
}

// Parsing and analysing a record is most of the work and independent per file: worker threads
// read items ahead (at most kWindow beyond what was delivered, so memory stays bounded) while
// this thread delivers results in item order, which keeps the output the same for any number of
// threads.
constexpr size_t kWindow = 64;

void ReadItems(const std::vector<Item>& items, unsigned threads,
               const std::function<void(ItemResult&&)>& deliver) {
  if (threads <= 1 || items.size() < 2) {
    for (const auto& it : items) deliver(ReadItem(it));
    return;
  }
  std::mutex mu;
  std::condition_variable cv;
  size_t next = 0, delivered = 0;
  std::map<size_t, ItemResult> ready;
  auto work = [&] {
    for (;;) {
      size_t i;
      {
        std::unique_lock<std::mutex> lock(mu);
        // wait_for, not wait: GCC 12's condition_variable::wait(unique_lock&) carries
        // GLIBCXX_3.4.30, which RHEL 9's libstdc++ lacks (the portable binary's limit).
        while (!(next >= items.size() || next < delivered + kWindow))
          cv.wait_for(lock, std::chrono::milliseconds(50));
        if (next >= items.size()) return;
        i = next++;
      }
      ItemResult r = ReadItem(items[i]);
      {
        std::lock_guard<std::mutex> lock(mu);
        ready.emplace(i, std::move(r));
      }
      cv.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (size_t i = 0; i < items.size(); ++i) {
    ItemResult r;
    {
      std::unique_lock<std::mutex> lock(mu);
      while (ready.count(i) == 0) cv.wait_for(lock, std::chrono::milliseconds(50));
      r = std::move(ready[i]);
      ready.erase(i);
      delivered = i + 1;
    }
    cv.notify_all();
    deliver(std::move(r));
  }
  for (auto& t : pool) t.join();
}

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
  std::vector<Item> items;
  std::vector<std::string> problems;
  for (const auto& p : paths) {
    std::error_code ec;
    if (!fs::is_directory(p, ec))
      items.push_back({p, false});
    else if (IsDossier(p))
      items.push_back({p, true});
    else
      Walk(p, 0, &items, &problems);
  }
  ReadCounts total;
  total.skipped = problems.size();
  for (auto& w : problems) warn(std::move(w));
  unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  ReadItems(items, threads, [&](ItemResult&& r) {
    for (const auto& n : r.nodes) node(n);
    for (auto& w : r.warnings) warn(std::move(w));
    total.files += r.counts.files;
    total.skipped += r.counts.skipped;
    total.measurements += r.counts.measurements;
  });
  return total;
}

}  // namespace dossier::fleet
