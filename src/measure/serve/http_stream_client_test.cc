// The native HTTP client against a scripted server: the framings a server may choose, a kept-alive
// connection the server has closed meanwhile, "localhost" with more than one address, and an
// answer that is not HTTP. (The serve-bench suite runs every load and fault with both clients.)
#include "measure/serve/http_stream_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace dossier::serve {
namespace {

// Accepts connections one after another; on each, reads one request and writes the next of
// `answers`, then closes the connection (the client sees a kept-alive connection closed). With
// `close_on_next_request`, it closes only once the client has sent another request on it,
// unanswered: the request is sure to have gone out on a connection the server had given up.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<std::string> answers, bool close_on_next_request = false)
      : answers_(std::move(answers)), close_on_next_request_(close_on_next_request) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::listen(fd_, 16);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedServer() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  int accepted() const { return accepted_.load(); }

 private:
  void Serve() {
    for (const std::string& answer : answers_) {
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) return;
      ++accepted_;
      ReadRequest(c);
      ssize_t ignored = ::write(c, answer.data(), answer.size());
      (void)ignored;
      if (close_on_next_request_) ReadRequest(c);
      ::close(c);
    }
  }

  // One request: head, then Content-Length bytes of body (or up to the client's close).
  static void ReadRequest(int c) {
    std::string in;
    char buf[4096];
    for (;;) {
      size_t head = in.find("\r\n\r\n");
      if (head != std::string::npos) {
        size_t cl = in.find("Content-Length: ");
        size_t want = head + 4 + (cl == std::string::npos ? 0 : std::stoul(in.substr(cl + 16)));
        if (in.size() >= want) return;
      }
      ssize_t n = ::read(c, buf, sizeof buf);
      if (n <= 0) return;
      in.append(buf, static_cast<size_t>(n));
    }
  }

  std::vector<std::string> answers_;
  bool close_on_next_request_ = false;
  int fd_ = -1, port_ = 0;
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

struct Recorder : StreamSink {
  bool OnBody(int64_t id, void*, int64_t, long status, std::string_view bytes) override {
    bodies[id].append(bytes);
    statuses[id] = status;
    return true;
  }
  void OnEnd(int64_t id, void*, int64_t, long status, const TransferEnd& e) override {
    ends[id] = e;
    statuses[id] = status;
  }
  std::map<int64_t, std::string> bodies;
  std::map<int64_t, long> statuses;
  std::map<int64_t, TransferEnd> ends;
};

// Runs requests 1..n one after another (each waits for the previous: connection reuse).
Recorder RunOneByOne(const std::string& url, int n) {
  Recorder rec;
  ClientOptions opt;
  opt.timeout_s = 5;
  HttpStreamClient client(opt, &rec);
  EXPECT_TRUE(client.Init());
  for (int id = 1; id <= n; ++id) {
    client.Start(id, nullptr, url, "{}");
    int64_t give_up = NowNs() + 5'000'000'000;
    while (client.active() > 0 && NowNs() < give_up) client.Poll(NowNs() + 50'000'000);
  }
  return rec;
}

const char kSized[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";

TEST(HttpStreamClient, ChunkedSizedAndCloseDelimitedBodies) {
  ScriptedServer server({
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
      kSized,
      "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end",  // ends when the server closes
  });
  Recorder rec = RunOneByOne("http://127.0.0.1:" + std::to_string(server.port()) + "/x", 3);
  EXPECT_EQ(rec.bodies[1], "abcde");
  EXPECT_EQ(rec.bodies[2], "hello");
  EXPECT_EQ(rec.bodies[3], "until the end");
  for (int id = 1; id <= 3; ++id) {
    EXPECT_EQ(rec.ends[id].kind, TransferEnd::kOk) << id << ": " << rec.ends[id].detail;
    EXPECT_EQ(rec.statuses[id], 200);
  }
}

TEST(HttpStreamClient, InterimAnswersComeBeforeTheRealOne) {
  ScriptedServer server(
      {"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n" +
       std::string(kSized)});
  Recorder rec = RunOneByOne("http://127.0.0.1:" + std::to_string(server.port()) + "/x", 1);
  EXPECT_EQ(rec.ends[1].kind, TransferEnd::kOk) << rec.ends[1].detail;
  EXPECT_EQ(rec.statuses[1], 200);
  EXPECT_EQ(rec.bodies[1], "hello");
}

TEST(HttpStreamClient, RetriesOnceWhenAKeptAliveConnectionWasClosed) {
  // Each answer keeps the connection alive by its headers, and the server closes it when the next
  // request arrives on it, unanswered: that request is sent again on a new connection.
  ScriptedServer server({kSized, kSized, kSized}, /*close_on_next_request=*/true);
  Recorder rec = RunOneByOne("http://127.0.0.1:" + std::to_string(server.port()) + "/x", 3);
  for (int id = 1; id <= 3; ++id) {
    EXPECT_EQ(rec.ends[id].kind, TransferEnd::kOk) << id << ": " << rec.ends[id].detail;
    EXPECT_EQ(rec.bodies[id], "hello");
  }
  EXPECT_EQ(server.accepted(), 3);
}

TEST(HttpStreamClient, LocalhostTriesEachAddress) {
  // The server listens on 127.0.0.1 only; "localhost" may resolve to ::1 first.
  ScriptedServer server({kSized});
  Recorder rec = RunOneByOne("http://localhost:" + std::to_string(server.port()) + "/x", 1);
  EXPECT_EQ(rec.ends[1].kind, TransferEnd::kOk) << rec.ends[1].detail;
  EXPECT_EQ(rec.bodies[1], "hello");
}

TEST(HttpStreamClient, AnAnswerThatIsNotHttp) {
  ScriptedServer server({"SSH-2.0-OpenSSH_9.2\r\n"});
  Recorder rec = RunOneByOne("http://127.0.0.1:" + std::to_string(server.port()) + "/x", 1);
  EXPECT_EQ(rec.ends[1].kind, TransferEnd::kOther);
  EXPECT_NE(rec.ends[1].detail.find("bad HTTP response"), std::string::npos) << rec.ends[1].detail;
}

TEST(HttpStreamClient, NothingListening) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);  // bound, never listened: connecting is refused
  Recorder rec = RunOneByOne("http://127.0.0.1:" + std::to_string(ntohs(a.sin_port)) + "/x", 1);
  EXPECT_EQ(rec.ends[1].kind, TransferEnd::kRefused) << rec.ends[1].detail;
}

TEST(HttpStreamClient, UnresolvableHost) {
  Recorder rec = RunOneByOne("http://no-such-host.invalid:1/x", 1);
  EXPECT_EQ(rec.ends[1].kind, TransferEnd::kConnect);
  EXPECT_NE(rec.ends[1].detail.find("could not resolve"), std::string::npos) << rec.ends[1].detail;
}

// The wait is the time asked for, split into seconds and nanoseconds: just under a second is just
// under a second (a wrong split waits two), and a ready descriptor ends it at once.
// Run in a child: lowering the hard limit cannot be undone without privileges.
TEST(RaiseFileLimit, RaisesTheSoftLimitTowardTheNeedUpToTheHardLimit) {
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    rlimit rl{64, 256};
    if (::setrlimit(RLIMIT_NOFILE, &rl) != 0) ::_exit(10);
    if (RaiseFileLimit(100) != 100) ::_exit(11);   // below the hard limit: what was asked
    if (RaiseFileLimit(50) != 100) ::_exit(12);    // never lowered
    if (RaiseFileLimit(1000) != 256) ::_exit(13);  // past it: the hard limit
    ::getrlimit(RLIMIT_NOFILE, &rl);
    ::_exit(rl.rlim_cur == 256 ? 0 : 14);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "11: not raised to the need; 12: lowered; 13: not the hard "
                                       "limit past it; 14: the limit in force differs";
}

TEST(WaitForEvents, WaitsTheTimeAskedForAndNoLonger) {
  int ep = ::epoll_create1(EPOLL_CLOEXEC);
  ASSERT_GE(ep, 0);
  epoll_event ev[4];
  auto seconds = [&](int64_t wait_ns, int* n) {
    auto t0 = std::chrono::steady_clock::now();
    *n = WaitForEvents(ep, ev, 4, wait_ns);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  int n = -2;
  double waited = seconds(999999999, &n);
  EXPECT_EQ(n, 0);
  EXPECT_GE(waited, 0.99);
  EXPECT_LT(waited, 1.6);
  EXPECT_LT(seconds(-5, &n), 0.5);  // a deadline already past: no wait
  EXPECT_EQ(n, 0);

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  epoll_event in{};
  in.events = EPOLLIN;
  in.data.fd = fds[0];
  ASSERT_EQ(::epoll_ctl(ep, EPOLL_CTL_ADD, fds[0], &in), 0);
  ASSERT_EQ(::write(fds[1], "x", 1), 1);
  EXPECT_LT(seconds(30 * 1000000000LL, &n), 5.0);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(ev[0].data.fd, fds[0]);
  ::close(fds[0]);
  ::close(fds[1]);
  ::close(ep);
}

TEST(ChooseTransport, NativeForPlainHttpOnly) {
  // A proxy in the environment sends auto to curl: none for this test.
  std::map<std::string, std::string> saved;
  for (const char* var : {"http_proxy", "all_proxy", "ALL_PROXY"}) {
    if (const char* v = std::getenv(var)) saved[var] = v;
    ::unsetenv(var);
  }
  EXPECT_EQ(ChooseTransport(Transport::kAuto, "http://127.0.0.1:8000/v1/completions"),
            Transport::kNative);
  EXPECT_EQ(ChooseTransport(Transport::kAuto, "https://api.example.com/v1/completions"),
            Transport::kCurl);
  EXPECT_EQ(ChooseTransport(Transport::kAuto, "http://u:p@10.0.0.1:8000/v1/completions"),
            Transport::kCurl);
  EXPECT_EQ(ChooseTransport(Transport::kCurl, "http://127.0.0.1:8000/"), Transport::kCurl);
  ClientOptions native;
  native.transport = Transport::kNative;
  EXPECT_FALSE(MakeStreamClient(native, "https://h/", nullptr));
  EXPECT_TRUE(ParseTransport("curl"));
  EXPECT_FALSE(ParseTransport("h2"));
  ::setenv("http_proxy", "http://proxy:3128", 1);
  EXPECT_EQ(ChooseTransport(Transport::kAuto, "http://127.0.0.1:8000/"), Transport::kCurl);
  ::unsetenv("http_proxy");
  for (const auto& [var, value] : saved) ::setenv(var.c_str(), value.c_str(), 1);
}

}  // namespace
}  // namespace dossier::serve
