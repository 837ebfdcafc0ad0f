// Finding the kernel's complaints about PCI resources in its log: BARs and bridge windows it
// could not assign ("BAR 1: no space for", "failed to assign", "can't assign; no space",
// "can't claim BAR"), "not enough MMIO resources", and the NVIDIA driver's refusals of a bad BAR
// ("NVRM: BAR1 is 0M @ 0x0", "This PCI I/O region assigned to your NVIDIA device is invalid").
// A GPU whose 64 GiB BAR did not fit the firmware's window shows up here and nowhere else.
//
// Pure functions over text, separate from where the log came from (kernel_log.cc). Log lines are
// foreign input: any bytes, any length; messages are kept printable and bounded.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/pci.h"

namespace dossier {

// The message of a /dev/kmsg record, "pri,seq,usec,flags;message\n KEY=value…": the text after
// the first ';' up to the first newline. Empty when the record has no ';'.
std::string_view KmsgMessage(std::string_view record);

// A log line without what precedes the kernel's message: a syslog header up to "kernel: ",
// dmesg's "[    1.234567] " (or dmesg -T's "[Mon Dec  2 16:18:01 2024] ") and a caller id
// "[    T1] ".
std::string_view StripLogPrefix(std::string_view line);

// The PCI address a message names: "0000:01:00.0" anywhere in it, or NVRM's "PCI:0000:01:00"
// (function 0). Empty when there is none.
std::string PciAddressIn(std::string_view message);

// Collects problems line by line, in the order first seen, each distinct message once.
class PciProblemScanner {
 public:
  static constexpr size_t kMaxProblems = 256;
  static constexpr size_t kMaxMessage = 400;

  // One line of any log format; lines that are not about PCI resources are ignored.
  void Add(std::string_view line);
  // A whole text, split at newlines.
  void AddText(std::string_view text);
  // A /dev/kmsg record. One printk of several lines is one record with its newlines escaped as
  // "\x0a"; they are split back, so the lines read as they do in a dmesg file.
  void AddKmsgRecord(std::string_view record);
  const std::vector<PciProblem>& problems() const { return problems_; }

 private:
  std::vector<PciProblem> problems_;
  std::set<std::string> seen_;
};

}  // namespace dossier
