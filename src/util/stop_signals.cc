#include "util/stop_signals.h"

#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dossier {
namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Everything the handler touches: lock-free atomics and a pointer set before it is installed.
std::atomic<bool> g_stop{false};
std::atomic<int64_t> g_last_ns{0};   // the last signal, counted or not
std::atomic<int64_t> g_press_ns{0};  // the last counted press after the first signal
std::atomic<int> g_presses{0};       // counted presses after the first signal
const char* g_program = "dossier";

int64_t StopClockNs() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

void StopSay(const char* a, const char* b) {
  // write(2) only: stdio is not async-signal-safe.
  ssize_t ignored = ::write(2, g_program, std::strlen(g_program));
  ignored = ::write(2, a, std::strlen(a));
  ignored = ::write(2, b, std::strlen(b));
  (void)ignored;
}

extern "C" void OnStopSignal(int sig) {
  const int saved = errno;
  const int64_t now = StopClockNs();
  const int64_t last = g_last_ns.exchange(now);
  if (!g_stop.exchange(true)) {
    errno = saved;
    return;  // the stop itself: the run ends and stores what it measured
  }
  const int64_t same = std::chrono::nanoseconds(StopSignals::kSameStop).count();
  const int64_t window = std::chrono::nanoseconds(StopSignals::kForceWindow).count();
  if (now - last < same) {  // the same stop delivered again (process and group, cgroup)
    errno = saved;
    return;
  }
  if (g_presses.load() >= 1 && now - g_press_ns.load() <= window) {
    StopSay(": stopped by a third signal: exiting without storing what was measured\n", "");
    ::_exit(128 + sig);
  }
  g_presses.store(1);
  g_press_ns.store(now);
  StopSay(": stopping: storing what was measured; further signals are ignored until then ",
          "(press Ctrl-C again within 5 s to quit without storing)\n");
  errno = saved;
}

}  // namespace

std::atomic<bool>& StopSignals::flag() {
  return g_stop;
}

StopSignals::StopSignals(const char* program) {
  g_program = program;
  g_stop.store(false);
  g_presses.store(0);
  g_last_ns.store(0);
  g_press_ns.store(0);
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sa.sa_flags = 0;  // no SA_RESETHAND: a second signal must not kill the run; no SA_RESTART
  sigemptyset(&sa.sa_mask);
  for (int s : kStopSignals) sigaddset(&sa.sa_mask, s);  // one handler at a time
  for (int i = 0; i < 3; ++i) ::sigaction(kStopSignals[i], &sa, &old_[i]);
}

StopSignals::~StopSignals() {
  // After a stop the process is on its way out with its record stored: a repeated stop that
  // arrives only now (`timeout` signalling the process and then its group, late under load) must
  // not turn exit 1 into death by the signal, so the stop signals stay ignored. Without a stop,
  // the handlers from before come back.
  if (g_stop.load()) {
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    for (int s : kStopSignals) ::sigaction(s, &ign, nullptr);
    return;
  }
  for (int i = 0; i < 3; ++i) ::sigaction(kStopSignals[i], &old_[i], nullptr);
}

}  // namespace dossier
