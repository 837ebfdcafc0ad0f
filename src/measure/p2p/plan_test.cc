#include "measure/p2p/plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace dossier::p2p {
namespace {

TEST(P2pPlan, DefaultSizesHoldTheSeedRows) {
  auto s = DefaultSizes();
  EXPECT_EQ(s.front(), 4096u);
  EXPECT_EQ(s.back(), 256ull << 20);
  EXPECT_NE(std::find(s.begin(), s.end(), 12288u), s.end());
  EXPECT_NE(std::find(s.begin(), s.end(), 16ull << 20), s.end());
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
}

TEST(P2pPlan, ParsesSizes) {
  auto s = ParseSizes("16M, 4K,12KiB,4096,1g,100");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(*s, (std::vector<uint64_t>{100, 4096, 12288, 16ull << 20, 1ull << 30}));
  EXPECT_FALSE(ParseSizes("12X"));
  EXPECT_FALSE(ParseSizes("0"));
  EXPECT_FALSE(ParseSizes("-4K"));
  EXPECT_FALSE(ParseSizes("8G"));  // over 4 GiB
  EXPECT_FALSE(ParseSizes(""));
  EXPECT_FALSE(ParseSizes("4K,,8K"));
  EXPECT_NE(ParseSizes("12X").error().message.find("'12X'"), std::string::npos);
}

TEST(P2pPlan, ParsesPairs) {
  auto p = ParsePairs("0-1,2-3,0-1, 3-2");
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_EQ(*p, (std::vector<GpuPair>{{0, 1}, {2, 3}, {3, 2}}));
  EXPECT_FALSE(ParsePairs("1-1"));
  EXPECT_FALSE(ParsePairs("0:1"));
  EXPECT_FALSE(ParsePairs("0-"));
  EXPECT_FALSE(ParsePairs("a-b"));
  EXPECT_FALSE(ParsePairs("-1-2"));
  EXPECT_TRUE(CheckPairs({{0, 1}}, 2));
  auto bad = CheckPairs({{0, 8}}, 8);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("CUDA sees 8"), std::string::npos);
}

TEST(P2pPlan, EveryOrderedPairStagedBeforePeerAndBidirectionalOnce) {
  PlanOptions o;
  o.sizes = {4096, 16ull << 20};
  auto plan = BuildPlan(3, o);
  auto count = [&](const std::string& mode) {
    return std::count_if(plan.begin(), plan.end(),
                         [&](const PlanItem& i) { return i.mode == mode; });
  };
  EXPECT_EQ(count(kUniStaged), 6 * 2);
  EXPECT_EQ(count(kUniP2p), 6 * 2);
  EXPECT_EQ(count(kBiP2p), 3 * 2);  // one per unordered pair
  EXPECT_EQ(count(kLatencyP2p), 6);
  EXPECT_EQ(count(kH2dFar), 3 * 2);
  EXPECT_EQ(plan.front(), (PlanItem{0, 1, kUniStaged, 4096}));
  // Per pair, peer access goes on once: no staged item after a peer item of the same pair.
  for (size_t i = 1; i < plan.size(); ++i) {
    if (plan[i].src == plan[i - 1].src && plan[i].dst == plan[i - 1].dst) {
      EXPECT_FALSE(IsPeerMode(plan[i - 1].mode) && !IsPeerMode(plan[i].mode) &&
                   !IsHostMode(plan[i].mode))
          << i;
    }
  }
  auto lat =
      std::find_if(plan.begin(), plan.end(), [](const PlanItem& i) { return IsLatency(i.mode); });
  EXPECT_EQ(lat->size, 16u);
}

TEST(P2pPlan, ChosenPairsOnlyAndNoHost) {
  PlanOptions o;
  o.sizes = {4096};
  o.pairs = {{1, 0}, {0, 1}};
  o.host = false;
  o.local = false;
  auto plan = BuildPlan(4, o);
  for (const auto& i : plan) {
    EXPECT_TRUE((i.src == 1 && i.dst == 0) || (i.src == 0 && i.dst == 1)) << i.mode;
    EXPECT_FALSE(IsHostMode(i.mode));
  }
  // 1-0 was planned first, so its bidirectional modes stand for 0-1 too.
  EXPECT_EQ(std::count_if(plan.begin(), plan.end(),
                          [](const PlanItem& i) { return i.mode == kBiStaged; }),
            1);
}

TEST(P2pPlan, OneGpuHasItsOwnModes) {
  PlanOptions o;
  o.sizes = {4096, 16ull << 20};
  auto plan = BuildPlan(1, o);
  std::vector<PlanItem> want = {{0, 0, kDeviceLocal, 4096}, {0, 0, kDeviceLocal, 16ull << 20},
                                {-1, 0, kH2dLocal, 4096},   {-1, 0, kH2dLocal, 16ull << 20},
                                {0, -1, kD2hLocal, 4096},   {0, -1, kD2hLocal, 16ull << 20},
                                {-1, 0, kH2dFar, 4096},     {-1, 0, kH2dFar, 16ull << 20},
                                {0, -1, kD2hFar, 4096},     {0, -1, kD2hFar, 16ull << 20}};
  EXPECT_EQ(plan, want);
  o.host = false;
  EXPECT_EQ(BuildPlan(1, o).size(), 2u);
  o.local = false;
  EXPECT_TRUE(BuildPlan(1, o).empty());  // nothing to measure: the caller says so
  PlanOptions none;
  none.sizes = {4096};
  EXPECT_TRUE(BuildPlan(0, none).empty());
}

TEST(P2pPlan, PerGpuModesForEveryGpuOrThoseNamed) {
  PlanOptions o;
  o.sizes = {4096};
  auto gpus_of = [](const std::vector<PlanItem>& plan, const char* mode) {
    std::set<int> g;
    for (const auto& i : plan)
      if (i.mode == mode) g.insert(i.src >= 0 ? i.src : i.dst);
    return g;
  };
  auto all = BuildPlan(4, o);
  EXPECT_EQ(gpus_of(all, kDeviceLocal), (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(gpus_of(all, kH2dLocal), (std::set<int>{0, 1, 2, 3}));
  o.pairs = {{3, 1}};
  auto named = BuildPlan(4, o);
  EXPECT_EQ(gpus_of(named, kDeviceLocal), (std::set<int>{1, 3}));
  EXPECT_EQ(gpus_of(named, kD2hFar), (std::set<int>{1, 3}));
  for (const auto& i : named) {
    if (IsDeviceLocal(i.mode)) {
      EXPECT_EQ(i.src, i.dst);
    }
  }
}

TEST(P2pPlan, CopiesPerBatchAndSizeText) {
  EXPECT_EQ(CopiesPerBatch({0, 1, kUniP2p, 4096}), 100);
  EXPECT_EQ(CopiesPerBatch({0, 1, kUniP2p, 16ull << 20}), 4);
  EXPECT_EQ(CopiesPerBatch({0, 1, kUniP2p, 256ull << 20}), 2);
  EXPECT_EQ(CopiesPerBatch({0, 1, kLatencyStaged, 16}), 100);
  EXPECT_EQ(FormatSize(12288), "12 KiB");
  EXPECT_EQ(FormatSize(16ull << 20), "16 MiB");
  EXPECT_EQ(FormatSize(1500), "1500 B");
}

}  // namespace
}  // namespace dossier::p2p
