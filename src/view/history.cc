#include "view/history.h"

#include "util/utf8.h"

#include "model/json_io.h"
#include "view/stale.h"

namespace dossier {
namespace {

std::string Short(const std::string& boot) {
  return std::string(CutUtf8(boot, 8));
}

std::string FileName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The newest boot a later record of the machine shows, with what showed it.
struct LaterBoot {
  std::string boot, what, time;
};

// Boot ids compare only between records of one machine: a measurement run on the machine running
// dossier says nothing about the boots of a captured tree collected there (another machine), nor
// does a serve-bench client about its server. Known host names must match; a record without one
// is compared only with a collect of the live machine.
LaterBoot NewerBoot(const MachineView& mv, const std::vector<Record>& records,
                    const std::string& collect_boot, bool collect_live) {
  LaterBoot out;
  const std::string host = mv.machine.hostname.value_or("");
  auto consider = [&](const std::string& boot, const std::string& time, const std::string& what,
                      const std::string& rec_host) {
    if (boot.empty() || boot == collect_boot || time <= mv.record.time || time <= out.time) return;
    if (rec_host.empty() ? !collect_live : (!host.empty() && rec_host != host)) return;
    out = {boot, what, time};
  };
  for (const auto& p : mv.p2p) consider(p.boot_id, p.time, "a p2p measurement", p.hostname);
  for (const auto& s : mv.serve) consider(s.boot_id, s.time, "a serving measurement", s.hostname);
  for (const auto& r : records) {
    if (r.machine != mv.machine.name || r.kind == "collect") continue;
    // From the header: a measurement's body is not read for its boot id.
    if (!r.boot_id.empty()) consider(r.boot_id, r.time, "a " + r.kind + " record", r.hostname);
  }
  return out;
}

// A fact the notes state as just changed on this machine after its newest collect (a BIOS
// setting changed since): what was collected may no longer hold.
const NoteFact* JustChangedAfter(const Notes& notes, const MachineView& mv) {
  for (const auto& f : notes.facts) {
    if (f.machine != mv.machine.name || f.status != "just-changed" || f.when.empty()) continue;
    if (f.when > mv.record.time) return &f;
  }
  return nullptr;
}

}  // namespace

std::vector<const Record*> CollectsOf(const std::vector<Record>& records,
                                      const std::string& machine) {
  std::vector<const Record*> out;
  for (const auto& r : records)
    if (r.kind == "collect" && r.machine == machine && r.machine_object) out.push_back(&r);
  return out;
}

void AttachHistory(const std::vector<Record>& records, View* view) {
  for (auto& mv : view->machines) {
    std::vector<const Record*> collects = CollectsOf(records, mv.machine.name);
    if (collects.empty()) continue;
    const std::string boot = mv.machine.boot_id.value_or("");

    // Older collects, newest first, parsed once.
    std::vector<std::pair<const Record*, Machine>> older;
    for (auto it = collects.rbegin() + 1; it < collects.rend() && older.size() < kHistoryDepth;
         ++it) {
      std::vector<std::string> w;
      nlohmann::json scratch;  // one older record parsed at a time, released as a Machine
      const nlohmann::json* doc = RecordDoc(**it, &scratch, &view->warnings);
      if (doc) older.emplace_back(*it, MachineFromJson((*doc)["machine"], &w));
    }

    // The previous boot: the newest collect of another boot, kept with the machine as collected
    // so the changes since then are between two records, not between filled-in facts.
    for (const auto& [rec, m] : older) {
      std::string b = m.boot_id.value_or("");
      if (b.empty() || boot.empty() || b == boot) continue;
      mv.previous = PreviousBoot{{rec->file, rec->kind, rec->time, rec->tool}, b, m};
      mv.as_collected = mv.machine;
      break;
    }

    // The collect before the newest one, when it ran in the same boot.
    if (!older.empty() && !boot.empty() && older.front().second.boot_id.value_or("") == boot) {
      const Record* rec = older.front().first;
      mv.earlier_same_boot =
          PreviousBoot{{rec->file, rec->kind, rec->time, rec->tool}, boot, older.front().second};
    }

    // Facts the newest collect could not read, from older ones.
    for (const auto& [rec, m] : older) {
      std::string b = m.boot_id.value_or("");
      std::string why = !b.empty() && !boot.empty() && b != boot
                            ? "seen in boot " + Short(b) + " (" + FileName(rec->file) +
                                  "), before the latest reboot"
                            : "from the older record " + FileName(rec->file) + " (" + rec->time +
                                  "); the newest could not read it";
      FillFromOlder(&mv.machine, m, why);
    }

    // A later record in another boot: this collect describes a boot that is over.
    LaterBoot later =
        NewerBoot(mv, records, boot,
                  (collects.back()->has_root ? collects.back()->root : std::string("/")) == "/");
    const NoteFact* changed = JustChangedAfter(view->notes, mv);
    if (later.boot.empty() && changed) {
      mv.stale = "the notes say " + changed->name + " just changed (" + changed->when +
                 ", notes line " + std::to_string(changed->line) + ") after this collect (" +
                 mv.record.time + "). Run 'dossier collect' again once the machine is back.";
      MarkAllStale(&mv.machine, "collected before " + changed->name + " changed");
    } else if (!later.boot.empty()) {
      mv.stale = "collected in boot " + Short(boot) + " (" + mv.record.time + "); " + later.what +
                 " at " + later.time + " ran in boot " + Short(later.boot) +
                 ": the machine has rebooted since. Run 'dossier collect' again.";
      MarkAllStale(&mv.machine, "collected in boot " + Short(boot) + ", before the latest reboot");
    }
  }
}

}  // namespace dossier
