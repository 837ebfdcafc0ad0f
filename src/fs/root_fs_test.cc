#include "fs/root_fs.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "../tests/temp_dir.h"

namespace dossier {
namespace {

TEST(RootFs, AbsoluteLinksResolveUnderTheRoot) {
  testing::TempDir t;
  t.Write("usr/bin/python3.12", "elf");
  t.Link("/usr/bin/python3.12", "proc/42/exe");  // absolute: must not escape to the host's /usr
  RootFs fs(t.path());
  auto r = fs.Resolve("/proc/42/exe");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "/usr/bin/python3.12");
  EXPECT_EQ(*fs.Read("/proc/42/exe"), "elf");
}

TEST(RootFs, RelativeLinksAndDotDotStayInside) {
  testing::TempDir t;
  t.Write("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor", "0x10de\n");
  t.Link("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0",
         "sys/bus/pci/devices/0000:01:00.0");
  t.Link("../../../../../../../../etc", "sys/escape");  // more ".." than depth: clamps at root
  t.Write("etc/os-release", "ID=debian\n");
  RootFs fs(t.path());
  EXPECT_EQ(*fs.ReadValue("/sys/bus/pci/devices/0000:01:00.0/vendor"), "0x10de");
  EXPECT_EQ(*fs.Resolve("/sys/bus/pci/devices/0000:01:00.0"),
            "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0");
  EXPECT_EQ(*fs.Read("/sys/escape/os-release"), "ID=debian\n");
}

// Resolve remembers directories it has seen are not links; a link to a directory must be
// followed under the root every time, not remembered as a directory and handed to the host's
// open, which would follow an absolute target out of the root.
TEST(RootFs, ALinkedDirectoryIsFollowedUnderTheRootEveryTime) {
  testing::TempDir t;
  t.Write("etc/inside", "root's\n");
  t.Link("/etc", "cfg");  // absolute: /etc under the root, never the host's /etc
  RootFs fs(t.path());
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    auto r = fs.Resolve("/cfg/inside");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(*r, "/etc/inside");
    EXPECT_EQ(*fs.Read("/cfg/inside"), "root's\n");
  }
}

// A read opens the last component without following a link (O_NOFOLLOW) and walks a link there
// itself: an absolute target is the root's file, never the host's, on the first read too.
TEST(RootFs, ALastComponentLinkIsReadUnderTheRoot) {
  testing::TempDir t;
  t.Write("etc/hostname", "inside\n");
  t.Link("/etc/hostname", "name");
  RootFs fs(t.path());
  auto r = fs.Read("/name");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "inside\n");
  EXPECT_EQ(*fs.ReadValue("/name"), "inside");
}

// Link targets are remembered, except under the live /proc: /proc/self/cwd names another
// directory after a chdir, and a remembered target would read the old one.
TEST(RootFs, LiveProcLinksAreReadAgainEachTime) {
  testing::TempDir a, b;
  a.Write("f", "a\n");
  b.Write("f", "b\n");
  char old_cwd[4096];
  ASSERT_NE(::getcwd(old_cwd, sizeof old_cwd), nullptr);
  RootFs fs("/");
  ASSERT_EQ(::chdir(a.path().c_str()), 0);
  auto first = fs.Read("/proc/self/cwd/f");
  ASSERT_EQ(::chdir(b.path().c_str()), 0);
  auto second = fs.Read("/proc/self/cwd/f");
  ASSERT_EQ(::chdir(old_cwd), 0);
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(*first, "a\n");
  EXPECT_EQ(*second, "b\n");
}

TEST(RootFs, MissingFilesAndLoopsAreErrorsNotCrashes) {
  testing::TempDir t;
  t.Link("/loop/b", "loop/a");
  t.Link("/loop/a", "loop/b");
  RootFs fs(t.path());
  auto missing = fs.Read("/proc/cpuinfo");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, Error::kNotFound);
  EXPECT_FALSE(fs.Read("/loop/a"));
}

TEST(RootFs, ReadsAreBounded) {
  testing::TempDir t;
  t.Write("big", std::string(100000, 'x'));
  RootFs fs(t.path());
  auto r = fs.Read("/big", 1000);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().kind, Error::kTooLarge);
}

TEST(RootFs, ReadPrefixStopsAtTheBound) {
  testing::TempDir t;
  t.Write("meta", "Name: x\n\n" + std::string(100000, 'd'));
  RootFs fs(t.path());
  auto r = fs.ReadPrefix("/meta", 9);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, "Name: x\n\n");
  EXPECT_EQ(fs.ReadPrefix("/meta", 1 << 20)->size(), 100009u);
  EXPECT_EQ(fs.ReadPrefix("/absent", 10).error().kind, Error::kNotFound);
}

TEST(RootFs, CheckRejectsAMissingRoot) {
  RootFs fs("/nonexistent/dossier-root");
  EXPECT_FALSE(fs.Check());
  EXPECT_TRUE(RootFs("/").Check());
}

}  // namespace
}  // namespace dossier
