#include "store/dossier_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "model/json_io.h"
#include "store/dossier_lock.h"
#include "store/record_header.h"
#include "store/regular_file.h"

namespace dossier {
namespace {

std::string Errno(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

Status MakeDirs(const std::string& path) {
  std::string cur;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    cur = path.substr(0, j);
    if (!cur.empty() && ::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) {
      return Error::Io(Errno("cannot create directory " + cur));
    }
    i = j + 1;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Error::Io(path + " exists and is not a directory");
  }
  return OkStatus();
}

// File-name-safe form of a machine name.
std::string Slug(std::string_view s) {
  std::string out;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.';
    out += ok ? c : '_';
  }
  if (out.size() > 64) out.resize(64);
  return out.empty() ? "machine" : out;
}

std::string Str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// ".tmp-PID-TICKS": true while process PID lives (its write may be under way).
bool WriterAlive(const std::string& name) {
  long pid = std::strtol(name.c_str() + 5, nullptr, 10);
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

// Temporary files of writes that were killed before their link (WriteFileAtomic): never a
// record, safe to remove once their writer is gone. Called under the dossier's lock.
void RemoveOrphanTemporaries(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  std::vector<std::string> orphans;
  while (struct dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n.starts_with(".tmp-") && !WriterAlive(n)) orphans.push_back(dir + "/" + n);
  }
  ::closedir(d);
  for (const auto& o : orphans) ::unlink(o.c_str());
}

void FsyncDir(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

std::string NowIso8601() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Status WriteFileAtomic(const std::string& path, std::string_view data, bool replace) {
  std::string dir(path.substr(0, path.rfind('/') == std::string::npos ? 0 : path.rfind('/')));
  if (dir.empty()) dir = ".";
  std::string tmp = dir + "/.tmp-" + std::to_string(::getpid()) + "-" +
                    std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return Error::Io(Errno("cannot create " + tmp));
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      Error e = Error::Io(Errno("cannot write " + tmp));
      ::close(fd);
      ::unlink(tmp.c_str());
      return e;
    }
    off += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    Error e = Error::Io(Errno("cannot flush " + tmp));
    ::unlink(tmp.c_str());
    return e;
  }
  if (replace) {
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      Error e = Error::Io(Errno("cannot rename to " + path));
      ::unlink(tmp.c_str());
      return e;
    }
  } else {
    if (::link(tmp.c_str(), path.c_str()) != 0) {
      Error e = errno == EEXIST ? Error{Error::kOther, path + " exists"}
                                : Error::Io(Errno("cannot create " + path));
      ::unlink(tmp.c_str());
      return e;
    }
    ::unlink(tmp.c_str());
  }
  FsyncDir(dir);
  return OkStatus();
}

Result<std::string> DossierDir::Append(nlohmann::json doc, std::string_view machine) const {
  if (!doc.contains("kind")) return Error::Invalid("record without a kind");
  if (!doc.contains("schema")) doc["schema"] = kSchema;
  if (!doc.contains("time")) doc["time"] = NowIso8601();
  if (!doc.contains("tool")) doc["tool"] = std::string("dossier ") + DOSSIER_VERSION;
  std::string dir = records_dir();
  if (auto s = MakeDirs(dir); !s) return s.error();
  std::string text = DumpJson(doc, 1) + "\n";
  // One writer picks a number at a time: without the lock two writers of different machines
  // both take max+1 (their names differ, so both links succeed) and `diff 7 8` is ambiguous.
  auto lock = DossierLock::Acquire(path_);
  if (!lock) return lock.error();
  RemoveOrphanTemporaries(dir);
  std::string kind = doc["kind"].get<std::string>();
  // Sequence numbers order records; two writers racing for one number both survive because the
  // link fails for the loser, which takes the next number.
  for (int attempt = 0; attempt < 100; ++attempt) {
    int64_t next = 1;
    if (DIR* d = ::opendir(dir.c_str())) {
      while (struct dirent* e = ::readdir(d)) {
        int64_t n = std::strtoll(e->d_name, nullptr, 10);
        next = std::max(next, n + 1);
      }
      ::closedir(d);
    }
    char seq[24];  // room for any int64_t: a shorter buffer warns (-Wformat-truncation)
    std::snprintf(seq, sizeof seq, "%06lld", static_cast<long long>(next));
    std::string name = std::string(seq) + "-" + Slug(kind) + "-" + Slug(machine) + ".json";
    std::string path = dir + "/" + name;
    Status s = WriteFileAtomic(path, text);
    if (s) return path;
    if (s.error().kind != Error::kOther) return s.error();
  }
  return Error::Io("could not find a free record name in " + dir);
}

void FillHeaderFromDoc(Record* r) {
  const nlohmann::json& d = r->doc;
  if (!d.is_object()) return;
  r->tool = Str(d, "tool");
  r->boot_id = Str(d, "boot_id");
  r->hostname = Str(d, "hostname");
  r->root = Str(d, "root");
  r->has_root = d.contains("root") && d["root"].is_string();
  r->machine_object = d.contains("machine") && d["machine"].is_object();
}

const nlohmann::json* RecordDoc(const Record& r, nlohmann::json* scratch,
                                std::vector<std::string>* warnings) {
  if (!r.doc.is_null()) return &r.doc;
  auto text = ReadRegularFile(r.file, DossierDir::kMaxRecordBytes);
  if (text) {
    *scratch = nlohmann::json::parse(*text, nullptr, false);
    if (!scratch->is_discarded() && scratch->is_object()) return scratch;
  }
  // Records are never replaced: this is a file changed or removed behind the dossier's back.
  warnings->push_back(r.file + ": no longer reads as it did a moment ago (" +
                      (text ? std::string("not valid JSON") : text.error().message) + "); skipped");
  *scratch = nullptr;
  return nullptr;
}

Result<std::vector<Record>> DossierDir::Load(std::vector<std::string>* warnings) const {
  std::vector<Record> out;
  std::string dir = records_dir();
  struct stat st;
  if (::stat(path_.c_str(), &st) != 0) {
    return Error::NotFound("no dossier at " + path_ +
                           " (run 'dossier collect' first, or pass --dossier DIR)");
  }
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    if (errno == ENOENT) return out;
    return Error::Io(Errno("cannot read " + dir));
  }
  std::vector<std::string> names;
  while (struct dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n.size() > 5 && n.ends_with(".json") && n[0] != '.') names.push_back(n);
    if (n.starts_with(".tmp-") && !WriterAlive(n))
      warnings->push_back(dir + "/" + n +
                          ": left by a write that was interrupted (not a record); the next "
                          "collect or measurement removes it");
  }
  ::closedir(d);
  // By number, not as text: "1000000-…" comes after "999999-…".
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    int64_t x = std::strtoll(a.c_str(), nullptr, 10), y = std::strtoll(b.c_str(), nullptr, 10);
    return x != y ? x < y : a < b;
  });
  for (const auto& n : names) {
    std::string path = dir + "/" + n;
    // Only a regular file is a record: a FIFO named like one would block the read forever, a
    // directory is not "too large" but not a record (store/regular_file.h). The header is read
    // streaming; the body is parsed later, only where it is used (RecordDoc).
    auto head = ReadRecordHeader(path, kMaxRecordBytes);
    if (!head) {
      if (head.error().kind == Error::kTooLarge) {
        warnings->push_back(path + ": larger than 256 MiB, not a record; skipped");
      } else {
        warnings->push_back(head.error().message + "; skipped");
      }
      continue;
    }
    const RecordHeader& h = *head;
    if (h.bad_json_line > 0) {
      warnings->push_back(path + ":" + std::to_string(h.bad_json_line) +
                          ": not valid JSON (truncated or damaged record); skipped. "
                          "The file is left as it is.");
      continue;
    }
    if (!h.object || !h.schema_is_string) {
      warnings->push_back(path + ": not a dossier record (no schema); skipped");
      continue;
    }
    if (h.schema != kSchema) {
      warnings->push_back(path + ": written as " + h.schema + ", this dossier reads " + kSchema +
                          "; skipped (use a matching version of dossier to read it)");
      continue;
    }
    Record r;
    r.file = path;
    r.sequence = std::strtoll(n.c_str(), nullptr, 10);
    r.kind = h.kind;
    r.time = h.time;
    r.machine = h.machine;
    r.tool = h.tool;
    r.boot_id = h.boot_id;
    r.hostname = h.hostname;
    r.root = h.root;
    r.has_root = h.has_root;
    r.machine_object = h.machine_object;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace dossier
