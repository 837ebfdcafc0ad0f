// What an assistant reads when its arguments do not fit a tool's schema: each problem names where
// (arguments.key, arguments.list[1], arguments.outer.inner) and, for a top-level key of the wrong
// type or outside its enum, what that key takes; valid arguments have no problem; a flood of
// problems is cut to the first few.
#include "mcp/schema_check.h"

#include <gtest/gtest.h>

#include "mcp/tools.h"

namespace dossier::mcp {
namespace {

using nlohmann::json;

std::vector<std::string> ProblemsOf(const char* tool, const json& args) {
  const Tool* t = FindTool(tool);
  EXPECT_NE(t, nullptr);
  return SchemaCheck(t->input_schema()).Problems(args);
}

std::string Joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

TEST(McpSchemaCheck, ValidArgumentsHaveNoProblem) {
  EXPECT_TRUE(ProblemsOf("p2p", {{"reps", 5}, {"seconds", 30.5}, {"no_host", true}}).empty());
  EXPECT_TRUE(ProblemsOf("summary", json::object()).empty());
  EXPECT_TRUE(ProblemsOf("diff", {{"records", {1, 2}}}).empty());
  EXPECT_TRUE(ProblemsOf("generate", {{"name", "nccl-topo"}}).empty());
}

TEST(McpSchemaCheck, ATopLevelKeyOfTheWrongKindSaysWhatItTakes) {
  auto p = ProblemsOf("p2p", {{"reps", "five"}});
  ASSERT_EQ(p.size(), 1u) << Joined(p);
  EXPECT_TRUE(p[0].starts_with("arguments.reps: ")) << p[0];
  EXPECT_TRUE(p[0].ends_with(" (reps takes a value of type integer)")) << p[0];

  auto e = ProblemsOf("report", {{"format", "pdf"}});
  ASSERT_EQ(e.size(), 1u) << Joined(e);
  EXPECT_TRUE(e[0].starts_with("arguments.format: ")) << e[0];
  EXPECT_TRUE(e[0].ends_with(" (format takes one of [\"md\",\"json\"])")) << e[0];

  // Out of range is not a kind problem: where, and valijson's words, without a hint.
  auto range = ProblemsOf("p2p", {{"reps", 1000}});
  ASSERT_EQ(range.size(), 1u) << Joined(range);
  EXPECT_TRUE(range[0].starts_with("arguments.reps: ")) << range[0];
  EXPECT_EQ(range[0].find(" takes "), std::string::npos) << range[0];
}

TEST(McpSchemaCheck, NestedPlacesAreNamedByIndexAndKeyWithoutAHint) {
  auto list = ProblemsOf("diff", {{"records", {1, "x"}}});
  ASSERT_FALSE(list.empty());
  EXPECT_TRUE(list[0].starts_with("arguments.records[1]: ")) << Joined(list);
  EXPECT_EQ(Joined(list).find(" takes "), std::string::npos) << Joined(list);

  json schema = {
      {"type", "object"},
      {"properties",
       {{"outer", {{"type", "object"}, {"properties", {{"inner", {{"type", "integer"}}}}}}},
        {"either", {{"type", {"integer", "null"}}}}}}};
  SchemaCheck check(schema);
  auto nested = check.Problems({{"outer", {{"inner", "x"}}}});
  ASSERT_EQ(nested.size(), 1u) << Joined(nested);
  EXPECT_TRUE(nested[0].starts_with("arguments.outer.inner: ")) << nested[0];
  EXPECT_EQ(nested[0].find(" takes "), std::string::npos) << nested[0];
  // A key whose schema allows several types: no single type to name.
  auto either = check.Problems({{"either", "x"}});
  ASSERT_FALSE(either.empty());
  EXPECT_TRUE(either[0].starts_with("arguments.either: ")) << Joined(either);
  EXPECT_EQ(Joined(either).find(" takes "), std::string::npos) << Joined(either);
  EXPECT_TRUE(check.Problems({{"either", nullptr}, {"outer", {{"inner", 3}}}}).empty());
}

TEST(McpSchemaCheck, AKeyTheToolDoesNotTakeIsNamed) {
  auto p = ProblemsOf("summary", {{"machine", "a"}, {"rm", "-rf"}});
  ASSERT_FALSE(p.empty());
  EXPECT_NE(Joined(p).find("rm"), std::string::npos) << Joined(p);
  // Never the parent's "Failed to validate against schema…" line.
  EXPECT_EQ(Joined(p).find("Failed to validate against"), std::string::npos) << Joined(p);
}

TEST(McpSchemaCheck, AFloodOfProblemsIsCutToTheFirstEight) {
  json props = json::object(), args = json::object();
  for (int i = 0; i < 20; ++i) {
    std::string k = "k" + std::to_string(100 + i);
    props[k] = {{"type", "integer"}};
    args[k] = "not a number";
  }
  SchemaCheck check({{"type", "object"}, {"properties", props}});
  auto p = check.Problems(args);
  EXPECT_EQ(p.size(), 8u) << Joined(p);
  for (const auto& line : p) EXPECT_TRUE(line.starts_with("arguments.k1")) << line;
  // Seven problems: all of them.
  json seven = json::object();
  for (int i = 0; i < 7; ++i) seven["k" + std::to_string(100 + i)] = "x";
  EXPECT_EQ(check.Problems(seven).size(), 7u);
}

// Every numeric bound a tool states, pinned here (not read back from the schema): a zero-token
// output, a 0-second run or record 0 is refused before anything runs; the bound itself is taken.
TEST(McpSchemaCheck, EachNumericArgumentTakesItsBoundsAndNothingPast) {
  struct Bound {
    const char* tool;
    const char* key;
    double lo, hi;
  };
  for (const auto& [tool, key, lo, hi] :
       {Bound{"p2p", "reps", 1, 100}, Bound{"p2p", "seconds", 1, 3600},
        Bound{"serve_bench", "seconds", 1, 86400}, Bound{"serve_bench", "num_prompts", 1, 100000},
        Bound{"serve_bench", "input_len", 1, 1000000},
        Bound{"serve_bench", "output_len", 1, 1000000}, Bound{"note", "n", 1, 100000}}) {
    SCOPED_TRACE(std::string(tool) + " " + key);
    auto args = [&](double v) {
      json a = {{key, json(static_cast<int64_t>(v))}};
      if (std::string(tool) == "serve_bench") a["url"] = "http://127.0.0.1:1";
      if (std::string(tool) == "note") a["kind"] = "done";
      return a;
    };
    EXPECT_TRUE(ProblemsOf(tool, args(lo)).empty()) << Joined(ProblemsOf(tool, args(lo)));
    EXPECT_TRUE(ProblemsOf(tool, args(hi)).empty()) << Joined(ProblemsOf(tool, args(hi)));
    for (double past : {lo - 1, hi + 1}) {
      auto p = ProblemsOf(tool, args(past));
      ASSERT_EQ(p.size(), 1u) << past << "\n" << Joined(p);
      EXPECT_TRUE(p[0].starts_with(std::string("arguments.") + key + ": ")) << p[0];
    }
  }
  // Records of a diff: sequence numbers 1 to 999999, two of them.
  EXPECT_TRUE(ProblemsOf("diff", {{"records", {1, 999999}}}).empty());
  EXPECT_FALSE(ProblemsOf("diff", {{"records", {0, 2}}}).empty());
  EXPECT_FALSE(ProblemsOf("diff", {{"records", {1, 1000000}}}).empty());
  EXPECT_FALSE(ProblemsOf("diff", {{"records", {1}}}).empty());
  EXPECT_FALSE(ProblemsOf("diff", {{"records", {1, 2, 3}}}).empty());
}

}  // namespace
}  // namespace dossier::mcp
