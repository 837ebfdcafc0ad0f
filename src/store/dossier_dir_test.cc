#include "store/dossier_dir.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/stat.h>
#include <unistd.h>

#include "../tests/temp_dir.h"
#include "store/dossier_lock.h"
#include "store/record_header.h"
#include "view/build_view.h"

namespace dossier {
namespace {

using dossier::testing::Slurp;

nlohmann::json Collect(const std::string& name, const std::string& host) {
  return {
      {"kind", "collect"},
      {"machine", {{"name", name}, {"hostname", host}, {"provenance", nlohmann::json::object()}}}};
}

TEST(DossierDir, AppendsNeverOverwrites) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  auto a = d.Append(Collect("guest", "a"), "guest");
  auto b = d.Append(Collect("guest", "b"), "guest");
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_NE(*a, *b);
  std::vector<std::string> w;
  auto recs = d.Load(&w);
  ASSERT_TRUE(recs);
  ASSERT_EQ(recs->size(), 2u);
  EXPECT_TRUE((*recs)[0].doc.is_null());  // listed by header; the body is read where used
  EXPECT_LT((*recs)[0].sequence, (*recs)[1].sequence);
  // The latest record of a machine wins in the view.
  View v = BuildView(*recs, {}, {});
  ASSERT_EQ(v.machines.size(), 1u);
  EXPECT_EQ(*v.machines[0].machine.hostname, "b");
}

TEST(DossierDir, DamagedRecordsAreNamedSkippedAndLeftAlone) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  ASSERT_TRUE(d.Append(Collect("guest", "a"), "guest"));
  std::string bad = d.records_dir() + "/000002-collect-guest.json";
  std::string truncated = "{\"schema\": \"dossier/1\",\n \"kind\": \"collect\",\n \"machine\": {";
  std::ofstream(bad, std::ios::binary) << truncated;
  std::string binary = d.records_dir() + "/000003-collect-guest.json";
  std::ofstream(binary, std::ios::binary) << std::string(
      "\x7f"
      "ELF\0\0\x01",
      7);
  std::string future = d.records_dir() + "/000004-collect-guest.json";
  std::ofstream(future) << R"({"schema": "dossier/9", "kind": "collect"})";
  std::vector<std::string> w;
  auto recs = d.Load(&w);
  ASSERT_TRUE(recs);
  EXPECT_EQ(recs->size(), 1u);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_NE(w[0].find("000002-collect-guest.json:3"), std::string::npos) << w[0];
  EXPECT_NE(w[2].find("dossier/9"), std::string::npos) << w[2];
  EXPECT_EQ(Slurp(bad), truncated);  // nothing is modified
  // A new record still gets a fresh name after the damaged ones.
  auto next = d.Append(Collect("guest", "c"), "guest");
  ASSERT_TRUE(next);
  EXPECT_NE(next->find("000005-"), std::string::npos) << *next;
}

// The line a damaged record is named by is the line of the error, not the last line read: an
// error with more lines after it, and one past the first 64 KiB the header reader reads at once.
TEST(DossierDir, ADamagedRecordIsNamedByTheLineOfItsError) {
  testing::TempDir t;
  std::string early = t.path() + "/early.json";
  std::ofstream(early)
      << "{\"schema\": \"dossier/1\",\n \"kind\": collect,\n \"a\": 1,\n \"b\": 2\n}\n";
  auto h = ReadRecordHeader(early, DossierDir::kMaxRecordBytes);
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_EQ(h->bad_json_line, 2u);
  std::string late = t.path() + "/late.json";
  {
    std::ofstream out(late);
    out << "{\"schema\": \"dossier/1\",\n";
    for (int i = 0; i < 3000; ++i)
      out << " \"k" << i << "\": \"" << std::string(40, 'v') << "\",\n";
    out << " \"kind\": collect,\n \"a\": 1\n}\n";  // line 3002, past byte 65536
  }
  h = ReadRecordHeader(late, DossierDir::kMaxRecordBytes);
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_GT(std::filesystem::file_size(late), 65536u * 2);
  EXPECT_EQ(h->bad_json_line, 3002u);
}

// The header's machine is the machine object's own "name", not a "name" nested in it (a GPU's,
// the CPU's), whichever comes first.
TEST(DossierDir, TheHeaderMachineIsTheMachineObjectsOwnName) {
  testing::TempDir t;
  std::string p = t.path() + "/r.json";
  std::ofstream(p)
      << R"({"schema": "dossier/1", "kind": "collect", "machine": {"cpu": {"name": "EPYC"},
    "gpus": [{"name": "H200"}], "name": "box", "numa": {"nodes": [{"name": "n0"}]}}})";
  auto h = ReadRecordHeader(p, DossierDir::kMaxRecordBytes);
  ASSERT_TRUE(h) << h.error().message;
  EXPECT_TRUE(h->machine_object);
  EXPECT_EQ(h->machine, "box");
}

// A record's file is NNNNNN-KIND-MACHINE.json, the machine name made safe (anything but letters,
// digits, '-', '_' and '.' becomes '_'; none at all is "machine") and cut at 64 characters; the
// directories made on the way are rwxr-xr-x under the usual umask 022.
TEST(DossierDir, RecordNamesAreSafeAndBoundedAndDirectoriesReadable) {
  testing::TempDir t;
  const mode_t old = ::umask(022);
  DossierDir d(t.path() + "/a/b/dossier");
  const std::string name = "gpu box/" + std::string(100, 'x');
  auto a = d.Append(Collect(name, "h"), name);
  auto b = d.Append(Collect("", "h"), "");
  ::umask(old);
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(std::filesystem::path(*a).filename(),
            "000001-collect-gpu_box_" + std::string(56, 'x') + ".json");
  EXPECT_EQ(std::filesystem::path(*b).filename(), "000002-collect-machine.json");
  for (const std::string& dir :
       {t.path() + "/a", t.path() + "/a/b", t.path() + "/a/b/dossier", d.records_dir()}) {
    struct stat st {};
    ASSERT_EQ(::stat(dir.c_str(), &st), 0) << dir;
    EXPECT_EQ(st.st_mode & 07777, 0755u) << dir;
  }
}

// A command started with stdin closed (a service, `cmd <&-`) gets descriptor 0 for the lock file:
// the lock is taken and, when dropped, released (a second lock is then granted at once).
TEST(DossierLock, WorksOnDescriptorZeroAndReleasesIt) {
  testing::TempDir t;
  const int saved = ::dup(0);
  ASSERT_GE(saved, 0);
  ::close(0);
  std::string first_error;
  bool second_ok = false, busy_while_held = false;
  {
    auto lock = DossierLock::Acquire(t.path(), 0);
    if (!lock) first_error = lock.error().message;
    busy_while_held = !DossierLock::Acquire(t.path(), 0);
  }
  second_ok = static_cast<bool>(DossierLock::Acquire(t.path(), 0));
  ::dup2(saved, 0);
  ::close(saved);
  EXPECT_EQ(first_error, "");
  EXPECT_TRUE(busy_while_held);
  EXPECT_TRUE(second_ok);
}

// The lock file is the owner's to write and everyone's to read (umask aside), and a command that
// finds the lock held waits at least as long as its message then says, not less.
TEST(DossierLock, ItsFileIsModeSixFourFourAndAHeldLockIsWaitedForItsWholeTime) {
  testing::TempDir t;
  const mode_t old = ::umask(0);
  auto held = DossierLock::Acquire(t.path(), 0);
  ::umask(old);
  ASSERT_TRUE(held) << held.error().message;
  struct stat st {};
  ASSERT_EQ(::stat((t.path() + "/.lock").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  auto start = std::chrono::steady_clock::now();
  auto busy = DossierLock::Acquire(t.path(), 1000);
  auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(busy);
  EXPECT_GE(waited, std::chrono::milliseconds(1000));
  EXPECT_NE(busy.error().message.find("has held the lock for 1 s"), std::string::npos)
      << busy.error().message;
}

// Load keeps each record's header only (store/record_header.h); RecordDoc parses a body when
// asked, and says so when the file no longer reads.
TEST(DossierDir, ListsHeadersAndParsesBodiesOnDemand) {
  testing::TempDir t;
  DossierDir d(t.path() + "/dossier");
  ASSERT_TRUE(d.Append(Collect("guest", "a"), "guest"));
  nlohmann::json m = {{"kind", "p2p"},     {"machine", "guest"},
                      {"boot_id", "b-1"},  {"hostname", "gpu-vm"},
                      {"p2p", {{"x", 1}}}, {"time", "2026-12-03T10:00:00Z"}};
  ASSERT_TRUE(d.Append(m, "guest"));
  std::vector<std::string> w;
  auto recs = d.Load(&w);
  ASSERT_TRUE(recs);
  ASSERT_EQ(recs->size(), 2u);
  const Record& c = (*recs)[0];
  EXPECT_EQ(c.kind, "collect");
  EXPECT_EQ(c.machine, "guest");  // machine.name of a collect
  EXPECT_TRUE(c.machine_object);
  EXPECT_EQ(c.tool, std::string("dossier ") + DOSSIER_VERSION);
  const Record& p = (*recs)[1];
  EXPECT_EQ(p.kind, "p2p");
  EXPECT_EQ(p.machine, "guest");  // a measurement names its machine as a string
  EXPECT_FALSE(p.machine_object);
  EXPECT_EQ(p.boot_id, "b-1");
  EXPECT_EQ(p.hostname, "gpu-vm");
  EXPECT_EQ(p.time, "2026-12-03T10:00:00Z");
  EXPECT_TRUE(p.doc.is_null());
  nlohmann::json scratch;
  const nlohmann::json* doc = RecordDoc(p, &scratch, &w);
  ASSERT_NE(doc, nullptr);
  EXPECT_EQ((*doc)["p2p"]["x"], 1);
  EXPECT_EQ((*doc)["schema"], "dossier/1");
  std::filesystem::remove(p.file);
  EXPECT_EQ(RecordDoc(p, &scratch, &w), nullptr);
  ASSERT_FALSE(w.empty());
  EXPECT_NE(w.back().find("no longer reads"), std::string::npos) << w.back();
  EXPECT_TRUE(scratch.is_null());
}

TEST(DossierDir, MissingDossierIsAClearError) {
  DossierDir d("/nonexistent/dossier");
  std::vector<std::string> w;
  auto r = d.Load(&w);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("dossier collect"), std::string::npos);
}

}  // namespace
}  // namespace dossier
