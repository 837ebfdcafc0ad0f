// The kernel log, for its complaints about PCI resources (pci_problems.h). On the live machine
// /dev/kmsg holds this boot's log; reading it needs root where kernel.dmesg_restrict is set
// (EPERM), and then, as in a captured tree, the files a distribution keeps are read instead:
// /var/log/dmesg (the boot messages, Ubuntu and Debian with sysklogd) and /var/log/kern.log (only
// its last few MiB: it grows for weeks). `source` says which was read, or why none was.
#include "probe/pci_problems.h"
#include "probe/probe.h"
#include "probe/read_fact.h"

namespace dossier {
namespace {

// A kernel ring buffer holds at most 32 MiB (CONFIG_LOG_BUF_SHIFT 25); records are ~100 bytes.
constexpr size_t kMaxRecords = 1 << 19;
constexpr size_t kMaxLogTail = 8u << 20;

constexpr const char* kLogFiles[] = {"/var/log/dmesg", "/var/log/kern.log"};

}  // namespace

void ProbeKernelLog(const ProbeContext& ctx, Machine* m) {
  const RootFs& fs = ctx.fs;
  KernelLogInfo& k = m->kernel_log;
  std::string tried;
  auto note = [&](const std::string& what) { tried += (tried.empty() ? "" : "; ") + what; };

  if (fs.live()) {
    auto records = fs.ReadRecords("/dev/kmsg", kMaxRecords);
    if (records && !records->empty()) {
      PciProblemScanner scan;
      for (const auto& r : *records) scan.AddKmsgRecord(r);
      k.source.Set("/dev/kmsg", "/dev/kmsg");
      k.pci_problems = scan.problems();
      return;
    }
    note("/dev/kmsg: " + (records ? std::string("no records") : ReasonFor(records.error())));
  }
  for (const char* path : kLogFiles) {
    auto text = fs.ReadTail(path, kMaxLogTail);
    if (!text) {
      note(std::string(path) + ": " + ReasonFor(text.error()));
      continue;
    }
    PciProblemScanner scan;
    scan.AddText(*text);
    k.source.Set(path, path);
    k.pci_problems = scan.problems();
    return;
  }
  k.source.Unknown("no kernel log readable (" + tried + ")");
}

}  // namespace dossier
