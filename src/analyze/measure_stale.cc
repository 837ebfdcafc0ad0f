#include "analyze/measure_stale.h"

#include "util/utf8.h"

#include <vector>

namespace dossier {
namespace {

struct Stamp {
  std::string time, boot, host, what;
};

// Every record of mv that says when and in which boot it ran.
std::vector<Stamp> StampsOf(const MachineView& mv) {
  std::vector<Stamp> out;
  if (mv.machine.boot_id.known() && !mv.record.time.empty())
    out.push_back(
        {mv.record.time, *mv.machine.boot_id, mv.machine.hostname.value_or(""), "a collect"});
  for (const auto& p : mv.p2p) out.push_back({p.time, p.boot_id, p.hostname, "a p2p run"});
  for (const auto& s : mv.serve)
    out.push_back({s.time, s.boot_id, s.hostname, "a serve-bench run"});
  return out;
}

}  // namespace

bool SameHost(const std::string& a, const std::string& b) {
  return a.empty() || b.empty() || a == b;
}

std::string MeasurementStale(const MachineView& mv, const std::string& time,
                             const std::string& boot, const std::string& host) {
  if (boot.empty()) return "";
  const std::vector<Stamp> stamps = StampsOf(mv);
  const Stamp* later = nullptr;
  for (const auto& s : stamps) {
    if (s.boot.empty() || s.boot == boot || s.time <= time || !SameHost(s.host, host)) continue;
    if (!later || s.time > later->time) later = &s;
  }
  if (!later) return "";
  return "measured in boot " + std::string(CutUtf8(boot, 8)) + "; " + later->what + " at " +
         later->time + " ran in boot " + std::string(CutUtf8(later->boot, 8)) + " (a reboot since)";
}

}  // namespace dossier
