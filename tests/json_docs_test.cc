// The JSON contract as documented: every key of the machine tables of docs/json.md ("## Machine"
// up to "### Findings") must be in `collect --format json` of every fixture tree, without
// exception for a probe that is missing or a section that happens to be empty. A key may be null
// (unknown, with its reason in provenance); it may not be absent. Keys under an array (`.address`
// after `pci.devices[]`) are checked in every element, and every documented array must have
// elements in at least one of the trees, so that no documented key goes unchecked. Findings and
// the measurement records are documented in prose and checked the same way from their lists.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "front_door.h"
#include "standin_paths.h"

namespace dossier::jsondocs {
namespace {

using dossier::testing::ProcessResult;
using dossier::testing::ReadWholeFile;
using nlohmann::json;

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, sep)) out.push_back(part);
  return out;
}

// The key paths of docs/json.md's machine tables, as "pci.devices[].link.current.gen".
std::vector<std::string> DocumentedMachineKeys() {
  std::ifstream in(std::string(DOSSIER_SOURCE_DIR) + "/docs/json.md");
  std::vector<std::string> keys;
  bool on = false;
  std::string array_base;  // the last `x[]` key of the current table
  static const std::regex kTick("`([^`]+)`");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("## Machine", 0) == 0) on = true;
    if (line.rfind("### Findings", 0) == 0) on = false;
    if (!on) continue;
    if (line.rfind("### ", 0) == 0) array_base.clear();
    if (line.rfind("| `", 0) != 0) continue;
    // The key column, without the example values in parentheses (`.engine` (`sglang`, …)).
    std::string cell =
        std::regex_replace(line.substr(2, line.find(" |", 2) - 2), std::regex("\\([^)]*\\)"), "");
    std::string first;
    bool first_relative = false;
    for (std::sregex_iterator it(cell.begin(), cell.end(), kTick), end; it != end; ++it) {
      std::string k = (*it)[1];
      std::string full;
      if (k[0] == '.' && (first.empty() || first_relative)) {
        full = array_base + k;  // `.address` under the table's array
        if (first.empty()) first_relative = true;
      } else if (k[0] == '.') {
        full = first.substr(0, first.rfind('.')) + k;  // `.write` beside `x.p2p_status.read`
      } else {
        full = k;
      }
      if (first.empty()) first = full;
      keys.push_back(full);
      if (k[0] != '.' && full.size() > 2 && full.compare(full.size() - 2, 2, "[]") == 0)
        array_base = full;
    }
  }
  return keys;
}

struct KeyCheck {
  std::set<std::string> arrays_with_elements;
  std::vector<std::string> missing;
};

void CheckPath(const json& node, const std::vector<std::string>& parts, size_t i,
               const std::string& where, const std::string& key, KeyCheck* c) {
  if (i == parts.size()) return;
  std::string name = parts[i];
  bool array = name.size() > 2 && name.compare(name.size() - 2, 2, "[]") == 0;
  if (array) name.resize(name.size() - 2);
  if (!node.is_object() || !node.contains(name)) {
    c->missing.push_back(key + " (at " + where + "/" + name + ")");
    return;
  }
  const json& child = node[name];
  if (child.is_null()) return;  // unknown: the reason is in provenance (checked elsewhere)
  if (array) {
    if (!child.is_array()) {
      c->missing.push_back(key + ": " + where + "/" + name + " is not an array");
      return;
    }
    std::string prefix;
    for (size_t k = 0; k <= i; ++k) prefix += (k ? "." : "") + parts[k];
    if (!child.empty()) c->arrays_with_elements.insert(prefix);
    for (size_t e = 0; e < child.size(); ++e)
      CheckPath(child[e], parts, i + 1, where + "/" + name + "/" + std::to_string(e), key, c);
    return;
  }
  CheckPath(child, parts, i + 1, where + "/" + name, key, c);
}

TEST(JsonContractDocs, EveryDocumentedMachineKeyOnEveryTree) {
  const std::vector<std::string> keys = DocumentedMachineKeys();
  ASSERT_GT(keys.size(), 60u) << "docs/json.md's machine tables were not found";
  std::vector<std::pair<std::string, json>> docs;
  for (const auto& tree : testing::FixtureTreeNames())
    docs.push_back({tree, testing::CollectJson(testing::FixtureTree(tree))});
  {
    testing::StandinFixture s("seed-guest");  // the NVML sections, filled
    docs.push_back(
        {"seed-guest + NVML", testing::CollectJson(testing::FixtureTree("seed-guest"),
                                                   {"--nvml-lib", testing::NvmlStandin()})});
  }
  {
    // The seed host's VM with its guest NUMA nodes bound to host nodes, and a line Proxmox knows
    // but dossier does not: the arrays the seed story leaves empty.
    testing::TempDir t;
    std::string conf = ReadWholeFile(testing::FixtureDescriptionDir("seed-host") +
                                     "/files/etc/pve/qemu-server/100.conf");
    conf +=
        "numa0: cpus=0-31,hostnodes=0,memory=245760,policy=bind\n"
        "numa1: cpus=32-63,hostnodes=1,memory=245760,policy=bind\n"
        "frobnicate: 1\n";
    std::string tree =
        testing::VariantTree(t, "seed-host", {}, {{"etc/pve/qemu-server/100.conf", conf}});
    ASSERT_FALSE(tree.empty());
    docs.push_back({"seed-host, VM with NUMA nodes", testing::CollectJson(tree)});
  }
  KeyCheck c;
  for (const auto& [name, doc] : docs) {
    SCOPED_TRACE(name);
    ASSERT_EQ(doc["machines"].size(), 1u);
    KeyCheck one;
    for (const auto& k : keys) CheckPath(doc["machines"][0], Split(k, '.'), 0, "", k, &one);
    EXPECT_TRUE(one.missing.empty()) << ::testing::PrintToString(one.missing);
    c.arrays_with_elements.insert(one.arrays_with_elements.begin(), one.arrays_with_elements.end());
    // Findings: every key listed in the prose, on every finding.
    for (const auto& f : doc["machines"][0]["findings"]) {
      for (const char* k :
           {"id", "severity", "title", "evidence", "explanation", "not_helping", "actions"})
        EXPECT_TRUE(f.contains(k)) << k << " in " << f.value("id", "?");
      for (const auto& e : f["evidence"])
        for (const char* k : {"fact", "value", "source", "stale"}) EXPECT_TRUE(e.contains(k)) << k;
      for (const auto& a : f["actions"])
        for (const char* k : {"do", "verify"}) EXPECT_TRUE(a.contains(k)) << k;
    }
  }
  // Arrays only an import fills (ACSCtl lines without their device, the NICs of a topo -m
  // matrix): a dossier of two pasted outputs, through report.
  {
    testing::TempDir t;
    const std::string imp = std::string(DOSSIER_SOURCE_DIR) + "/tests/fixtures/import/";
    ProcessResult r =
        testing::RunDossier({"import", imp + "lspci/stelline-esc8000a-acsctl-grep-all-disabled.txt",
                             imp + "topo_m/stelline-asus-esc8000a-e12-4x-rtx6000ada-epyc.txt",
                             "--machine", "pasted", "--dossier", t.path() + "/d", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = testing::RunDossier({"report", "--dossier", t.path() + "/d", "--format", "json"});
    json doc = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.err;
    KeyCheck imported;
    for (const auto& k : keys) CheckPath(doc["machines"][0], Split(k, '.'), 0, "", k, &imported);
    c.arrays_with_elements.insert(imported.arrays_with_elements.begin(),
                                  imported.arrays_with_elements.end());
  }
  // Every documented array had elements somewhere, so its keys were checked.
  for (const auto& k : keys) {
    std::vector<std::string> parts = Split(k, '.');
    std::string prefix;
    for (const auto& p : parts) {
      prefix += (prefix.empty() ? "" : ".") + p;
      if (p.size() > 2 && p.compare(p.size() - 2, 2, "[]") == 0) {
        EXPECT_TRUE(c.arrays_with_elements.count(prefix))
            << prefix << " (of " << k << ") is empty or null on every tree: its keys go unchecked";
      }
    }
  }
}

TEST(JsonContractDocs, MeasurementRecordsHoldEveryDocumentedKey) {
  testing::TempDir t;
  const std::string d = t.path() + "/d";
  {
    testing::StandinFixture s("bare-pair");
    auto r = testing::RunDossier({"p2p", "--cuda-lib", testing::CudaStandin(), "--nvml-lib",
                                  testing::NvmlStandin(), "--pairs", "0-1", "--sizes", "64K", "-q",
                                  "--machine", "box", "--dossier", d});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  json rec;
  for (const auto& e : std::filesystem::directory_iterator(d + "/records"))
    rec = json::parse(testing::ReadWholeFile(e.path().string()));
  EXPECT_EQ(rec["kind"], "p2p");
  EXPECT_EQ(rec["machine"], "box");
  for (const char* k : {"time", "boot_id", "gpu_addresses", "interrupted", "results"})
    EXPECT_TRUE(rec["p2p"].contains(k)) << k;
  ASSERT_FALSE(rec["p2p"]["results"].empty());
  for (const auto& r : rec["p2p"]["results"])
    for (const char* k : {"src", "dst", "mode", "size_bytes", "gbps_median", "gbps_min", "gbps_max",
                          "latency_us", "link_limit_gbps", "percent_of_limit", "verdict", "detail"})
      EXPECT_TRUE(r.contains(k)) << k << " in " << r.dump();
}

}  // namespace
}  // namespace dossier::jsondocs
