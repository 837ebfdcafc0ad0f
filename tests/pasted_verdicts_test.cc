// What dossier concludes about a machine known only from one real paste: for every shared
// sample, seed-story session and importer corpus file, the machine's verdicts (ACS, clique,
// IOMMU, NUMA, each GPU pair, the settled advice topics) and its findings (id, severity, title,
// evidence with sources, what will not help, actions), as `dossier report --format json` gives
// them, against tests/golden/verdicts/. A host known from pastes is judged on what was pasted: a
// change to a rule, a verdict or the view shows here as a diff over ~260 partial machines
// (review it; DOSSIER_UPDATE_GOLDEN=1 rewrites the files when the change is intended).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "analyze/analysis.h"
#include "import/import_test_util.h"
#include "render/render.h"
#include "tests/golden.h"
#include "view/build_view.h"

namespace dossier {
namespace {

std::vector<Record> Records(const import::ImportRun& run) {
  std::vector<Record> out;
  const std::string time = "2026-12-03T09:00:00Z";
  int i = 0;
  for (auto& d : import::ImportRecords(run, "m", time)) {
    Record r;
    r.kind = d["kind"];
    r.time = time;
    r.machine = "m";
    r.sequence = ++i;
    r.file = "records/00000" + std::to_string(i) + "-" + r.kind + ".json";
    r.doc = std::move(d);
    FillHeaderFromDoc(&r);
    out.push_back(std::move(r));
  }
  return out;
}

std::string Conclusions(const import::ImportRun& run, const std::string& file) {
  View view = BuildView(Records(run), Notes{}, {});
  Analysis analysis = Analyze(view);
  nlohmann::json doc = nlohmann::json::parse(RenderJson(view, analysis));
  nlohmann::json out = nlohmann::json::array();
  for (const auto& m : doc.at("machines"))
    out.push_back({{"machine", m.at("name")},
                   {"verdicts", m.value("verdicts", nlohmann::json())},
                   {"findings", m.value("findings", nlohmann::json())}});
  return import::testing::ShortenSources(out.dump(1) + "\n", file);
}

TEST(PastedVerdicts, EveryRealPasteIsJudgedAsItsGoldenFile) {
  auto inputs = import::testing::RealPastes();
  ASSERT_GE(inputs.size(), 200u);
  for (const auto& in : inputs) {
    SCOPED_TRACE(in.name);
    import::ImportRun run;
    run.imported.machine.name = "m";
    if (!import::ImportText(in.text, in.name, nullptr, &run).ok()) continue;
    testing::ExpectMatchesGolden("verdicts/" + in.golden + ".json", Conclusions(run, in.name));
  }
}

}  // namespace
}  // namespace dossier
