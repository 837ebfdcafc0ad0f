// dmesg and journalctl -k pastes: both line forms, a paste of one line, the IOMMU's own lines,
// and how much of a paste must be log for it to be taken for one.
#include <gtest/gtest.h>

#include "import/import_test_util.h"

namespace dossier::import {
namespace {

using testing::Formats;
using testing::ImportString;

Lines Numbered(const std::vector<std::string>& texts) {
  Lines out;
  for (size_t i = 0; i < texts.size(); ++i) out.push_back({i + 1, texts[i]});
  return out;
}

TEST(KernelLogImport, ASingleLineInEitherFormIsALog) {
  for (const char* line : {"[    0.512345] AMD-Vi: Interrupt remapping enabled",
                           "Dec 03 10:00:00 pve kernel: DMAR: IOMMU enabled"}) {
    SCOPED_TRACE(line);
    auto r = ImportString(std::string(line) + "\n");
    ASSERT_EQ(Formats(r), std::vector<std::string>{"kernel-log"});
    EXPECT_TRUE(r.imported.machine.iommu.enabled.value_or(false));
    EXPECT_EQ(r.imported.machine.iommu.enabled.source, "imported: paste.txt:1 (kernel-log)");
    EXPECT_EQ(r.imported.machine.kernel_log.source.value_or(""), "imported paste.txt");
  }
}

TEST(KernelLogImport, AnIommuLineThatSaysNothingOfEnabledSetsNothing) {
  auto r = ImportString(
      "[    0.500000] AMD-Vi: Found IOMMU cap 0x40\n[    0.600000] DMAR: Host address width 46\n",
      "kernel-log");
  EXPECT_FALSE(r.imported.machine.iommu.enabled.known());
  EXPECT_TRUE(r.imported.machine.kernel_log.source.known());
}

TEST(KernelLogImport, APasteWithoutALogLineIsRefused) {
  ImportRun run;
  run.imported.machine.name = "m";
  ASSERT_TRUE(
      ImportText("[abc] not a time\nplain words\n", "k.txt", FindImporter("kernel-log"), &run)
          .ok());
  ASSERT_EQ(run.files.at(0).parts.size(), 1u);
  EXPECT_FALSE(run.files[0].parts[0].error.empty());
  EXPECT_FALSE(run.imported.machine.kernel_log.source.known());
}

TEST(KernelLogImport, HalfTheNonBlankLinesMustBeLogForThePasteToBeOne) {
  const Importer* k = FindImporter("kernel-log");
  ASSERT_NE(k, nullptr);
  const std::string log = "[    1.000000] pci 0000:01:00.0: BAR 1: no space";
  EXPECT_EQ(k->detect(Numbered({log})), 70);
  EXPECT_EQ(k->detect(Numbered({log, "other"})), 70);
  EXPECT_EQ(k->detect(Numbered({log, "", "", "other"})), 70);  // blank lines do not count
  EXPECT_EQ(k->detect(Numbered({log, "other", "more"})), 0);
  EXPECT_EQ(k->detect(Numbered({"", " "})), 0);
  EXPECT_EQ(k->detect(Numbered({})), 0);
  // A part starts at its first log line, not at each one.
  Lines l = Numbered({"text", log, log, "text", log});
  std::vector<bool> starts;
  for (size_t i = 0; i < l.size(); ++i) starts.push_back(k->starts(l, i));
  EXPECT_EQ(starts, (std::vector<bool>{false, true, false, false, true}));
}

}  // namespace
}  // namespace dossier::import
