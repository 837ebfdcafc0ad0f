// Output files by what the target is: a regular file replaced keeping its mode, a symlink written
// through, a FIFO, a character device or an open descriptor written (never replaced), anything
// else refused. No test touches a real device node: /dev/null and /dev/full are reached through
// symlinks in a temporary directory, so a regression replaces the symlink, not the device.
#include "store/output_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <thread>

#include "tests/temp_dir.h"

namespace dossier {
namespace {

using testing::Slurp;
using testing::TempDir;

struct stat OutLStat(const std::string& p) {
  struct stat st {};
  EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
  return st;
}

TEST(OutputFile, NewFileIsCreated) {
  TempDir t;
  ASSERT_TRUE(WriteOutputFile(t.path() + "/new.txt", "hello\n"));
  EXPECT_EQ(Slurp(t.path() + "/new.txt"), "hello\n");
  EXPECT_EQ(OutputTargetProblem(t.path() + "/other.txt"), "");
}

TEST(OutputFile, RegularFileIsReplacedKeepingItsMode) {
  TempDir t;
  const std::string p = t.path() + "/secret.txt";
  t.Write("secret.txt", "old content that is longer\n");
  ASSERT_EQ(::chmod(p.c_str(), 0600), 0);
  ASSERT_TRUE(WriteOutputFile(p, "new\n"));
  EXPECT_EQ(Slurp(p), "new\n");
  EXPECT_EQ(OutLStat(p).st_mode & 07777, 0600u);
  ASSERT_EQ(::chmod(p.c_str(), 0640), 0);
  ASSERT_TRUE(WriteOutputFile(p, "newer\n"));
  EXPECT_EQ(OutLStat(p).st_mode & 07777, 0640u);
  // No temporary file is left beside it.
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(t.path())) n += e.exists();
  EXPECT_EQ(n, 1u);
}

TEST(OutputFile, RootKeepsAnotherUsersOwnership) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
  TempDir t;
  const std::string p = t.path() + "/theirs.txt";
  t.Write("theirs.txt", "x");
  ASSERT_EQ(::chown(p.c_str(), 65534, 65534), 0);
  ASSERT_TRUE(WriteOutputFile(p, "y"));
  EXPECT_EQ(OutLStat(p).st_uid, 65534u);
  EXPECT_EQ(OutLStat(p).st_gid, 65534u);
  EXPECT_EQ(Slurp(p), "y");
}

TEST(OutputFile, SymlinkToARegularFileIsWrittenThrough) {
  TempDir t;
  t.Write("real.txt", "old");
  t.Link("real.txt", "link.txt");
  ASSERT_TRUE(WriteOutputFile(t.path() + "/link.txt", "through\n"));
  EXPECT_TRUE(S_ISLNK(OutLStat(t.path() + "/link.txt").st_mode));
  EXPECT_EQ(Slurp(t.path() + "/real.txt"), "through\n");
}

TEST(OutputFile, SymlinkToDevNullStaysALinkToTheDevice) {
  TempDir t;
  t.Link("/dev/null", "null");
  ASSERT_TRUE(WriteOutputFile(t.path() + "/null", "discarded\n"));
  EXPECT_TRUE(S_ISLNK(OutLStat(t.path() + "/null").st_mode));
  struct stat st {};
  ASSERT_EQ(::stat((t.path() + "/null").c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(OutputFile, DevFullReportsNoSpaceAndIsNotReplaced) {
  TempDir t;
  t.Link("/dev/full", "full");
  auto s = WriteOutputFile(t.path() + "/full", "x");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, Error::kIo);
  EXPECT_NE(s.error().message.find(std::strerror(ENOSPC)), std::string::npos) << s.error().message;
  EXPECT_TRUE(S_ISLNK(OutLStat(t.path() + "/full").st_mode));
}

TEST(OutputFile, FifoIsWrittenNotReplaced) {
  TempDir t;
  const std::string p = t.path() + "/fifo";
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] {
    int fd = ::open(p.c_str(), O_RDONLY);
    char buf[256];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, size_t(n));
    ::close(fd);
  });
  auto s = WriteOutputFile(p, "through the pipe\n");
  reader.join();
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(got, "through the pipe\n");
  EXPECT_TRUE(S_ISFIFO(OutLStat(p).st_mode));
}

TEST(OutputFile, DescriptorPathsWriteToTheOpenDescriptor) {
  for (std::string prefix : {"/proc/self/fd/", "/dev/fd/"}) {
    SCOPED_TRACE(prefix);
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    auto s = WriteOutputFile(prefix + std::to_string(p[1]), "on fd\n");
    ::close(p[1]);
    std::string got;
    char buf[64];
    for (ssize_t n; (n = ::read(p[0], buf, sizeof buf)) > 0;) got.append(buf, size_t(n));
    ::close(p[0]);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(got, "on fd\n");
  }
  // A descriptor that is not open is bad input.
  EXPECT_NE(OutputTargetProblem("/proc/self/fd/987654"), "");
}

TEST(OutputFile, DirectorySocketAndDanglingLinkAreRefused) {
  TempDir t;
  auto s = WriteOutputFile(t.path(), "x");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, Error::kInvalid);
  EXPECT_NE(s.error().message.find("is a directory"), std::string::npos) << s.error().message;

  const std::string sock = t.path() + "/sock";
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", sock.c_str());
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  s = WriteOutputFile(sock, "x");
  ::close(fd);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("is a socket"), std::string::npos) << s.error().message;
  EXPECT_NE(OutputTargetProblem(sock), "");

  t.Link("missing-target", "dangling");
  s = WriteOutputFile(t.path() + "/dangling", "x");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().kind, Error::kInvalid);
  EXPECT_FALSE(std::filesystem::exists(t.path() + "/missing-target"));

  EXPECT_NE(OutputTargetProblem(t.path() + "/no-such-dir/file"), "");
}

}  // namespace
}  // namespace dossier
