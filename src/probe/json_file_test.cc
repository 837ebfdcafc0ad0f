// Foreign JSON (config.json, version.json): every failure names the file and line and says what
// the parser expected, in a bounded, printable message.
#include "probe/json_file.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../tests/temp_dir.h"

namespace dossier {
namespace {

std::string JsonError(std::string_view text) {
  auto r = ParseJsonText(text, "/m/config.json");
  EXPECT_FALSE(r.ok());
  return r.ok() ? std::string() : r.error().message;
}

TEST(JsonFile, AParseErrorNamesTheLineAndWhatWasExpected) {
  EXPECT_EQ(JsonError("{\n  \"a\": 1,\n  \"b\": ]\n}"),
            "/m/config.json:3: invalid JSON: syntax error while parsing value - unexpected ']'; "
            "expected '[', '{', or a literal");
  // At the end of the text (the byte one past it): the last line.
  std::string end = JsonError("{\n\"a\": 1,\n");
  EXPECT_EQ(end.rfind("/m/config.json:3: invalid JSON: ", 0), 0u) << end;
}

TEST(JsonFile, TheParsersMessageIsCutAtOneHundredSixtyCharactersAndMadePrintable) {
  // An unterminated string: nlohmann quotes all it read, so the message is as long as the file.
  const std::string prefix = "/m/config.json:1: invalid JSON: ";
  std::string msg = JsonError("{\"a\": \"" + std::string(500, 'x'));
  ASSERT_EQ(msg.rfind(prefix, 0), 0u) << msg;
  std::string what = msg.substr(prefix.size());
  ASSERT_TRUE(what.ends_with("…")) << what;
  EXPECT_EQ(what.size(), 160 + std::string("…").size()) << what;
  EXPECT_EQ(
      what.rfind("syntax error while parsing value - invalid string: missing closing quote;", 0),
      0u)
      << what;

  // A control byte the parser quotes comes out as \xNN, never raw.
  std::string ctl = JsonError("{\"a\": \"x\x01y\"}");
  EXPECT_EQ(ctl.find('\x01'), std::string::npos);

  // A short message is whole, with no mark of a cut.
  EXPECT_EQ(JsonError("[1,]").find("…"), std::string::npos);
}

TEST(JsonFile, ANumberOutOfRangeIsInvalidJsonToo) {
  std::string msg = JsonError("{\"max_position_embeddings\": 1e999}");
  EXPECT_EQ(msg.rfind("/m/config.json: invalid JSON: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("number overflow"), std::string::npos) << msg;
  EXPECT_NE(msg.find("1e999"), std::string::npos) << msg;

  // nlohmann quotes the whole number; the message is cut at 160 characters as a parse error's is.
  const std::string prefix = "/m/config.json: invalid JSON: ";
  std::string long_msg = JsonError("[" + std::string(400, '9') + "]");
  ASSERT_EQ(long_msg.rfind(prefix, 0), 0u) << long_msg;
  std::string what = long_msg.substr(prefix.size());
  EXPECT_EQ(what.size(), 160 + std::string("…").size()) << what;
  EXPECT_TRUE(what.ends_with(std::string(20, '9') + "…")) << what;
}

TEST(JsonFile, NestingPastTheBoundIsDroppedNotRecursedInto) {
  std::string deep(kMaxJsonDepth + 10, '[');
  deep += std::string(kMaxJsonDepth + 10, ']');
  auto r = ParseJsonText("{\"keep\": 1, \"deep\": " + deep + "}", "x.json");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ((*r)["keep"], 1);
  // Kept down to the bound: depth 1 is the object, so kMaxJsonDepth - 1 arrays survive.
  const nlohmann::json* j = &(*r)["deep"];
  int arrays = 0;
  while (j->is_array() && !j->empty()) ++arrays, j = &(*j)[0];
  EXPECT_LT(arrays, kMaxJsonDepth);
  EXPECT_GT(arrays, kMaxJsonDepth - 3);
}

TEST(JsonFile, AFileTooLargeOrAbsentIsAnErrorNamingIt) {
  testing::TempDir t;
  t.Write("big.json", "[" + std::string(100, ' ') + "]");
  t.Write("ok.json", "{\"a\": [1, 2]}");
  RootFs fs(t.path());
  auto big = ReadJsonFile(fs, "/big.json", 50);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("big.json"), std::string::npos) << big.error().message;
  auto none = ReadJsonFile(fs, "/none.json", 50);
  ASSERT_FALSE(none.ok());
  auto ok = ReadJsonFile(fs, "/ok.json", 50);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)["a"][1], 2);
}

}  // namespace
}  // namespace dossier
