#include "measure/p2p/verify.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "measure/p2p/stats.h"

namespace dossier::p2p {
namespace {

TEST(P2pVerify, PatternHasNoZeroAndDependsOnSeedAndOffset) {
  std::vector<uint8_t> a(1 << 16), b(1 << 16);
  FillPattern(1, 0, a.size(), a.data());
  FillPattern(2, 0, b.size(), b.data());
  int same = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_NE(a[i], 0) << i;
    EXPECT_EQ(a[i], PatternByte(1, i));
    same += a[i] == b[i];
  }
  EXPECT_LT(same, 1000);  // about 1/255 by chance
  // A window starting at an odd offset matches the whole buffer's bytes.
  std::vector<uint8_t> part(101);
  FillPattern(1, 1003, part.size(), part.data());
  EXPECT_EQ(0, memcmp(part.data(), a.data() + 1003, part.size()));
}

TEST(P2pVerify, FirstMismatchFindsTheFirstDifferingByte) {
  std::vector<uint8_t> buf(20000);
  FillPattern(7, 100, buf.size(), buf.data());
  EXPECT_FALSE(FirstMismatch(7, 100, buf.size(), buf.data()));
  buf[12345] = 0;
  buf[15000] ^= 1;
  EXPECT_EQ(FirstMismatch(7, 100, buf.size(), buf.data()), 100u + 12345);
  EXPECT_EQ(FirstMismatch(8, 100, buf.size(), buf.data()).has_value(), true);  // wrong source
}

TEST(P2pVerify, SmallCopiesWholeLargeOnesInWindowsFromFirstToLastByte) {
  auto w = CheckWindows(4u << 20);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].len, 4u << 20);
  const size_t big = 256u << 20;
  w = CheckWindows(big);
  ASSERT_EQ(w.size(), kWindows);
  EXPECT_EQ(w.front().offset, 0u);
  EXPECT_EQ(w.back().offset + w.back().len, big);
  for (size_t i = 1; i < w.size(); ++i) EXPECT_GT(w[i].offset, w[i - 1].offset);
  EXPECT_FALSE(CheckedEntirely(big));
  EXPECT_TRUE(CheckWindows(0).empty());
}

TEST(P2pStats, MedianAndSpread) {
  Spread s = Summarize({3, 1, 2});
  EXPECT_EQ(s.median, 2);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.max, 3);
  EXPECT_EQ(Summarize({4, 1, 3, 2}).median, 2.5);
  EXPECT_EQ(Summarize({1, 100, 1, 1, 1}).median, 1);  // one slow batch does not move it
}

}  // namespace
}  // namespace dossier::p2p
