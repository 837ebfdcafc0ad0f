#include "measure/serve/openai_protocol.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dossier::serve {
namespace {

TEST(DecodeEvent, CompletionsChunkWithText) {
  auto e = DecodeEvent(
      R"({"id":"cmpl-1","object":"text_completion","created":1,"model":"m",)"
      R"("choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":null}],"usage":null})");
  EXPECT_EQ(e.kind, StreamEvent::kData);
  EXPECT_TRUE(e.content);
  EXPECT_FALSE(e.finished);
  EXPECT_EQ(e.completion_tokens, -1);
}

TEST(DecodeEvent, ChatRoleChunkCarriesNoContent) {
  auto e = DecodeEvent(
      R"({"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})");
  EXPECT_EQ(e.kind, StreamEvent::kData);
  EXPECT_FALSE(e.content);
}

TEST(DecodeEvent, ChatContentAndReasoning) {
  EXPECT_TRUE(DecodeEvent(R"({"choices":[{"delta":{"content":"hi"}}]})").content);
  EXPECT_TRUE(DecodeEvent(R"({"choices":[{"delta":{"reasoning_content":"hmm"}}]})").content);
  EXPECT_TRUE(DecodeEvent(R"({"choices":[{"delta":{"reasoning":"hmm"}}]})").content);
  EXPECT_FALSE(DecodeEvent(R"({"choices":[{"delta":{"content":null}}]})").content);
  // "text" outside a choice, or content outside the delta, is not generated text.
  EXPECT_FALSE(DecodeEvent(R"({"text":"x","choices":[{"message":{"content":"x"}}]})").content);
}

TEST(DecodeEvent, FinishReasonAndUsage) {
  auto e = DecodeEvent(R"({"choices":[{"text":"!","finish_reason":"length"}]})");
  EXPECT_TRUE(e.content);
  EXPECT_TRUE(e.finished);
  auto u = DecodeEvent(
      R"({"choices":[],"usage":{"prompt_tokens":1024,"completion_tokens":128,"total_tokens":1152}})");
  EXPECT_EQ(u.kind, StreamEvent::kData);
  EXPECT_FALSE(u.content);
  EXPECT_EQ(u.prompt_tokens, 1024);
  EXPECT_EQ(u.completion_tokens, 128);
  // Nested "usage" objects elsewhere are not the stream's usage.
  auto n = DecodeEvent(R"({"choices":[{"text":"x","usage":{"completion_tokens":5}}]})");
  EXPECT_EQ(n.completion_tokens, -1);
}

TEST(DecodeEvent, Done) {
  EXPECT_EQ(DecodeEvent("[DONE]").kind, StreamEvent::kDone);
  EXPECT_EQ(DecodeEvent(" [DONE] ").kind, StreamEvent::kDone);
}

TEST(DecodeEvent, Malformed) {
  for (const char* bad : {"{\"choices\": [{\"text\": \"oops\"", "not json", "", "42", "[1,2]",
                          "{\"a\":1} trailing", "\xff\xfe"}) {
    auto e = DecodeEvent(bad);
    EXPECT_EQ(e.kind, StreamEvent::kMalformed) << bad;
    EXPECT_FALSE(e.content) << bad;
    EXPECT_FALSE(e.message.empty()) << bad;
  }
  std::string deep(200, '[');
  EXPECT_EQ(DecodeEvent("{\"a\":" + deep).kind, StreamEvent::kMalformed);
}

TEST(DecodeEvent, ErrorsInTheStream) {
  auto vllm = DecodeEvent(
      R"({"error":{"object":"error","message":"out of memory","type":"InternalServerError","code":500}})");
  EXPECT_EQ(vllm.kind, StreamEvent::kError);
  EXPECT_EQ(vllm.message, "out of memory");
  auto flat = DecodeEvent(R"({"object":"error","message":"bad request","code":400})");
  EXPECT_EQ(flat.kind, StreamEvent::kError);
  EXPECT_EQ(flat.message, "bad request");
  auto text = DecodeEvent(R"({"error":"Input validation error"})");
  EXPECT_EQ(text.kind, StreamEvent::kError);
  EXPECT_EQ(text.message, "Input validation error");
}

TEST(BuildRequestBody, CompletionsAsksForUsageAndExactLength) {
  auto j =
      nlohmann::json::parse(BuildRequestBody(Api::kCompletions, {"m", "the of and", 128, true}));
  EXPECT_EQ(j["model"], "m");
  EXPECT_EQ(j["prompt"], "the of and");
  EXPECT_EQ(j["max_tokens"], 128);
  EXPECT_EQ(j["stream"], true);
  EXPECT_EQ(j["stream_options"]["include_usage"], true);
  EXPECT_EQ(j["ignore_eos"], true);
  EXPECT_EQ(j["min_tokens"], 128);
  EXPECT_EQ(j["temperature"], 0.0);
  EXPECT_FALSE(j.contains("messages"));
}

TEST(BuildRequestBody, ChatSendsMessagesAndNoExactnessWhenNotAsked) {
  auto j = nlohmann::json::parse(BuildRequestBody(Api::kChat, {"m", "hello\xff", 7, false}));
  ASSERT_TRUE(j["messages"].is_array());
  EXPECT_EQ(j["messages"][0]["role"], "user");
  EXPECT_EQ(j["messages"][0]["content"], "hello\xEF\xBF\xBD");  // bad UTF-8 replaced
  EXPECT_FALSE(j.contains("prompt"));
  EXPECT_FALSE(j.contains("ignore_eos"));
}

TEST(ParseModelList, FirstIdAndErrors) {
  auto ok = ParseModelList(R"({"object":"list","data":[{"id":"a"},{"id":"b"}]})");
  ASSERT_TRUE(ok);
  EXPECT_EQ(*ok, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(ParseModelList("<html>"));
  EXPECT_FALSE(ParseModelList(R"({"data":[]})"));
  EXPECT_FALSE(ParseModelList(R"({"models":[]})"));
}

}  // namespace
}  // namespace dossier::serve
