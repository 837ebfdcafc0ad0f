// The standing adversarial suite: dossier used as an attacker or a careless user would use it.
// Damaged machine trees (bytes that are not UTF-8, links that point out of the tree, FIFOs where
// files should be), hostile servers on 127.0.0.1 that echo what they were sent (tests/
// hostile_server.h; they stop by themselves), concurrent writers, notes files built to overflow
// a recursive parser. Each test names the promise of ../shared/DESIGN.md ("Safety") it holds
// dossier to; each failed before the fix it guards.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "import/import_run.h"
#include "measure/serve/endpoint.h"
#include "measure/serve/serve_bench.h"
#include "model/json_io.h"
#include "store/dossier_dir.h"
#include "store/notes_edit.h"
#include "tests/fixture_trees.h"
#include "tests/hostile_server.h"
#include "tests/run_cli.h"
#include "tests/temp_dir.h"
#include "util/redact.h"
#include "util/utf8.h"

namespace dossier {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;
using testing::HostileServer;
using testing::RunCli;
using testing::Slurp;
using testing::TempDir;

// A private copy of a generated fixture tree, to damage.
std::string CopyTree(const TempDir& t, const std::string& name = "seed-guest") {
  std::string dst = t.path() + "/tree";
  fs::copy(testing::FixtureTrees::Get().Path(name), dst,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  return dst;
}

void Put(const std::string& path, const std::string& content) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

// Every file under dir, concatenated: what a leak check greps.
std::string AllFiles(const std::string& dir) {
  std::string all;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) all += Slurp(e.path()) + "\n";
  return all;
}

// A shell word holding raw bytes (printf's octal escapes), for argv that is not UTF-8.
std::string Bytes(const std::string& printf_format) {
  return "\"$(printf '" + printf_format + "')\"";
}

// --- 1. Invalid UTF-8 never aborts; it is shown as \xNN -----------------------------------------

TEST(Adversarial, InvalidUtf8FromTheTreeArgvAndServersIsEscapedNotFatal) {
  TempDir t;
  std::string tree = CopyTree(t);
  Put(tree + "/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 note=\xff\xfe quiet\n");
  std::string cpuinfo = Slurp(tree + "/proc/cpuinfo");
  cpuinfo = std::regex_replace(cpuinfo, std::regex("model name\t: "), "model name\t: \xc3(bad) ");
  Put(tree + "/proc/cpuinfo", cpuinfo);
  // A server's argv with a stray byte and an environment value cut inside a character.
  std::string cmdline = Slurp(tree + "/proc/2417/cmdline");
  Put(tree + "/proc/2417/cmdline", cmdline + std::string("--served-model-name\0glm\xe9\0", 24));
  std::string long_value(8191, 'a');
  long_value += "\xe2\x82\xac\xe2\x82\xac";  // the 8,192-byte cut falls inside the first euro
  std::string env = Slurp(tree + "/proc/2417/environ");
  Put(tree + "/proc/2417/environ", env + "NCCL_DEBUG_SUBSYS=" + long_value + std::string(1, '\0'));
  // Boot ids cut to 8 bytes in the report: a multi-byte character straddles byte 8.
  Put(tree + "/proc/sys/kernel/random/boot_id", "a\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9-1\n");
  std::string dossier = t.path() + "/d";
  // A machine name given on the command line is checked (#30): refused, shown escaped, exit 2.
  CliResult c0 = RunCli("collect --root " + tree + " --machine " + Bytes("m\\377x") +
                        " --dossier " + dossier + " --quiet");
  EXPECT_EQ(c0.code, 2) << c0.out;
  EXPECT_NE(c0.out.find("m\\xffx"), std::string::npos) << c0.out;
  // The tree's own hostname is not checked: it is escaped on the way in.
  Put(tree + "/proc/sys/kernel/hostname", "m\377x\n");
  CliResult c1 = RunCli("collect --root " + tree + " --dossier " + dossier + " --quiet");
  ASSERT_EQ(c1.code, 0) << c1.out;
  Put(tree + "/proc/sys/kernel/random/boot_id", "b\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9-2\n");
  CliResult c2 = RunCli("collect --root " + tree + " --dossier " + dossier + " --quiet");
  ASSERT_EQ(c2.code, 0) << c2.out;

  std::string records = AllFiles(dossier + "/records");
  EXPECT_TRUE(IsValidUtf8(records));
  EXPECT_NE(records.find("note=\\\\xff\\\\xfe"), std::string::npos);  // visible, JSON-escaped
  EXPECT_NE(records.find("m\\\\xffx"), std::string::npos);
  EXPECT_NE(records.find("glm\\\\xe9"), std::string::npos);
  EXPECT_EQ(records.find("\xef\xbf\xbd"), std::string::npos) << "U+FFFD: a door was missed";

  for (const char* format : {"json", "md"}) {
    CliResult r = RunCli(std::string("report --format ") + format + " --dossier " + dossier);
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_TRUE(IsValidUtf8(r.out)) << format;
    if (std::string(format) == "json") {
      size_t brace = r.out.find('{');
      ASSERT_NE(brace, std::string::npos);
      EXPECT_FALSE(nlohmann::json::parse(r.out.substr(brace), nullptr, false).is_discarded());
    }
  }
  CliResult d = RunCli("diff --format json --dossier " + dossier);
  EXPECT_EQ(d.code, 0) << d.out;
  EXPECT_TRUE(IsValidUtf8(d.out));
}

TEST(Adversarial, InvalidUtf8InAUrlIsEscapedNotAnAbort) {
  TempDir t;
  std::string dossier = t.path() + "/d";
  CliResult r =
      RunCli("serve-bench " + Bytes("http://127.0.0.1:1/\\377") +
             " --model m --concurrency 1 --num-prompts 1 --timeout 1 -q --dossier " + dossier);
  EXPECT_EQ(r.code, 1) << r.out;  // the measurement failed (nothing listens); no abort (134)
  EXPECT_TRUE(IsValidUtf8(r.out));
  std::string records = AllFiles(dossier + "/records");
  EXPECT_NE(records.find("127.0.0.1:1/\\\\xff"), std::string::npos) << records;
}

// --- 2. Secrets planted in every form never reach a record ---------------------------------------

TEST(Adversarial, SecretsInAServersArgvAndEnvironmentNeverReachTheRecord) {
  TempDir t;
  std::string tree = CopyTree(t);
  std::vector<std::string> argv = {"python3",
                                   "-m",
                                   "vllm.entrypoints.openai.api_server",
                                   "--model",
                                   "/models/GLM-5-NVFP4",
                                   "-k",
                                   "PLANT1-k",
                                   "-H",
                                   "Authorization: Bearer PLANT2-bearer",
                                   "--header=X-Api-Key: PLANT3-header",
                                   "--env=HF_TOKEN=PLANT4-env",
                                   "--hf-overrides",
                                   "{\"api_key\": \"PLANT5-json\"}",
                                   "--url",
                                   "https://u:PLANT6/pw%2F@h/x?X-Amz-Signature=PLANT7-sig",
                                   "--max-total-tokens",
                                   "4096"};
  std::string cmd;
  for (const auto& a : argv) cmd += a + std::string(1, '\0');
  Put(tree + "/proc/2417/cmdline", cmd);
  std::string env = Slurp(tree + "/proc/2417/environ");
  env += std::string("VLLM_EXTRA_ARGS=--api-key PLANT8-extra") + '\0' +
         "HF_HUB_AUTH=Bearer PLANT9-auth" + '\0' + "WANDB_API_KEY=PLANTA-wandb" + '\0' +
         "TOKENIZERS_PARALLELISM=false" + '\0';
  Put(tree + "/proc/2417/environ", env);
  std::string dossier = t.path() + "/d";
  CliResult r = RunCli("collect --root " + tree + " --dossier " + dossier + " --quiet");
  ASSERT_EQ(r.code, 0) << r.out;
  std::string all = AllFiles(dossier);
  EXPECT_EQ(all.find("PLANT"), std::string::npos)
      << all.substr(all.find("PLANT") == std::string::npos ? 0 : all.find("PLANT") - 200, 400);
  EXPECT_NE(all.find("4096"), std::string::npos);  // look-alikes kept
  EXPECT_NE(all.find("TOKENIZERS_PARALLELISM"), std::string::npos);
  CliResult md = RunCli("collect --root " + tree + " --format md");
  EXPECT_EQ(md.out.find("PLANT"), std::string::npos);
}

// --- 3. A server that echoes the request cannot make serve-bench print or store the key --------

serve::BenchOptions EchoOptions(const HostileServer& s, bool with_model) {
  serve::BenchOptions o;
  o.endpoint = *serve::ParseEndpoint(s.base_url("alice:p%40ss-PLANTURL"));
  o.api_key = "sk-PLANTKEY-0123456789";
  o.concurrency = {1};
  o.num_prompts = 2;
  o.input_len = 8;
  o.output_len = 4;
  o.timeout_s = 5;
  o.max_consecutive_failures = 0;
  if (with_model) o.model = "m";
  return o;
}

void ExpectNoSecret(const std::string& text) {
  EXPECT_EQ(text.find("PLANT"), std::string::npos) << text;
  EXPECT_EQ(text.find(Base64("alice:p@ss-PLANTURL")), std::string::npos) << text;
  EXPECT_EQ(text.find("sk-PLANT"), std::string::npos) << text;
}

TEST(Adversarial, EchoedKeyAndCredentialsAreRedactedInFailuresErrorsAndModel) {
  for (auto behaviour : {HostileServer::kEcho401, HostileServer::kEchoErrorEvent}) {
    HostileServer server(behaviour);
    auto m = serve::RunServeBench(EchoOptions(server, /*with_model=*/true), {});
    ASSERT_TRUE(m) << m.error().message;
    ASSERT_FALSE(server.heads().empty());
    // The server did see the secrets (so the test is not vacuous)…
    EXPECT_NE(server.heads()[0].find("PLANTKEY"), std::string::npos);
    // …and none of them comes back out.
    std::string stored = DumpJson(ServeToJson(*m), 1);
    ExpectNoSecret(stored);
    ASSERT_FALSE(m->runs.empty());
    EXPECT_FALSE(m->runs[0].failures.empty()) << stored;
  }
  {
    HostileServer server(HostileServer::kEcho401);  // /v1/models answers with the echo too
    auto m = serve::RunServeBench(EchoOptions(server, /*with_model=*/false), {});
    ASSERT_FALSE(m);
    ExpectNoSecret(m.error().message);
  }
  {
    HostileServer server(HostileServer::kEchoModels);  // the model id is the Authorization
    auto m = serve::RunServeBench(EchoOptions(server, /*with_model=*/false), {});
    if (m) ExpectNoSecret(DumpJson(ServeToJson(*m), 1));
    if (!m) ExpectNoSecret(m.error().message);
  }
}

TEST(Adversarial, EchoedKeyNeverReachesTheTerminalOrTheDossier) {
  HostileServer server(HostileServer::kEcho401);
  TempDir t;
  std::string dossier = t.path() + "/d";
  CliResult r = RunCli("serve-bench " + server.base_url("alice:p%40ss-PLANTURL") +
                       " --model m --concurrency 1 --num-prompts 2 --input-len 8 --output-len 4"
                       " --timeout 5 --api-key sk-PLANTKEY-0123456789 --dossier " +
                       dossier);
  ExpectNoSecret(r.out);
  if (fs::exists(dossier)) ExpectNoSecret(AllFiles(dossier));
}

// --- Bounds: a response without end is cut; a dead server cannot hold serve-bench past --deadline

TEST(Adversarial, AnEndlessResponseIsCutNotHeld) {
  HostileServer server(HostileServer::kEndlessBody);
  serve::BenchOptions o = EchoOptions(server, /*with_model=*/true);
  o.api_key.clear();
  o.endpoint = *serve::ParseEndpoint(server.base_url());
  o.num_prompts = 1;
  o.timeout_s = 60;
  auto m = serve::RunServeBench(o, {});
  ASSERT_TRUE(m) << m.error().message;
  ASSERT_EQ(m->runs.size(), 1u);
  std::string stored = DumpJson(ServeToJson(*m), 1);
  EXPECT_NE(stored.find("response larger than 64 MiB"), std::string::npos) << stored;
}

TEST(Adversarial, ASilentServerEndsAtTheDeadlineWithWhatWasMeasured) {
  HostileServer server(HostileServer::kSilent, /*lifetime_s=*/20);
  serve::BenchOptions o = EchoOptions(server, /*with_model=*/true);
  o.api_key.clear();
  o.endpoint = *serve::ParseEndpoint(server.base_url());
  o.concurrency = {1, 2, 4};
  o.timeout_s = 600;  // per request: the deadline must bound it, not this
  o.deadline_s = 1;
  auto m = serve::RunServeBench(o, {});
  ASSERT_TRUE(m) << m.error().message;
  EXPECT_TRUE(m->interrupted);
  EXPECT_LT(m->runs.size(), 3u);
}

// A `kill` or a closed terminal stops serve-bench like Ctrl-C: what was measured is stored,
// marked interrupted, and the exit is a failure (1), not death by the signal. The signal is sent
// once the child has said it started (its handlers are installed before that line), so the test
// does not depend on timing.
TEST(Adversarial, SigtermAndSighupStopServeBenchAndKeepTheRecord) {
  for (int sig : {SIGTERM, SIGHUP}) {
    SCOPED_TRACE(sig == SIGTERM ? "SIGTERM" : "SIGHUP");
    HostileServer server(HostileServer::kSilent, /*lifetime_s=*/60);
    TempDir t;
    const std::string d = t.path() + "/d";
    int err[2];
    ASSERT_EQ(::pipe(err), 0);
    pid_t p = ::fork();
    if (p == 0) {
      ::dup2(err[1], 2);
      ::close(err[0]);
      ::close(err[1]);
      std::string url = server.base_url();
      ::execl(DOSSIER_BINARY, "dossier", "serve-bench", url.c_str(), "--model", "m",
              "--concurrency", "1", "--num-prompts", "4", "--timeout", "600", "--deadline", "600",
              "--machine", "box", "--dossier", d.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(err[1]);
    std::string text;
    char buf[512];
    while (text.find("serve-bench ") == std::string::npos) {
      ssize_t n = ::read(err[0], buf, sizeof buf);
      if (n <= 0) break;
      text.append(buf, static_cast<size_t>(n));
    }
    ASSERT_NE(text.find("serve-bench "), std::string::npos) << text;
    ::kill(p, sig);
    for (ssize_t n; (n = ::read(err[0], buf, sizeof buf)) > 0;)
      text.append(buf, static_cast<size_t>(n));
    ::close(err[0]);
    int status = 0;
    ASSERT_EQ(::waitpid(p, &status, 0), p);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status) << "\n" << text;
    EXPECT_EQ(WEXITSTATUS(status), 1) << text;
    // The record is there, marked interrupted.
    bool found = false;
    for (const auto& e : std::filesystem::directory_iterator(d + "/records")) {
      auto j = nlohmann::json::parse(Slurp(e.path().string()), nullptr, false);
      if (j.is_discarded() || j.value("kind", "") != "serve-bench") continue;
      found = true;
      EXPECT_TRUE(j["serve"].value("interrupted", false)) << j.dump().substr(0, 400);
    }
    EXPECT_TRUE(found) << text;
  }
}

// --- 4. Concurrent note edits keep every entry; a person's edit is never overwritten -----------

TEST(Adversarial, TenParallelNoteEditsKeepTenEntries) {
  TempDir t;
  std::string dossier = t.path() + "/d";
  std::vector<pid_t> pids;
  for (int i = 0; i < 10; ++i) {
    pid_t p = ::fork();
    if (p == 0) {
      std::string what = "attempt " + std::to_string(i);
      ::execl(DOSSIER_BINARY, "dossier", "note", "--dossier", dossier.c_str(), "tried",
              what.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    pids.push_back(p);
  }
  for (pid_t p : pids) {
    int st = 0;
    ::waitpid(p, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
  std::string notes = Slurp(dossier + "/notes.toml");
  size_t n = 0;
  for (size_t at = notes.find("[[tried]]\n"); at != std::string::npos;
       at = notes.find("[[tried]]\n", at + 1))
    ++n;
  EXPECT_EQ(n, 10u) << notes;
  for (int i = 0; i < 10; ++i)
    EXPECT_NE(notes.find("attempt " + std::to_string(i) + "\""), std::string::npos) << i;
}

TEST(Adversarial, AnEditMadeWhileNoteRunsIsNeverClobbered) {
  TempDir t;
  std::string path = t.path() + "/notes.toml";
  Put(path, "[goal]\ntext = \"fast\"\n");
  auto ed = NotesEditor::Open(path);
  ASSERT_TRUE(ed) << ed.error().message;
  ASSERT_TRUE(ed->Append("tried", {{"what", std::string("x")}}));
  // A person saves from an editor meanwhile (same size, so only the content tells).
  Put(path, "[goal]\ntext = \"FAST\"\n");
  auto saved = ed->Save();
  ASSERT_FALSE(saved);
  EXPECT_NE(saved.error().message.find("changed since it was read"), std::string::npos);
  EXPECT_EQ(Slurp(path), "[goal]\ntext = \"FAST\"\n");
}

// --- 5. Notes built to overflow a recursive parser: an error naming the line ------------------

TEST(Adversarial, DeepNotesAreRefusedWithTheLineNotACrash) {
  TempDir t;
  std::string dossier = t.path() + "/d";
  fs::create_directories(dossier);
  std::string key = "a";
  for (int i = 0; i < 40000; ++i) key += ".a";
  std::string arrays = "x = " + std::string(5000, '[') + std::string(5000, ']') + "\n";
  std::string tables = "y = " + std::string(5000, '{') + "\n";
  for (const std::string& body :
       std::vector<std::string>{key + " = 1\n", arrays, "[" + key + "]\n", tables}) {
    Put(dossier + "/notes.toml", "# notes\n\n" + body);
    for (const char* cmd : {"note show", "note tried x", "report"}) {
      CliResult r = RunCli(std::string(cmd) + " --dossier " + dossier);
      // A broken notes file stops `note` (exit 2); `report` names it and goes on without it.
      EXPECT_EQ(r.code, std::string(cmd) == "report" ? 0 : 2)
          << cmd << ": " << r.out.substr(0, 300);
      EXPECT_NE(r.out.find("notes.toml:3:"), std::string::npos)
          << cmd << ": " << r.out.substr(0, 300);
    }
  }
}

// --- 6. --root: a link to / inside the tree is the tree's root, never this machine's ----------

TEST(Adversarial, ProcRootLinkToSlashStaysInsideTheTree) {
  TempDir t;
  std::string tree = CopyTree(t);
  // A model directory that exists only on the machine running the test, outside the tree.
  TempDir host;
  Put(host.path() + "/model/config.json",
      "{\"architectures\": [\"HostOnlyLeakArch\"], \"model_type\": \"leak\"}");
  std::string cmd;
  for (std::string a : {"python3", "-m", "sglang.launch_server", "--model-path"}) cmd += a + '\0';
  cmd += host.path() + "/model" + std::string(1, '\0');
  Put(tree + "/proc/2417/cmdline", cmd);
  // The server runs in another mount namespace whose root link points at "/".
  fs::create_directories(tree + "/proc/2417/ns");
  fs::create_directories(tree + "/proc/self/ns");
  fs::create_symlink("mnt:[4026532000]", tree + "/proc/2417/ns/mnt");
  fs::create_symlink("mnt:[4026531840]", tree + "/proc/self/ns/mnt");
  fs::remove(tree + "/proc/2417/root");
  fs::create_symlink("/", tree + "/proc/2417/root");
  CliResult r = RunCli("collect --root " + tree + " --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.find("HostOnlyLeakArch"), std::string::npos);
  EXPECT_EQ(r.out.find("\"leak\""), std::string::npos);
}

// --- Also: FIFOs, empty paths ------------------------------------------------------------------

// A command that must finish: run under timeout(1), so a hang fails the test instead of CI.
CliResult RunBounded(const std::string& args) {
  return RunCli("--version >/dev/null; timeout 20 " + std::string(DOSSIER_BINARY) + " " + args);
}

TEST(Adversarial, FifosAreRefusedNotWaitedOn) {
  TempDir t;
  std::string dossier = t.path() + "/d";
  fs::create_directories(dossier + "/records");
  ASSERT_EQ(::mkfifo((dossier + "/notes.toml").c_str(), 0644), 0);
  CliResult n = RunBounded("note show --dossier " + dossier);
  EXPECT_EQ(n.code, 2) << n.out;
  EXPECT_NE(n.out.find("not a regular file"), std::string::npos) << n.out;
  fs::remove(dossier + "/notes.toml");

  std::string tree = CopyTree(t);
  ASSERT_EQ(RunBounded("collect --root " + tree + " --dossier " + dossier + " --quiet").code, 0);
  ASSERT_EQ(::mkfifo((dossier + "/records/000099-collect-fifo.json").c_str(), 0644), 0);
  fs::create_directories(dossier + "/records/000100-collect-dir.json");
  CliResult r = RunBounded("report --dossier " + dossier);
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("not a regular file"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("is a directory"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("larger than 256 MiB"), std::string::npos) << r.out;

  // FIFOs inside the tree: a /proc file and the PCI name database.
  fs::remove(tree + "/proc/cpuinfo");
  ASSERT_EQ(::mkfifo((tree + "/proc/cpuinfo").c_str(), 0644), 0);
  fs::create_directories(tree + "/usr/share/misc");
  fs::remove(tree + "/usr/share/misc/pci.ids");
  ASSERT_EQ(::mkfifo((tree + "/usr/share/misc/pci.ids").c_str(), 0644), 0);
  CliResult c = RunBounded("collect --root " + tree + " --format md");
  EXPECT_EQ(c.code, 0) << c.out.substr(0, 500);
}

TEST(Adversarial, RecordsSortByNumberAndOrphansAreReportedThenRemoved) {
  TempDir t;
  DossierDir dir(t.path() + "/d");
  auto first = dir.Append({{"kind", "note"}}, "a");
  ASSERT_TRUE(first) << first.error().message;
  std::string records = dir.records_dir();
  // Past six digits the text order breaks: 1000000 sorts before 999999 as text.
  fs::copy_file(*first, records + "/999999-note-a.json");
  fs::copy_file(*first, records + "/1000000-note-a.json");
  // A write killed before its link leaves its temporary file (pid 2^22+1 cannot exist).
  Put(records + "/.tmp-4194305-123", "{\"half\": ");
  std::vector<std::string> warnings;
  auto loaded = dir.Load(&warnings);
  ASSERT_TRUE(loaded);
  ASSERT_EQ(loaded->size(), 3u);
  EXPECT_EQ((*loaded)[1].sequence, 999999);
  EXPECT_EQ((*loaded)[2].sequence, 1000000);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("interrupted"), std::string::npos) << warnings[0];
  auto next = dir.Append({{"kind", "note"}}, "b");
  ASSERT_TRUE(next);
  EXPECT_NE(next->find("1000001-"), std::string::npos) << *next;
  EXPECT_FALSE(fs::exists(records + "/.tmp-4194305-123"));
}

TEST(Adversarial, EmptyPathsAreUsageErrors) {
  TempDir t;
  for (std::string args : std::vector<std::string>{
           "collect --dossier '' --root /nonexistent-root", "report --dossier ''",
           "note --dossier '' tried x", "collect --root ''", "diff --dossier ''"}) {
    CliResult r = RunCli(args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find("empty"), std::string::npos) << args << ": " << r.out;
  }
}

TEST(Adversarial, ServeBenchFlagsOutsideTheirRangeAreUsageErrors) {
  TempDir t;
  fs::create_directories(t.path() + "/dataset-dir");
  const std::string base = "serve-bench http://127.0.0.1:1 --model m --no-store ";
  for (std::string flags : std::vector<std::string>{
           "--timeout nan", "--timeout inf", "--timeout 1e-300", "--timeout ''",
           "--request-rate 1e-300", "--request-rate nan", "--request-rate ''", "--concurrency ''",
           "--duration nan", "--deadline 0", "--deadline inf", "--api-key ''", "--model ''",
           "--slo ''", "--dataset " + t.path() + "/dataset-dir"}) {
    CliResult r = RunBounded(base + flags);
    EXPECT_EQ(r.code, 2) << flags << ": " << r.out;
    EXPECT_EQ(r.out.find("terminate called"), std::string::npos) << flags << ": " << r.out;
  }
}

// --- Imports are redacted as collect is: pasted text and records from elsewhere ------------------

// A paste as a person makes it: a VM's config with its cloud-init password, an exported token,
// an environment dump, a private key, a benchmark run with the key on its command line. No
// planted secret may reach the record, the terminal or a rendered report; the facts still come.
std::string SecretPaste() {
  return "root@pve:~# qm config 100\n"
         "agent: 1\n"
         "args: -fw_cfg name=opt/tok,string=Authorization: Bearer PLANT1fwcfg\n"
         "bios: ovmf\n"
         "cipassword: PLANT2ci\n"
         "cores: 32\n"
         "description: admin password=PLANT3desc, ask Bob\n"
         "hostpci0: 0000:01:00.0,pcie=1\n"
         "machine: q35\n"
         "memory: 262144\n"
         "name: llm\n"
         "root@pve:~# export HF_TOKEN=PLANT4export\n"
         "root@pve:~# env\n"
         "HF_TOKEN=PLANT5env\n"
         "OPENAI_API_KEY=PLANT6env\n"
         "root@pve:~# cat ~/.ssh/id_ed25519\n"
         "-----BEGIN OPENSSH PRIVATE KEY-----\n"
         "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
         "QyNTUxOQAAACBKEYBODYPLANT7keybodyKEYBODYAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n"
         "-----END OPENSSH PRIVATE KEY-----\n"
         "root@pve:~# vllm bench serve --base-url http://u:PLANT8pw@10.0.0.2:8000 --header "
         "\"Authorization: Bearer PLANT9hdr\" --model m\n" +
         Slurp(std::string(DOSSIER_SOURCE_DIR) + "/tests/corpus/import-serve-bench/vllm.txt");
}

void ExpectNoPlant(const std::string& what, const std::string& text) {
  size_t at = text.find("PLANT");
  EXPECT_EQ(at, std::string::npos)
      << what << ": " << text.substr(at == std::string::npos ? 0 : (at > 300 ? at - 300 : 0), 600);
  EXPECT_EQ(text.find("KEYBODY"), std::string::npos) << what;
  EXPECT_EQ(text.find("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"), std::string::npos) << what;
}

TEST(Adversarial, SecretsInAPasteNeverReachTheRecordTheTerminalOrAReport) {
  TempDir t;
  Put(t.path() + "/paste.txt", SecretPaste());
  const std::string d = t.path() + "/d";
  CliResult r = RunCli("import " + t.path() + "/paste.txt --machine pve --dossier " + d);
  ASSERT_EQ(r.code, 0) << r.out;
  ExpectNoPlant("stderr", r.out);
  std::string all = AllFiles(d);
  ExpectNoPlant("records", all);
  // What the paste says is still there: the VM's device, the benchmark, the key block's place.
  EXPECT_NE(all.find("0000:01:00.0"), std::string::npos);
  EXPECT_NE(all.find("serve-bench"), std::string::npos);
  EXPECT_NE(all.find(kRedactedKey), std::string::npos);
  EXPECT_NE(all.find("cipassword: <redacted>"), std::string::npos);
  for (const char* fmt : {"md", "json", "html"}) {
    CliResult rep = RunCli(std::string("report --dossier ") + d + " --format " + fmt);
    EXPECT_EQ(rep.code, 0) << rep.out;
    ExpectNoPlant(fmt, rep.out);
  }
  for (const char* fmt : {"md", "json"}) {
    CliResult imp =
        RunCli("import " + t.path() + "/paste.txt --machine pve --format " + std::string(fmt));
    ExpectNoPlant(std::string("import --format ") + fmt, imp.out);
  }
}

// A dossier JSON file from another machine is untrusted: what its writer should have redacted is
// redacted again here (argv, env, flags, the kernel command line, a VM's arguments).
TEST(Adversarial, ADossierJsonFromElsewhereIsRedactedAgain) {
  TempDir t;
  CliResult c = RunCli("collect --root " + testing::FixtureTrees::Get().Path("seed-guest") +
                       " --format json");
  ASSERT_EQ(c.code, 0) << c.out.substr(0, 2000);
  nlohmann::json doc = nlohmann::json::parse(c.out.substr(c.out.find('{')));
  nlohmann::json& m =
      doc["machines"][0].contains("machine") ? doc["machines"][0]["machine"] : doc["machines"][0];
  m["kernel"]["cmdline"] = "BOOT_IMAGE=/vmlinuz rootpassword=PLANTa rootpw=PLANTb keyboard=us";
  nlohmann::json server = {
      {"pid", 7},
      {"engine", "vllm"},
      {"argv", {"vllm", "serve", "m", "--api-key", "PLANTc", "--hf-token=", "--token", "PLANTd"}},
      {"flags", {{"--api-key", "PLANTe"}, {"--tp", "8"}}},
      {"env", {{"HF_TOKEN", "PLANTf"}, {"VLLM_ARGS", "--api-key PLANTg"}}}};
  m["servers"] = nlohmann::json::array({server});
  m["hostname"] = "gpu1 Authorization: Bearer PLANTh";
  Put(t.path() + "/other.json", doc.dump(2));
  const std::string d = t.path() + "/d";
  CliResult r = RunCli("import " + t.path() + "/other.json --machine other --dossier " + d);
  ASSERT_EQ(r.code, 0) << r.out;
  ExpectNoPlant("stderr", r.out);
  std::string all = AllFiles(d);
  ExpectNoPlant("records", all);
  EXPECT_NE(all.find("keyboard=us"), std::string::npos);  // look-alikes kept
  for (const char* fmt : {"md", "json", "html"}) {
    CliResult rep = RunCli(std::string("report --dossier ") + d + " --format " + fmt);
    EXPECT_EQ(rep.code, 0) << rep.out.substr(0, 2000);
    ExpectNoPlant(fmt, rep.out);
  }
}

// --- Numbers outside their domain are unknown, with the file and the key ------------------------

TEST(Adversarial, ImportedNumbersOutsideTheirDomainAreUnknownNotWrongFacts) {
  TempDir t;
  CliResult c = RunCli("collect --root " + testing::FixtureTrees::Get().Path("seed-guest") +
                       " --format json");
  ASSERT_EQ(c.code, 0);
  nlohmann::json doc = nlohmann::json::parse(c.out.substr(c.out.find('{')));
  nlohmann::json& m =
      doc["machines"][0].contains("machine") ? doc["machines"][0]["machine"] : doc["machines"][0];
  m["memory"]["total_bytes"] = -1;
  m["cpu"]["threads"] = -7;
  m["cpu"]["cores"] = 1.5;
  m["cpu"]["sockets"] = 1e30;
  Put(t.path() + "/other.json", doc.dump(2));
  CliResult r = RunCli("import " + t.path() + "/other.json --machine other --format json");
  ASSERT_EQ(r.code, 0) << r.out.substr(0, 2000);
  for (const char* key : {"/memory/total_bytes", "/cpu/threads", "/cpu/cores", "/cpu/sockets"}) {
    EXPECT_NE(r.out.find(t.path() + "/other.json: value outside its domain at " + key),
              std::string::npos)
        << key;
  }
  nlohmann::json out = nlohmann::json::parse(r.out.substr(r.out.find("\n{") + 1));
  const nlohmann::json& om =
      out["machines"][0].contains("machine") ? out["machines"][0]["machine"] : out["machines"][0];
  EXPECT_TRUE(om["memory"]["total_bytes"].is_null()) << om["memory"];
  EXPECT_TRUE(om["cpu"]["threads"].is_null());
  EXPECT_TRUE(om["cpu"]["cores"].is_null());
  EXPECT_TRUE(om["cpu"]["sockets"].is_null());
  EXPECT_EQ(r.out.find("16384 PiB"), std::string::npos);

  // A record on disk edited by hand (or by a tool of its own) is read the same way by report.
  const std::string d = t.path() + "/d";
  ASSERT_EQ(RunCli("collect --root " + testing::FixtureTrees::Get().Path("seed-guest") +
                   " --dossier " + d + " --quiet")
                .code,
            0);
  std::string rec;
  for (const auto& e : fs::directory_iterator(d + "/records")) rec = e.path().string();
  nlohmann::json rj = nlohmann::json::parse(Slurp(rec));
  rj["machine"]["memory"]["total_bytes"] = -1;
  Put(rec, rj.dump(2));
  CliResult rep = RunCli("report --dossier " + d + " --format md");
  EXPECT_EQ(rep.out.find("16384 PiB"), std::string::npos);
  EXPECT_NE(rep.out.find(fs::path(rec).filename().string()), std::string::npos) << rep.out;
  EXPECT_NE(rep.out.find("value outside its domain at /memory/total_bytes"), std::string::npos)
      << rep.out.substr(0, 3000);

  // nvidia-smi -q's "Current : -5": no "Gen-5 x-5", the link is unknown and the line is named.
  std::string q =
      Slurp(std::string(DOSSIER_SOURCE_DIR) + "/tests/corpus/import-nvidia-smi-q/h100nvl.txt");
  for (const char* from : {"                Current                   : 5\n",
                           "                Current                   : 16x\n"}) {
    size_t at = q.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    q.replace(at, std::strlen(from), "                Current                   : -5\n");
  }
  Put(t.path() + "/q.txt", q);
  CliResult s = RunCli("import " + t.path() + "/q.txt --machine g --format md");
  ASSERT_EQ(s.code, 0) << s.out.substr(0, 2000);
  EXPECT_EQ(s.out.find("Gen-5"), std::string::npos) << s.out.substr(0, 4000);
  EXPECT_EQ(s.out.find("x-5"), std::string::npos);
  EXPECT_NE(s.out.find("q.txt:"), std::string::npos);
  EXPECT_NE(s.out.find("current/gen = -5 is below 0"), std::string::npos) << s.out.substr(0, 4000);
  // Past the ceiling: "Current : 64" for the width is no x64 link.
  std::string w =
      Slurp(std::string(DOSSIER_SOURCE_DIR) + "/tests/corpus/import-nvidia-smi-q/h100nvl.txt");
  size_t at = w.find("                Current                   : 16x\n");
  ASSERT_NE(at, std::string::npos);
  w.replace(at, std::strlen("                Current                   : 16x\n"),
            "                Current                   : 64x\n");
  Put(t.path() + "/w.txt", w);
  CliResult x = RunCli("import " + t.path() + "/w.txt --machine g --format md");
  ASSERT_EQ(x.code, 0) << x.out.substr(0, 2000);
  EXPECT_EQ(x.out.find("x64"), std::string::npos) << x.out.substr(0, 4000);
  EXPECT_NE(x.out.find("current/width = 64 is above 32"), std::string::npos)
      << x.out.substr(0, 4000);
}

// --- No importer lets an exception out ----------------------------------------------------------

// The fuzz soak's uncaught nlohmann::json::type_error (import-virsh-dumpxml, seed 3778315455):
// pugixml decodes "&#xD800;" into bytes that are not UTF-8, and the record could not be written.
// What every import passes through makes its strings valid UTF-8.
TEST(Adversarial, ACharacterReferenceToASurrogateIsEscapedNotAnException) {
  for (const char* f : {"import-virsh-dumpxml/charref-surrogate.xml",
                        "import-nccl-topo-xml/charref-surrogate.xml"}) {
    std::string text = Slurp(std::string(DOSSIER_SOURCE_DIR) + "/tests/corpus/" + f);
    import::ImportRun run;
    ASSERT_TRUE(import::ImportText(text, "x.xml", nullptr, &run)) << f;
    EXPECT_EQ(run.recognised_parts, 1u) << f;
    EXPECT_NO_THROW((void)MachineToJson(run.imported.machine).dump()) << f;
    for (const auto& d : import::ImportRecords(run, "m", "2026-01-01T00:00:00Z"))
      EXPECT_NO_THROW((void)d.dump()) << f;
  }
}

// Whatever an importer throws becomes the part's error with its lines, at the table's boundary.
// (Its detect answers, so that --as reaches parse: a forced format is checked by detect first.)
TEST(Adversarial, AnImporterThatThrowsBecomesAnErrorWithTheLines) {
  import::Importer thrower{"thrower", "throws", {},
                           [](const import::Lines&, size_t)
                               ->bool {
                                 throw 1;
}
, [](const import::Lines&) -> int { return 100; },
    [](const import::Lines&, const import::ImportSource&, import::Imported*) -> Status {
      throw nlohmann::json::type_error::create(316, "invalid UTF-8 byte", nullptr);
    }
};  // namespace
import::ImportRun run;
ASSERT_TRUE(import::ImportText("a\nb\nc\n", "p.txt", &thrower, &run));
EXPECT_EQ(run.recognised_parts, 0u);
ASSERT_EQ(run.files.size(), 1u);
std::string notes;
for (const auto& n : run.files[0].notes) notes += n + "\n";
EXPECT_NE(notes.find("lines 1-3: the thrower reader failed on this part"), std::string::npos)
    << notes;
EXPECT_NE(notes.find("invalid UTF-8 byte"), std::string::npos) << notes;
EXPECT_FALSE(import::StartsGuarded(thrower, {{1, "a"}}, 0));
import::Importer detect_thrower = thrower;
detect_thrower.detect = [](const import::Lines&) -> int { throw std::runtime_error("detect"); };
EXPECT_EQ(import::DetectGuarded(detect_thrower, {{1, "a"}}), 0);
}  // namespace dossier

}  // namespace
}  // namespace dossier
