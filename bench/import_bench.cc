// `dossier import` at its cap: every importer fed 16 MiB (import::kMaxPasteBytes), the most one
// file may hold, through ImportText (the paste door, the split, the importer, the number check and
// the redaction), so that the time of each grows with the input, not its square. A domain XML of
// 8,000 <hostdev>s once took 7 s and 190 MB (a line count from the top of the text for every
// node), an NCCL topology dump of 80,000 elements 44 s.
//
// Rows: BM_ImportXml/shape/MiB, the XML importers on shapes that were quadratic (many hostdevs,
// many NUMA cells with their memnodes, many GPUs, deeply nested switches); BM_ImportEach/NAME/MiB,
// every importer of the table on its first corpus sample (tests/corpus/import-NAME/) repeated to
// the size, read as that format (--as). One iteration each: a row is seconds.
//   build/bench/dossier_bench --benchmark_filter=Import
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "import/import_run.h"
#include "import/importer.h"
#include "import/paste_text.h"

namespace {

using dossier::import::FindImporter;
using dossier::import::ImportRun;
using dossier::import::ImportText;

std::string PciAddress(size_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04zx:%02zx:%02zx.0", (i >> 13) & 0xffff, (i >> 5) & 0xff,
                i & 0x1f);
  return buf;
}

// An XML document of `bytes`: head, then units until the size, then tail.
template <class Unit>
std::string Fill(const std::string& head, Unit unit, const std::string& tail, size_t bytes) {
  std::string s = head;
  for (size_t i = 0; s.size() + tail.size() < bytes; ++i) {
    std::string u = unit(i);
    if (s.size() + u.size() + tail.size() > bytes) break;
    s += u;
  }
  return s + tail;
}

std::string XmlShape(int shape, size_t bytes) {
  switch (shape) {
    case 0:  // a domain with many PCI hostdevs and a clique argument for each
      return Fill(
          "<domain type='kvm' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>\n"
          "  <name>big</name>\n  <devices>\n",
          [](size_t i) {
            std::string a = PciAddress(i);
            return "    <hostdev mode='subsystem' type='pci' managed='yes'>\n      <source>\n"
                   "        <address domain='0x" +
                   a.substr(0, 4) + "' bus='0x" + a.substr(5, 2) + "' slot='0x" + a.substr(8, 2) +
                   "' function='0x0'/>\n      </source>\n    </hostdev>\n";
          },
          "  </devices>\n</domain>\n", bytes);
    case 1: {  // many NUMA cells, each bound by a memnode
      std::string cells = Fill(
          "",
          [](size_t i) {
            return "      <cell id='" + std::to_string(i) + "' cpus='" + std::to_string(i) +
                   "' memory='1024' unit='KiB'/>\n";
          },
          "", bytes / 2);
      std::string memnodes = Fill(
          "",
          [](size_t i) {
            return "    <memnode cellid='" + std::to_string(i) + "' mode='strict' nodeset='0'/>\n";
          },
          "", bytes / 2 - 200);
      return "<domain type='kvm'>\n  <name>numa</name>\n  <numatune>\n" + memnodes +
             "  </numatune>\n  <cpu>\n    <numa>\n" + cells + "    </numa>\n  </cpu>\n</domain>\n";
    }
    case 2:  // an NCCL dump with many GPUs under one CPU
      return Fill(
          "<system version=\"1\">\n  <cpu numaid=\"0\" affinity=\"ffffffff\" arch=\"x86_64\">\n",
          [](size_t i) {
            return "    <pci busid=\"" + PciAddress(i) +
                   "\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2330\" "
                   "link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n      <gpu dev=\"" +
                   std::to_string(i) + "\" sm=\"90\" rank=\"" + std::to_string(i) +
                   "\" gdr=\"1\"/>\n    </pci>\n";
          },
          "  </cpu>\n</system>\n", bytes);
    default: {  // switches nested as deep as the bytes allow
      std::string open, close;
      for (size_t i = 0; open.size() + close.size() + 200 < bytes; ++i) {
        open += "<pci busid=\"" + PciAddress(i) + "\" class=\"0x060400\">\n";
        close += "</pci>\n";
      }
      return "<system version=\"1\">\n<cpu numaid=\"0\">\n" + open + close + "</cpu>\n</system>\n";
    }
  }
}

constexpr const char* kXmlFormat[] = {"virsh-dumpxml", "virsh-dumpxml", "nccl-topo-xml",
                                      "nccl-topo-xml"};

void BM_ImportXml(benchmark::State& state) {
  int shape = static_cast<int>(state.range(0));
  const std::string text = XmlShape(shape, static_cast<size_t>(state.range(1)) << 20);
  const auto* imp = FindImporter(kXmlFormat[shape]);
  for (auto _ : state) {
    ImportRun run;
    auto s = ImportText(text, "bench.xml", imp, &run);
    if (!s || run.recognised_parts != 1) state.SkipWithError("not read");
    benchmark::DoNotOptimize(run);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ImportXml)
    ->ArgNames({"shape", "MiB"})
    ->ArgsProduct({{0, 1, 2, 3}, {1, 16}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

std::string Slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first corpus sample (in name order) of an importer, repeated to `bytes`.
std::string Repeated(const std::string& name, size_t bytes) {
  std::filesystem::path dir =
      std::filesystem::path(DOSSIER_SOURCE_DIR) / "tests/corpus" / ("import-" + name);
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(dir, ec))
    if (f.is_regular_file(ec)) files.push_back(f.path());
  std::sort(files.begin(), files.end());
  std::string unit = files.empty() ? std::string("x\n") : Slurp(files.front());
  if (unit.empty() || unit.back() != '\n') unit += '\n';
  std::string s;
  while (s.size() + unit.size() <= bytes) s += unit;
  return s;
}

void BM_ImportEach(benchmark::State& state, std::string name) {
  const std::string text = Repeated(name, static_cast<size_t>(state.range(0)) << 20);
  const auto* imp = FindImporter(name);
  for (auto _ : state) {
    ImportRun run;
    benchmark::DoNotOptimize(ImportText(text, "bench.txt", imp, &run));
    benchmark::DoNotOptimize(run);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

const bool kRegistered = [] {
  for (const auto& imp : dossier::import::ImporterTable())
    benchmark::RegisterBenchmark(("BM_ImportEach/" + std::string(imp.name)).c_str(), BM_ImportEach,
                                 std::string(imp.name))
        ->ArgName("MiB")
        ->Arg(16)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
