// dossier import end to end for the formats of #13: an nvbandwidth paste stores an import record
// and a p2p record (tool nvbandwidth) that the report's measurement section shows; a pasted
// qm showcmd and virsh dumpxml print as the machine's hypervisor facts; help formats lists them.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_process.h"
#include "temp_dir.h"

namespace dossier {
namespace {

namespace fs = std::filesystem;

testing::ProcessResult I13Run(std::vector<std::string> args) {
  args.insert(args.begin(), DOSSIER_BINARY);
  return testing::RunProcess(args);
}

std::string I13Corpus(const std::string& rel) {
  return std::string(DOSSIER_SOURCE_DIR) + "/tests/corpus/" + rel;
}

TEST(ImportMeasureCli, HelpFormatsListsTheNewImporters) {
  auto r = I13Run({"help", "formats"});
  ASSERT_EQ(r.exit_code, 0);
  for (const char* name : {"qemu-cmdline", "virsh-dumpxml", "nvbandwidth", "nccl-topo-xml"})
    EXPECT_NE(r.out.find(std::string("  ") + name + " "), std::string::npos) << name;
}

TEST(ImportMeasureCli, NvbandwidthStoresAP2pRecordTheReportShows) {
  testing::TempDir t;
  const std::string d = t.path() + "/dossier";
  auto r = I13Run({"import", I13Corpus("import-nvbandwidth/two-gpu-v0.8.txt"), "--machine", "n7",
                   "--dossier", d});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t p2p = 0, imports = 0;
  for (const auto& e : fs::directory_iterator(d + "/records")) {
    auto doc = nlohmann::json::parse(testing::ReadWholeFile(e.path().string()));
    if (doc["kind"] == "import") ++imports;
    if (doc["kind"] == "p2p") {
      ++p2p;
      EXPECT_EQ(doc["p2p"]["tool"], "nvbandwidth");
      EXPECT_FALSE(doc["p2p"]["results"].empty());
    }
  }
  EXPECT_EQ(imports, 1u);
  EXPECT_EQ(p2p, 1u);
  auto rep = I13Run({"report", "--dossier", d, "--format", "md"});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(rep.out.find("uni-p2p-read"), std::string::npos);
}

TEST(ImportMeasureCli, HypervisorPastesPrintAsJson) {
  auto r = I13Run({"import", I13Corpus("import-qemu-cmdline/qm-showcmd-pretty-clique.txt"),
                   I13Corpus("import-virsh-dumpxml/dumpxml-defined.txt"), "--machine", "host",
                   "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"gpudirect_clique\""), std::string::npos);
  EXPECT_NE(r.out.find("llm-guest"), std::string::npos);
  EXPECT_NE(r.out.find("next start"), std::string::npos);
}

}  // namespace
}  // namespace dossier
