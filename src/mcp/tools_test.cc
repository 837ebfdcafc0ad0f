// The MCP tool table's rows one by one, without a server or a child: what argv each tool's
// arguments become (the options the CLI will read, in one word each, nothing from the client
// turned into an option or a path outside the allowed roots), and what each command's output
// becomes (which key, which machine, which section, which error). tests/mcp_test.cc speaks to the
// whole server; here every choice a row makes is pinned with inputs built so the wrong choice
// gives a different answer.
#include "mcp/tools.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/temp_dir.h"

namespace dossier::mcp {
namespace {

using nlohmann::json;
using Argv = std::vector<std::string>;

const Tool& T(const char* name) {
  const Tool* t = FindTool(name);
  EXPECT_NE(t, nullptr) << name;
  return *t;
}

ServerOptions Opts() {
  ServerOptions o;
  o.self = "/usr/bin/dossier";
  o.dossier_dir = "/d";
  return o;
}

Invocation Plan(const char* tool, const json& args, const ServerOptions& o = Opts()) {
  auto r = T(tool).plan(args, o);
  EXPECT_TRUE(r.ok()) << tool << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : Invocation{};
}

Error PlanError(const char* tool, const json& args, const ServerOptions& o = Opts()) {
  auto r = T(tool).plan(args, o);
  EXPECT_FALSE(r.ok()) << tool << " planned " << ::testing::PrintToString(r ? r->argv : Argv{});
  return r.ok() ? Error{} : r.error();
}

Ran Out(std::string out, int code = 0, std::string err = "") {
  Ran r;
  r.exit_code = code;
  r.out = std::move(out);
  r.err = std::move(err);
  return r;
}

ToolResult Finish(const char* tool, const json& args, const Ran& ran,
                  const ServerOptions& o = Opts()) {
  return T(tool).finish(args, o, ran);
}

TEST(McpToolTable, EveryToolIsFoundByItsNameAndNothingElse) {
  for (const auto& t : ToolTable()) EXPECT_EQ(FindTool(t.name), &t) << t.name;
  EXPECT_EQ(FindTool("Summary"), nullptr);
  EXPECT_EQ(FindTool(""), nullptr);
  EXPECT_EQ(FindTool("summary "), nullptr);
  // What each needs from the person who started the server.
  EXPECT_EQ(T("note").needs, Tool::kWrite);
  EXPECT_EQ(T("p2p").needs, Tool::kMeasure);
  EXPECT_EQ(T("serve_bench").needs, Tool::kMeasure);
  for (const char* r :
       {"summary", "report", "findings", "facts", "import", "collect", "diff", "generate"})
    EXPECT_EQ(T(r).needs, Tool::kRead) << r;
}

TEST(McpToolPlan, ReadingToolsRunTheReportWithTheMachineAsOneWord) {
  EXPECT_EQ(Plan("summary", json::object()).argv,
            (Argv{"report", "--format=json", "--dossier=/d"}));
  EXPECT_EQ(Plan("findings", {{"machine", "gpu-01"}}).argv,
            (Argv{"report", "--format=json", "--dossier=/d", "--machine=gpu-01"}));
  EXPECT_EQ(Plan("report", json::object()).argv, (Argv{"report", "--format=md", "--dossier=/d"}));
  EXPECT_EQ(Plan("report", {{"format", "json"}, {"machine", "h"}}).argv,
            (Argv{"report", "--format=json", "--dossier=/d", "--machine=h"}));
  EXPECT_EQ(Plan("facts", {{"machine", "h"}, {"pointer", "/gpus/0"}}).argv,
            (Argv{"report", "--format=json", "--dossier=/d", "--machine=h"}));
  // A name that could be an option, a path or a line break is refused before anything runs.
  for (const char* bad : {"-rf", "../x", "a b", "a\nb", ".hidden"}) {
    for (const char* tool : {"summary", "report", "findings", "facts", "diff", "generate"}) {
      json args = {{"machine", bad}};
      if (std::string(tool) == "generate") args["name"] = "nccl-topo";
      Error e = PlanError(tool, args);
      EXPECT_EQ(e.kind, Error::kInvalid) << tool << " " << bad;
      EXPECT_TRUE(e.message.starts_with("arguments.machine: ")) << e.message;
    }
  }
  // A pointer that is not one is the caller's mistake, said before the report runs.
  Error e = PlanError("facts", {{"machine", "h"}, {"pointer", "gpus/0"}});
  EXPECT_EQ(e.kind, Error::kInvalid);
  EXPECT_TRUE(e.message.starts_with("arguments.pointer: not a JSON pointer")) << e.message;
  EXPECT_TRUE(T("facts").plan({{"machine", "h"}, {"pointer", ""}}, Opts()).ok());
}

TEST(McpToolPlan, ImportShowsWithoutWriteAndStoresWithIt) {
  json args = {{"machine", "pve"}, {"text", "GPU0 X\n"}, {"as", "topo-m"}, {"pair", "0-1"}};
  Invocation show = Plan("import", args);
  EXPECT_EQ(show.argv, (Argv{"import", "--machine=pve", "--dossier=/d", "--as=topo-m", "--pair=0-1",
                             "--format=json", "--", "-"}));
  EXPECT_EQ(show.input, "GPU0 X\n");
  ServerOptions w = Opts();
  w.allow_write = true;
  EXPECT_EQ(Plan("import", {{"machine", "pve"}, {"text", "t"}}, w).argv,
            (Argv{"import", "--machine=pve", "--dossier=/d", "--", "-"}));
}

TEST(McpToolPlan, EachNoteKindBecomesItsCommandWithOnlyItsOptions) {
  ServerOptions w = Opts();
  w.allow_write = true;
  Error no = PlanError("note", {{"kind", "goal"}, {"text", "x"}});
  EXPECT_EQ(no.kind, Error::kPermission);
  EXPECT_NE(no.message.find("--allow-write"), std::string::npos) << no.message;

  // Every option of every kind given at once: each kind takes only its own.
  json all = {{"text", "T"},         {"value", "V"},    {"machine", "m1"},  {"status", "unknown"},
              {"result", "R"},       {"verify", "VER"}, {"blocking", true}, {"why", "W"},
              {"note", "N"},         {"when", "now"},   {"role", "guest"},  {"reachable", "no"},
              {"instructions", "I"}, {"host", "h1"},    {"vm", "104"},      {"n", 3}};
  auto with = [&](const char* kind) {
    json a = all;
    a["kind"] = kind;
    return Plan("note", a, w).argv;
  };
  const Argv head = {"note", "--dossier=/d"};
  auto expect = [&](const char* kind, Argv rest) {
    Argv want = head;
    want.push_back(kind);
    want.insert(want.end(), rest.begin(), rest.end());
    EXPECT_EQ(with(kind), want) << kind;
  };
  expect("goal", {"--", "T"});
  expect("target", {"--note=N", "--", "T"});
  expect("machine", {"--role=guest", "--reachable=no", "--instructions=I", "--host=h1", "--vm=104",
                     "--", "m1"});
  expect("fact", {"--status=unknown", "--machine=m1", "--note=N", "--when=now", "--", "T", "V"});
  expect("tried", {"--result=R", "--machine=m1", "--when=now", "--", "T"});
  expect("next", {"--blocking", "--verify=VER", "--machine=m1", "--why=W", "--", "T"});
  expect("done", {"--when=now", "--", "3"});
  expect("file", {"--machine=m1", "--why=W", "--", "T"});
  EXPECT_EQ(Plan("note", {{"kind", "next"}, {"text", "T"}, {"blocking", false}}, w).argv,
            (Argv{"note", "--dossier=/d", "next", "--", "T"}));
  EXPECT_EQ(Plan("note", {{"kind", "goal"}, {"text", "T"}}, w).limit_s, 60);

  // What each kind cannot do without, named.
  struct Missing {
    json args;
    const char* starts;
  };
  for (const auto& [args, starts] :
       {Missing{{{"kind", "goal"}}, "arguments.text: note goal needs it"},
        Missing{{{"kind", "machine"}, {"text", "x"}}, "arguments.machine: note machine needs it"},
        Missing{{{"kind", "fact"}, {"value", "v"}}, "arguments.text: note fact needs it"},
        Missing{{{"kind", "fact"}, {"text", "t"}}, "arguments.value: note fact needs it"},
        Missing{{{"kind", "done"}}, "arguments.n: note done needs the step's number"},
        Missing{{{"kind", "file"}, {"why", "w"}}, "arguments.text: note file needs it"}}) {
    Error e = PlanError("note", args, w);
    EXPECT_EQ(e.kind, Error::kInvalid) << args;
    EXPECT_TRUE(e.message.starts_with(starts)) << e.message;
  }
  // The host of a guest follows the machine-name rule as the machine does.
  Error host = PlanError("note", {{"kind", "machine"}, {"machine", "g"}, {"host", "-h"}}, w);
  EXPECT_TRUE(host.message.starts_with("arguments.host: ")) << host.message;
}

TEST(McpToolPlan, CollectReadsOnlyRootsInsideTheAllowedDirectories) {
  testing::TempDir tmp;
  namespace fs = std::filesystem;
  fs::create_directories(tmp.path() + "/allowed/tree");
  fs::create_directories(tmp.path() + "/allowed-not/tree");
  std::string allowed = fs::canonical(tmp.path() + "/allowed").string();
  ServerOptions o = Opts();

  Error none = PlanError("collect", {{"root", allowed + "/tree"}}, o);
  EXPECT_EQ(none.kind, Error::kPermission);
  EXPECT_NE(none.message.find("--allow-root"), std::string::npos);
  // No root: this machine, live (the report comes back; nothing stored without --allow-write).
  EXPECT_EQ(Plan("collect", json::object(), o).argv,
            (Argv{"collect", "-q", "--dossier=/d", "--format=json"}));

  o.allowed_roots = {allowed};
  EXPECT_EQ(Plan("collect", {{"root", allowed + "/tree/../tree"}, {"machine", "m"}}, o).argv,
            (Argv{"collect", "-q", "--dossier=/d", "--root=" + allowed + "/tree", "--machine=m",
                  "--format=json"}));
  EXPECT_EQ(Plan("collect", {{"root", allowed}}, o).argv[3], "--root=" + allowed);
  // A sibling whose name starts with the allowed one's is outside it; so is the parent.
  for (std::string out : {allowed + "-not/tree", allowed + "/..", std::string("/")}) {
    Error e = PlanError("collect", {{"root", out}}, o);
    EXPECT_EQ(e.kind, Error::kInvalid) << out;
    EXPECT_NE(e.message.find("outside the directories"), std::string::npos) << e.message;
  }
  Error missing = PlanError("collect", {{"root", allowed + "/nope"}}, o);
  EXPECT_NE(missing.message.find("not found"), std::string::npos) << missing.message;
  // An empty root is a root that does not resolve, not "this machine".
  EXPECT_EQ(PlanError("collect", {{"root", ""}}, o).kind, Error::kInvalid);
  // "/" allowed: everything is inside it.
  o.allowed_roots = {"/"};
  EXPECT_EQ(Plan("collect", {{"root", allowed + "-not/tree"}}, o).argv[3],
            "--root=" + allowed + "-not/tree");
  o.allow_write = true;
  EXPECT_EQ(Plan("collect", json::object(), o).argv, (Argv{"collect", "-q", "--dossier=/d"}));
}

TEST(McpToolPlan, DiffGenerateAndMeasurementsPassTheirArgumentsAsOptions) {
  EXPECT_EQ(Plan("diff", {{"machine", "m"}, {"records", {12, 3}}}).argv,
            (Argv{"diff", "--format=json", "--dossier=/d", "--machine=m", "--", "12", "3"}));
  EXPECT_EQ(Plan("diff", json::object()).argv, (Argv{"diff", "--format=json", "--dossier=/d"}));
  EXPECT_EQ(Plan("generate", {{"name", "pve-mapping"}, {"machine", "h"}, {"diff", true}}).argv,
            (Argv{"generate", "pve-mapping", "--dossier=/d", "--machine=h", "--diff"}));
  EXPECT_EQ(Plan("generate", {{"name", "nccl-topo"}, {"diff", false}}).argv,
            (Argv{"generate", "nccl-topo", "--dossier=/d"}));

  ServerOptions m = Opts();
  for (const char* tool : {"p2p", "serve_bench"}) {
    Error e = PlanError(tool, {{"url", "http://x"}}, m);
    EXPECT_EQ(e.kind, Error::kPermission) << tool;
    EXPECT_NE(e.message.find("--allow-measure"), std::string::npos) << e.message;
  }
  m.allow_measure = true;
  Invocation p = Plan("p2p", json::object(), m);
  EXPECT_EQ(p.argv, (Argv{"p2p", "--format=json", "--timeout=120", "--dossier=/d"}));
  EXPECT_EQ(p.limit_s, 150);  // the command's own --timeout ends it first
  m.cuda_lib = "/opt/cuda/libcudart.so";
  m.nvml_lib = "/opt/nvml.so";
  p = Plan("p2p",
           {{"seconds", 2.5},
            {"pairs", "0-1"},
            {"sizes", "4K"},
            {"machine", "g"},
            {"reps", 7},
            {"no_host", true},
            {"no_local", true}},
           m);
  EXPECT_EQ(p.argv,
            (Argv{"p2p", "--format=json", "--timeout=2.5", "--dossier=/d",
                  "--cuda-lib=/opt/cuda/libcudart.so", "--nvml-lib=/opt/nvml.so", "--pairs=0-1",
                  "--sizes=4K", "--machine=g", "--reps=7", "--no-host", "--no-local"}));
  EXPECT_EQ(p.limit_s, 32.5);
  EXPECT_EQ(Plan("p2p", {{"no_host", false}, {"no_local", false}}, m).argv.size(), 6u);

  Invocation s = Plan("serve_bench", {{"url", "http://127.0.0.1:8000"}}, m);
  EXPECT_EQ(s.argv, (Argv{"serve-bench", "--format=json", "--deadline=600", "--dossier=/d", "--",
                          "http://127.0.0.1:8000"}));
  EXPECT_EQ(s.limit_s, 660);
  s = Plan("serve_bench",
           {{"url", "-http"},
            {"seconds", 30},
            {"api", "chat"},
            {"model", "m"},
            {"concurrency", "1,8"},
            {"num_prompts", 5},
            {"input_len", 64},
            {"output_len", 9},
            {"machine", "g"}},
           m);
  // The URL after "--": one that starts with '-' is still the URL, not an option.
  EXPECT_EQ(s.argv, (Argv{"serve-bench", "--format=json", "--deadline=30", "--dossier=/d",
                          "--api=chat", "--model=m", "--concurrency=1,8", "--machine=g",
                          "--num-prompts=5", "--input-len=64", "--output-len=9", "--", "-http"}));
  EXPECT_EQ(s.limit_s, 90);
}

TEST(McpToolFinish, AFailedCommandSaysWhyAndWhatItPrinted) {
  Ran code = Out("", 3, "dossier: no such machine\n");
  for (const char* tool : {"summary", "report", "findings", "facts", "import", "collect", "diff",
                           "generate", "note"}) {
    ToolResult r = Finish(tool, {{"kind", "goal"}}, code);
    EXPECT_TRUE(r.is_error) << tool;
    EXPECT_NE(r.text.find("failed (exit code 3):\ndossier: no such machine\n"), std::string::npos)
        << tool << ": " << r.text;
  }
  Ran killed = Out("", -1);
  ToolResult k = Finish("report", json::object(), killed);
  EXPECT_EQ(k.text, "dossier report failed (it was killed by a signal)");
  Ran late = Out("", -1);
  late.timed_out = true;
  EXPECT_EQ(Finish("diff", json::object(), late).text,
            "dossier diff failed (it ran past its time limit and was stopped)");
  // Output that is not JSON, or was cut at the limit, is a failure, not an empty answer.
  for (const char* tool : {"summary", "findings", "facts", "diff"}) {
    EXPECT_TRUE(Finish(tool, {{"machine", "m"}}, Out("{\"machines\": [")).is_error) << tool;
    Ran cut = Out("{}");
    cut.truncated = true;
    EXPECT_TRUE(Finish(tool, {{"machine", "m"}}, cut).is_error) << tool;
  }
  EXPECT_TRUE(Finish("diff", json::object(), Out("[1, 2]")).is_error);
  EXPECT_FALSE(Finish("diff", json::object(), Out("{\"changes\": []}")).is_error);
}

TEST(McpToolFinish, SummaryTakesEachPartFromItsOwnKey) {
  json report = {{"summary",
                  {{"goal", "70 tok/s"},
                   {"blocked_by", {"b"}},
                   {"now", {"n"}},
                   {"known_not_to_help", {"k"}},
                   {"stale", {"s"}}}},
                 {"goal", {{"targets", {"t"}}}},
                 {"warnings", {"w"}}};
  ToolResult r = Finish("summary", json::object(), Out(report.dump()));
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured, (json{{"goal", "70 tok/s"},
                                {"targets", {"t"}},
                                {"blocked_by", {"b"}},
                                {"next_steps", {"n"}},
                                {"known_not_to_help", {"k"}},
                                {"stale", {"s"}},
                                {"warnings", {"w"}}}));
  EXPECT_EQ(json::parse(r.text), r.structured);
  // Parts missing or of the wrong kind are empty, never taken from elsewhere.
  json odd = {{"summary", {{"goal", 5}, {"blocked_by", "x"}}}, {"goal", "g"}, {"warnings", {}}};
  ToolResult e = Finish("summary", json::object(), Out(odd.dump()));
  EXPECT_EQ(e.structured, (json{{"goal", ""},
                                {"targets", json::array()},
                                {"blocked_by", json::array()},
                                {"next_steps", json::array()},
                                {"known_not_to_help", json::array()},
                                {"stale", json::array()},
                                {"warnings", json::array()}}));
}

const char* kMd =
    "# Dossier\n"
    "intro\n"
    "## Host pve\n"
    "### IOMMU groups\n"
    "group 1\n"
    "```\n"
    "# IOMMU in a fence is not a heading\n"
    "```\n"
    "#### IOMMU detail\n"
    "deeper\n"
    "### PCIe\n"
    "tree\n"
    "## Guest\n"
    "#nospace\n"
    "### Findings\n"
    "last\n";

TEST(McpToolFinish, AMarkdownSectionRunsToTheNextHeadingOfItsLevelOrHigher) {
  auto section = [](const char* s) { return Finish("report", {{"section", s}}, Out(kMd)); };
  ToolResult iommu = section("iommu");
  ASSERT_FALSE(iommu.is_error) << iommu.text;
  EXPECT_EQ(iommu.text,
            "### IOMMU groups\ngroup 1\n```\n# IOMMU in a fence is not a heading\n```\n"
            "#### IOMMU detail\ndeeper\n");
  EXPECT_EQ(iommu.structured["markdown"], iommu.text);
  EXPECT_EQ(iommu.structured["section"], "iommu");
  EXPECT_EQ(iommu.structured["format"], "md");
  EXPECT_FALSE(iommu.structured.contains("machine"));
  EXPECT_EQ(section("HOST PVE").text,
            "## Host pve\n### IOMMU groups\ngroup 1\n```\n# IOMMU in a fence is not a heading\n"
            "```\n#### IOMMU detail\ndeeper\n### PCIe\ntree\n");
  EXPECT_EQ(section("detail").text, "#### IOMMU detail\ndeeper\n");
  // The last section runs to the end.
  EXPECT_EQ(section("findings").text, "### Findings\nlast\n");
  // Not found: the headings there are (levels 1-3, not the fenced line or "#nospace").
  ToolResult none = section("nvlink");
  EXPECT_TRUE(none.is_error);
  EXPECT_EQ(none.text,
            "no heading of the report holds 'nvlink'; its headings: Dossier; Host pve; IOMMU "
            "groups; PCIe; Guest; Findings");
  // No section: the whole report, with the machine named.
  ToolResult all = Finish("report", {{"machine", "pve"}}, Out(kMd));
  EXPECT_EQ(all.text, kMd);
  EXPECT_EQ(all.structured["machine"], "pve");
}

TEST(McpToolFinish, AJsonSectionIsTheMachinesKeyElseTheReportsOwn) {
  json report = {
      {"schema", "dossier/1"},
      {"gpus", "report-level"},
      {"machines",
       {{{"name", "a"}, {"gpus", {1}}, {"pci", "a-pci"}}, {{"name", "b"}, {"gpus", {2, 3}}}}}};
  auto sec = [&](json args) {
    args["format"] = "json";
    return Finish("report", args, Out(report.dump()));
  };
  EXPECT_EQ(sec({{"machine", "b"}, {"section", "gpus"}}).structured["report"], json({2, 3}));
  EXPECT_EQ(sec({{"machine", "a"}, {"section", "gpus"}}).structured["report"], json({1}));
  // b has no pci: not a's, the report's own key or an error.
  ToolResult no = sec({{"machine", "b"}, {"section", "pci"}});
  EXPECT_TRUE(no.is_error);
  EXPECT_EQ(no.text,
            "no section 'pci' in the report (its keys: gpus, machines, schema; a machine's keys, "
            "with 'machine': gpus, findings, pci, numa, iommu, software…)");
  EXPECT_EQ(sec({{"section", "gpus"}}).structured["report"], "report-level");
  EXPECT_EQ(sec({{"machine", "c"}, {"section", "schema"}}).structured["report"], "dossier/1");
  ToolResult whole = sec(json::object());
  EXPECT_EQ(whole.structured["report"], report);
  EXPECT_EQ(whole.structured["format"], "json");
}

TEST(McpToolFinish, FindingsFilteredBySeverityAndIdPrefixCarryTheirMachine) {
  json report = {{"machines",
                  {{{"name", "a"},
                    {"findings",
                     {{{"id", "p2p.disabled"}, {"severity", "critical"}, {"title", "t1"}},
                      {{"id", "pcie.link"}, {"severity", "warning"}, {"title", "t2"}}}}},
                   {{"name", "b"},
                    {"findings",
                     {{{"id", "p2p.slow"}, {"severity", "warning"}, {"title", "t3"}},
                      {{"id", "xp2p.other"}, {"severity", "critical"}, {"title", "t4"}}}}}}}};
  auto ids = [&](json args) {
    ToolResult r = Finish("findings", args, Out(report.dump()));
    std::vector<std::string> v;
    for (const auto& f : r.structured["findings"])
      v.push_back(f["machine"].get<std::string>() + ":" + f["id"].get<std::string>());
    EXPECT_EQ(r.structured["count"], v.size());
    return v;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(ids(json::object()),
            (V{"a:p2p.disabled", "a:pcie.link", "b:p2p.slow", "b:xp2p.other"}));
  EXPECT_EQ(ids({{"severity", "critical"}}), (V{"a:p2p.disabled", "b:xp2p.other"}));
  EXPECT_EQ(ids({{"id", "p2p."}}), (V{"a:p2p.disabled", "b:p2p.slow"}));
  EXPECT_EQ(ids({{"id", "p2p."}, {"severity", "warning"}}), (V{"b:p2p.slow"}));
  EXPECT_EQ(ids({{"id", "nvlink"}}), V{});
  ToolResult r = Finish("findings", json::object(), Out(report.dump()));
  EXPECT_EQ(r.structured["findings"][0]["title"], "t1");
}

TEST(McpToolFinish, FactsGiveTheValueAndProvenanceAtAndAroundThePointer) {
  json report = {{"machines",
                  {{{"name", "a"}, {"gpus", {{{"link", "a-link"}}}}},
                   {{"name", "b"},
                    {"gpus", {{{"link", "Gen5 x16"}, {"bus", "01:00.0"}}, {{"link", nullptr}}}},
                    {"cpu", {{"sockets", 2}}},
                    {"provenance",
                     {{"/gpus", {{"from", "nvml"}}},
                      {"/gpus/0/link", {{"from", "sysfs"}}},
                      {"/gpus/0/bus", {{"from", "lspci"}}},
                      {"/gpus/1/link", {{"unknown", "needs root"}}},
                      {"/gpus/01", {{"from", "x"}}},
                      {"/cpu/sockets", {{"from", "cpuinfo"}}}}}}}}};
  auto facts = [&](std::string machine, std::string ptr) {
    return Finish("facts", {{"machine", machine}, {"pointer", ptr}}, Out(report.dump()));
  };
  ToolResult link = facts("b", "/gpus/0/link");
  ASSERT_FALSE(link.is_error) << link.text;
  EXPECT_EQ(link.structured["value"], "Gen5 x16");
  EXPECT_EQ(link.structured["machine"], "b");
  EXPECT_EQ(link.structured["pointer"], "/gpus/0/link");
  // The pointer's own entry and the entries above it; not its siblings.
  EXPECT_EQ(link.structured["provenance"],
            (json{{"/gpus", {{"from", "nvml"}}}, {"/gpus/0/link", {{"from", "sysfs"}}}}));
  // At /gpus/0: the entries under it, not /gpus/01's.
  ToolResult gpu0 = facts("b", "/gpus/0");
  EXPECT_EQ(gpu0.structured["provenance"], (json{{"/gpus", {{"from", "nvml"}}},
                                                 {"/gpus/0/bus", {{"from", "lspci"}}},
                                                 {"/gpus/0/link", {{"from", "sysfs"}}}}));
  // Unknown is a value: null, with its reason.
  ToolResult unknown = facts("b", "/gpus/1/link");
  EXPECT_TRUE(unknown.structured["value"].is_null());
  EXPECT_EQ(unknown.structured["provenance"]["/gpus/1/link"]["unknown"], "needs root");
  // The whole view: every entry, and the provenance is not part of the value.
  ToolResult whole = facts("b", "");
  EXPECT_EQ(whole.structured["provenance"].size(), 6u);
  EXPECT_FALSE(whole.structured["value"].contains("provenance"));
  EXPECT_EQ(whole.structured["value"]["cpu"]["sockets"], 2);
  // The machine asked for, not the first.
  EXPECT_EQ(facts("a", "/gpus/0/link").structured["value"], "a-link");
  EXPECT_EQ(facts("a", "/gpus/0/link").structured["provenance"], json::object());

  ToolResult nobody = facts("c", "");
  EXPECT_TRUE(nobody.is_error);
  EXPECT_EQ(nobody.text, "no machine 'c' in the dossier (machines: a, b)");
  EXPECT_EQ(Finish("facts", {{"machine", "c"}}, Out("{\"machines\": []}")).text,
            "no machine 'c' in the dossier (machines: none)");
  ToolResult nothing = facts("b", "/nvlink");
  EXPECT_TRUE(nothing.is_error);
  EXPECT_EQ(nothing.text, "nothing at /nvlink in b's view (its keys: cpu, gpus, name)");
}

TEST(McpToolFinish, WritingToolsSayWhetherTheyStoredAndWhatTheCommandSaid) {
  ServerOptions w = Opts();
  w.allow_write = true;
  ToolResult stored = Finish("import", {{"machine", "h"}}, Out("", 0, "read 3 parts"), w);
  EXPECT_EQ(stored.structured,
            (json{{"stored", true}, {"machine", "h"}, {"summary", "read 3 parts"}}));
  ToolResult shown = Finish("import", {{"machine", "h"}}, Out("{\"name\":\"h\"}", 0, "read"));
  EXPECT_EQ(
      shown.structured,
      (json{{"stored", false}, {"machine", "h"}, {"summary", "read"}, {"view", {{"name", "h"}}}}));
  EXPECT_TRUE(Finish("import", {{"machine", "h"}}, Out("not json")).is_error);

  EXPECT_EQ(Finish("note", {{"kind", "goal"}}, Out("goal set\n", 0, "(was: none)\n")).structured,
            (json{{"kind", "goal"}, {"message", "goal set\n(was: none)\n"}}));

  EXPECT_EQ(Finish("collect", json::object(), Out("", 0, "stored 000004"), w).structured,
            (json{{"stored", true}, {"message", "stored 000004"}}));
  EXPECT_EQ(Finish("collect", json::object(), Out("{\"m\":1}", 0, "probed")).structured,
            (json{{"stored", false}, {"message", "probed"}, {"report", {{"m", 1}}}}));
  EXPECT_TRUE(Finish("collect", json::object(), Out("")).is_error);

  EXPECT_EQ(Finish("generate", {{"name", "numa"}}, Out("[Unit]\n", 0, "verify: x")).structured,
            (json{{"name", "numa"}, {"text", "[Unit]\n"}, {"notes", "verify: x"}}));
}

TEST(McpToolFinish, AMeasurementWithFailuresOrStoppedIsAResultNotAnError) {
  for (const char* tool : {"p2p", "serve_bench"}) {
    SCOPED_TRACE(tool);
    ToolResult ok = Finish(tool, json::object(), Out("{\"results\": []}", 0, "log"));
    EXPECT_EQ(ok.structured, (json{{"stored", true},
                                   {"complete", true},
                                   {"result", {{"results", json::array()}}},
                                   {"log", "log"}}));
    // Exit 1 with a result: it found failures or was stopped; kept.
    ToolResult found = Finish(tool, json::object(), Out("{\"interrupted\": true}", 1));
    EXPECT_FALSE(found.is_error);
    EXPECT_EQ(found.structured["complete"], false);
    Ran late = Out("{\"interrupted\": false}", 1);
    late.timed_out = true;
    EXPECT_EQ(Finish(tool, json::object(), late).structured["complete"], false);
    EXPECT_EQ(
        Finish(tool, json::object(), Out("{\"interrupted\": false}", 1)).structured["complete"],
        true);
    // Exit 2 (a usage or setup failure) is an error even with JSON; so is JSON that is no object.
    EXPECT_TRUE(Finish(tool, json::object(), Out("{}", 2)).is_error);
    EXPECT_TRUE(Finish(tool, json::object(), Out("[]", 0)).is_error);
    // The log is the end of what it printed, 16 KiB at most.
    std::string err = "first\n" + std::string(16384, 'x');
    ToolResult long_log = Finish(tool, json::object(), Out("{}", 0, err));
    EXPECT_EQ(long_log.structured["log"], std::string(16384, 'x'));
    std::string just(16384, 'y');
    EXPECT_EQ(Finish(tool, json::object(), Out("{}", 0, just)).structured["log"], just);
  }
}

TEST(McpRedactJson, EveryStringAtEveryDepthKeysKept) {
  const std::string url = "https://user:hunter2secret@example.org/x";
  json in = {{"a", url},     {"list", {1, url, {{"deep", url}}}},
             {"n", 5},       {"b", true},
             {"z", nullptr}, {url, "key kept"}};
  json out = RedactJson(in);
  EXPECT_EQ(out.dump().find("hunter2secret"), out.dump().rfind("hunter2secret"));  // the key only
  EXPECT_EQ(out["list"][0], 1);
  EXPECT_EQ(out["n"], 5);
  EXPECT_EQ(out["b"], true);
  EXPECT_TRUE(out["z"].is_null());
  EXPECT_EQ(out[url], "key kept");
  EXPECT_EQ(out["a"], out["list"][1]);
  EXPECT_EQ(out["a"], out["list"][2]["deep"]);
  EXPECT_EQ(out["a"].get<std::string>().find("hunter2secret"), std::string::npos) << out["a"];
  EXPECT_NE(out["a"].get<std::string>().find("example.org"), std::string::npos) << out["a"];
  EXPECT_EQ(RedactJson(json(url)), out["a"]);
  EXPECT_EQ(RedactJson(json::array()), json::array());
}

}  // namespace
}  // namespace dossier::mcp
