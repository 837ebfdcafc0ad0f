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
  // Port 1 listens on IPv6 only (inode 6161, process 88): found through tcp6 as well.
  root.Write("proc/net/tcp6",
             "  sl  local_address                         remote_address                        st "
             "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
             "   0: 00000000000000000000000001000000:0001 00000000000000000000000000000000:0000 0A "
             "00000000:00000000 00:00000000 00000000  1000        0 6161 1 0 100 0 0 10 0\n");
  const char kV6[] = "llama-server\0--port\0001";
  root.Write("proc/88/cmdline", std::string(kV6, sizeof kV6));
  root.Link("socket:[6161]", "proc/88/fd/5");
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

  // Through the endpoint: only a local host's port is looked up here.
  std::string why;
  auto at = [](const char* host, int port) {
    Endpoint e;
    e.host = host;
    e.port = port;
    return e;
  };
  for (const char* host : {"127.0.0.1", "localhost", "[::1]", "0.0.0.0"}) {
    Endpoint local = at(host, 30000);
    auto e = ServerOfEndpoint(fs, local, &why);
    ASSERT_TRUE(e) << host;
    EXPECT_EQ(e->pid, 77);
    EXPECT_EQ(why, "");
  }
  auto v6 = ServerOfEndpoint(fs, at("[::1]", 1), &why);
  ASSERT_TRUE(v6) << why;
  EXPECT_EQ(v6->pid, 88);
  EXPECT_EQ(v6->flags["--port"], "1");
  Endpoint remote = at("gpu-box.example", 30000);
  EXPECT_FALSE(ServerOfEndpoint(fs, remote, &why));
  EXPECT_EQ(why, "");  // nothing to say about another machine's processes
  Endpoint no_port = at("127.0.0.1", 0);
  EXPECT_FALSE(ServerOfEndpoint(fs, no_port, &why));
  EXPECT_EQ(why, "");
  Endpoint unseen = at("127.0.0.1", 8000);
  EXPECT_FALSE(ServerOfEndpoint(fs, unseen, &why));
  EXPECT_EQ(why,
            "no process listening on port 8000 is visible (another user's? run as that user or "
            "root to record the server's flags)");
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
