// A pasted session split into its outputs, what is not recognised listed, and hostile input
// refused with its line.
#include <gtest/gtest.h>

#include "import/import_test_util.h"
#include "import/split_session.h"

namespace dossier::import {
namespace {

using testing::Formats;
using testing::ImportString;
using testing::SampleBody;

TEST(ImportSession, PromptsCommandsAndOutputs) {
  std::string s =
      "Here is what the host says:\n"
      "root@pve:~# cat /proc/cmdline\n"
      "BOOT_IMAGE=/boot/vmlinuz-6.8.12-4-pve root=/dev/mapper/pve-root ro quiet amd_iommu=on "
      "iommu=pt\n"
      "root@pve:~# nvidia-smi topo -p2p r\n" +
      SampleBody("topo_p2p/autodl-container-2x-2080ti-p2p-p-ns.txt") +
      "root@pve:~# uptime\n"
      " 10:00:01 up 3 days,  2:11,  1 user,  load average: 0.00, 0.01, 0.05\n"
      "root@pve:~# lspci -vvv | grep ACSCtl\n"
      "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- "
      "DirectTrans-\n";
  auto r = ImportString(s);
  EXPECT_EQ(Formats(r), (std::vector<std::string>{"", "cmdline", "topo-p2p", "", "lspci"}));
  const Machine& m = r.imported.machine;
  EXPECT_NE(m.kernel.cmdline.value_or("").find("iommu=pt"), std::string::npos);
  ASSERT_EQ(m.topology.p2p_status.read.size(), 2u);  // -p2p r from the prompt
  EXPECT_EQ(m.topology.p2p_status.read[0][1], "NS");
  ASSERT_EQ(m.pci.acs_lines.size(), 1u);
  EXPECT_EQ(m.pci.acs_lines[0].control.value_or({}),
            (std::vector<std::string>{"SV", "RR", "CR", "UF"}));
  // The unrecognised parts are listed with their lines.
  const auto& parts = r.files[0].parts;
  EXPECT_EQ(parts[0].first_line, 1u);
  EXPECT_EQ(parts[0].last_line, 1u);
  EXPECT_EQ(parts[3].command, "uptime");
  int listed = 0;
  for (const auto& n : r.files[0].notes)
    if (n.find("not recognised") != std::string::npos) ++listed;
  EXPECT_EQ(listed, 2);
}

TEST(ImportSession, OutputsWithoutPromptsAreCutWhereAFormatBegins) {
  std::string s = SampleBody("topo_m/stelline-puget-wrx90-2x-rtx6000ada-phb.txt") + "\n" +
                  SampleBody("serving_bench/dennislee22-vllm-gptoss120b-4pods-1req.txt");
  auto r = ImportString(s);
  EXPECT_EQ(Formats(r), (std::vector<std::string>{"topo-m", "serve-bench"}));
  EXPECT_EQ(r.imported.serve.size(), 1u);
}

TEST(ImportSession, PromptGluedToTheHeader) {
  std::string rest;
  EXPECT_EQ(PromptCommand("$ nvidia-smi topo -m\t\tGPU0\tGPU1\tCPU Affinity", &rest),
            "nvidia-smi topo -m");
  EXPECT_EQ(rest, "GPU0\tGPU1\tCPU Affinity");
  EXPECT_EQ(PromptCommand("user@host:~/x$ lspci -tv", &rest), "lspci -tv");
  EXPECT_EQ(PromptCommand("(venv) user@host:~$ python3 -m vllm", &rest), "python3 -m vllm");
  EXPECT_EQ(PromptCommand("#description: my VM", &rest), "");  // a qm config comment
  EXPECT_EQ(PromptCommand("# this is a comment", &rest), "");  // not a command word
  EXPECT_EQ(PromptCommand("$5 is the price", &rest), "");
}

TEST(ImportSession, TheEarlierOfATabAndFourSpacesEndsAGluedCommand) {
  std::string rest;
  EXPECT_EQ(PromptCommand("$ nvidia-smi topo -m    GPU0\tGPU1", &rest), "nvidia-smi topo -m");
  EXPECT_EQ(rest, "GPU0\tGPU1");
  EXPECT_EQ(PromptCommand("$ nvidia-smi topo -m\tGPU0    GPU1", &rest), "nvidia-smi topo -m");
  EXPECT_EQ(rest, "GPU0    GPU1");
}

TEST(ImportSession, APromptLineOf4096CharactersOrMoreIsNotAPrompt) {
  // The regular expressions are not run on longer lines (a pasted blob): 4095 is the last length
  // read as a prompt, for both prompt shapes.
  std::string rest;
  for (const std::string head : {"user@host:~$ echo ", "$ echo "}) {
    SCOPED_TRACE(head);
    std::string line = head + std::string(4095 - head.size(), 'x');
    EXPECT_EQ(PromptCommand(line, &rest), line.substr(head.size() - 5));
    line += "x";
    EXPECT_EQ(PromptCommand(line, &rest), "");
  }
}

TEST(ImportSession, AnsiTabsElisionsAndForcedFormat) {
  std::string s =
      "\x1b[1m\x1b[4m\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\x1b[0m\n"
      "GPU0\t X \tPHB\t0-23\t0\n"
      "...\n"
      "GPU1\tPHB\t X \t0-23\t0\n";
  auto r = ImportString(s);
  ASSERT_EQ(Formats(r), std::vector<std::string>{"topo-m"});
  EXPECT_EQ(r.imported.machine.topology.nvml_levels[1][0], "PHB");
  bool elided = false;
  for (const auto& n : r.files[0].notes) elided = elided || n.find("line 3: '...'") == 0;
  EXPECT_TRUE(elided);
  // --as: the whole text is read as that format, or refused by it.
  auto forced = ImportString("BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro\n", "cmdline");
  EXPECT_EQ(Formats(forced), std::vector<std::string>{"cmdline"});
  auto wrong = ImportString("BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro\n", "topo-m");
  EXPECT_EQ(Formats(wrong), std::vector<std::string>{""});
  EXPECT_EQ(wrong.recognised_parts, 0u);
}

Error Refused(const std::string& bytes) {
  ImportRun run;
  Status s = ImportText(bytes, "bad.txt", nullptr, &run);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(run.files.empty());  // nothing of a refused file is kept
  return s.ok() ? Error{} : s.error();
}

// A prompt whose command names a format but printed nothing (typed twice, or the output was not
// copied) is no part: an empty part ended the import with a crash once an earlier part had
// filled the same facts (found by fuzz_soak).
TEST(ImportSession, ACommandWithoutOutputIsNoPart) {
  std::string s =
      "root@pve:~# find /sys/kernel/iommu_groups/ -type l\n"
      "/sys/kernel/iommu_groups/12/devices/0000:01:00.0\n"
      "root@pve:~# find /sys/kernel/iommu_groups/ -type l\n"
      "root@pve:~# cat /proc/cmdline\n";
  auto r = ImportString(s);
  EXPECT_EQ(Formats(r), (std::vector<std::string>{"iommu-groups"}));
  ASSERT_EQ(r.imported.machine.iommu.groups.size(), 1u);
  EXPECT_EQ(r.imported.machine.iommu.groups[0].id, 12);
}

TEST(ImportHostile, RefusedWithTheLine) {
  std::string nul = "line one\nline two\nab\0cd\n";
  nul.assign("line one\nline two\nab\0cd\n", 23);
  EXPECT_EQ(Refused(nul).message,
            "bad.txt:3: a NUL byte (column 3): this is binary data, not a "
            "pasted text output");
  std::string long_line = "ok\n" + std::string(10u << 20, 'a') + "\n";
  Error e = Refused(long_line);
  EXPECT_EQ(e.message.rfind("bad.txt:2: a line of 10485760 bytes", 0), 0u) << e.message;
  std::string big(kMaxPasteBytes + 1, '\n');
  EXPECT_EQ(Refused(big).kind, Error::kTooLarge);
  std::string binary;
  for (int i = 0; i < 4096; ++i) binary.push_back(static_cast<char>(1 + i % 30));
  EXPECT_NE(Refused(binary).message.find("binary"), std::string::npos);
}

TEST(ImportHostile, InvalidUtf8IsKeptVisiblyEscaped) {
  auto r = ImportString("BOOT_IMAGE=/vmlinuz root=/dev/sda1 \xff\xfe ro\n");
  EXPECT_EQ(r.imported.machine.kernel.cmdline.value_or(""),
            "BOOT_IMAGE=/vmlinuz root=/dev/sda1 \\xff\\xfe ro");
  EXPECT_NE(r.files[0].text.find("\\xff\\xfe"), std::string::npos);
}

}  // namespace
}  // namespace dossier::import
