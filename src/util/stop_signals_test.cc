// A stop delivered twice (timeout and systemd signal the process and its group) is one stop: the
// second signal is ignored; a person's third Ctrl-C, seconds later, still ends the process. Each
// case runs in a forked child, so the handlers and an _exit never touch the test process.
#include "util/stop_signals.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

namespace dossier {
namespace {

// Runs `body` in a child; returns its wait status.
template <class F>
int StopInChild(F body) {
  pid_t p = ::fork();
  if (p == 0) {
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(p, &status, 0);
  return status;
}

TEST(StopSignals, ARepeatedStopIsIgnoredAndTheFlagIsSet) {
  int status = StopInChild([] {
    StopSignals stop("test");
    if (StopSignals::flag().load()) return 10;
    ::kill(::getpid(), SIGTERM);
    ::kill(::getpid(), SIGTERM);  // the same stop again: from the process group
    ::kill(::getpid(), SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return StopSignals::flag().load() ? 0 : 11;
  });
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(StopSignals, ASecondPressIsIgnoredAThirdWithinSecondsExits) {
  int status = StopInChild([] {
    StopSignals stop("test");
    ::kill(::getpid(), SIGINT);
    std::this_thread::sleep_for(StopSignals::kSameStop + std::chrono::milliseconds(100));
    ::kill(::getpid(), SIGINT);  // said on screen, ignored
    std::this_thread::sleep_for(StopSignals::kSameStop + std::chrono::milliseconds(100));
    ::kill(::getpid(), SIGINT);  // the third: exits 130 at once
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT);
}

// Found by Adversarial.TwoSigtermsBackToBackKeepTheP2pRecord under load: the second of two
// SIGTERMs 5 ms apart landed after the record was stored and the scope had restored the default
// handler, and killed the process (exit by signal instead of 1).
TEST(StopSignals, AfterAStopALateRepeatCannotKill) {
  int status = StopInChild([] {
    {
      StopSignals stop("test");
      ::kill(::getpid(), SIGTERM);
      if (!StopSignals::flag().load()) return 10;
    }                             // the record is stored here; the command returns
    ::kill(::getpid(), SIGTERM);  // the repeat, late
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return 1;  // the command's exit code for a stopped run
  });
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 1);
}

TEST(StopSignals, TheScopeRestoresTheHandlersBefore) {
  struct sigaction before {};
  ::sigaction(SIGTERM, nullptr, &before);
  { StopSignals stop("test"); }
  struct sigaction after {};
  ::sigaction(SIGTERM, nullptr, &after);
  EXPECT_EQ(before.sa_handler, after.sa_handler);
}

void OnInt(int) {}
void OnTerm(int) {}
void OnHup(int) {}

// Each of the three signals gets back its own handler from before (three different ones here), in
// a child so the test process keeps its own.
TEST(StopSignals, EachSignalGetsBackItsOwnHandler) {
  int status = StopInChild([] {
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    void (*const handlers[])(int) = {OnInt, OnTerm, OnHup};
    for (int i = 0; i < 3; ++i) {
      struct sigaction sa {};
      sa.sa_handler = handlers[i];
      sigemptyset(&sa.sa_mask);
      ::sigaction(sigs[i], &sa, nullptr);
    }
    { StopSignals stop("test"); }
    for (int i = 0; i < 3; ++i) {
      struct sigaction now {};
      ::sigaction(sigs[i], nullptr, &now);
      if (now.sa_handler != handlers[i]) return 20 + i;
    }
    return 0;
  });
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "20 + the index of the signal whose handler was not restored";
}

}  // namespace
}  // namespace dossier
