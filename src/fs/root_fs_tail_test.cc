#include <gtest/gtest.h>

#include "../tests/temp_dir.h"
#include "fs/root_fs.h"

namespace dossier {
namespace {

TEST(RootFsTail, SmallFileWhole) {
  testing::TempDir t;
  t.Write("var/log/kern.log", "a\nb\n");
  RootFs fs(t.path());
  EXPECT_EQ(fs.ReadTail("/var/log/kern.log", 100).value_or("?"), "a\nb\n");
}

TEST(RootFsTail, LargeFileFromALineStart) {
  testing::TempDir t;
  t.Write("var/log/kern.log", "first line\nsecond\nthird\n");
  RootFs fs(t.path());
  // The last 10 bytes are "ond\nthird\n": the partial "ond" line is dropped.
  EXPECT_EQ(fs.ReadTail("/var/log/kern.log", 10).value_or("?"), "third\n");
}

TEST(RootFsTail, ErrorsAreValues) {
  testing::TempDir t;
  t.Write("var/log/x/.keep", "");
  RootFs fs(t.path());
  auto absent = fs.ReadTail("/var/log/kern.log", 10);
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.error().kind, Error::kNotFound);
  EXPECT_FALSE(fs.ReadTail("/var/log/x", 10).ok());
}

}  // namespace
}  // namespace dossier
