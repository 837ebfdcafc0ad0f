#include "probe/pci_names.h"

extern "C" {
#include <pci/pci.h>
}

#include <csetjmp>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <unistd.h>

#include "util/utf8.h"

namespace dossier {
namespace {

// libpci's error callback must not return. It jumps back to the call that led to it (the only
// frames skipped are libpci's C frames, which hold nothing to destroy); with no such call
// pending it aborts rather than let libpci continue in a state it does not expect.
thread_local std::jmp_buf* g_on_error = nullptr;
thread_local char g_error[256];

// libpci declares its error hook noreturn (a GNU attribute, part of the type for clang): it
// longjmps back to GuardedLoad, or aborts.
__attribute__((noreturn)) void OnError(char* msg, ...) {
  va_list ap;
  va_start(ap, msg);
  std::vsnprintf(g_error, sizeof g_error, msg, ap);
  va_end(ap);
  if (g_on_error) std::longjmp(*g_on_error, 1);
  std::abort();
}

// Warnings and debug output would go to stderr behind the caller's back; names do not need them.
void Quiet(char*, ...) {}

std::string Trimmed(const char* s) {
  std::string out(s);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// pci_load_name_list under the error guard; false with the message in g_error on failure.
// Kept free of C++ objects with destructors: longjmp may land here.
bool GuardedLoad(pci_access* a, bool* opened) {
  std::jmp_buf env;
  if (setjmp(env) != 0) {
    g_on_error = nullptr;
    return false;
  }
  g_on_error = &env;
  *opened = pci_load_name_list(a) != 0;
  g_on_error = nullptr;
  return true;
}

// pci_lookup_name under the error guard; nullptr when not found or on an error.
const char* GuardedLookup(pci_access* a, char* buf, int size, int flags, int vendor, int device) {
  std::jmp_buf env;
  if (setjmp(env) != 0) {
    g_on_error = nullptr;
    return nullptr;
  }
  g_on_error = &env;
  const char* r = (flags & PCI_LOOKUP_DEVICE) ? pci_lookup_name(a, buf, size, flags, vendor, device)
                                              : pci_lookup_name(a, buf, size, flags, vendor);
  g_on_error = nullptr;
  return r;
}

}  // namespace

const char* const PciNames::kDatabasePaths[] = {
    "/usr/share/misc/pci.ids",     // Debian, Ubuntu
    "/usr/share/hwdata/pci.ids",   // Fedora, RHEL, Arch
    "/usr/share/pci.ids",          // older layouts
    "/usr/share/misc/pci.ids.gz",  // compressed builds of pciutils
    "/usr/share/hwdata/pci.ids.gz", nullptr,
};

PciNames::PciNames(const RootFs& fs) : fs_(fs) {}

PciNames::~PciNames() {
  if (access_) pci_cleanup(access_);
}

namespace {

// "#\tVersion: 2023.04.10" in the first lines of a plain pci.ids; "" when not there.
std::string VersionOf(const RootFs& fs, const std::string& path) {
  auto head = fs.ReadPrefix(path, 4096);
  if (!head) return {};
  const std::string key = "Version:";
  size_t at = head->find(key);
  if (at == std::string::npos || at > 2048) return {};
  size_t start = head->find_first_not_of(" \t", at + key.size());
  size_t end = head->find_first_of("\r\n", start);
  if (start == std::string::npos || end == std::string::npos || end - start > 40) return {};
  return MakeValidUtf8(head->substr(start, end - start));
}

}  // namespace

PciNames::Database PciNames::Bundled() {
  Database db;
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return db;
  std::string dir(exe, static_cast<size_t>(n));
  dir = dir.substr(0, dir.rfind('/'));  // bin/
  std::string share = dir + "/../share/dossier";
  RootFs here("/");
  if (!here.IsRegularFile(share + "/pci.ids.gz")) return db;
  db.host = share + "/pci.ids.gz";
  if (auto v = here.ReadValue(share + "/pci.ids.version"); v && v->size() <= 40)
    db.version = MakeValidUtf8(*v);
  db.path = "pci.ids.gz carried by dossier" +
            (db.version.empty() ? std::string() : " (version " + db.version + ")");
  return db;
}

PciNames::Database PciNames::Find(const RootFs& fs) {
  Database db;
  for (const char* const* p = kDatabasePaths; *p; ++p) {
    auto resolved = fs.Resolve(*p);
    if (resolved && fs.IsRegularFile(*resolved)) {  // libpci's fopen would hang on a FIFO
      db.path = *p;
      db.host = fs.HostPath(*resolved);
      if (!std::string_view(*p).ends_with(".gz")) db.version = VersionOf(fs, *resolved);
      return db;
    }
  }
  if (Database b = Bundled(); !b.host.empty()) return b;
  if (!fs.live()) {
    // A captured tree rarely carries its own database: names are not machine state, so the
    // database of the machine running dossier serves, and the source says so.
    RootFs here("/");
    for (const char* const* p = kDatabasePaths; *p; ++p) {
      if (here.IsRegularFile(*p)) {
        db.path = std::string(*p) + " (of the machine running dossier)";
        db.host = *p;
        if (!std::string_view(*p).ends_with(".gz")) db.version = VersionOf(here, *p);
        return db;
      }
    }
  }
  return db;
}

bool PciNames::Load() {
  if (tried_) return failure_.empty();
  tried_ = true;
  Database db = Find(fs_);
  path_ = db.path;
  std::string host = db.host;
  if (host.empty()) {
    failure_ =
        "no pci.ids (looked in /usr/share/misc, /usr/share/hwdata, and share/dossier beside "
        "the binary)";
    return false;
  }
  access_ = pci_alloc();
  access_->error = OnError;
  access_->warning = Quiet;
  access_->debug = Quiet;
  access_->id_lookup_mode = 0;  // no ~/.cache/pci-ids, no DNS: the file under the root only
  pci_set_param(access_, const_cast<char*>("hwdb.disable"), const_cast<char*>("1"));
  pci_set_name_list_path(access_, strdup(host.c_str()), 1);
  bool opened = false;
  if (!GuardedLoad(access_, &opened)) {
    failure_ = "pci.ids unusable: " + Trimmed(g_error);
  } else if (!opened) {
    failure_ = "pci.ids could not be opened";
  }
  return failure_.empty();
}

Fact<std::string> PciNames::Name(uint16_t vendor, uint16_t device) {
  Fact<std::string> out;
  if (!Load()) {
    out.Unknown(failure_, path_);
    return out;
  }
  std::string src = "libpci:pci_lookup_name " + path_;
  const int base = PCI_LOOKUP_NO_NUMBERS | PCI_LOOKUP_NO_HWDB;
  char buf[512];
  if (const char* n = GuardedLookup(access_, buf, sizeof buf,
                                    base | PCI_LOOKUP_VENDOR | PCI_LOOKUP_DEVICE, vendor, device)) {
    out.Set(MakeValidUtf8(n), src);  // pci.ids is foreign text (util/utf8.h)
    return out;
  }
  char num[8];
  std::snprintf(num, sizeof num, "%04x", device);
  if (const char* v =
          GuardedLookup(access_, buf, sizeof buf, base | PCI_LOOKUP_VENDOR, vendor, 0)) {
    out.Set(MakeValidUtf8(v) + " Device " + num, src);
    return out;
  }
  char vnum[8];
  std::snprintf(vnum, sizeof vnum, "%04x", vendor);
  out.Unknown(std::string("vendor ") + vnum + " not in pci.ids", src);
  return out;
}

}  // namespace dossier
