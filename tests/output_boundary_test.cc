// What dossier writes for a person holds against hostile data, through the front door:
//
// - The HTML page, opened in headless Chromium with a local HTTP server on 127.0.0.1 watching,
//   loads nothing and runs nothing whatever the dossier holds: links, images, raw HTML, scripts
//   and backticks planted in a hostname, a model id, notes (goal, facts, tried, next steps,
//   files). Its DOM has no javascript: link, no <img>, no <script>, and its own style is allowed
//   by the Content-Security-Policy (Chromium reports no violation).
// - A terminal never receives an escape sequence from data: a tree's hostname
//   "gpu\e]0;PWN\a\e[2J" and a server's model id are stored and printed as visible "\x1b".
// - The seed story's page draws the host's PCIe tree beside the guest's with the passthrough
//   links between them, and the serving chart of imported benchmark blocks.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "front_door.h"
#include "hostile_server.h"
#include "standins/openai_standin.h"

namespace dossier::boundary {
namespace {

namespace fs = std::filesystem;
using testing::RunDossier;
using testing::TempDir;

const char* kChromium = "/usr/bin/chromium";

int Sh(const std::string& cmd) {
  int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string Chromium(const std::string& profile) {
  return std::string(kChromium) +
         " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
         "--disable-background-networking --disable-component-update --disable-sync "
         "--enable-logging=stderr --v=0 --user-data-dir=" +
         profile;
}

void Ok(std::vector<std::string> args, const std::string& d) {
  args.push_back("--dossier");
  args.push_back(d);
  auto r = RunDossier(args);
  EXPECT_EQ(r.exit_code, 0) << args.front() << "\n" << r.out << r.err;
}

// Every file under `dir`, concatenated.
std::string AllFiles(const std::string& dir) {
  std::string all;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) all += testing::Slurp(e.path());
  return all;
}

// ESC, BEL or the C1 CSI (U+009B) as a terminal would receive them.
bool HasTerminalControl(const std::string& s) {
  for (char c : s)
    if (c == '\x1b' || c == '\x07') return true;
  return s.find("\xc2\x9b") != std::string::npos;
}

TEST(OutputBoundary, PlantedMarkupNeitherLoadsNorRunsInChromium) {
  ASSERT_TRUE(fs::exists(kChromium))
      << "headless Chromium is needed: the Debian package 'chromium'";
  testing::HostileServer watch(testing::HostileServer::kSilent, 120);
  const std::string at = "http://127.0.0.1:" + std::to_string(watch.port());
  // Each value tries a different way out of the text; each names the path it would request.
  auto plant = [&](const std::string& where) {
    return "x`](y) [c](javascript:fetch('" + at + "/js-" + where + "')) ![t](" + at + "/md-img-" +
           where + ".png) <img src=" + at + "/html-img-" + where + " onerror=fetch('" + at +
           "/onerror-" + where + "')> <script>fetch('" + at + "/script-" + where + "')</script> <" +
           at + "/autolink-" + where + "> " + at + "/bare-" + where +
           " | cell | ``` `` ` *e* _u_ ~~d~~ # &lt;b&gt; <style>@import url(" + at + "/css-" +
           where + ");</style>";
  };
  TempDir t;
  const std::string d = t.path() + "/d";
  // A guest whose hostname is hostile (one line: a hostname file holds no newline).
  // A server's argv too (its --host value).
  std::string tree = testing::VariantTree(
      t, "seed-guest", {{"\"--host\", \"0.0.0.0\",", "\"--host\", \"" + plant("argv") + "\","}},
      {{"proc/sys/kernel/hostname", plant("hostname") + "\n"},
       {"etc/hostname", plant("etc-hostname") + "\n"}});
  ASSERT_FALSE(tree.empty());
  Ok({"collect", "-q", "--machine", "guest", "--root", tree}, d);
  Ok({"note", "goal", plant("goal")}, d);
  Ok({"note", "machine", "guest", "--role", "guest", "--instructions", plant("instructions")}, d);
  Ok({"note", "fact", "BIOS setting", plant("fact-value"), "--machine", "guest", "--note",
      plant("fact-note")},
     d);
  Ok({"note", "tried", plant("tried"), "--machine", "guest", "--result", plant("result")}, d);
  Ok({"note", "next", plant("next"), "--verify", plant("verify"), "--machine", "guest"}, d);
  Ok({"note", "file", "/etc/" + plant("file"), "--machine", "guest", "--why", plant("why")}, d);
  // A model id from a server.
  testing::StandinConfig cfg;
  cfg.model = plant("model");
  cfg.lifetime_s = 60;
  testing::StandinServer server(cfg);
  ASSERT_TRUE(server.Start());
  Ok({"serve-bench", server.base_url(), "--concurrency", "1", "--num-prompts", "2", "--input-len",
      "8", "--output-len", "4", "--machine", "guest", "-q"},
     d);

  auto r = RunDossier({"report", "--format", "html", "--dossier", d});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& html = r.out;
  // The values are in the page, as text.
  EXPECT_NE(html.find("/md-img-goal.png"), std::string::npos) << "the goal is shown";
  EXPECT_NE(html.find("/md-img-hostname.png"), std::string::npos) << "the hostname is shown";
  EXPECT_NE(html.find("/md-img-argv.png"), std::string::npos) << "the server's argv is shown";
  for (const char* bad :
       {"<img", "<script", "href=\"javascript", "href=\"http", "src=\"http", "<style>@import"})
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;
  EXPECT_NE(html.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'"),
            std::string::npos);
  t.Write("page.html", html);

  // The browser builds the page, gives any script two seconds (virtual time), and says whether
  // the policy refused anything (its own style among it would mean a wrong hash).
  const std::string dom = t.path() + "/dom.html", log = t.path() + "/chromium.log";
  ASSERT_EQ(Sh(Chromium(t.path() + "/profile") + " --virtual-time-budget=2000 --dump-dom 'file://" +
               t.path() + "/page.html' > " + dom + " 2> " + log),
            0)
      << testing::Slurp(log);
  std::string page = testing::Slurp(dom);
  ASSERT_NE(page.find("id=\"summary\""), std::string::npos) << page.substr(0, 2000);
  std::string lower = page;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* bad : {"<img", "<script", "href=\"javascript", "src=\"http", "<iframe"})
    EXPECT_EQ(lower.find(bad), std::string::npos) << bad;
  std::smatch m;
  std::string hrefs = lower;
  for (std::regex a("href=\"([^\"]*)\""); std::regex_search(hrefs, m, a); hrefs = m.suffix())
    EXPECT_TRUE(m[1].str().starts_with("#") || m[1].str().starts_with("https:")) << m[1];
  std::string console = testing::Slurp(log);
  EXPECT_EQ(console.find("Content Security Policy"), std::string::npos) << console;
  EXPECT_TRUE(watch.heads().empty()) << "the page requested: " << watch.heads().front();
}

TEST(OutputBoundary, EscapeSequencesInAHostnameNeverReachTheTerminal) {
  TempDir t;
  const std::string d = t.path() + "/d";
  const std::string evil =
      "gpu\x1b]0;PWN\x07\x1b[2J\x9b"
      "31m";
  std::string tree = testing::VariantTree(
      t, "seed-guest", {}, {{"proc/sys/kernel/hostname", evil + "\n"}, {"etc/hostname", evil}});
  ASSERT_FALSE(tree.empty());
  auto c = RunDossier({"collect", "--machine", "guest", "--root", tree, "--dossier", d});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_FALSE(HasTerminalControl(c.out + c.err));
  EXPECT_FALSE(HasTerminalControl(AllFiles(d))) << "the record holds the raw sequence";
  for (const char* format : {"md", "json", "html"}) {
    auto r = RunDossier({"report", "--format", format, "--dossier", d});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_FALSE(HasTerminalControl(r.out + r.err)) << format;
    // Shown, not hidden: a person sees that the hostname held an escape sequence (as "\x1b",
    // itself escaped by each format).
    EXPECT_NE(r.out.find("x1b"), std::string::npos) << format;
    EXPECT_NE(r.out.find("PWN"), std::string::npos) << format;
  }
  // A one-shot collect prints the report (and stores nothing).
  auto one = RunDossier({"collect", "--root", tree, "--format", "md"});
  EXPECT_FALSE(HasTerminalControl(one.out + one.err));
  EXPECT_NE(one.out.find("x1b"), std::string::npos) << one.out;
}

TEST(OutputBoundary, EscapeSequencesInAModelIdNeverReachTheTerminal) {
  testing::StandinConfig cfg;
  cfg.model = "m\x1b]0;PWN\x07\x1b[2J";
  cfg.lifetime_s = 60;
  testing::StandinServer server(cfg);
  ASSERT_TRUE(server.Start());
  TempDir t;
  const std::string d = t.path() + "/d";
  for (const char* format : {"text", "json"}) {
    auto r = RunDossier({"serve-bench", server.base_url(), "--concurrency", "1", "--num-prompts",
                         "2", "--input-len", "8", "--output-len", "4", "--machine", "box",
                         "--format", format, "--dossier", d});
    EXPECT_FALSE(HasTerminalControl(r.out + r.err)) << format << r.out << r.err;
    EXPECT_NE(r.out.find("x1b"), std::string::npos) << format << r.out << r.err;
  }
  EXPECT_FALSE(HasTerminalControl(AllFiles(d)));
  auto rep = RunDossier({"report", "--dossier", d});
  EXPECT_FALSE(HasTerminalControl(rep.out + rep.err));
}

// --- the seed story's page: host tree beside the guest's, and the serving chart ---------------

TEST(OutputBoundary, SeedPageDrawsTheImportedHostBesideTheGuestAndTheServingChart) {
  ASSERT_TRUE(fs::exists(kChromium))
      << "headless Chromium is needed: the Debian package 'chromium'";
  TempDir t;
  const std::string d = t.path() + "/d";
  const std::string fixtures = std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/";
  Ok({"collect", "-q", "--machine", "guest", "--root", testing::FixtureTree("seed-guest")}, d);
  Ok({"import", fixtures + "import-seed/pve-host-session.txt", "--machine", "pve-host"}, d);
  // The VM's config as `qm config 100` prints it, pasted: the guest's SMBIOS UUID links them.
  t.Write("qm.txt", "root@pve:~# qm config 100\n" +
                        testing::Slurp(std::string(DOSSIER_SOURCE_DIR) +
                                       "/tests/fixtures/trees/seed-host/files/etc/pve/"
                                       "qemu-server/100.conf"));
  Ok({"import", t.path() + "/qm.txt", "--machine", "pve-host"}, d);
  Ok({"import", fixtures + "import/serving_bench/sglang-dlora-lora-bench-rate2-anomalous-itl.txt",
      "--machine", "guest"},
     d);
  auto r = RunDossier({"report", "--format", "html", "--dossier", d});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& html = r.out;
  // One picture with both trees: the host's root complexes and GPUs, the guest's below, and a
  // passthrough line from each guest GPU to its host GPU.
  size_t pic = html.find("aria-label=\"PCIe trees of host pve-host and guest guest\"");
  ASSERT_NE(pic, std::string::npos) << html.substr(0, 4000);
  std::string svg = html.substr(pic, html.find("</svg>", pic) - pic);
  size_t lines = 0;
  for (size_t at = 0; (at = svg.find("class=\"pass\"", at)) != std::string::npos; ++at) ++lines;
  EXPECT_EQ(lines, 8u + 1u) << "eight passthrough lines and the key's";
  // The guest's root complex (the pasted host has no `lspci -tv`: its root complexes are "?").
  EXPECT_NE(svg.find("pci0000:00"), std::string::npos);
  EXPECT_NE(svg.find("Host pve-host"), std::string::npos);
  EXPECT_NE(svg.find("Guest guest"), std::string::npos);
  EXPECT_EQ(html.find("aria-label=\"PCIe tree of pve-host\""), std::string::npos)
      << "the host is drawn once, with its guest";
  // The serving chart of the imported block (an open loop: against its request rate).
  EXPECT_NE(html.find("Throughput against request rate"), std::string::npos);
  t.Write("seed.html", html);
  const std::string shot = t.path() + "/seed.png";
  ASSERT_EQ(Sh(Chromium(t.path() + "/profile") + " --hide-scrollbars --window-size=1200,2400 " +
               "--screenshot=" + shot + " 'file://" + t.path() + "/seed.html' >/dev/null 2>&1"),
            0);
  EXPECT_GT(fs::file_size(shot), 20000u);
  if (const char* keep = std::getenv("DOSSIER_KEEP_SCREENSHOT")) {
    fs::copy_file(shot, keep, fs::copy_options::overwrite_existing);
    fs::copy_file(t.path() + "/seed.html", std::string(keep) + ".html",
                  fs::copy_options::overwrite_existing);
  }
}

}  // namespace
}  // namespace dossier::boundary
