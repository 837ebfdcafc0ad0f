#include "measure/serve/local_server.h"

#include <gtest/gtest.h>

#include "../../../tests/temp_dir.h"

namespace dossier::serve {
namespace {

TEST(FlagsFromArgv, Forms) {
  auto f = FlagsFromArgv({"-m", "sglang.launch_server", "--model-path", "/models/x", "--tp-size=8",
                          "--enable-metrics", "--port", "30000", "--api-key", "<redacted>"});
  EXPECT_EQ(f["--model-path"], "/models/x");
  EXPECT_EQ(f["--tp-size"], "8");
  EXPECT_EQ(f["--enable-metrics"], "true");
  EXPECT_EQ(f["--port"], "30000");
  EXPECT_EQ(f["--api-key"], "<redacted>");
  EXPECT_EQ(f["-m"], "sglang.launch_server");
}

TEST(FindLocalServer, FollowsTheListeningSocketToItsProcess) {
  testing::TempDir root;
  // 30000 = 0x7530, state 0A (listen), inode 4242; a connected socket on the same port too.
  root.Write("proc/net/tcp",
             "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
             "timeout inode\n"
             "   0: 00000000:7530 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000    "
             "    0 4242 1 0 100 0 0 10 0\n"
             "   1: 0100007F:7530 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000    "
             "    0 5555 1 0 20 4 30 10 -1\n");
  root.Write("proc/net/tcp6", "  sl  local_address ...\n");
  const char kCmdline[] =
      "python3\0-m\0vllm.entrypoints.openai.api_server\0--port\0"
      "30000\0--api-key\0sk-live-123\0--tensor-parallel-size\0"
      "8";
  root.Write("proc/77/cmdline", std::string(kCmdline, sizeof kCmdline));  // NUL-separated
  root.Link("socket:[5555]", "proc/77/fd/3");
  root.Link("socket:[4242]", "proc/77/fd/4");
  root.Link("/dev/null", "proc/77/fd/0");
  root.Write("proc/12/cmdline", "other");
  root.Link("socket:[9999]", "proc/12/fd/3");
  RootFs fs(root.path());
  auto s = FindLocalServer(fs, 30000);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->pid, 77);
  EXPECT_EQ(s->flags["--tensor-parallel-size"], "8");
  EXPECT_EQ(s->flags["--port"], "30000");
  EXPECT_EQ(s->command.find("sk-live-123"), std::string::npos);
  EXPECT_EQ(s->flags["--api-key"], "<redacted>");
  EXPECT_FALSE(FindLocalServer(fs, 8000));
}

TEST(IsLocalHost, Names) {
  EXPECT_TRUE(IsLocalHost("localhost"));
  EXPECT_TRUE(IsLocalHost("127.0.0.1"));
  EXPECT_TRUE(IsLocalHost("[::1]"));
  EXPECT_FALSE(IsLocalHost("10.1.2.3"));
  EXPECT_FALSE(IsLocalHost("api.example.com"));
}

}  // namespace
}  // namespace dossier::serve
