// Pastes that went through a chat window or a web page, made from real outputs: every line
// wrapped in <p> with its characters escaped, a <br> after every line, a blank line after every
// line, a leading space on every line, the indentation lost. Each must import to the same facts
// as the output itself (values compared; line numbers differ where lines were added), so a
// person whose paste a chat mangled gets what the terminal printed.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "import/import_test_util.h"
#include "model/json_io.h"
#include "util/text.h"

namespace dossier::import {
namespace {

using testing::ImportString;

std::string EscapeHtml(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '&')
      o += "&amp;";
    else if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

std::string EachLine(const std::string& text, const std::function<std::string(std::string)>& f) {
  std::string o;
  for (auto l : SplitLines(text)) o += f(std::string(l));
  return o;
}

struct Damage {
  const char* name;
  std::function<std::string(const std::string&)> apply;
};

const std::vector<Damage>& Damages() {
  static const std::vector<Damage> d = {
      {"html-p",
       [](const std::string& t) {
         return EachLine(t, [](std::string l) { return "<p>" + EscapeHtml(l) + "</p>\n"; });
       }},
      {"br",
       [](const std::string& t) {
         return EachLine(t, [](std::string l) { return l + "<br>\n"; });
       }},
      {"blank-after-every-line",
       [](const std::string& t) { return EachLine(t, [](std::string l) { return l + "\n\n"; }); }},
      {"leading-space",
       [](const std::string& t) {
         return EachLine(t, [](std::string l) { return " " + l + "\n"; });
       }},
  };
  return d;
}

// The imported machine's values, without provenance (its line numbers move with the damage).
nlohmann::json Values(const ImportRun& run) {
  nlohmann::json j = MachineToJson(run.imported.machine);
  j.erase("provenance");
  return j;
}

void ExpectSameFacts(const std::string& what, const std::string& text) {
  ImportRun clean = ImportString(text);
  nlohmann::json want = Values(clean);
  ASSERT_GT(clean.recognised_parts, 0u) << what;
  for (const auto& d : Damages()) {
    SCOPED_TRACE(what + ", " + d.name);
    ImportRun run = ImportString(d.apply(text));
    EXPECT_EQ(run.recognised_parts, clean.recognised_parts);
    nlohmann::json got = Values(run);
    if (got != want) {
      nlohmann::json patch = nlohmann::json::diff(want, got);
      ADD_FAILURE() << "facts differ: " << patch.dump().substr(0, 1500);
    }
  }
}

TEST(ChatDamage, NvidiaSmiQ) {
  ExpectSameFacts("nvidia-smi -q",
                  "$ nvidia-smi -q\n" + testing::SampleBody("nvidia_smi_q/thamada-2x-h100nvl.txt"));
}

TEST(ChatDamage, QmConfig) {
  ExpectSameFacts("qm config",
                  "root@pve:~# qm config 100\n" +
                      testing::SampleBody("proxmox/andrei-paul-win10-nvidia-gpu-100.conf.txt"));
}

TEST(ChatDamage, PciCfg) {
  ExpectSameFacts("pci.cfg",
                  dossier::testing::Slurp(std::string(DOSSIER_SOURCE_DIR) +
                                          "/tests/corpus/import-pci-cfg/seed-host-pci.txt"));
}

// pci.cfg's indentation lost: the "map" lines are still its properties, not mapping names.
TEST(ChatDamage, PciCfgIndentationLost) {
  std::string text = dossier::testing::Slurp(std::string(DOSSIER_SOURCE_DIR) +
                                             "/tests/corpus/import-pci-cfg/seed-host-pci.txt");
  ImportRun clean = ImportString(text);
  ImportRun lost =
      ImportString(EachLine(text, [](std::string l) { return std::string(Trim(l)) + "\n"; }));
  ASSERT_EQ(clean.imported.machine.hypervisor.pci_mappings.size(), 8u);
  nlohmann::json want = Values(clean), got = Values(lost);
  // The stored text is the paste's (without its tabs); the mappings are the same.
  want["hypervisor"].erase("pci_cfg");
  got["hypervisor"].erase("pci_cfg");
  EXPECT_EQ(got, want) << nlohmann::json::diff(want, got).dump().substr(0, 1500);
}

TEST(ChatDamage, LspciVvv) {
  ExpectSameFacts(
      "lspci -vvv",
      "$ sudo lspci -vvv -s 01:00.0\n" +
          testing::SampleBody("lspci/stelline-esc8000a-rtx6000ada-01-00-0-idle-2.5gt.txt"));
}

TEST(ChatDamage, IommuGroups) {
  ExpectSameFacts("IOMMU groups",
                  testing::SampleBody("iommu_groups/asokolsky-duo-z370-gt1030-proxmox-host.txt"));
}

TEST(ChatDamage, TopoM) {
  ExpectSameFacts(
      "nvidia-smi topo -m",
      "$ nvidia-smi topo -m\n" +
          testing::SampleBody("topo_m/stelline-asus-esc8000a-e12-4x-rtx6000ada-epyc.txt"));
}

TEST(ChatDamage, TopoP2p) {
  ExpectSameFacts(
      "nvidia-smi topo -p2p r",
      "$ nvidia-smi topo -p2p r\n" + testing::SampleBody("topo_p2p/stas00-2x-l4-p2p-r-cns.txt"));
}

// What is not chat damage is left alone: a format whose every line is indented by nature keeps
// its structure, libvirt's XML keeps its tags, and a paste with ordinary blank lines keeps them.
TEST(ChatDamage, WhatIsNotDamageIsKept) {
  ImportRun xml = ImportString(
      "$ virsh dumpxml gpu-vm\n<domain type='kvm'>\n  <name>gpu-vm</name>\n  <devices>\n"
      "    <hostdev mode='subsystem' type='pci' managed='yes'>\n"
      "      <source><address domain='0x0000' bus='0x81' slot='0x00' function='0x0'/></source>\n"
      "    </hostdev>\n  </devices>\n</domain>\n");
  ASSERT_EQ(xml.imported.machine.hypervisor.vms.size(), 1u);
  ASSERT_EQ(xml.imported.machine.hypervisor.vms[0].hostpci.size(), 1u);
  for (const auto& f : xml.files)
    for (const auto& n : f.notes) EXPECT_EQ(n.find("HTML tags"), std::string::npos) << n;
}

}  // namespace
}  // namespace dossier::import
