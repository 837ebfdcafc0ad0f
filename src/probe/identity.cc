// Identity: who this machine is and which boot we are looking at. The boot id is what later tells
// facts of an earlier boot from current ones.
#include "probe/probe.h"
#include "probe/read_fact.h"
#include "util/redact.h"
#include "util/text.h"

namespace dossier {

void ProbeIdentity(const ProbeContext& ctx, Machine* m) {
  const RootFs& fs = ctx.fs;
  ReadStringFact(fs, "/proc/sys/kernel/hostname", &m->hostname);
  if (!m->hostname.known()) {
    Fact<std::string> alt;
    ReadStringFact(fs, "/etc/hostname", &alt);
    if (alt.known()) m->hostname = alt;
  }
  ReadStringFact(fs, "/proc/sys/kernel/random/boot_id", &m->boot_id);
  ReadStringFact(fs, "/proc/sys/kernel/osrelease", &m->kernel.release);

  auto cmdline = fs.Read("/proc/cmdline", 64 << 10);
  if (cmdline) {
    // Boot parameters can carry secrets too (a password for a network root, say).
    m->kernel.cmdline.Set(RedactCommandLine(std::string(Trim(*cmdline))), "/proc/cmdline");
  } else {
    m->kernel.cmdline.Unknown(ReasonFor(cmdline.error()), "/proc/cmdline");
  }

  // os-release: /etc/os-release, else /usr/lib/os-release (the spec's fallback).
  std::string path = "/etc/os-release";
  auto text = fs.Read(path, 64 << 10);
  if (!text) {
    path = "/usr/lib/os-release";
    text = fs.Read(path, 64 << 10);
  }
  if (!text) {
    std::string why = ReasonFor(text.error());
    m->os.pretty_name.Unknown(why, "/etc/os-release");
    m->os.id.Unknown(why, "/etc/os-release");
    m->os.version_id.Unknown(why, "/etc/os-release");
    return;
  }
  int line_no = 0;
  for (std::string_view line : SplitLines(*text)) {
    ++line_no;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos || line.starts_with('#')) continue;
    std::string_view key = Trim(line.substr(0, eq));
    std::string value(Unquote(Trim(line.substr(eq + 1))));
    std::string src = path + ":" + std::to_string(line_no);
    if (key == "PRETTY_NAME") m->os.pretty_name.Set(value, src);
    if (key == "ID") m->os.id.Set(value, src);
    if (key == "VERSION_ID") m->os.version_id.Set(value, src);
  }
  if (!m->os.pretty_name.known()) m->os.pretty_name.Unknown("no PRETTY_NAME line", path);
  if (!m->os.id.known()) m->os.id.Unknown("no ID line", path);
  if (!m->os.version_id.known()) m->os.version_id.Unknown("no VERSION_ID line", path);
}

}  // namespace dossier
