// Tests through the front door: the `dossier` binary on machine trees generated from the fixture
// descriptions (tests/fixtures/trees/), or from variants of them, so that what a test checks went
// through the probes, the model, the view and the registered rule table exactly as `collect` and
// `report` run them.
//
// A variant is a fixture description copied into a temporary directory with exact text
// replacements made in its machine.toml (each replacement must apply: a fixture edited so that
// the text is gone fails the test instead of silently testing the unmodified tree).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fixture_trees.h"
#include "run_process.h"
#include "temp_dir.h"
#include "treegen_tree.h"

namespace dossier::testing {

struct Replace {
  std::string from, to;
  bool all = true;  // every occurrence, else the first
};

// Generates the tree of fixture `base` with `edits` applied to its machine.toml (and `files`
// written over its files/ tree, relative paths) under `tmp`; returns the tree's path, or "" after
// a test failure saying why.
inline std::string VariantTree(const TempDir& tmp, const std::string& base,
                               const std::vector<Replace>& edits,
                               const std::vector<std::pair<std::string, std::string>>& files = {}) {
  namespace fs = std::filesystem;
  const std::string desc = tmp.path() + "/desc-" + base;
  fs::remove_all(desc);
  fs::copy(FixtureDescriptionDir(base), desc,
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  std::string toml = ReadWholeFile(desc + "/machine.toml");
  for (const auto& e : edits) {
    size_t at = toml.find(e.from);
    if (at == std::string::npos) {
      ADD_FAILURE() << base << "/machine.toml no longer holds '" << e.from
                    << "': update the variant";
      return "";
    }
    while (at != std::string::npos) {
      toml.replace(at, e.from.size(), e.to);
      if (!e.all) break;
      at = toml.find(e.from, at + e.to.size());
    }
  }
  std::ofstream(desc + "/machine.toml", std::ios::binary | std::ios::trunc) << toml;
  for (const auto& [rel, content] : files) {
    fs::path p = fs::path(desc) / "files" / rel;
    fs::create_directories(p.parent_path());
    fs::remove(p);
    std::ofstream(p, std::ios::binary) << content;
  }
  const std::string out = tmp.path() + "/tree-" + base;
  std::string error = treegen::GenerateTree(desc, out, {});
  if (!error.empty()) {
    ADD_FAILURE() << "cannot generate the variant of " << base << ": " << error;
    return "";
  }
  return out;
}

inline ProcessResult RunDossier(std::vector<std::string> args) {
  args.insert(args.begin(), DOSSIER_BINARY);
  return RunProcess(args);
}

// `dossier collect --root TREE --format json` (extra arguments appended), parsed.
inline nlohmann::json CollectJson(const std::string& tree, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"collect", "--root", tree, "--format", "json", "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  ProcessResult r = RunDossier(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out.substr(0, 400) << r.err;
  return j;
}

// The finding of that id on machine `i` of a collect/report JSON document (nullptr when none).
inline const nlohmann::json* FindingIn(const nlohmann::json& doc, const std::string& id,
                                       size_t i = 0) {
  if (!doc.contains("machines") || doc["machines"].size() <= i) return nullptr;
  const nlohmann::json& m = doc["machines"][i];
  if (!m.contains("findings")) return nullptr;
  for (const auto& f : m["findings"])
    if (f.value("id", "") == id) return &f;
  return nullptr;
}

// The finding of that id on the machine named `machine` (nullptr when none).
inline const nlohmann::json* FindingOn(const nlohmann::json& doc, const std::string& machine,
                                       const std::string& id) {
  for (size_t i = 0; doc.contains("machines") && i < doc["machines"].size(); ++i)
    if (doc["machines"][i].value("name", "") == machine) return FindingIn(doc, id, i);
  return nullptr;
}

inline std::set<std::string> FindingIds(const nlohmann::json& doc, size_t i = 0) {
  std::set<std::string> ids;
  if (!doc.contains("machines") || doc["machines"].size() <= i) return ids;
  for (const auto& f : doc["machines"][i].value("findings", nlohmann::json::array()))
    ids.insert(f.value("id", ""));
  return ids;
}

// Every evidence value of a finding, joined by newlines.
inline std::string EvidenceText(const nlohmann::json& f) {
  std::string s;
  for (const auto& e : f.value("evidence", nlohmann::json::array()))
    s += e.value("fact", "") + ": " + e.value("value", "") + "\n";
  return s;
}

// The JSON object of a PCI device by address, anywhere in the document (nullptr when absent).
inline const nlohmann::json* PciDeviceIn(const nlohmann::json& j, const std::string& address) {
  if (j.is_object()) {
    if (j.contains("address") && j["address"] == address && j.contains("acs")) return &j;
    for (const auto& [k, v] : j.items())
      if (const nlohmann::json* d = PciDeviceIn(v, address)) return d;
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (const nlohmann::json* d = PciDeviceIn(v, address)) return d;
  }
  return nullptr;
}

}  // namespace dossier::testing
