// Every `dossier note` editing command on notes files as people write them: multi-line strings
// (one holding text that looks like a section), arrays and inline tables as values, comments
// between keys and after values, entries written as inline tables, CRLF line endings. Each edit
// is checked by comparing the whole file with the expected text (times masked), by parsing the
// result again (`note show --format json`), and by the .bak holding the file as it was.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "front_door.h"
#include "standin_paths.h"

namespace dossier::notesfrontdoor {
namespace {

using nlohmann::json;
using testing::ReadWholeFile;
using testing::RunDossier;
using testing::TempDir;

const std::string kBase =
    "# Notes kept by hand: every comment stays.\n"
    "[goal]\n"
    "# why: the customer's SLA\n"
    "text = \"\"\"\n"
    "Serve GLM-5\n"
    "on 8 GPUs\"\"\"  # two lines on purpose\n"
    "\n"
    "[[target]]\n"
    "metric = \"total_tokens_per_s\"\n"
    "# between keys\n"
    "op = \">=\"\n"
    "value = 1000\n"
    "\n"
    "[[machine]]\n"
    "name = \"pve-host\"\n"
    "instructions = '''\n"
    "commands on the host\n"
    "are pasted back\n"
    "'''\n"
    "# trailing comment of the machine entry\n"
    "\n"
    "[[fact]]\n"
    "name = \"BIOS ACS\"\n"
    "machine = \"pve-host\"\n"
    "value = [\n"
    "  \"disabled\",  # per slot\n"
    "  \"enabled\",\n"
    "]\n"
    "status = \"unknown\"\n"
    "\n"
    "[[fact]]\n"
    "name = \"Above 4G\"\n"
    "value = { slot1 = true, slot2 = false }\n"
    "\n"
    "[[next]]\n"
    "do = \"\"\"\n"
    "update the mapping\n"
    "[[next]]\n"
    "do = 'this is text, not a section'\n"
    "\"\"\"\n"
    "verify = \"qm start 100\"\n"
    "\n"
    "[[next]]\n"
    "do = \"second\"  # inline comment\n"
    "blocking = true\n"
    "# the end\n";

// kBase with `from` replaced by `to` (which must be there, once).
std::string Edited(const std::string& from, const std::string& to) {
  size_t at = kBase.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(kBase.find(from, at + 1), std::string::npos) << from << " is not unique";
  std::string s = kBase;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

std::string Crlf(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

std::string MaskTimes(const std::string& s) {
  static const std::regex kWhen(R"(when = "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z")");
  return std::regex_replace(s, kWhen, "when = \"<time>\"");
}

struct EditCase {
  std::string name;
  std::vector<std::string> args;  // after `dossier note --dossier D`
  std::string want;               // the whole file afterwards, times masked
};

std::vector<EditCase> Cases() {
  return {
      {"done on a step whose first value is a multi-line string holding a [[next]] line",
       {"done", "1"},
       Edited("verify = \"qm start 100\"\n",
              "verify = \"qm start 100\"\ndone = true\nwhen = \"<time>\"\n")},
      {"done on the last step, before the closing comment",
       {"done", "2"},
       Edited("blocking = true\n", "blocking = true\ndone = true\nwhen = \"<time>\"\n")},
      {"fact update replaces a multi-line array and adds when after the entry's last line",
       {"fact", "BIOS ACS", "off", "--status", "confirmed", "--machine", "pve-host"},
       Edited("value = [\n  \"disabled\",  # per slot\n  \"enabled\",\n]\nstatus = \"unknown\"\n",
              "value = \"off\"\nstatus = \"confirmed\"\nwhen = \"<time>\"\n")},
      {"fact update replaces an inline table",
       {"fact", "above 4g", "enabled"},
       Edited("value = { slot1 = true, slot2 = false }\n",
              "value = \"enabled\"\nstatus = \"unknown\"\nwhen = \"<time>\"\n")},
      {"goal replaces a multi-line string and keeps the comment after it",
       {"goal", "Serve GLM-5 \"fast\""},
       Edited("text = \"\"\"\nServe GLM-5\non 8 GPUs\"\"\"  # two",
              "text = \"Serve GLM-5 \\\"fast\\\"\"  # two")},
      {"machine update adds a key after a multi-line literal string",
       {"machine", "pve-host", "--reachable", "yes", "--role", "host"},
       Edited("are pasted back\n'''\n",
              "are pasted back\n'''\nrole = \"host\"\nreachable = true\n")},
      {"target appended with <",
       {"target", "ttft_ms.median < 250"},
       kBase + "\n[[target]]\nmetric = \"ttft_ms.median\"\nop = \"<\"\nvalue = 250.0\n"},
      {"target appended with >, a fraction and a concurrency",
       {"target", "request_throughput > 2.5 at concurrency 8", "--note", "from the SLA"},
       kBase + "\n[[target]]\nmetric = \"request_throughput\"\nop = \">\"\nvalue = 2.5\n"
               "concurrency = 8\nnote = \"from the SLA\"\n"},
      {"target appended with <=",
       {"target", "e2e_ms.p99<=1500"},
       kBase + "\n[[target]]\nmetric = \"e2e_ms.p99\"\nop = \"<=\"\nvalue = 1500.0\n"},
      {"new machine appended",
       {"machine", "guest", "--role", "guest", "--guest-of", "pve-host"},
       kBase + "\n[[machine]]\nname = \"guest\"\nrole = \"guest\"\nguest_of = \"pve-host\"\n"},
      {"new fact appended",
       {"fact", "SR-IOV", "off", "--note", "line one\nline two"},
       kBase + "\n[[fact]]\nname = \"SR-IOV\"\nvalue = \"off\"\nstatus = \"unknown\"\n"
               "when = \"<time>\"\nnote = \"line one\\nline two\"\n"},
      {"tried appended",
       {"tried", "iommu=pt", "--result", "no change", "--machine", "pve-host"},
       kBase + "\n[[tried]]\nwhat = \"iommu=pt\"\nresult = \"no change\"\nmachine = "
               "\"pve-host\"\nwhen = \"<time>\"\n"},
      {"next appended",
       {"next", "third", "--verify", "nvidia-smi topo -m", "--why", "because"},
       kBase + "\n[[next]]\ndo = \"third\"\nverify = \"nvidia-smi topo -m\"\nblocking = false\n"
               "why = \"because\"\n"},
      {"file appended",
       {"file", "/etc/pve/qemu-server/100.conf", "--machine", "pve-host", "--why", "the VM"},
       kBase + "\n[[file]]\npath = \"/etc/pve/qemu-server/100.conf\"\nmachine = \"pve-host\"\n"
               "why = \"the VM\"\n"},
  };
}

json Show(const std::string& d) {
  auto r = RunDossier({"note", "--dossier", d, "show", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out, nullptr, false);
}

void RunCases(bool crlf) {
  for (const auto& c : Cases()) {
    SCOPED_TRACE(c.name + (crlf ? " (CRLF)" : ""));
    TempDir t;
    const std::string d = t.path() + "/d", path = d + "/notes.toml";
    const std::string before = crlf ? Crlf(kBase) : kBase;
    t.Write("d/notes.toml", before);
    std::vector<std::string> args = {"note", "--dossier", d};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = RunDossier(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string after = ReadWholeFile(path);
    std::string want = c.want;
    if (crlf) {
      // A value holding a newline is written escaped (\n), never as a line break.
      want = Crlf(want);
    }
    EXPECT_EQ(MaskTimes(after), want);
    EXPECT_EQ(ReadWholeFile(path + ".bak"), before);  // the file as it was
    // It parses again, and what was not edited reads as before.
    json n = Show(d);
    ASSERT_FALSE(n.is_discarded());
    // (TOML reads a line break in a multi-line string as \n, whatever the file's line ending.)
    EXPECT_EQ(n["next"][0]["do"],
              "update the mapping\n[[next]]\ndo = 'this is text, not a section'\n");
    EXPECT_EQ(n["targets"][0]["value"], 1000);
  }
}

TEST(NoteEditsFrontDoor, EveryCommandOnAFileWrittenByHand) {
  RunCases(false);
}

TEST(NoteEditsFrontDoor, EveryCommandOnACrlfFile) {
  RunCases(true);
}

TEST(NoteEditsFrontDoor, DoneMarksTheStepItNames) {
  TempDir t;
  const std::string d = t.path() + "/d";
  t.Write("d/notes.toml", kBase);
  ASSERT_EQ(RunDossier({"note", "--dossier", d, "done", "1"}).exit_code, 0);
  json n = Show(d);
  EXPECT_EQ(n["next"][0]["done"], true);
  EXPECT_EQ(n["next"][1]["done"], false);
  EXPECT_EQ(n["next"].size(), 2u);  // the text that looks like a section stayed text
  // The second edit of the same step changes nothing but the time of the backup.
  ASSERT_EQ(RunDossier({"note", "--dossier", d, "done", "1"}).exit_code, 0);
  EXPECT_EQ(MaskTimes(ReadWholeFile(d + "/notes.toml")),
            Edited("verify = \"qm start 100\"\n",
                   "verify = \"qm start 100\"\ndone = true\nwhen = \"<time>\"\n"));
  auto r = RunDossier({"note", "--dossier", d, "done", "3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("there are 2 next steps"), std::string::npos) << r.err;
}

TEST(NoteEditsFrontDoor, EntriesWrittenAsInlineTables) {
  TempDir t;
  const std::string d = t.path() + "/d", path = d + "/notes.toml";
  const std::string base =
      "# steps as inline tables\n"
      "next = [{ do = \"a\" }, { do = \"b\", verify = \"v\" }]\n"
      "fact = [\n"
      "  { name = \"ACS\", value = \"on\" },  # from the BIOS screen\n"
      "]\n";
  t.Write("d/notes.toml", base);
  auto r = RunDossier({"note", "--dossier", d, "done", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      MaskTimes(ReadWholeFile(path)),
      "# steps as inline tables\n"
      "next = [{ do = \"a\" }, { do = \"b\", verify = \"v\", done = true, when = \"<time>\" }]\n"
      "fact = [\n"
      "  { name = \"ACS\", value = \"on\" },  # from the BIOS screen\n"
      "]\n");
  r = RunDossier({"note", "--dossier", d, "fact", "ACS", "off", "--status", "confirmed"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      MaskTimes(ReadWholeFile(path)),
      "# steps as inline tables\n"
      "next = [{ do = \"a\" }, { do = \"b\", verify = \"v\", done = true, when = \"<time>\" }]\n"
      "fact = [\n"
      "  { name = \"ACS\", value = \"off\", status = \"confirmed\", when = \"<time>\" },  "
      "# from the BIOS screen\n"
      "]\n");
  json n = Show(d);
  EXPECT_EQ(n["next"][1]["done"], true);
  EXPECT_EQ(n["facts"][0]["status"], "confirmed");
  // A new [[next]] cannot follow a `next = [...]` array in TOML: refused, the file as it was.
  const std::string kept = ReadWholeFile(path);
  r = RunDossier({"note", "--dossier", d, "next", "c"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("notes.toml"), std::string::npos) << r.err;
  EXPECT_EQ(ReadWholeFile(path), kept);
}

// The dossier on a file system without locks (NFS whose lock daemon is not running: flock fails
// with ENOLCK): a command that writes says so at once and names the lock file; it does not wait
// its 30 s and then blame another dossier command. Nothing is written.
TEST(NoteEditsFrontDoor, ALockTheFileSystemCannotGiveIsAnErrorAtOnce) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  std::string asan = std::getenv("ASAN_OPTIONS") ? std::getenv("ASAN_OPTIONS") : "";
  // A sanitizer build checks that its runtime comes first; the preloaded library comes before it.
  asan += std::string(asan.empty() ? "" : ":") + "verify_asan_link_order=0";
  auto r = testing::RunProcess({"env", "LD_PRELOAD=" + testing::StandinLib("flock_enolck_preload"),
                                "ASAN_OPTIONS=" + asan, DOSSIER_BINARY, "note", "--dossier", d,
                                "tried", "x"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(d + "/.lock: cannot lock (No locks available)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("another dossier command"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(d + "/notes.toml"));
}

}  // namespace
}  // namespace dossier::notesfrontdoor
