// A record's header read by streaming: the read loop retries a read a signal interrupted, and
// only that; an end of file is the end, whatever errno an earlier call left behind.
#include "store/record_header.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "../tests/temp_dir.h"

namespace dossier {
namespace {

const char* kRecord =
    R"({"schema": "dossier/1", "kind": "collect", "time": "2026-12-06T10:00:00Z",
        "machine": {"name": "gpu-guest", "gpus": ["0000:01:00.0", true, null]}, "boot_id": "b-1",
        "hostname": "pve-guest", "root": "/", "tool": "dossier 0.1"})";

TEST(RecordHeaderRead, TopLevelStringsAndTheMachinesName) {
  testing::TempDir t;
  const std::string path = t.path() + "/0001-collect.json";
  std::ofstream(path) << kRecord;
  auto h = ReadRecordHeader(path, 1 << 20);
  ASSERT_TRUE(h.ok()) << h.error().message;
  EXPECT_TRUE(h->object);
  EXPECT_EQ(h->schema, "dossier/1");
  EXPECT_EQ(h->kind, "collect");
  EXPECT_EQ(h->machine, "gpu-guest");
  EXPECT_TRUE(h->machine_object);
  EXPECT_EQ(h->boot_id, "b-1");
  EXPECT_EQ(h->hostname, "pve-guest");
  EXPECT_TRUE(h->has_root);
  EXPECT_EQ(h->tool, "dossier 0.1");
  EXPECT_EQ(h->bad_json_line, 0u);
}

// errno is not cleared by a call that succeeds: an EINTR left by an interrupted wait earlier in
// the process is still there when the last read returns 0 at the end of the file. A loop that
// retried on that errno whenever read returned 0 or less would read the end forever. (The record
// holds no number: nlohmann clears errno before converting one.) Run in a
// child with an alarm, so such a loop fails the test in seconds instead of hanging it.
TEST(RecordHeaderRead, AStaleEintrInErrnoDoesNotMakeTheEndOfFileARetry) {
  testing::TempDir t;
  const std::string path = t.path() + "/0001-collect.json";
  std::ofstream(path) << kRecord;
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::alarm(10);
    errno = EINTR;
    auto h = ReadRecordHeader(path, 1 << 20);
    ::_exit(h.ok() && h->kind == "collect" ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_FALSE(WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
      << "the read loop was still reading the end of the file after 10 s";
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace dossier
