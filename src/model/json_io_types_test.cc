// Every field of a machine record read back with a value of each wrong kind: a record on disk is
// text someone may have edited, cut or produced with another version. Each field either takes the
// value (a kind it holds) or is refused with a warning naming it (a fact unknown, a plain field
// its default); nothing else changes and
// nothing throws. One field per shape (the same field of every device is one shape).
#include <gtest/gtest.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "../tests/filled_machine.h"
#include "../tests/temp_dir.h"
#include "model/json_io.h"

namespace dossier {
namespace {

using json = nlohmann::json;

// Pointers of every scalar (or list of scalars) of the machine, one per shape ("/pci/devices/3/
// name" and "/pci/devices/4/name" are one shape).
void Leaves(const json& j, const std::string& ptr, const std::string& shape,
            std::set<std::string>* shapes, std::vector<std::string>* out) {
  const bool scalar_list =
      j.is_array() && !j.empty() &&
      std::all_of(j.begin(), j.end(), [](const json& e) { return !e.is_structured(); });
  if (!j.is_structured() || scalar_list) {
    if (shapes->insert(shape).second) out->push_back(ptr);
    return;
  }
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it)
      if (!(ptr.empty() && (it.key() == "provenance" || it.key() == "record")))
        Leaves(it.value(), ptr + "/" + it.key(), shape + "/" + it.key(), shapes, out);
  } else {
    for (size_t i = 0; i < j.size(); ++i)
      Leaves(j[i], ptr + "/" + std::to_string(i), shape + "/#", shapes, out);
  }
}

// The machines read: the seed guest's collect as the model writes it (a report's machine carries
// keys of the report too), and a machine with every list and leaf filled (every field of the
// model, also those the seed leaves empty), as it reads back (a filled number outside its domain
// is unknown from the first read on).
std::vector<json> Machines() {
  json doc = json::parse(
      dossier::testing::Slurp(std::string(DOSSIER_SOURCE_DIR) + "/tests/golden/seed-guest.json"));
  std::vector<std::string> w;
  json filled = MachineToJson(MachineFromJson(MachineToJson(testing::FilledMachine()), &w));
  return {MachineToJson(MachineFromJson(doc.at("machines").at(0), &w)), filled};
}

class JsonIoTypes : public ::testing::TestWithParam<int> {};

TEST_P(JsonIoTypes, EveryFieldReadWithEachWrongKindTakesItOrIsUnknownWithAWarning) {
  const json machine = Machines()[static_cast<size_t>(GetParam())];
  std::set<std::string> shapes;
  std::vector<std::string> leaves;
  Leaves(machine, "", "", &shapes, &leaves);
  ASSERT_GT(leaves.size(), 100u);
  const json wrong[] = {json("text"),   json(true),
                        json(1.5),      json(-1),
                        json(1e300),    json(uint64_t{1} << 63),
                        json::object(), json::array({1, "x"}),
                        json(4096.0)};
  json want = machine;
  want.erase("provenance");
  size_t taken = 0, refused = 0;
  for (const auto& ptr : leaves) {
    for (const auto& w : wrong) {
      SCOPED_TRACE(ptr + " = " + w.dump());
      json m = machine;
      m[json::json_pointer(ptr)] = w;
      std::vector<std::string> warnings;
      Machine back;
      ASSERT_NO_THROW(back = MachineFromJson(m, &warnings));
      json again = MachineToJson(back);
      const json::json_pointer p(ptr);
      if (!again.contains(p)) {
        // A map's value of the wrong kind refuses the map whole (env, flags, packages).
        EXPECT_FALSE(warnings.empty()) << "a map dropped without a warning";
        ++refused;
        continue;
      }
      if (again[p] == w) {
        ++taken;
      } else {
        ++refused;
        // A fact becomes unknown, a plain field (an index, a key) keeps its default: both said.
        EXPECT_FALSE(warnings.empty()) << "refused without a warning: " << again[p];
      }
      // Nothing else changes: the rest of the machine reads as it was written.
      json rest = again;
      rest.erase("provenance");
      rest[p] = want[p];
      EXPECT_EQ(rest, want);
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(taken, 0u);
  EXPECT_GT(refused, 0u);
}

// Provenance is text someone may have edited too: an entry that is not an object, or whose
// "from", "unknown" or "stale" is not a string, is not read (the fact keeps its value, with no
// source), and an unknown fact whose entry is unreadable is unknown all the same. Nothing else
// changes.
TEST_P(JsonIoTypes, DamagedProvenanceLosesOnlyItsOwnEntry) {
  const json machine = Machines()[static_cast<size_t>(GetParam())];
  const json& prov = machine.at("provenance");
  ASSERT_GT(prov.size(), 50u);
  const json damaged[] = {json("from a paste"), json::array({"from"}),
                          json{{"from", 5}, {"unknown", json::array()}, {"stale", json::object()}},
                          json(nullptr)};
  size_t checked = 0;
  std::set<std::string> shapes;  // one entry per shape, as above
  for (auto it = prov.begin(); it != prov.end(); ++it) {
    const json::json_pointer p(it.key());
    if (!machine.contains(p)) continue;  // a path the writer keys by index, read the same way
    std::string shape;
    for (char c : it.key())
      if (!std::isdigit(static_cast<unsigned char>(c)) || shape.empty() || shape.back() != '#')
        shape += std::isdigit(static_cast<unsigned char>(c)) ? '#' : c;
    if (!shapes.insert(shape).second) continue;
    for (const auto& d : damaged) {
      SCOPED_TRACE(it.key() + " provenance = " + d.dump());
      json m = machine;
      m["provenance"][it.key()] = d;
      std::vector<std::string> warnings;
      Machine back;
      ASSERT_NO_THROW(back = MachineFromJson(m, &warnings));
      json again = MachineToJson(back);
      // The value is read as it was; only its entry is gone (an unknown with no entry is a fact
      // nothing was recorded for, as a field no probe reached).
      EXPECT_EQ(again[p], machine[p]);
      json want_prov = prov, got_prov = again["provenance"];
      want_prov.erase(it.key());
      EXPECT_FALSE(got_prov.contains(it.key())) << got_prov[it.key()];
      got_prov.erase(it.key());
      EXPECT_EQ(got_prov, want_prov);
      json rest = again, want = machine;
      rest.erase("provenance");
      want.erase("provenance");
      EXPECT_EQ(rest, want);
      ++checked;
      if (::testing::Test::HasFailure()) return;
    }
  }
  EXPECT_GT(checked, 100u);
}

INSTANTIATE_TEST_SUITE_P(SeedGuestAndFilled, JsonIoTypes, ::testing::Values(0, 1),
                         [](const auto& info) {
                           return std::string(info.param == 0 ? "SeedGuest" : "Filled");
                         });

}  // namespace
}  // namespace dossier
