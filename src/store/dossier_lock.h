// DossierLock: one writer at a time for the files of a dossier that are replaced rather than
// appended (notes.toml). An exclusive flock(2) on DIR/.lock, held from the read of a file to its
// replacement, so ten `dossier note tried …` started at once each see the others' entries instead
// of each writing its own copy over the rest. The lock file is created when missing and never
// removed (removing it would let two writers lock two different files).
//
// flock is advisory: a person's editor does not take it. That case is caught by the other half
// of the promise, "never replace a file that changed since it was read" (regular_file.h).
#pragma once

#include <string>

#include "util/result.h"

namespace dossier {

class DossierLock {
 public:
  // Waits up to timeout_ms for the lock (another dossier command holding it finishes in well
  // under a second); an error says who to wait for. Creates the dossier directory when missing.
  static Result<DossierLock> Acquire(const std::string& dossier_dir, int timeout_ms = 30000);

  DossierLock(DossierLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  DossierLock& operator=(DossierLock&&) = delete;
  DossierLock(const DossierLock&) = delete;
  ~DossierLock();

 private:
  explicit DossierLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace dossier
