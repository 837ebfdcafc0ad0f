// dossier import FILE… [-]: what a person pasted back from a machine dossier cannot run on (a
// hypervisor host, an old ticket, a colleague's node) becomes facts about the machine named by
// --machine. Every file is read whole (bounded) and checked before anything is stored: hostile
// input is exit 2 with the file and line, and no record is written. Then one record of kind
// "import" (the facts, what each line range was read as, the original texts) and, for pasted
// measurements, records of kind p2p / serve-bench in the form dossier's own measurements take.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "analyze/analysis.h"
#include "cli/parse.h"
#include "import/import_run.h"
#include "import/importer.h"
#include "render/render.h"
#include "store/dossier_dir.h"
#include "util/text.h"
#include "view/build_view.h"

namespace dossier::cli {
namespace {

// Reads at most limit+1 bytes, so a file too large is known without reading all of it.
Result<std::string> ReadBounded(const std::string& path, size_t limit) {
  FILE* f = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!f) return Error::NotFound(path + ": cannot open: " + std::strerror(errno));
  std::string out;
  char buf[1 << 16];
  while (out.size() <= limit) {
    size_t n = std::fread(buf, 1, sizeof buf, f);
    if (n == 0) break;
    out.append(buf, n);
  }
  bool err = std::ferror(f);
  if (f != stdin) std::fclose(f);
  if (err) return Error::Io(path + ": read error");
  if (out.size() > limit)
    return Error::TooLarge(path + ": larger than the " + std::to_string(limit >> 20) +
                           " MiB an import reads; pass only the outputs that matter");
  return out;
}

}  // namespace

int RunImport(const std::vector<std::string>& args) {
  CLI::App app(
      "Import outputs a person pasted back (nvidia-smi, lspci, IOMMU groups, dmesg, benchmark "
      "results…) as facts about a machine dossier cannot run on. FILE may be '-' (stdin); a file "
      "holding a whole pasted session is split into its outputs. 'dossier help formats' lists "
      "what is read.",
      "dossier import");
  std::vector<std::string> files;
  std::string machine, dossier_dir = "dossier", as, format;
  bool quiet = false;
  app.add_option("files", files, "files with pasted outputs ('-' for standard input)")->required();
  app.add_option("--machine", machine, "the machine the outputs came from")
      ->required()
      ->check(MachineName());
  app.add_option("--dossier", dossier_dir, "dossier directory to append to")->capture_default_str();
  app.add_option("--as", as, "read every file as this format (see 'dossier help formats')");
  app.add_option("--format", format, "print the machine as imported (md or json); store nothing")
      ->check(CLI::IsMember({"md", "json"}));
  app.add_flag("-q,--quiet", quiet, "no summary on stderr");
  std::string pair;
  app.add_option("--pair", pair,
                 "A-B: the GPU pair (CUDA ordinals) a pasted bandwidth table is about, when its "
                 "text does not say");
  if (int rc = Parse(app, args); rc >= 0) return rc;

  const import::Importer* forced = nullptr;
  if (!as.empty()) {
    forced = import::FindImporter(as);
    if (!forced) {
      std::fprintf(stderr,
                   "dossier import: --as %s: no such format; 'dossier help formats' "
                   "lists them\n",
                   as.c_str());
      return kExitUsage;
    }
  }
  import::ImportRun run;
  run.imported.machine.name = machine;
  if (!pair.empty()) {
    auto parts = Split(pair, '-');
    if (parts.size() != 2 || !ParseInt(parts[0]) || !ParseInt(parts[1])) {
      std::fprintf(stderr, "dossier import: --pair %s: expected A-B (GPU ordinals, '0-1')\n",
                   pair.c_str());
      return kExitUsage;
    }
    run.pair = pair;
  }
  int stdin_uses = 0;
  for (const auto& f : files) {
    if (f == "-" && ++stdin_uses > 1) {
      std::fprintf(stderr, "dossier import: '-' (standard input) given twice\n");
      return kExitUsage;
    }
    auto bytes = ReadBounded(f, import::kMaxPasteBytes);
    if (!bytes) {
      std::fprintf(stderr, "dossier import: %s\nnothing was stored\n",
                   bytes.error().message.c_str());
      return kExitUsage;
    }
    std::string name = f == "-" ? "<stdin>" : f;
    if (auto s = import::ImportText(*bytes, name, forced, &run); !s) {
      std::fprintf(stderr, "dossier import: %s\nnothing was stored\n", s.error().message.c_str());
      return kExitUsage;
    }
  }
  if (!quiet || run.recognised_parts == 0) {
    for (const auto& fr : run.files) {
      for (const auto& p : fr.parts)
        std::fprintf(stderr, "%s:%zu-%zu: %s%s%s\n", fr.file.c_str(), p.first_line, p.last_line,
                     p.format.empty() ? "not imported" : p.format.c_str(),
                     p.command.empty() ? "" : (" (" + p.command + ")").c_str(),
                     p.took.empty() ? "" : (": " + p.took).c_str());
      for (const auto& n : fr.notes) std::fprintf(stderr, "  %s\n", n.c_str());
    }
  }
  if (run.recognised_parts == 0) {
    std::fprintf(stderr,
                 "dossier import: no output of a known format in %s; nothing was stored "
                 "('dossier help formats' lists them; --as FORMAT forces one)\n",
                 files.size() == 1 ? files[0].c_str() : "these files");
    return kExitUsage;
  }

  // The records, built once: stored, or read straight back for --format.
  std::string time = NowIso8601();
  std::vector<nlohmann::json> docs = import::ImportRecords(run, machine, time);

  if (!format.empty()) {
    std::vector<Record> records;
    for (auto& d : docs) {
      Record r;
      r.kind = d["kind"].get<std::string>();
      r.time = time;
      r.machine = machine;
      r.doc = d;
      r.doc["tool"] = std::string("dossier ") + DOSSIER_VERSION;
      FillHeaderFromDoc(&r);
      records.push_back(std::move(r));
    }
    View view = BuildView(records, Notes{}, {});
    std::string text = FindRenderer(format)->render(view, Analyze(view));
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kExitOk;
  }
  DossierDir dir(dossier_dir);
  for (auto& d : docs) {
    auto path = dir.Append(std::move(d), machine);
    if (!path) {
      std::fprintf(stderr, "dossier import: cannot write the record: %s\n",
                   path.error().message.c_str());
      return kExitFailure;
    }
    if (!quiet) std::fprintf(stderr, "wrote %s\n", path->c_str());
  }
  return kExitOk;
}

}  // namespace dossier::cli
