// dossier note end to end: edits keep a person's comments; a broken file is refused with its line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "../tests/run_cli.h"
#include "../tests/temp_dir.h"

namespace dossier {
namespace {

using dossier::testing::Slurp;

using testing::RunCli;

TEST(NoteCommand, BuildsTheSeedStorysNotesAndKeepsComments) {
  testing::TempDir t;
  std::string d = "--dossier " + t.path() + "/dossier ";
  ASSERT_EQ(RunCli("note " + d + "goal 'Serve GLM-5-NVFP4 on 8 GPUs'").code, 0);
  // A person adds a comment by hand between two edits.
  std::string path = t.path() + "/dossier/notes.toml";
  std::string text = Slurp(path) + "# written by hand: keep me\n";
  std::ofstream(path, std::ios::binary) << text;
  EXPECT_EQ(RunCli("note " + d + "target 'total_tokens_per_s >= 1000 at concurrency 64'").code, 0);
  EXPECT_EQ(RunCli("note " + d + "target 'single_stream_tokens_per_s >= 100'").code, 0);
  EXPECT_EQ(RunCli("note " + d +
                   "machine pve-host --role host --reachable no --instructions "
                   "'commands on the host are run by a person and pasted back'")
                .code,
            0);
  EXPECT_EQ(RunCli("note " + d + "machine pve-host --reachable yes").code, 0);
  EXPECT_EQ(RunCli("note " + d + "fact ACS disabled --status just-changed --machine pve-host").code,
            0);
  EXPECT_EQ(RunCli("note " + d + "fact acs disabled --status confirmed --machine pve-host").code,
            0);
  EXPECT_EQ(
      RunCli("note " + d + "tried 'disabled ACS in the BIOS' --result 'groups renumbered'").code,
      0);
  EXPECT_EQ(RunCli("note " + d +
                   "next 'update the PCI mapping' --verify 'qm start 100' "
                   "--blocking --machine pve-host")
                .code,
            0);
  EXPECT_EQ(RunCli("note " + d + "done 1").code, 0);
  EXPECT_EQ(RunCli("note " + d + "file /etc/pve/mapping/pci.cfg --machine pve-host").code, 0);
  std::string after = Slurp(path);
  EXPECT_NE(after.find("# written by hand: keep me\n"), std::string::npos);
  EXPECT_NE(after.find("# Notes for this dossier"), std::string::npos);
  auto show = RunCli("note " + d + "show --format json");
  ASSERT_EQ(show.code, 0) << show.out;
  auto j = nlohmann::json::parse(show.out);
  EXPECT_EQ(j["goal"], "Serve GLM-5-NVFP4 on 8 GPUs");
  EXPECT_EQ(j["targets"].size(), 2u);
  EXPECT_EQ(j["targets"][0]["concurrency"], 64);
  EXPECT_EQ(j["machines"].size(), 1u);
  EXPECT_EQ(j["machines"][0]["reachable"], "yes");
  ASSERT_EQ(j["facts"].size(), 1u);  // the second 'fact' updated the first
  EXPECT_EQ(j["facts"][0]["status"], "confirmed");
  EXPECT_EQ(j["next"][0]["done"], true);
  EXPECT_EQ(j["next"][0]["blocking"], true);
  EXPECT_EQ(j["files"][0]["path"], "/etc/pve/mapping/pci.cfg");
  // The version before the last edit is kept.
  EXPECT_EQ(Slurp(path + ".bak").find("/etc/pve/mapping/pci.cfg"), std::string::npos);
}

// --size of a typed-in bandwidth figure: bytes, or K/M/G as powers of two with an optional B or
// iB, a fraction allowed; nothing else, and never zero.
TEST(NoteCommand, AMeasurementsSizeIsBytesOrKMGAsPowersOfTwo) {
  testing::TempDir t;
  const std::pair<const char*, uint64_t> sizes[] = {{"4096", 4096},       {"1", 1},
                                                    {"16M", 16u << 20},   {"16MiB", 16u << 20},
                                                    {"12KB", 12u << 10},  {"12kb", 12u << 10},
                                                    {"1.5K", 1536},       {"2G", 2ull << 30},
                                                    {" 64K ", 64u << 10}, {"512B", 512}};
  int n = 0;
  for (auto [size, bytes] : sizes) {
    const std::string d = t.path() + "/d" + std::to_string(n++);
    auto r = RunCli("note --dossier " + d +
                    " measurement --machine g --pair 0-1 --gbps 10 --size '" + size + "'");
    ASSERT_EQ(r.code, 0) << size << ": " << r.out;
    std::string rec;
    for (const auto& e : std::filesystem::directory_iterator(d + "/records"))
      rec = e.path().string();
    std::ifstream in(rec);
    auto doc = nlohmann::json::parse(in);
    ASSERT_EQ(doc["p2p"]["results"].size(), 1u) << size;
    EXPECT_EQ(doc["p2p"]["results"][0]["size_bytes"], bytes) << size;
  }
  for (const char* bad : {"0", "0K", "-4K", "x", "K", "", "16T", "1.5.2M"}) {
    const std::string d = t.path() + "/bad";
    auto r = RunCli("note --dossier " + d +
                    " measurement --machine g --pair 0-1 --gbps 10 --size '" + bad + "'");
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out;
    EXPECT_FALSE(std::filesystem::exists(d + "/records")) << bad;
  }
}

TEST(NoteCommand, ABrokenNotesFileIsAnErrorWithItsLineAndStaysAsItWas) {
  testing::TempDir t;
  const std::string broken = "[goal]\ntext = \"x\"\n[[next]]\ndo = 'a'\nblocking = yes\n";
  t.Write("dossier/notes.toml", broken);
  auto r = RunCli("note --dossier " + t.path() + "/dossier next 'another step'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("notes.toml:5:"), std::string::npos) << r.out;
  EXPECT_EQ(Slurp(t.path() + "/dossier/notes.toml"), broken);
  // The report still renders, and says why the notes are missing.
  auto rep = RunCli("report --dossier " + t.path() + "/dossier");
  EXPECT_EQ(rep.code, 0) << "report goes on without the notes (README: exit codes)";
  EXPECT_NE(rep.out.find("notes.toml:5:"), std::string::npos) << rep.out;
}

TEST(NoteCommand, BadTargetsAreUsageErrors) {
  testing::TempDir t;
  std::string d = "--dossier " + t.path() + "/dossier ";
  auto r = RunCli("note " + d + "target 'tokens >= 1000'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("unknown metric 'tokens'"), std::string::npos);
  EXPECT_EQ(RunCli("note " + d + "target 'total_tokens_per_s >= lots'").code, 2);
  EXPECT_EQ(RunCli("note " + d + "done 3").code, 2);
}

// Any one option of a kind picks that kind of figure, so the message is about what that figure
// still needs, never "give either" (which is for none or both kinds).
TEST(NoteCommand, AMeasurementsKindIsPickedByAnyOneOfItsOptions) {
  testing::TempDir t;
  std::string d = "note --dossier " + t.path() + "/d measurement --machine m ";
  const std::pair<const char*, const char*> cases[] = {
      {"--gbps 40", "--pair : expected A-B ('0-1')"},
      {"--latency-us 12", "--pair : expected A-B ('0-1')"},
      {"--size 16M", "--pair : expected A-B ('0-1')"},
      {"--pair 0-1", "--size '': expected a size"},
      {"--pair 0-1 --size 16M", "--gbps or --latency-us is needed"},
      {"--request-rate 2", "--total-tok-s or --output-tok-s is needed"},
      {"--concurrency 8", "--total-tok-s or --output-tok-s is needed"},
      {"--total-tok-s 485", "a serving figure needs its load"},
      {"--output-tok-s 400", "a serving figure needs its load"},
      {"", "give either a bandwidth"},
      {"--gbps 40 --total-tok-s 485", "give either a bandwidth"},
  };
  for (const auto& [args, says] : cases) {
    auto r = RunCli(d + args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find(says), std::string::npos) << args << ": " << r.out;
  }
  EXPECT_FALSE(std::filesystem::exists(t.path() + "/d/records"));  // nothing stored
}

// A machine known only from its measurements (a figure typed in, serve-bench from a client):
// the report shows them under the machine, with every other fact not captured, instead of
// "No measurement yet" (#25: the measurement was stored and never shown).
TEST(NoteCommand, AMeasurementOfAMachineWithNoOtherRecordIsShown) {
  testing::TempDir t;
  std::string d = "--dossier " + t.path() + "/d ";
  ASSERT_EQ(RunCli("note " + d +
                   "measurement --machine lonely --concurrency 64 --total-tok-s 485 "
                   "--output-tok-s 400 --note 'the screen'")
                .code,
            0);
  auto md = RunCli("report " + d);
  ASSERT_EQ(md.code, 0) << md.out;
  EXPECT_EQ(md.out.find("No measurement yet"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("485"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("`lonely`"), std::string::npos) << md.out;
  // Never said to be collected: reachability is not known.
  EXPECT_NE(md.out.find("| `lonely` | unknown | not known: only its measurements"),
            std::string::npos)
      << md.out;
  auto prom = RunCli("generate prometheus " + d);
  EXPECT_NE(prom.out.find("dossier_serve_tokens_per_second{machine=\"lonely\""), std::string::npos)
      << prom.out;
  EXPECT_EQ(prom.out.find("dossier_last_collect_timestamp_seconds{machine=\"lonely\"}"),
            std::string::npos)
      << prom.out;
  auto js = RunCli("report --format json " + d);
  auto j = nlohmann::json::parse(js.out.substr(js.out.find('{')), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << js.out;
  ASSERT_EQ(j["machines"].size(), 1u);
  const nlohmann::json& m = j["machines"][0];
  EXPECT_EQ(m["name"], "lonely");
  EXPECT_TRUE(m["cpu"]["sockets"].is_null());  // not captured: unknown, never 0
  EXPECT_NE(m["provenance"]["/cpu/sockets"]["unknown"].get<std::string>().find("only measurements"),
            std::string::npos)
      << m["provenance"]["/cpu/sockets"];
}

TEST(HelpCommand, ListsTheRules) {
  auto r = RunCli("help rules");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("pcie.acs-redirect"), std::string::npos);
  EXPECT_NE(r.out.find("p2p.bytes-corrupted          critical"), std::string::npos);
}

}  // namespace
}  // namespace dossier
