#include "measure/serve/sse_parser.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace dossier::serve {
namespace {

struct Got {
  std::vector<std::string> events;  // "type|data"
  bool ok = true;
  std::string error;
};

// Feeds `stream` cut into pieces at the given offsets.
Got FeedPieces(const std::string& stream, const std::vector<size_t>& cuts, size_t max = 1 << 20) {
  SseParser p(max);
  Got g;
  size_t prev = 0;
  auto on = [&](const SseEvent& e) {
    g.events.push_back(std::string(e.type) + "|" + std::string(e.data));
  };
  for (size_t c : cuts) {
    g.ok = p.Feed(std::string_view(stream).substr(prev, c - prev), on) && g.ok;
    prev = c;
  }
  g.ok = p.Feed(std::string_view(stream).substr(prev), on) && g.ok;
  g.error = p.error();
  return g;
}

Got FeedWhole(const std::string& s) {
  return FeedPieces(s, {});
}

// The corpus: streams as servers send them (and as they go wrong), with the events a
// conforming parser gives.
struct Case {
  const char* name;
  std::string stream;
  std::vector<std::string> events;
};

std::vector<Case> Corpus() {
  return {
      {"one event", "data: {\"a\":1}\n\n", {"message|{\"a\":1}"}},
      {"two events and done",
       "data: x\n\ndata: y\n\ndata: [DONE]\n\n",
       {"message|x", "message|y", "message|[DONE]"}},
      {"crlf", "data: x\r\n\r\ndata: y\r\n\r\n", {"message|x", "message|y"}},
      {"bare cr", "data: x\r\rdata: y\r\r", {"message|x", "message|y"}},
      {"mixed line ends", "data: a\r\ndata: b\rdata: c\n\r\n", {"message|a\nb\nc"}},
      {"multi-line data", "data: a\ndata: b\n\n", {"message|a\nb"}},
      {"no space after colon", "data:x\n\n", {"message|x"}},
      {"two spaces keep one", "data:  x\n\n", {"message| x"}},
      {"comments and keep-alives", ": ping\n\n: another\ndata: x\n\n", {"message|x"}},
      {"event name",
       "event: error\ndata: boom\n\ndata: after\n\n",
       {"error|boom", "message|after"}},
      {"id and retry ignored", "id: 7\nretry: 100\ndata: x\n\n", {"message|x"}},
      {"unknown field ignored", "foo: bar\ndata: x\n\n", {"message|x"}},
      {"field without colon", "data\n\n", {"message|"}},
      {"empty event is no event", "\n\n\nevent: e\n\n", {}},
      {"unterminated last event is not dispatched", "data: x\n\ndata: half", {"message|x"}},
      {"bom at start",
       "\xEF\xBB\xBF"
       "data: x\n\n",
       {"message|x"}},
      // A later BOM is part of a field name: an unknown field, so no second event.
      {"bom only at start",
       "data: x\n\n\xEF\xBB\xBF"
       "data: y\n\n",
       {"message|x"}},
      {"nul bytes pass through",
       std::string("data: a\0b\n\n", 11),
       {std::string("message|a\0b", 11)}},
  };
}

TEST(SseParser, CorpusWhole) {
  for (const auto& c : Corpus()) {
    Got g = FeedWhole(c.stream);
    EXPECT_TRUE(g.ok) << c.name;
    EXPECT_EQ(g.events, c.events) << c.name;
  }
}

TEST(SseParser, CorpusSplitAtEveryByteBoundary) {
  for (const auto& c : Corpus()) {
    for (size_t cut = 0; cut <= c.stream.size(); ++cut) {
      Got g = FeedPieces(c.stream, {cut});
      EXPECT_EQ(g.events, c.events) << c.name << " cut at " << cut;
    }
    // Every pair of cuts too (three pieces): catches state lost between two short feeds.
    for (size_t a = 0; a <= c.stream.size(); ++a) {
      for (size_t b = a; b <= c.stream.size(); ++b) {
        Got g = FeedPieces(c.stream, {a, b});
        ASSERT_EQ(g.events, c.events) << c.name << " cut at " << a << "," << b;
      }
    }
  }
}

TEST(SseParser, CorpusByteByByte) {
  for (const auto& c : Corpus()) {
    std::vector<size_t> cuts;
    for (size_t i = 1; i < c.stream.size(); ++i) cuts.push_back(i);
    EXPECT_EQ(FeedPieces(c.stream, cuts).events, c.events) << c.name;
  }
}

TEST(SseParser, HugeLineFailsWithBoundedMemory) {
  SseParser p(1024);
  std::string chunk(100, 'x');
  int events = 0;
  auto on = [&](const SseEvent&) { ++events; };
  EXPECT_TRUE(p.Feed("data: ", on));
  bool ok = true;
  for (int i = 0; i < 1000 && ok; ++i) {
    ok = p.Feed(chunk, on);
    EXPECT_LE(p.pending_bytes(), 1024u);
  }
  EXPECT_FALSE(ok);
  EXPECT_TRUE(p.failed());
  EXPECT_NE(p.error().find("longer than 1024"), std::string::npos);
  EXPECT_EQ(p.pending_bytes(), 0u);
  EXPECT_FALSE(p.Feed("\n\n", on));  // stays failed
  EXPECT_EQ(events, 0);
}

TEST(SseParser, ManyDataLinesAddUpToTheBound) {
  SseParser p(64);
  int events = 0;
  bool ok = true;
  for (int i = 0; i < 20 && ok; ++i)
    ok = p.Feed("data: 0123456789\n", [&](const SseEvent&) { ++events; });
  EXPECT_FALSE(ok);
  EXPECT_EQ(events, 0);
}

TEST(SseParser, EventsJustUnderTheBoundPass) {
  std::string data(1000, 'y');
  Got g = FeedPieces("data: " + data + "\n\n", {}, 1024);
  ASSERT_TRUE(g.ok) << g.error;
  ASSERT_EQ(g.events.size(), 1u);
  EXPECT_EQ(g.events[0], "message|" + data);
}

TEST(SseParser, GarbageNeverCrashesAndStaysBounded) {
  std::mt19937_64 rng(42);
  const std::string alphabet = std::string("data: \r\n:{}\"event") + '\0' + "\xEF\xBB\xBF\xFF";
  for (int round = 0; round < 300; ++round) {
    SseParser p(4096);
    size_t total = 0;
    for (int piece = 0; piece < 20; ++piece) {
      std::string s(rng() % 300, ' ');
      for (char& c : s) {
        c = rng() % 4 == 0 ? static_cast<char>(rng() % 256) : alphabet[rng() % alphabet.size()];
      }
      total += s.size();
      p.Feed(s, [&](const SseEvent& e) { EXPECT_LE(e.data.size(), 4096u); });
      EXPECT_LE(p.pending_bytes(), 4096u);
    }
    EXPECT_LE(p.events(), total);
  }
}

}  // namespace
}  // namespace dossier::serve
