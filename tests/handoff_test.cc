// The handoff document as a person uses it: the seed story typed in with `dossier note`, the
// summary on the first screen, staleness that is true in the order people work (change, reboot,
// collect, note), a p2p run on this machine against a captured tree, and the HTML page opened in
// a real browser (headless Chromium).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/fixture_trees.h"
#include "tests/run_cli.h"
#include "tests/standin_paths.h"
#include "tests/temp_dir.h"

namespace dossier {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::FixtureTree;
using testing::RunCli;
using testing::TempDir;

// Runs `dossier ARGS --dossier D`, expecting exit 0. (Not "Ok": in a unity batch with
// util/result.h that would hide dossier::Ok.)
std::string RunOk(const std::string& args, const std::string& d) {
  auto r = RunCli(args + " --dossier " + d);
  EXPECT_EQ(r.code, 0) << args << "\n" << r.out;
  return r.out;
}

// The seed story's host before and after the ACS change, its guest, and the notes as a person
// types them.
void SeedStory(const std::string& d) {
  RunOk("collect -q --machine pve-host --root " + FixtureTree("seed-host-before-acs"), d);
  RunOk("collect -q --machine pve-host --root " + FixtureTree("seed-host"), d);
  RunOk("collect -q --machine guest --root " + FixtureTree("seed-guest"), d);
  RunOk("note goal 'Serve GLM-5-NVFP4 with SGLang on 8x RTX PRO 6000 Blackwell'", d);
  RunOk("note target 'total_tokens_per_s >= 1000 at concurrency 64'", d);
  RunOk("note target 'single_stream_tokens_per_s >= 100'", d);
  RunOk("note machine pve-host --role host --reachable no --instructions 'pasted back'", d);
  RunOk("note machine guest --role guest --reachable yes --guest-of pve-host", d);
  RunOk("note fact ACS disabled --status just-changed --machine pve-host", d);
  RunOk("note fact IOMMU enabled --status unknown --machine pve-host", d);
  RunOk(
      "note tried 'Disabled ACS in the host BIOS' --machine pve-host --result 'IOMMU groups "
      "renumbered, not merged; P2P still NS'",
      d);
  RunOk(
      "note next 'Update /etc/pve/mapping/pci.cfg with the new IOMMU group numbers' --verify "
      "'qm start 100' --blocking --machine pve-host",
      d);
  RunOk(
      "note next 'Launch SGLang with NCCL_TOPO_FILE set and benchmark' --verify 'dossier "
      "serve-bench http://localhost:30000 --concurrency 1,64' --machine guest",
      d);
}

std::string Section(const std::string& md, const std::string& title) {
  size_t at = md.find("## " + title + "\n");
  if (at == std::string::npos) return "";
  size_t end = md.find("\n## ", at + 4);
  return md.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

TEST(Handoff, SummaryComesFirstAndSaysWhatBlocks) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  SeedStory(d);
  std::string md = RunOk("report", d);
  size_t summary = md.find("## Summary"), goal = md.find("## Goal"),
         disc = md.find("## Discoveries");
  ASSERT_NE(summary, std::string::npos) << md.substr(0, 2000);
  EXPECT_LT(summary, goal);
  EXPECT_LT(summary, disc);
  std::string s = Section(md, "Summary");
  EXPECT_LE(std::count(s.begin(), s.end(), '\n'), 32) << s;
  // The VM that will not start blocks, with the command that verifies the fix, from both the
  // note and the finding (one step, two sources).
  size_t blocked = s.find("**Blocked by:**");
  ASSERT_NE(blocked, std::string::npos) << s;
  EXPECT_NE(s.find("qm start 100", blocked), std::string::npos) << s;
  EXPECT_NE(s.find("vm.mapping-stale", blocked), std::string::npos) << s;
  EXPECT_NE(s.find("**Now:**"), std::string::npos) << s;
  size_t known = s.find("**Known not to help:**");
  ASSERT_NE(known, std::string::npos) << s;
  EXPECT_NE(s.find("ACS", known), std::string::npos) << s;
  EXPECT_NE(s.find("tried: Disabled ACS", known), std::string::npos) << s;

  // The same step from the note and the finding is one step; the host's steps are the host's.
  json j = json::parse(RunOk("report --format json", d));
  int pci_cfg = 0;
  for (const auto& st : j["next_steps"]) {
    std::string text = st["do"].get<std::string>() + st["verify"].get<std::string>();
    if (text.find("pci.cfg") != std::string::npos) {
      ++pci_cfg;
      EXPECT_EQ(st["machine"], "pve-host");
      EXPECT_TRUE(st["blocking"].get<bool>());
      // The host's pci.cfg was read: the stale mapping entries carry the fix.
      EXPECT_NE(st["from"].get<std::string>().find("finding vm.mapping-stale"), std::string::npos)
          << st;
    }
  }
  EXPECT_EQ(pci_cfg, 1) << j["next_steps"].dump(1);

  // Severity says what it means: the renumbered groups stop the VM (critical); the notes say ACS
  // was changed for P2P, so "ACS cannot act here" is a warning.
  std::map<std::string, std::string> sev;
  for (const auto& m : j["machines"])
    for (const auto& f : m["findings"]) sev[f["id"]] = f["severity"];
  EXPECT_EQ(sev["vm.mapping-stale"], "critical");
  EXPECT_EQ(sev["iommu.groups-changed"], "warning") << "the cause; the stale mapping blocks";
  EXPECT_EQ(sev["p2p.separate-root-complexes"], "warning");
  EXPECT_EQ(sev["notes.contradicted"], "warning") << "IOMMU noted unknown, probed on";
  ASSERT_TRUE(j.contains("summary"));
  EXPECT_FALSE(j["summary"]["blocked_by"].empty());

  // The one-shot document starts with the same summary.
  auto one = RunCli("collect -q --format md --root " + FixtureTree("seed-guest"));
  ASSERT_EQ(one.code, 0) << one.out;
  EXPECT_LT(one.out.find("## Summary"), one.out.find("## Discoveries")) << one.out.substr(0, 800);
}

std::string RecordStale(const std::string& d, const std::string& machine) {
  json j = json::parse(RunOk("report --format json", d));
  for (const auto& m : j["machines"])
    if (m["name"] == machine) return m["record"]["stale"];
  ADD_FAILURE() << "no machine " << machine;
  return "";
}

TEST(Handoff, ChangeRebootCollectNoteLeavesTheNewCollectCurrent) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  RunOk("collect -q --machine pve-host --root " + FixtureTree("seed-host-before-acs"), d);
  RunOk("collect -q --machine pve-host --root " + FixtureTree("seed-host"), d);  // after the reboot
  RunOk("note fact ACS disabled --status just-changed --machine pve-host", d);
  EXPECT_EQ(RecordStale(d, "pve-host"), "");
  EXPECT_EQ(std::string::npos, RunOk("report", d).find("(stale:")) << "nothing here is stale";

  // Dated after the collect (an ISO time; `now` is the same second as the collect here, so a
  // time well after it): the collect is stale.
  RunOk("note fact ACS disabled --status just-changed --machine pve-host --when now", d);
  RunOk("note fact ACS disabled --status just-changed --machine pve-host --when 2099-01-01T00:00Z",
        d);
  EXPECT_NE(RecordStale(d, "pve-host"), "");
  // Dated before collect 2 (the newest): current again.
  RunOk("note fact ACS disabled --status just-changed --machine pve-host --when 'before-collect 2'",
        d);
  EXPECT_EQ(RecordStale(d, "pve-host"), "");
  // A bad --when is an error that says what is expected, and changes nothing.
  auto bad = RunCli("note fact ACS enabled --machine pve-host --when yesterday --dossier " + d);
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("ISO time"), std::string::npos) << bad.out;
  // Damaged times, each at one place: the hour, the minute, the separators, the seconds.
  for (const char* when : {"2026-12-02Tab:30", "2026-12-02T16:3x", "2026-12-02T16-30",
                           "2026-12-02T16:30:5", "2026-12-02X16:30", "2026-1-02"}) {
    auto b = RunCli(std::string("note fact ACS enabled --machine pve-host --when '") + when +
                    "' --dossier " + d);
    EXPECT_EQ(b.code, 2) << when << "\n" << b.out;
  }
  auto no_such = RunCli("note tried x --when 'before-collect 9' --dossier " + d);
  EXPECT_EQ(no_such.code, 2) << no_such.out;
  EXPECT_NE(no_such.out.find("no record 9"), std::string::npos) << no_such.out;
  EXPECT_NE(RunOk("note show", d).find("ACS = disabled"), std::string::npos);
}

TEST(Handoff, MeasurementOnThisMachineDoesNotAgeACapturedTree) {
  TempDir t;
  const std::string d = t.path() + "/dossier";
  RunOk("collect -q --machine guest --root " + FixtureTree("seed-guest"), d);
  std::string cmd = "DOSSIER_STANDIN=seed-guest " + std::string(DOSSIER_BINARY) +
                    " p2p -q --machine guest --pairs 0-1 --sizes 12K --cuda-lib " +
                    testing::CudaStandin() + " --dossier " + d + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  // The p2p ran on this machine (its boot id), the collect is of a captured tree: another
  // machine's boot, not a reboot.
  EXPECT_EQ(RecordStale(d, "guest"), "");
  json j = json::parse(RunOk("report --format json", d));
  for (const auto& m : j["machines"])
    for (const auto& p : m["measurement_summary"]["p2p"]) EXPECT_EQ(p["stale"], "") << p;
}

// --- the HTML page in a real browser ------------------------------------------------------------

const char* kChromium = "/usr/bin/chromium";

int Sh(const std::string& cmd) {
  int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string ChromiumFlags(const std::string& profile) {
  return std::string(kChromium) +
         " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
         "--disable-background-networking --disable-component-update --disable-sync "
         "--user-data-dir=" +
         profile;
}

// Bytes of image data (the IDAT chunks) of a PNG, and its size; 0 when it is not a PNG.
struct PngInfo {
  uint32_t width = 0, height = 0;
  size_t idat = 0;
};
PngInfo ReadPng(const std::string& png) {
  PngInfo info;
  if (png.size() < 33 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) return info;
  auto be32 = [&](size_t at) {
    return (uint32_t(uint8_t(png[at])) << 24) | (uint32_t(uint8_t(png[at + 1])) << 16) |
           (uint32_t(uint8_t(png[at + 2])) << 8) | uint32_t(uint8_t(png[at + 3]));
  };
  info.width = be32(16);
  info.height = be32(20);
  for (size_t at = 8; at + 8 <= png.size();) {
    uint32_t len = be32(at);
    if (png.compare(at + 4, 4, "IDAT") == 0) info.idat += len;
    at += 12 + size_t(len);
  }
  return info;
}

TEST(HandoffHtml, OpensInChromiumWithSummaryAndPictures) {
  ASSERT_TRUE(fs::exists(kChromium))
      << "headless Chromium is needed for this test: install the Debian package 'chromium' "
         "(scripts/install-deps.sh does)";
  TempDir t;
  const std::string d = t.path() + "/dossier";
  SeedStory(d);
  std::string cmd = "DOSSIER_STANDIN=seed-guest " + std::string(DOSSIER_BINARY) +
                    " p2p -q --machine guest --pairs 0-1,1-0 --sizes 4K,64K,1M,16M --cuda-lib " +
                    testing::CudaStandin() + " --dossier " + d + " >/dev/null 2>&1";
  ASSERT_EQ(Sh(cmd), 0) << cmd;
  std::string html = RunOk("report --format html", d);
  ASSERT_NE(html.find("<!DOCTYPE html>"), std::string::npos);
  // Self-contained: nothing to fetch.
  for (const char* ext : {"src=\"http", "href=\"http", "<script", "@import", "url("})
    EXPECT_EQ(html.find(ext), std::string::npos) << ext;
  t.Write("report.html", html);
  const std::string page = "file://" + t.path() + "/report.html";

  // The DOM as the browser built it: the summary first, the pictures drawn.
  std::string dom_file = t.path() + "/dom.html";
  ASSERT_EQ(Sh(ChromiumFlags(t.path() + "/profile1") + " --dump-dom '" + page + "' > " + dom_file +
               " 2>/dev/null"),
            0);
  std::string dom = ReadAll(dom_file);
  size_t summary = dom.find("id=\"summary\"");
  ASSERT_NE(summary, std::string::npos) << dom.substr(0, 3000);
  EXPECT_LT(summary, dom.find("<details"));
  EXPECT_NE(dom.find("Blocked by", summary), std::string::npos);
  EXPECT_NE(dom.find("class=\"topo\""), std::string::npos) << "PCIe tree picture";
  EXPECT_NE(dom.find("class=\"chart\""), std::string::npos) << "bandwidth picture";
  EXPECT_NE(dom.find("GPU0 → GPU1"), std::string::npos);

  // A screenshot that is not blank: against a blank page's in the same browser, the report's
  // image data is many times larger (PNG compresses a uniform page to almost nothing).
  std::string shot = t.path() + "/report.png", blank_shot = t.path() + "/blank.png";
  t.Write("blank.html", "<!DOCTYPE html><html><body></body></html>");
  ASSERT_EQ(Sh(ChromiumFlags(t.path() + "/profile2") +
               " --hide-scrollbars --window-size=900,1400 --screenshot=" + shot + " '" + page +
               "' >/dev/null 2>&1"),
            0);
  ASSERT_EQ(Sh(ChromiumFlags(t.path() + "/profile3") +
               " --hide-scrollbars --window-size=900,1400 --screenshot=" + blank_shot +
               " 'file://" + t.path() + "/blank.html' >/dev/null 2>&1"),
            0);
  PngInfo a = ReadPng(ReadAll(shot)), b = ReadPng(ReadAll(blank_shot));
  ASSERT_GT(a.width, 0u) << "no PNG screenshot";
  EXPECT_EQ(a.width, b.width);
  EXPECT_GT(a.idat, 20 * b.idat + 10000)
      << "screenshot looks blank: " << a.idat << " vs " << b.idat;
  if (const char* keep = std::getenv("DOSSIER_KEEP_SCREENSHOT"))
    fs::copy_file(shot, keep, fs::copy_options::overwrite_existing);
}

}  // namespace
}  // namespace dossier
