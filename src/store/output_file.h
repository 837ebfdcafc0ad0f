// Files a person names on the command line (`generate --output FILE`, `serve-bench --save-result
// FILE`, the Prometheus textfile): written so that what FILE is decides how. A new or regular
// file is replaced atomically (a temporary file beside it, then a rename) keeping its mode and
// owner; a symlink to a regular file is written through (its target is replaced, the link stays);
// a character device or a FIFO (/dev/null, a named pipe, a terminal) is opened and written, never
// replaced; /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are written to that open
// descriptor, as a shell's redirection would. A directory, a socket or a block device is refused.
// Replacing a device node with a regular file (as a rename does) would change it for the whole
// machine when run as root: /dev/full once became a regular file that way.
#pragma once

#include <string>
#include <string_view>

#include "util/result.h"

namespace dossier {

// Why `path` cannot be written as an output file, or "" when it can (checked before a long run,
// so bad input is found before the work): a directory, socket or block device, a dangling
// symlink, a missing directory, a descriptor that is not open. The write itself may still fail.
std::string OutputTargetProblem(const std::string& path);

// Writes `data` to `path` as described above. Errors: kInvalid for a target that is refused
// (exit 2), kIo for a write that failed (ENOSPC from /dev/full, a closed pipe: exit 1).
Status WriteOutputFile(const std::string& path, std::string_view data);

}  // namespace dossier
