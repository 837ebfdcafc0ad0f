#include "store/dossier_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>

namespace dossier {

Result<DossierLock> DossierLock::Acquire(const std::string& dossier_dir, int timeout_ms) {
  std::error_code ec;
  std::filesystem::create_directories(dossier_dir, ec);
  if (ec) return Error::Io("cannot create " + dossier_dir + ": " + ec.message());
  std::string path = dossier_dir + "/.lock";
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0) return Error::Io(path + ": cannot open (" + std::strerror(errno) + ")");
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error::Invalid(path + " is not a regular file; remove it and run the command again");
  }
  // Polled rather than blocking, so a stuck holder gives a message instead of a hang.
  for (int waited = 0;; waited += 10) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return DossierLock(fd);
    if (errno != EWOULDBLOCK && errno != EINTR) {
      int err = errno;
      ::close(fd);
      return Error::Io(path + ": cannot lock (" + std::strerror(err) + ")");
    }
    if (waited >= timeout_ms) {
      ::close(fd);
      return Error::Io(path + ": another dossier command has held the lock for " +
                       std::to_string(timeout_ms / 1000) +
                       " s; wait for it to finish and run this again");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

DossierLock::~DossierLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace dossier
