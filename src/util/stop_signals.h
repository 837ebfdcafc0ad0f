// Stopping a measurement without losing it: SIGINT, SIGTERM and SIGHUP (Ctrl-C, a `kill`, a
// closed terminal, a job scheduler's stop) set one flag; the run stops and what was measured is
// printed and stored. One stop often arrives twice or more: `timeout` signals dossier and then
// its process group, systemd signals the whole cgroup, a terminal's Ctrl-C reaches every process
// of the foreground group. So a signal after the first does not end the process: it is ignored
// until the scope ends (after the record is stored). A person who really wants out presses
// Ctrl-C twice more (each more than kSameStop apart, the second within kForceWindow of the
// first): the process then exits at once without storing, as the message on the first of them
// says. Signals closer together than kSameStop are one stop delivered twice.
#pragma once

#include <signal.h>

#include <atomic>
#include <chrono>

namespace dossier {

class StopSignals {
 public:
  static constexpr std::chrono::milliseconds kSameStop{300};
  static constexpr std::chrono::seconds kForceWindow{5};

  // Installs the handlers (no SA_RESTART: a wait in progress returns with EINTR at once) and
  // clears the flag. `program` ("dossier serve-bench") starts the messages; it must outlive the
  // scope. One scope at a time.
  explicit StopSignals(const char* program);
  // Restores the handlers there were before; after a stop, leaves the stop signals ignored (the
  // process is ending: a late repeat of the stop must not kill it after the record was stored).
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  // Set by the first signal; what the measurement loop polls.
  static std::atomic<bool>& flag();

 private:
  struct sigaction old_[3]{};
};

}  // namespace dossier
