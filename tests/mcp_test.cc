// dossier mcp over its stdio transport, spoken to as an MCP client does: the lifecycle, every
// tool on the seed story's machines, resources, and untrusted input (malformed messages, wrong
// types, huge arguments, paths outside the dossier, options smuggled in arguments, pasted
// secrets, tools that need a flag). The official TypeScript SDK client runs the same server in
// mcp_sdk_test.cc.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/fixture_trees.h"
#include "tests/mcp_session.h"
#include "tests/run_cli.h"
#include "tests/seed_dossier.h"
#include "tests/standin_paths.h"
#include "tests/temp_dir.h"

namespace dossier {
namespace {

using nlohmann::json;
using testing::McpSession;

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The seed story's dossier: both machines collected from their trees, the host's pasted session
// imported.
class McpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path() + "/d";
    ASSERT_EQ(testing::MakeSeedDossier(dir_, /*with_host_paste=*/true), "");
  }
  std::vector<std::string> Args(std::vector<std::string> more = {}) {
    more.insert(more.begin(), "--dossier=" + dir_);
    return more;
  }
  static std::string Text(const json& r) {
    return r["result"]["content"][0]["text"].get<std::string>();
  }

  testing::TempDir tmp_;
  std::string dir_;
};

TEST_F(McpTest, LifecycleNegotiatesTheVersionAndEndsWithStdin) {
  McpSession s(Args());
  auto pong = s.Call(7, "ping");  // a ping is answered before initialize
  EXPECT_EQ(pong["result"], json::object()) << pong;
  auto early = s.Call(8, "tools/list");
  EXPECT_EQ(early["error"]["code"], -32600) << early;
  auto init = s.Initialize("2025-06-18");
  EXPECT_EQ(init["result"]["protocolVersion"], "2025-06-18") << init;
  EXPECT_TRUE(init["result"]["capabilities"].contains("tools"));
  EXPECT_TRUE(init["result"]["capabilities"].contains("resources"));
  EXPECT_EQ(init["result"]["serverInfo"]["name"], "dossier");
  auto tools = s.Call(1, "tools/list");
  std::set<std::string> names;
  for (const auto& t : tools["result"]["tools"]) {
    names.insert(t["name"]);
    EXPECT_EQ(t["inputSchema"]["type"], "object") << t["name"];
    EXPECT_EQ(t["outputSchema"]["type"], "object") << t["name"];
  }
  EXPECT_EQ(names,
            (std::set<std::string>{"summary", "report", "findings", "facts", "import", "note",
                                   "collect", "diff", "generate", "p2p", "serve_bench"}));
  s.CloseInput();
  EXPECT_EQ(s.Wait(), 0);

  McpSession future(Args());
  auto r = future.Initialize("2031-01-01");  // a version it does not speak: its newest
  EXPECT_EQ(r["result"]["protocolVersion"], "2025-11-25") << r;
}

TEST_F(McpTest, MalformedMessagesGetErrorsAndTheServerGoesOn) {
  McpSession s(Args());
  s.Initialize();
  s.SendRaw("{not json\n");
  auto parse = s.Next();
  EXPECT_EQ(parse["error"]["code"], -32700) << parse;
  EXPECT_TRUE(parse["id"].is_null());
  s.SendRaw("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]\n");
  EXPECT_EQ(s.Next()["error"]["code"], -32600);
  s.SendRaw("{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}\n");
  EXPECT_EQ(s.Next()["error"]["code"], -32600);
  EXPECT_EQ(s.Call(2, "no/such/method")["error"]["code"], -32601);
  EXPECT_EQ(s.Call(3, "tools/call", {{"name", "nope"}})["error"]["code"], -32602);

  auto types = s.Tool(4, "p2p", {{"reps", "five"}});
  EXPECT_EQ(types["error"]["code"], -32602) << types;
  std::string msg = types["error"]["message"];
  EXPECT_NE(msg.find("arguments.reps"), std::string::npos) << msg;
  EXPECT_NE(msg.find("integer"), std::string::npos) << msg;
  auto extra = s.Tool(5, "summary", {{"machine", "guest"}, {"rm", "-rf"}});
  EXPECT_EQ(extra["error"]["code"], -32602) << extra;
  auto args_not_object =
      s.Call(6, "tools/call", {{"name", "report"}, {"arguments", json::array()}});
  EXPECT_EQ(args_not_object["error"]["code"], -32602) << args_not_object;

  // A 16 MiB argument: refused by the schema's limit (8 MiB of pasted text), and the server
  // still answers.
  auto huge = s.Tool(9, "import", {{"machine", "guest"}, {"text", std::string(16u << 20, 'x')}});
  EXPECT_EQ(huge["error"]["code"], -32602);
  EXPECT_NE(huge["error"]["message"].get<std::string>().find("arguments.text"), std::string::npos);
  // A message past 64 MiB is not even read: an error without an id, then the next one is.
  s.SendRaw(std::string((64u << 20) + 16, ' ') + "\n");
  auto big = s.Next();
  EXPECT_EQ(big["error"]["code"], -32600) << big.dump().substr(0, 300);
  EXPECT_EQ(s.Call(10, "ping")["result"], json::object());
  s.CloseInput();
  EXPECT_EQ(s.Wait(), 0);
}

TEST_F(McpTest, ReadingToolsAnswerFromTheDossier) {
  McpSession s(Args());
  s.Initialize();
  auto sum = s.Tool(1, "summary", json::object());
  ASSERT_FALSE(sum["result"]["isError"].get<bool>()) << sum;
  const json& st = sum["result"]["structuredContent"];
  ASSERT_FALSE(st["blocked_by"].empty()) << st;
  EXPECT_NE(st["blocked_by"][0]["from"].get<std::string>().find("vm.mapping-stale"),
            std::string::npos);
  EXPECT_EQ(json::parse(Text(sum)), st);  // the same as text

  auto crit = s.Tool(2, "findings", {{"severity", "critical"}});
  const json& cf = crit["result"]["structuredContent"];
  ASSERT_GT(cf["count"].get<int>(), 0) << crit;
  for (const auto& f : cf["findings"]) EXPECT_EQ(f["severity"], "critical");
  auto p2p = s.Tool(3, "findings", {{"id", "p2p."}, {"machine", "guest"}});
  for (const auto& f : p2p["result"]["structuredContent"]["findings"]) {
    EXPECT_TRUE(f["id"].get<std::string>().starts_with("p2p.")) << f["id"];
    EXPECT_EQ(f["machine"], "guest");
  }

  auto sockets = s.Tool(4, "facts", {{"machine", "pve-host"}, {"pointer", "/cpu/sockets"}});
  const json& fs = sockets["result"]["structuredContent"];
  EXPECT_EQ(fs["value"], 2) << sockets;
  EXPECT_TRUE(fs["provenance"].contains("/cpu/sockets")) << fs;
  auto nobody = s.Tool(5, "facts", {{"machine", "nobody"}});
  EXPECT_TRUE(nobody["result"]["isError"].get<bool>());
  EXPECT_NE(Text(nobody).find("pve-host"), std::string::npos) << Text(nobody);
  auto bad_ptr = s.Tool(6, "facts", {{"machine", "guest"}, {"pointer", "cpu"}});
  EXPECT_EQ(bad_ptr["error"]["code"], -32602) << bad_ptr;

  auto md = s.Tool(7, "report", {{"section", "IOMMU"}, {"machine", "pve-host"}});
  std::string section = md["result"]["structuredContent"]["markdown"];
  EXPECT_TRUE(section.starts_with("#")) << section.substr(0, 200);
  EXPECT_NE(section.find("IOMMU"), std::string::npos);
  auto gpus = s.Tool(8, "report", {{"format", "json"}, {"machine", "guest"}, {"section", "gpus"}});
  EXPECT_EQ(gpus["result"]["structuredContent"]["report"].size(), 8u) << Text(gpus).substr(0, 300);

  auto topo = s.Tool(9, "generate", {{"name", "nccl-topo"}, {"machine", "guest"}});
  ASSERT_FALSE(topo["result"]["isError"].get<bool>()) << topo;
  EXPECT_NE(topo["result"]["structuredContent"]["text"].get<std::string>().find("<system"),
            std::string::npos);
  EXPECT_NE(topo["result"]["structuredContent"]["notes"].get<std::string>().find("verify"),
            std::string::npos);
  auto diff = s.Tool(10, "diff", {{"machine", "pve-host"}});
  EXPECT_FALSE(diff["result"]["isError"].get<bool>()) << diff;
  EXPECT_TRUE(diff["result"]["structuredContent"].is_object());
  // Reading tools wrote nothing.
  size_t records = 0;
  for (auto& e : std::filesystem::directory_iterator(dir_ + "/records"))
    records += !e.is_directory();
  EXPECT_EQ(records, 3u);
}

TEST_F(McpTest, WritingAndMeasuringNeedTheirFlags) {
  McpSession s(Args());
  s.Initialize();
  for (auto [name, args, flag] :
       {std::tuple<const char*, json, const char*>{
            "note", {{"kind", "goal"}, {"text", "x"}}, "--allow-write"},
        {"p2p", json::object(), "--allow-measure"},
        {"serve_bench", {{"url", "http://127.0.0.1:1"}}, "--allow-measure"},
        {"collect", {{"root", "/"}}, "--allow-root"}}) {
    auto r = s.Tool(1, name, args);
    ASSERT_TRUE(r["result"]["isError"].get<bool>()) << name << ": " << r;
    EXPECT_NE(Text(r).find(flag), std::string::npos) << Text(r);
  }
  // import without --allow-write reads and shows, and stores nothing.
  auto imp = s.Tool(2, "import",
                    {{"machine", "pve-host"},
                     {"text", Slurp(std::string(DOSSIER_SOURCE_DIR) +
                                    "/tests/fixtures/import-seed/pve-host-session.txt")}});
  ASSERT_FALSE(imp["result"]["isError"].get<bool>()) << imp;
  EXPECT_FALSE(imp["result"]["structuredContent"]["stored"].get<bool>());
  EXPECT_TRUE(imp["result"]["structuredContent"]["view"].is_object());
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/records/000004-import-pve-host.json"));
}

TEST_F(McpTest, ArgumentsCannotReachOutsideTheDossierOrBecomeOptions) {
  testing::TempDir trees;
  std::filesystem::create_directories(trees.path() + "/captured");
  McpSession s(Args({"--allow-write", "--allow-root=" + trees.path() + "/captured"}));
  s.Initialize();
  for (std::string root :
       {std::string("/etc"), trees.path() + "/captured/../..", std::string("/nonexistent")}) {
    auto r = s.Tool(1, "collect", {{"root", root}});
    EXPECT_EQ(r["error"]["code"], -32602) << root << ": " << r;
  }
  // Names are the CLI's machine names: an option or a line cannot be one.
  for (std::string name : {"--dossier=/tmp", "a b", "x\ny", ""}) {
    auto r = s.Tool(2, "import", {{"machine", name}, {"text", "x"}});
    EXPECT_EQ(r["error"]["code"], -32602) << name << ": " << r;
  }
  // Text that looks like an option is text: the goal is the words, the dossier is where it was.
  auto goal = s.Tool(3, "note", {{"kind", "goal"}, {"text", "--dossier=/tmp/elsewhere"}});
  ASSERT_FALSE(goal["result"]["isError"].get<bool>()) << goal;
  EXPECT_NE(Slurp(dir_ + "/notes.toml").find("--dossier=/tmp/elsewhere"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists("/tmp/elsewhere"));
  auto missing = s.Tool(4, "note", {{"kind", "fact"}, {"text", "ACS"}});
  EXPECT_EQ(missing["error"]["code"], -32602) << missing;  // a fact needs its value

  // Resources are found by name in the dossier's listing: no URI becomes a path.
  for (std::string uri :
       {"dossier://records/../../../etc/passwd", "file:///etc/passwd", "dossier://records/",
        "dossier://records/999999", "dossier://../notes.toml"}) {
    auto r = s.Call(5, "resources/read", {{"uri", uri}});
    EXPECT_EQ(r["error"]["code"], -32002) << uri << ": " << r;
  }
}

TEST_F(McpTest, PastedSecretsNeverComeBack) {
  McpSession s(Args({"--allow-write"}));
  s.Initialize();
  std::string paste =
      "root@pve:~# export HF_TOKEN=hf_SeCrEtToKeN1234567890abcd\n"
      "root@pve:~# curl -H 'Authorization: Bearer sk-SeCrEt987654321' http://x/v1/models\n" +
      Slurp(std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/import-seed/pve-host-session.txt");
  auto imp = s.Tool(1, "import", {{"machine", "pve-host"}, {"text", paste}});
  ASSERT_FALSE(imp["result"]["isError"].get<bool>()) << imp;
  EXPECT_TRUE(imp["result"]["structuredContent"]["stored"].get<bool>());
  auto note = s.Tool(2, "note",
                     {{"kind", "tried"},
                      {"text", "launched with --api-key sk-SeCrEtNoTe55555"},
                      {"machine", "guest"}});
  ASSERT_FALSE(note["result"]["isError"].get<bool>()) << note;
  auto list = s.Call(3, "resources/list");
  std::string everything = imp.dump() + note.dump();
  int id = 10;
  for (const auto& r : list["result"]["resources"])
    everything += s.Call(id++, "resources/read", {{"uri", r["uri"]}}).dump();
  EXPECT_NE(everything.find("iommugroup=44"), std::string::npos);  // the import was read
  for (const char* secret : {"SeCrEtToKeN", "sk-SeCrEt987", "SeCrEtNoTe"})
    EXPECT_EQ(everything.find(secret), std::string::npos) << secret;
}

// The CUDA stand-in's seed guest: 512 results of real copies, far longer than the test waits.
TEST_F(McpTest, CancellingAMeasurementKeepsWhatItMeasured) {
  McpSession s(Args({"--allow-measure", "--allow-write", "--cuda-lib=" + testing::CudaStandin(),
                     "--nvml-lib=" + testing::NvmlStandin()}),
               {"DOSSIER_STANDIN=seed-guest"});
  s.Initialize();
  s.Request(1, "tools/call",
            {{"name", "p2p"},
             {"arguments", {{"sizes", "1M,2M"}, {"machine", "guest"}, {"seconds", 600}}},
             {"_meta", {{"progressToken", "p2p-1"}}}});
  // Progress arrives while it runs, and the server answers other requests meanwhile.
  int counted = 0;
  double last = 0;
  while (counted < 3) {
    json m = s.Next(120);
    ASSERT_FALSE(m.is_null()) << "no progress";
    ASSERT_EQ(m["method"], "notifications/progress") << m;
    EXPECT_EQ(m["params"]["progressToken"], "p2p-1");
    EXPECT_GT(m["params"]["progress"].get<double>(), last);
    last = m["params"]["progress"].get<double>();
    counted += m["params"]["message"].get<std::string>().find("p2p [") != std::string::npos;
  }
  EXPECT_EQ(s.Call(2, "ping")["result"], json::object());
  s.Send({{"jsonrpc", "2.0"},
          {"method", "notifications/cancelled"},
          {"params", {{"requestId", 1}, {"reason", "test"}}}});
  // The record appears when the command has stopped; the cancelled request gets no answer.
  json record;
  for (int i = 0; i < 300 && record.is_null(); ++i) {
    auto list = s.Call(100 + i, "resources/list");
    for (const auto& r : list["result"]["resources"]) {
      if (r["name"].get<std::string>().find("-p2p-") == std::string::npos) continue;
      auto read = s.Call(1000 + i, "resources/read", {{"uri", r["uri"]}});
      record = json::parse(read["result"]["contents"][0]["text"].get<std::string>());
    }
    if (record.is_null()) ::usleep(100000);
  }
  ASSERT_FALSE(record.is_null()) << "no p2p record kept";
  EXPECT_TRUE(record["p2p"]["interrupted"].get<bool>());
  EXPECT_GE(record["p2p"]["results"].size(), 2u);
  EXPECT_LT(record["p2p"]["results"].size(), 512u);
  for (const auto& n : s.notifications) EXPECT_NE(n.value("id", json()), json(1)) << n;
  s.CloseInput();
  EXPECT_EQ(s.Wait(), 0);
}

TEST_F(McpTest, AMeasurementIsBoundedByTheCallsTimeLimit) {
  McpSession s(Args({"--allow-measure", "--cuda-lib=" + testing::CudaStandin(),
                     "--nvml-lib=" + testing::NvmlStandin()}),
               {"DOSSIER_STANDIN=seed-guest"});
  s.Initialize();
  auto start = std::chrono::steady_clock::now();
  auto r = s.Tool(1, "p2p", {{"sizes", "1M,2M"}, {"seconds", 1}});
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r["result"]["isError"].get<bool>()) << r.dump().substr(0, 2000);
  const json& st = r["result"]["structuredContent"];
  EXPECT_FALSE(st["complete"].get<bool>());
  EXPECT_TRUE(st["result"]["interrupted"].get<bool>());
  EXPECT_LT(took, 60);
  // --allow-measure alone: the measurement's record is kept, as the CLI keeps it.
  EXPECT_TRUE(st["stored"].get<bool>());
  size_t p2p_records = 0;
  for (auto& e : std::filesystem::directory_iterator(dir_ + "/records"))
    p2p_records += e.path().filename().string().find("-p2p-") != std::string::npos;
  EXPECT_EQ(p2p_records, 1u);
  EXPECT_TRUE(s.notifications.empty());  // no progress token, no progress
}

}  // namespace
}  // namespace dossier
