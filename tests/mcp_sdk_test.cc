// dossier mcp against real MCP clients: the official TypeScript SDK's client
// (tests/mcp/sdk_client.mjs) and the MCP Inspector's CLI. Both come from npm at the versions
// tests/mcp/package-lock.json pins, installed by scripts/install-mcp-client.sh into a cache
// outside the clone ($DOSSIER_CACHE, default ~/.cache/dossier); CI runs that script first.
// Without it (or without node) the tests are skipped, saying how to install them.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/fixture_trees.h"
#include "tests/run_cli.h"
#include "tests/seed_dossier.h"
#include "tests/standin_paths.h"
#include "tests/temp_dir.h"

namespace dossier {
namespace {

std::string Q(const std::string& s) {
  return "'" + s + "'";
}  // our paths hold no quote

// The installed clients' directory, or "" (the test is skipped then).
std::string ClientDir() {
  auto r = testing::RunShell(
      std::string("cd ") + DOSSIER_SOURCE_DIR +
      " && command -v node >/dev/null && [ -f "
      "\"${DOSSIER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dossier}/mcp-client-$(sha256sum "
      "tests/mcp/package-lock.json | cut -c1-16)/.complete\" ] && echo "
      "\"${DOSSIER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dossier}/mcp-client-$(sha256sum "
      "tests/mcp/package-lock.json | cut -c1-16)\"");
  std::string dir = r.out;
  while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r')) dir.pop_back();
  return r.code == 0 ? dir : "";
}

class McpClients : public ::testing::Test {
 protected:
  void SetUp() override {
    clients_ = ClientDir();
    if (clients_.empty())
      GTEST_SKIP() << "the MCP clients are not installed: run scripts/install-mcp-client.sh "
                      "(npm, cached outside the clone)";
    dir_ = tmp_.path() + "/d";
    ASSERT_EQ(testing::MakeSeedDossier(dir_, /*with_host_paste=*/false), "");
  }
  testing::TempDir tmp_;
  std::string clients_, dir_;
};

TEST_F(McpClients, TheTypeScriptSdkClientChecksEveryToolAndResource) {
  // The script beside the clients' node_modules, so its imports resolve.
  std::string run = tmp_.path() + "/client";
  std::filesystem::create_directories(run);
  std::filesystem::create_symlink(clients_ + "/node_modules", run + "/node_modules");
  std::filesystem::copy_file(std::string(DOSSIER_SOURCE_DIR) + "/tests/mcp/sdk_client.mjs",
                             run + "/sdk_client.mjs");
  std::filesystem::copy_file(clients_ + "/package.json", run + "/package.json");
  // The allowed root holds one captured tree: a copy of the seed guest's.
  std::string base = tmp_.path() + "/captured";
  std::filesystem::create_directories(base);
  std::filesystem::copy(
      testing::FixtureTree("seed-guest"), base + "/guest",
      std::filesystem::copy_options::recursive | std::filesystem::copy_options::copy_symlinks);
  std::string env =
      "DOSSIER_BINARY=" + Q(DOSSIER_BINARY) + " MCP_DOSSIER=" + Q(dir_) +
      " MCP_ROOT_BASE=" + Q(base) + " MCP_TREE=" + Q(base + "/guest") +
      " MCP_CUDA_LIB=" + Q(testing::CudaStandin()) + " MCP_NVML_LIB=" + Q(testing::NvmlStandin()) +
      " MCP_OPENAI_STANDIN=" + Q(std::string(DOSSIER_BUILD_DIR) + "/tests/openai_standin") +
      " MCP_PASTE=" +
      Q(std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/import-seed/pve-host-session.txt");
  auto r = testing::RunShell("cd " + Q(run) + " && " + env + " node sdk_client.mjs 2>&1");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("checks passed"), std::string::npos) << r.out;
}

TEST_F(McpClients, TheInspectorCliListsAndCallsTools) {
  std::string cli = clients_ + "/node_modules/@modelcontextprotocol/inspector/cli/build/cli.js";
  std::string base = "node " + Q(cli) + " --cli " + Q(DOSSIER_BINARY) + " mcp --dossier " + Q(dir_);
  auto list = testing::RunShell(base + " --method tools/list 2>&1");
  ASSERT_EQ(list.code, 0) << list.out;
  auto tools = nlohmann::json::parse(list.out, nullptr, false);
  ASSERT_FALSE(tools.is_discarded()) << list.out;
  EXPECT_EQ(tools["tools"].size(), 11u);
  auto call =
      testing::RunShell(base +
                        " --method tools/call --tool-name facts --tool-arg machine=pve-host "
                        "--tool-arg pointer=/cpu/sockets 2>&1");
  ASSERT_EQ(call.code, 0) << call.out;
  auto res = nlohmann::json::parse(call.out, nullptr, false);
  ASSERT_FALSE(res.is_discarded()) << call.out;
  EXPECT_EQ(res["structuredContent"]["value"], 2) << call.out;
}

}  // namespace
}  // namespace dossier
