// `lspci -t` / `-tv` / `-tvnn`: the PCI tree drawn in ASCII. "-[0000:40]-" opens a root bus (a
// root complex when its domain or bus differs from the others), "01.1-[41]--" is a bridge to bus
// 41, and devices on one bus sit in one column under each other ("+-", "|", "\-"). Facts:
// pci.devices[] with parent (the bridge above), root_complex ("pci0000:40") and, with -v, the
// name (with -nn the ids too).
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

bool TreeLine(std::string_view line) {
  std::string_view t = line;
  size_t i = 0;
  while (i < t.size() && (t[i] == ' ' || t[i] == '|')) ++i;
  t = t.substr(i);
  return t.starts_with("-[") || t.starts_with("+-") || t.starts_with("\\-") || t.starts_with("-+-");
}

bool TreeStarts(const Lines& lines, size_t i) {
  std::string_view t = Trim(lines[i].text);
  return (t.starts_with("-[") || t.starts_with("-+-[")) && (i == 0 || !TreeLine(lines[i - 1].text));
}

int TreeDetect(const Lines& lines) {
  size_t tree = 0, total = 0;
  for (size_t i = 0; i < lines.size() && i < 300; ++i) {
    if (Trim(lines[i].text).empty()) continue;
    ++total;
    if (TreeLine(lines[i].text)) ++tree;
  }
  return total > 0 && tree * 2 > total && tree >= 2 ? 85 : 0;
}

bool Hex(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0;
}

struct BusRef {
  std::string domain;  // "0000"
  std::string bus;     // "41"
  std::string root;    // "pci0000:40"
  std::string bridge;  // address of the bridge above this bus; empty on a root bus
};

// `lspci -t` draws no port types, yet PIX and PXB depend on them (two GPUs under one switch's
// downstream ports are PIX; a bridge whose type is not known counts as a switch of its own,
// which makes them PXB). PCIe fixes the order below a root port: a switch's upstream port, its
// downstream ports, the next switch's upstream port, and so on; so a bridge's type follows from
// how many bridges sit between it and the root port above it. Only a type no other paste gave
// is set, and its source says it was inferred. (A PCIe-to-PCI bridge, rare on GPU machines,
// would be taken for a switch port.)
void InferPortTypes(const std::vector<std::string>& parsed, MachineIndex* ix) {
  std::set<std::string> bridges;
  for (const auto& a : parsed)
    if (const PciDevice& d = ix->DeviceAt(a); d.parent.known()) bridges.insert(*d.parent);
  for (const auto& b : bridges) {
    if (ix->DeviceAt(b).port_type.known()) continue;
    size_t depth = 0;
    std::string top = b;
    for (size_t guard = 0; guard < 64; ++guard) {
      const PciDevice& t = ix->DeviceAt(top);
      if (!t.parent.known()) break;
      top = *t.parent;
      ++depth;
    }
    const PciDevice& root = ix->DeviceAt(top);
    // The chain must end on a root bus (a device with no bridge above it), else nothing is said.
    if (root.parent.known() || root.parent.unknown.find("root bus") == std::string::npos) continue;
    const char* type = depth == 0 ? "root_port" : depth % 2 == 1 ? "upstream" : "downstream";
    PciDevice& d = ix->DeviceAt(b);  // looked up after the walk: no reference held across it
    std::string src = d.parent.known() ? d.parent.source : d.root_complex.source;
    d.port_type.Set(type, src +
                              ", inferred: below a root port, bridges alternate switch upstream "
                              "and downstream ports (lspci -t draws no port types)");
  }
}

Status TreeParse(const Lines& lines, const ImportSource& src, Imported* out) {
  MachineIndex ix(&out->machine);
  std::map<size_t, BusRef> at_col;  // column of a device entry -> the bus of that column
  size_t devices = 0;
  std::vector<std::string> parsed;  // addresses, in the tree's order
  std::string last_domain = "0000";
  for (const auto& l : lines) {
    const std::string& s = l.text;
    if (!TreeLine(s)) {
      if (!Trim(s).empty())
        out->notes.push_back(src.file + ":" + std::to_string(l.number) +
                             ": not part of the lspci -t tree: '" + Printable(s, 60) + "'");
      continue;
    }
    std::string at = src.At(l.number);
    std::optional<BusRef> line_bus;  // the bus a bracket on this line opened
    std::string last_dev;            // the device entry just read (a bracket after it: bridge)
    for (size_t p = 0; p < s.size(); ++p) {
      if (s[p] == '[') {
        size_t close = s.find(']', p);
        if (close == std::string::npos) break;
        std::string in = s.substr(p + 1, close - p - 1);
        BusRef b;
        if (in.size() == 7 && in[4] == ':') {  // "0000:40": a root bus
          b.domain = ToLower(in.substr(0, 4));
          b.bus = ToLower(in.substr(5, 2));
          b.root = "pci" + b.domain + ":" + b.bus;
          last_domain = b.domain;
        } else if (in.size() >= 2 && Hex(in[0]) && Hex(in[1])) {  // "41" or "41-43"
          b.bus = ToLower(in.substr(0, 2));
          b.bridge = last_dev;
          if (!last_dev.empty()) {
            b.domain = last_dev.substr(0, 4);
            PciDevice& br = ix.DeviceAt(last_dev);
            b.root = br.root_complex.value_or("");
          } else {
            b.domain = last_domain;
          }
        } else {
          p = close;
          continue;
        }
        line_bus = b;
        p = close;
        continue;
      }
      // A device entry "XX.Y" right after a '-'.
      if (p > 0 && s[p - 1] == '-' && p + 4 <= s.size() && Hex(s[p]) && Hex(s[p + 1]) &&
          s[p + 2] == '.' && s[p + 3] >= '0' && s[p + 3] <= '7' &&
          (p + 4 == s.size() || s[p + 4] == ' ' || s[p + 4] == '-')) {
        BusRef b;
        if (line_bus) {
          b = *line_bus;
          at_col[p] = b;
        } else if (auto it = at_col.find(p); it != at_col.end()) {
          b = it->second;
        } else {
          out->notes.push_back(src.file + ":" + std::to_string(l.number) +
                               ": a device whose bus is not above it in the tree; left out");
          p += 3;
          continue;
        }
        line_bus.reset();
        std::string addr = b.domain + ":" + b.bus + ":" + ToLower(s.substr(p, 4));
        PciDevice& d = ix.DeviceAt(addr);
        parsed.push_back(addr);
        if (!b.root.empty()) d.root_complex.Set(b.root, at);
        if (!b.bridge.empty())
          d.parent.Set(b.bridge, at);
        else
          d.parent.Unknown("a device on a root bus has no bridge above it", at);
        ++devices;
        out->facts += 2;
        last_dev = addr;
        p += 3;
        // -tv: the name after two spaces, when no bridge bracket follows.
        if (p + 1 < s.size() && s[p + 1] == ' ') {
          std::string_view name = Trim(std::string_view(s).substr(p + 1));
          if (!name.empty()) {
            // -tvnn: "NVIDIA Corporation AD102GL [RTX 6000 Ada Generation] [10de:26b1]"
            ReadLspciDescription("device: " + std::string(name), &d, at);
            d.class_id = Fact<std::string>{};  // "device" is not a class
          }
          break;
        }
      }
    }
  }
  if (devices == 0) return Error::Invalid("no device in the lspci -t tree");
  InferPortTypes(parsed, &ix);
  return OkStatus();
}

}  // namespace

Importer LspciTreeImporter() {
  return {"lspci-tree",
          "lspci -t / -tv / -tvnn: the PCI tree, root complexes and parents",
          {"lspci -t", "lspci -vt", "lspci -Dt"},
          TreeStarts,
          TreeDetect,
          TreeParse};
}

}  // namespace dossier::import
