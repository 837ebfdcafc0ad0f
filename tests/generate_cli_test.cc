// dossier generate: the table is listed by --help, an unknown name is a usage error with the list,
// and a generator that lacks facts refuses (exit 2) with what is missing and writes nothing.
#include <gtest/gtest.h>

#include <filesystem>

#include "fixture_trees.h"
#include "generate/generator.h"
#include "run_process.h"
#include "temp_dir.h"

namespace dossier {
namespace {

using testing::FixtureTree;
using testing::ProcessResult;
using testing::RunProcess;
using testing::TempDir;

ProcessResult RunGenerate(std::vector<std::string> args) {
  args.insert(args.begin(), {DOSSIER_BINARY, "generate"});
  return RunProcess(args);
}

TEST(GenerateCli, HelpListsEveryGeneratorOfTheTable) {
  auto r = RunGenerate({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_FALSE(GeneratorTable().empty());
  for (const auto& g : GeneratorTable()) {
    EXPECT_NE(r.out.find(std::string("  ") + g.name), std::string::npos) << g.name;
    EXPECT_NE(r.out.find(g.what), std::string::npos) << g.name;
  }
}

TEST(GenerateCli, UnknownGeneratorIsAUsageErrorWithTheList) {
  auto r = RunGenerate({"nccl-topology-please"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown generator 'nccl-topology-please'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(GeneratorTable()[0].name), std::string::npos) << r.err;
}

TEST(GenerateCli, GuestWithoutALinkedHostIsRefusedAndNothingIsWritten) {
  TempDir tmp;
  const std::string dossier = tmp.path() + "/dossier", out = tmp.path() + "/unit.service";
  auto c = RunProcess(
      {DOSSIER_BINARY, "collect", "-q", "--root", FixtureTree("seed-guest"), "--dossier", dossier});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  auto r = RunGenerate({"numa-affinity", "--dossier", dossier, "--output", out});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no host is linked to the guest 'gpu-vm'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--host HOST --vm VMID"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(GenerateCli, UnknownMachineNamesTheMachinesThereAre) {
  TempDir tmp;
  const std::string dossier = tmp.path() + "/dossier";
  ASSERT_EQ(RunProcess({DOSSIER_BINARY, "collect", "-q", "--root", FixtureTree("seed-host"),
                        "--dossier", dossier})
                .exit_code,
            0);
  auto r = RunGenerate({"numa-affinity", "--dossier", dossier, "--machine", "nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no machine 'nope' in the dossier (machines: pve)"), std::string::npos)
      << r.err;
}

// Without --machine the generator takes the one machine of its kind; none and several are each
// refused with what to do, and the two messages are not swapped.
TEST(GenerateCli, NoGuestOrSeveralGuestsWithoutMachineAreRefused) {
  TempDir tmp;
  const std::string hosts = tmp.path() + "/hosts", guests = tmp.path() + "/guests";
  ASSERT_EQ(RunProcess({DOSSIER_BINARY, "collect", "-q", "--root", FixtureTree("seed-host"),
                        "--dossier", hosts})
                .exit_code,
            0);
  auto none = RunGenerate({"numa-affinity", "--dossier", hosts});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no guest in the dossier: name one with --machine NAME"),
            std::string::npos)
      << none.err;
  for (const char* name : {"vm-a", "vm-b"})
    ASSERT_EQ(RunProcess({DOSSIER_BINARY, "collect", "-q", "--root", FixtureTree("seed-guest"),
                          "--machine", name, "--dossier", guests})
                  .exit_code,
              0);
  auto several = RunGenerate({"numa-affinity", "--dossier", guests});
  EXPECT_EQ(several.exit_code, 2);
  EXPECT_NE(several.err.find("several machines are a guest: name one with --machine NAME"),
            std::string::npos)
      << several.err;
  EXPECT_EQ(several.err.find("in the dossier:"), std::string::npos) << several.err;
}

}  // namespace
}  // namespace dossier
