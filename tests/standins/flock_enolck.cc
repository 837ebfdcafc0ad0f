// Preloaded (LD_PRELOAD) in front of libc for a test: flock(2) fails as it does on an NFS mount
// whose lock daemon is not running, with ENOLCK ("No locks available"). A command that needs the
// dossier's lock must say so at once, not wait 30 s and blame another command.
#include <cerrno>

extern "C" __attribute__((visibility("default"))) int flock(int, int) {
  errno = ENOLCK;
  return -1;
}
