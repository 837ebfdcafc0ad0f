#include "measure/serve/request_trace.h"

#include <gtest/gtest.h>

namespace dossier::serve {
namespace {

const char* kChunk = "data: {\"choices\":[{\"text\":\" a\",\"finish_reason\":null}]}\n\n";
const char* kLast = "data: {\"choices\":[{\"text\":\" b\",\"finish_reason\":\"length\"}]}\n\n";
const char* kUsage =
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2}}\n\n";

TEST(RequestTrace, CompleteStreamWithUsage) {
  RequestTrace t(3, 1000, 5, 10);
  EXPECT_TRUE(t.OnBody(2000, 200, kChunk));
  EXPECT_TRUE(t.OnBody(3000, 200, std::string(kLast) + kUsage + "data: [DONE]\n\n"));
  RequestResult r = t.Finish(4000, 200, {});
  EXPECT_TRUE(r.ok) << r.failure;
  EXPECT_EQ(r.index, 3);
  EXPECT_EQ(r.first_token_ns, 2000);
  EXPECT_EQ(r.token_ns, (std::vector<int64_t>{2000, 3000}));
  EXPECT_EQ(r.end_ns, 3000);  // the [DONE] event's arrival, not the transfer's end
  EXPECT_EQ(r.output_tokens(), 2);
  EXPECT_EQ(r.input_tokens(), 7);
}

TEST(RequestTrace, EventSplitAcrossReadsTakesTheCompletingReadsTime) {
  RequestTrace t(0, 0, 5, 10);
  std::string s = kChunk;
  t.OnBody(10, 200, s.substr(0, 20));
  t.OnBody(25, 200, s.substr(20));
  t.OnBody(30, 200, "data: [DONE]\n\n");
  RequestResult r = t.Finish(40, 200, {});
  EXPECT_EQ(r.token_ns, (std::vector<int64_t>{25}));
  EXPECT_TRUE(r.ok) << r.failure;  // no finish reason, but [DONE] ends it properly
}

TEST(RequestTrace, HttpErrorKeepsStatusAndFirstBytes) {
  RequestTrace t(0, 0, 5, 10);
  t.OnBody(1, 500, R"({"error":{"message":"internal"}})");
  RequestResult r = t.Finish(2, 500, {});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.failure, R"(HTTP 500: {"error":{"message":"internal"}})");
}

TEST(RequestTrace, MalformedEventStopsTheTransfer) {
  RequestTrace t(0, 0, 5, 10);
  EXPECT_TRUE(t.OnBody(1, 200, kChunk));
  EXPECT_FALSE(t.OnBody(2, 200, "data: {\"choices\": [\n\n"));
  RequestResult r = t.Finish(3, 200, {TransferEnd::kAborted, ""});
  EXPECT_EQ(r.failure, "malformed JSON in an event");
}

TEST(RequestTrace, TransferEndsMapToReasons) {
  auto reason = [](TransferEnd::Kind k, bool token) {
    RequestTrace t(0, 0, 5, 0.25);
    if (token) t.OnBody(1, 200, kChunk);
    return t.Finish(2, token ? 200 : 0, {k, "No route to host"}).failure;
  };
  EXPECT_EQ(reason(TransferEnd::kRefused, false), "connection refused");
  EXPECT_EQ(reason(TransferEnd::kConnect, false), "could not connect: No route to host");
  EXPECT_EQ(reason(TransferEnd::kTimeout, false), "timeout: no token within 0.25 s");
  EXPECT_EQ(reason(TransferEnd::kTimeout, true), "timeout: the stream did not end within 0.25 s");
  EXPECT_EQ(reason(TransferEnd::kCut, true), "stream cut: connection closed before the end");
  EXPECT_EQ(reason(TransferEnd::kCut, false), "connection closed without a response");
  EXPECT_EQ(reason(TransferEnd::kOk, true), "stream cut: ended without [DONE] or a finish reason");
}

TEST(RequestTrace, CancelledIsNeitherSuccessNorFailure) {
  RequestTrace t(0, 0, 5, 10);
  t.OnBody(1, 200, kChunk);
  RequestResult r = t.Finish(2, 200, {TransferEnd::kCancelled, ""});
  EXPECT_TRUE(r.cancelled);
  EXPECT_FALSE(r.ok);
}

TEST(RequestTrace, NotAnEventStream) {
  RequestTrace t(0, 0, 5, 10);
  t.OnBody(1, 200, R"({"choices":[{"text":"whole answer"}]})");
  EXPECT_EQ(t.Finish(2, 200, {}).failure,
            R"(response is not an event stream: {"choices":[{"text":"whole answer"}]})");
}

TEST(RequestTrace, NoTokens) {
  RequestTrace t(0, 0, 5, 10);
  t.OnBody(1, 200, "data: [DONE]\n\n");
  EXPECT_EQ(t.Finish(2, 200, {}).failure, "stream ended with no tokens");
}

TEST(RequestTrace, ErrorEvent) {
  RequestTrace t(0, 0, 5, 10);
  EXPECT_FALSE(t.OnBody(1, 200, "data: {\"error\":{\"message\":\"oom\"}}\n\n"));
  EXPECT_EQ(t.Finish(2, 200, {TransferEnd::kAborted, ""}).failure,
            "server error in the stream: oom");
}

// An event past the SSE parser's bound (1 MiB) makes the stream unusable: the transfer is stopped
// and the parser's reason is the request's failure, not a later "cut" or "no tokens".
TEST(RequestTrace, AnEventPastTheBoundStopsTheTransferWithTheParsersReason) {
  RequestTrace t(0, 0, 5, 10);
  EXPECT_TRUE(t.OnBody(1, 200, kChunk));
  EXPECT_FALSE(t.OnBody(2, 200, "data: " + std::string(SseParser::kDefaultMaxEventBytes + 1, 'x')));
  EXPECT_FALSE(t.OnBody(3, 200, "\n\ndata: [DONE]\n\n"));  // stopped: nothing more is read
  RequestResult r = t.Finish(4, 200, {TransferEnd::kAborted, ""});
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.failure,
            "an event longer than " + std::to_string(SseParser::kDefaultMaxEventBytes) + " bytes");
  EXPECT_EQ(r.token_ns.size(), 1u);
}

}  // namespace
}  // namespace dossier::serve
