// dmidecode, whole or by type (`-t system|baseboard|bios|processor|memory`, `-t 1`, `-t 17`), or
// grep'ed: its sections begin with a title line ("System Information", "Base Board Information",
// "BIOS Information", "Processor Information", "Memory Device"), usually after a "Handle 0x…,
// DMI type N" line, followed by tab-indented "Key: value" lines. A grep that kept no title is
// read by the type the pasted command asked for (`dmidecode -t bios | grep -i version`).
// Facts: dmi.{sys_vendor,product_name,product_uuid,board_vendor,board_name,bios_vendor,
// bios_version,bios_date,processor_manufacturer,processor_version} — what collect reads from
// /sys/class/dmi/id and the SMBIOS table — and dmi.memory_devices[] for populated DIMM slots.
// BIOS dates are kept as dmidecode prints them (MM/DD/YYYY), as /sys/class/dmi/id/bios_date is.
// Serial numbers are not kept. Placeholders ("To Be Filled By O.E.M.", "Not Specified") are not
// facts.
#include <regex>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

enum class Section { kNone, kSystem, kBoard, kBios, kProcessor, kMemory, kOther };

Section SectionOf(std::string_view title) {
  std::string t = StripMarkup(title);
  if (t == "System Information") return Section::kSystem;
  if (t == "Base Board Information") return Section::kBoard;
  if (t == "BIOS Information") return Section::kBios;
  if (t == "Processor Information") return Section::kProcessor;
  if (t == "Memory Device") return Section::kMemory;
  return Section::kNone;
}

// Titles of the sections not read, as dmidecode names them.
bool OtherTitle(const std::string& t) {
  return t.ends_with(" Information") || t.starts_with("Memory ") ||
         t.starts_with("Physical Memory") || t == "OEM Strings" ||
         t == "System Configuration Options" || t.starts_with("Onboard Device") ||
         t.starts_with("On Board Device") || t == "Inactive" || t == "End Of Table" ||
         t == "Chassis Information" || t.starts_with("System Boot") ||
         t.starts_with("Port Connector") || t.starts_with("System Slot") ||
         t.starts_with("Cache ") || t.starts_with("Management ") || t.starts_with("IPMI ") ||
         t.starts_with("System Power") || t.starts_with("Portable Battery") ||
         t.starts_with("Voltage Probe") || t.starts_with("Cooling Device") ||
         t.starts_with("Temperature Probe") || t.starts_with("Electrical Current");
}

bool HandleLine(std::string_view line) {
  std::string t = StripMarkup(line);
  return t.starts_with("Handle 0x") && t.find("DMI type") != std::string::npos;
}

bool DmiStarts(const Lines& lines, size_t i) {
  std::string t = StripMarkup(lines[i].text);
  if (t.starts_with("# dmidecode") ||
      (t.starts_with("SMBIOS ") && t.find("present") != std::string::npos))
    return true;
  if (HandleLine(t)) return i == 0 || !HandleLine(lines[i - 1].text);
  return false;
}

int DmiDetect(const Lines& lines) {
  int handles = 0, titles = 0;
  for (const auto& l : lines) {
    std::string t = StripMarkup(l.text);
    if (t.starts_with("# dmidecode") || HandleLine(t)) ++handles;
    if (SectionOf(t) != Section::kNone) ++titles;
  }
  if (handles && titles) return 95;
  if (titles) return 70;
  return 0;
}

Section SectionFromCommand(const std::string& cmd) {
  static const std::regex kType(R"((?:-t|--type)[ =]?(\w+))");
  std::smatch m;
  if (!std::regex_search(cmd, m, kType)) return Section::kNone;
  std::string t = ToLower(m[1].str());
  if (t == "system" || t == "1") return Section::kSystem;
  if (t == "baseboard" || t == "2") return Section::kBoard;
  if (t == "bios" || t == "0") return Section::kBios;
  if (t == "processor" || t == "4") return Section::kProcessor;
  if (t == "memory" || t == "17") return Section::kMemory;
  return Section::kOther;
}

bool Placeholder(const std::string& v) {
  std::string l = ToLower(v);
  return l.empty() || l == "not specified" || l == "to be filled by o.e.m." ||
         l == "default string" || l == "not provided" || l == "unknown" || l == "none" ||
         l == "no module installed" || l == "not installed" || l == "o.e.m." ||
         l == "system product name" || l == "system manufacturer" || l == "0123456789";
}

// "32 GB", "32768 MB", "1 TB" -> bytes.
std::optional<uint64_t> DimmSize(const std::string& v) {
  static const std::regex kSize(R"(^(\d+)\s*(kB|KB|MB|GB|TB)$)");
  std::smatch m;
  if (!std::regex_match(v, m, kSize)) return std::nullopt;
  uint64_t n = std::stoull(m[1].str());
  std::string u = m[2].str();
  int shift = u == "TB" ? 40 : u == "GB" ? 30 : u == "MB" ? 20 : 10;
  return n << shift;
}

std::optional<int64_t> Mts(const std::string& v) {
  static const std::regex kSpeed(R"(^(\d+)\s*(MT/s|MHz)$)");
  std::smatch m;
  if (!std::regex_match(v, m, kSpeed)) return std::nullopt;
  return std::stoll(m[1].str());
}

Status DmiParse(const Lines& lines, const ImportSource& src, Imported* out) {
  DmiInfo& dmi = out->machine.dmi;
  Section sec = SectionFromCommand(src.command);
  std::vector<DimmInfo> dimms;
  DimmInfo dimm;
  bool in_dimm = false, dimm_empty = false, after_handle = false;
  std::string bank;
  size_t facts = 0;
  auto flush = [&] {
    if (in_dimm && !dimm_empty && (dimm.size_bytes.known() || dimm.locator.known()))
      dimms.push_back(dimm);
    dimm = DimmInfo{};
    in_dimm = false;
    dimm_empty = false;
    bank.clear();
  };
  for (const auto& l : lines) {
    std::string t = StripMarkup(l.text);
    if (HandleLine(t)) {
      flush();
      after_handle = true;
      continue;
    }
    if (t.empty()) continue;
    if (Section s = SectionOf(t); s != Section::kNone) {
      after_handle = false;
      flush();
      sec = s;
      in_dimm = s == Section::kMemory;
      continue;
    }
    std::string k, v;
    if (!KeyValue(t, &k, &v)) {
      // Another section's title ("Chassis Information", "OEM Strings"): what follows is not
      // ours. A list item of a key ("Board is replaceable" under "Features:") is not a title.
      if (!t.empty() && t.find(':') == std::string::npos && (after_handle || OtherTitle(t))) {
        flush();
        sec = Section::kOther;
      }
      after_handle = false;
      continue;
    }
    after_handle = false;
    std::string at = src.At(l.number);
    auto set = [&](Fact<std::string>* f) {
      if (Placeholder(v)) return;
      f->Set(v, at);
      ++facts;
    };
    switch (sec) {
      case Section::kSystem:
        if (k == "Manufacturer")
          set(&dmi.sys_vendor);
        else if (k == "Product Name")
          set(&dmi.product_name);
        else if (k == "UUID")
          set(&dmi.product_uuid);
        break;
      case Section::kBoard:
        if (k == "Manufacturer")
          set(&dmi.board_vendor);
        else if (k == "Product Name")
          set(&dmi.board_name);
        break;
      case Section::kBios:
        if (k == "Vendor")
          set(&dmi.bios_vendor);
        else if (k == "Version")
          set(&dmi.bios_version);
        else if (k == "Release Date")
          set(&dmi.bios_date);
        break;
      case Section::kProcessor:
        // The first populated socket, as collect reads it.
        if (k == "Manufacturer" && !dmi.processor_manufacturer.known())
          set(&dmi.processor_manufacturer);
        else if (k == "Version" && !dmi.processor_version.known())
          set(&dmi.processor_version);
        break;
      case Section::kMemory:
        in_dimm = true;
        if (k == "Size") {
          if (auto b = DimmSize(v)) {
            dimm.size_bytes.Set(*b, at);
            ++facts;
          } else {
            dimm_empty = true;  // "No Module Installed"
          }
        } else if (k == "Locator") {
          dimm.locator.Set(bank.empty() ? v : bank + " " + v, at);
        } else if (k == "Bank Locator" && !Placeholder(v)) {
          bank = v;
          if (dimm.locator.known()) dimm.locator.Set(v + " " + *dimm.locator, at);
        } else if (k == "Type" && !Placeholder(v)) {
          dimm.type.Set(v, at);
        } else if (k == "Speed") {
          if (auto s = Mts(v)) dimm.speed_mts.Set(*s, at);
        } else if (k == "Configured Memory Speed" || k == "Configured Clock Speed") {
          if (auto s = Mts(v)) dimm.configured_speed_mts.Set(*s, at);
        } else if (k == "Manufacturer" && !Placeholder(v)) {
          dimm.manufacturer.Set(v, at);
        } else if (k == "Part Number" && !Placeholder(v)) {
          dimm.part_number.Set(std::string(Trim(v)), at);
        }
        break;
      default:
        break;
    }
  }
  flush();
  if (!dimms.empty()) dmi.memory_devices = std::move(dimms);
  out->facts += facts;
  if (facts == 0 && dmi.memory_devices.empty())
    return Error::Invalid("no System, Base Board, BIOS, Processor or Memory Device value");
  return OkStatus();
}

}  // namespace

Importer DmidecodeImporter() {
  return {"dmidecode",
          "dmidecode (whole, -t system|baseboard|bios|processor|memory, grep'ed): vendor, "
          "product, board, BIOS version and date, CPU, DIMMs",
          {"dmidecode"},
          DmiStarts,
          DmiDetect,
          DmiParse};
}

}  // namespace dossier::import
