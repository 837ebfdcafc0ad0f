// RootFs as the door for foreign text: what it returns is valid UTF-8, cuts fall on character
// boundaries, and only regular files are read.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include "fs/root_fs.h"
#include "probe/python_envs.h"
#include "tests/temp_dir.h"
#include "util/utf8.h"

namespace dossier {
namespace {

using testing::TempDir;

TEST(RootFsDoor, TextIsValidUtf8AndBytesStayRaw) {
  TempDir t;
  t.Write("proc/cmdline", "root=/dev/sda note=\xff\xfe\n");
  t.Write("sys/config", std::string("\x10\xde\x00\xff", 4));
  t.Link("/usr/bin/pyth\xe9on", "proc/1/exe");
  RootFs fs(t.path());
  EXPECT_EQ(*fs.Read("/proc/cmdline"), "root=/dev/sda note=\\xff\\xfe\n");
  EXPECT_EQ(*fs.ReadValue("/proc/cmdline"), "root=/dev/sda note=\\xff\\xfe");
  EXPECT_EQ(*fs.ReadBytes("/sys/config"), std::string("\x10\xde\x00\xff", 4));
  EXPECT_EQ(*fs.ReadLink("/proc/1/exe"), "/usr/bin/pyth\\xe9on");
  t.Write("names/ok\xff", "x");
  auto names = fs.List("/names");
  ASSERT_TRUE(names);
  EXPECT_EQ((*names)[0], "ok\\xff");
}

TEST(RootFsDoor, PrefixAndTailCutsFallOnCharacterBoundaries) {
  TempDir t;
  std::string euros;
  for (int i = 0; i < 100; ++i) euros += "\xe2\x82\xac";  // 3 bytes each
  t.Write("f", euros);
  RootFs fs(t.path());
  for (size_t n = 1; n < 12; ++n) {
    auto p = fs.ReadPrefix("/f", n);
    ASSERT_TRUE(p);
    EXPECT_TRUE(IsValidUtf8(*p)) << n;
    EXPECT_EQ(p->size(), n / 3 * 3) << n;  // whole characters only, never "\xe2" escaped
  }
}

TEST(RootFsDoor, NonRegularFilesAreRefusedWithoutBlocking) {
  TempDir t;
  t.Write("dir/x", "");
  ASSERT_EQ(::mkfifo((t.path() + "/fifo").c_str(), 0644), 0);
  RootFs fs(t.path());
  for (auto r : {fs.Read("/fifo"), fs.ReadPrefix("/fifo", 10), fs.ReadTail("/fifo", 10)}) {
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("not a regular file"), std::string::npos);
  }
  EXPECT_FALSE(fs.IsRegularFile("/fifo"));
  EXPECT_FALSE(fs.IsRegularFile("/dir"));
  EXPECT_FALSE(fs.Read("/dir"));
}

TEST(RootFsDoor, ALinkToSlashUnderProcIsTheTreesRoot) {
  TempDir t, host;
  t.Write("etc/marker", "tree");
  host.Write("etc/marker", "host");
  t.Link("/", "proc/7/root");
  RootFs fs(t.path());
  RootFs under = FsUnder(fs, "/proc/7/root");
  EXPECT_EQ(*under.Read("/etc/marker"), "tree");
  // A link that leaves the tree by "..": it stays clamped at the tree's root too.
  t.Link("../../../../../../..", "proc/8/root");
  EXPECT_EQ(*FsUnder(fs, "/proc/8/root").Read("/etc/marker"), "tree");
}

}  // namespace
}  // namespace dossier
