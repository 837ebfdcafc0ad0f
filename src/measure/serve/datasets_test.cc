#include <gtest/gtest.h>

#include "../../../tests/temp_dir.h"
#include "measure/serve/random_dataset.h"
#include "measure/serve/sharegpt_dataset.h"
#include "util/text.h"

namespace dossier::serve {
namespace {

TEST(RandomPrompts, ExactLengthsAndReproducible) {
  auto a = RandomPrompts(20, 64, 32, 7);
  auto b = RandomPrompts(20, 64, 32, 7);
  auto c = RandomPrompts(20, 64, 32, 8);
  ASSERT_EQ(a.size(), 20u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(SplitAny(a[i].text, " ").size(), 64u);
    EXPECT_EQ(a[i].input_tokens, 64);
    EXPECT_EQ(a[i].output_tokens, 32);
    EXPECT_TRUE(a[i].exact_output);
    EXPECT_EQ(a[i].text, b[i].text);
  }
  EXPECT_NE(a[0].text, c[0].text);
  // Prompts differ from each other (no shared prefix for a cache to find).
  int same_start = 0;
  for (size_t i = 1; i < a.size(); ++i)
    same_start += a[i].text.substr(0, 20) == a[0].text.substr(0, 20);
  EXPECT_LT(same_start, 2);
}

std::string Conv(const std::string& human, const std::string& gpt) {
  return R"({"id":"x","conversations":[{"from":"human","value":")" + human +
         R"("},{"from":"gpt","value":")" + gpt + R"("},{"from":"human","value":"more"}]})";
}

TEST(ShareGpt, ReadsFirstTwoTurnsAndFilters) {
  testing::TempDir dir;
  std::string long_prompt(5000, 'a');  // ~1250 tokens: over 1,024, filtered out
  dir.Write("sg.json",
            "[" +
                Conv("What is the capital of France, please?", "Paris is the capital of France.") +
                "," + Conv("hi", "hello there my friend") + "," +  // prompt too short
                Conv(long_prompt, "ok ok ok ok ok ok ok") + "," +
                R"({"id":"lone","conversations":[{"from":"human","value":"alone here"}]})" + "," +
                Conv("Tell me a story about a dragon.", "Once upon a time, a dragon...") + "]");
  ShareGptStats st;
  auto p = LoadShareGpt(dir.path() + "/sg.json", 10, 1, std::nullopt, &st);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(st.conversations, 5);
  EXPECT_EQ(st.eligible, 2);
  ASSERT_EQ(p->size(), 2u);
  for (const auto& q : *p) {
    EXPECT_FALSE(q.exact_output);
    EXPECT_GE(q.output_tokens, 4);
    EXPECT_TRUE(q.text == "What is the capital of France, please?" ||
                q.text == "Tell me a story about a dragon.");
  }
  // A fixed output length replaces the answers' and lifts the length filter.
  auto f = LoadShareGpt(dir.path() + "/sg.json", 10, 1, 64, &st);
  ASSERT_TRUE(f);
  EXPECT_EQ(st.eligible, 4);
  for (const auto& q : *f) {
    EXPECT_EQ(q.output_tokens, 64);
    EXPECT_TRUE(q.exact_output);
  }
}

// A turn over 1 MiB drops its conversation only: the next one is read as usual.
TEST(ShareGpt, AnOversizedTurnDropsItsConversationAndNoOther) {
  testing::TempDir dir;
  std::string huge((1 << 20) + 1, 'a');
  dir.Write("sg.json",
            "[" + Conv("Why is the sky blue at noon?", huge) + "," +
                Conv("Tell me a story about a dragon.", "Once upon a time, a dragon...") + "]");
  ShareGptStats st;
  auto p = LoadShareGpt(dir.path() + "/sg.json", 10, 1, 64, &st);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(st.conversations, 2);
  EXPECT_EQ(st.eligible, 1);
  ASSERT_EQ(p->size(), 1u);
  EXPECT_EQ((*p)[0].text, "Tell me a story about a dragon.");
}

TEST(ShareGpt, ReservoirKeepsNAndIsReproducible) {
  testing::TempDir dir;
  std::string text = "[";
  for (int i = 0; i < 200; ++i) {
    if (i) text += ",";
    text += Conv("question number " + std::to_string(i) + " is here",
                 "answer number " + std::to_string(i) + " is there");
  }
  dir.Write("sg.json", text + "]");
  auto a = LoadShareGpt(dir.path() + "/sg.json", 10, 3, std::nullopt);
  auto b = LoadShareGpt(dir.path() + "/sg.json", 10, 3, std::nullopt);
  auto c = LoadShareGpt(dir.path() + "/sg.json", 10, 4, std::nullopt);
  ASSERT_TRUE(a && b && c);
  ASSERT_EQ(a->size(), 10u);
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ((*a)[i].text, (*b)[i].text);
  bool differs = false;
  for (size_t i = 0; i < 10; ++i) differs |= (*a)[i].text != (*c)[i].text;
  EXPECT_TRUE(differs);
}

TEST(ShareGpt, BadFilesAreClearErrors) {
  testing::TempDir dir;
  EXPECT_EQ(LoadShareGpt(dir.path() + "/absent.json", 5, 0, std::nullopt).error().kind,
            Error::kNotFound);
  dir.Write("trunc.json", "[" + Conv("What is the capital of France?", "Paris."));
  auto t = LoadShareGpt(dir.path() + "/trunc.json", 5, 0, std::nullopt);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message.find("trunc.json: not valid JSON at byte"), std::string::npos);
  dir.Write("obj.json", R"({"conversations": []})");
  EXPECT_FALSE(LoadShareGpt(dir.path() + "/obj.json", 5, 0, std::nullopt));
  dir.Write("empty.json", "[]");
  auto e = LoadShareGpt(dir.path() + "/empty.json", 5, 0, std::nullopt);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().message.find("no usable conversation"), std::string::npos);
  dir.Write("bin.json", std::string("\x00\xff\xfe garbage", 11));
  EXPECT_FALSE(LoadShareGpt(dir.path() + "/bin.json", 5, 0, std::nullopt));
  dir.Write("deep.json", std::string(10000, '['));
  EXPECT_FALSE(LoadShareGpt(dir.path() + "/deep.json", 5, 0, std::nullopt));
}

}  // namespace
}  // namespace dossier::serve
