#include "hypervisor/pci_cfg.h"

#include "hypervisor/options.h"
#include "util/text.h"

namespace dossier::hypervisor {
namespace {

void ParseMapLine(std::string_view text, std::string_view value, const std::string& src,
                  PciCfgParse* out, PciCfgEntry pos) {
  PciMappingEntry e;
  size_t base = static_cast<size_t>(value.data() - text.data());
  // Walk the items by hand (not SplitOptions) to keep each value's offset.
  size_t i = 0;
  while (i <= value.size()) {
    size_t end = value.find(',', i);
    if (end == std::string_view::npos) end = value.size();
    std::string_view item = value.substr(i, end - i);
    size_t eq = item.find('=');
    if (!item.empty()) {
      if (eq == std::string_view::npos) {
        out->problems.push_back(src + ": map item '" + std::string(item) +
                                "' is not key=value (ignored)");
      } else {
        std::string key(item.substr(0, eq));
        std::string v(item.substr(eq + 1));
        if (key == "id") {
          e.id = Known(ToLower(v), src);
        } else if (key == "subsystem-id") {
          e.subsystem_id = Known(ToLower(v), src);
        } else if (key == "node") {
          e.node = Known(v, src);
        } else if (key == "path") {
          e.path = Known(v, src);
          for (auto p : Split(v, ';'))
            if (FullPciAddress(p).empty())
              out->problems.push_back(src + ": path '" + std::string(p) + "' is not a PCI address");
        } else if (key == "iommugroup") {
          if (auto g = ParseInt(v); g && *g >= 0) {
            e.iommugroup = Known(*g, src);
            pos.group_offset = base + i + eq + 1;
            pos.group_length = v.size();
          } else {
            e.iommugroup.Unknown("not a group number: '" + v + "'", src);
            out->problems.push_back(src + ": iommugroup '" + v + "' is not a number");
          }
        } else if (key != "description") {
          out->problems.push_back(src + ": unknown map item '" + key + "' (ignored)");
        }
      }
    }
    i = end + 1;
  }
  for (const char* req : {"id", "node", "path"}) {
    bool has = (std::string(req) == "id" && e.id.known()) ||
               (std::string(req) == "node" && e.node.known()) ||
               (std::string(req) == "path" && e.path.known());
    if (!has)
      out->problems.push_back(src + ": malformed map line: no " + req +
                              "= (Proxmox requires id, node and path)");
  }
  if (!e.iommugroup.known() && e.iommugroup.unknown.empty())
    e.iommugroup.Unknown("no iommugroup= (not checked at VM start)", src);
  PciMapping& m = out->mappings[pos.mapping];
  pos.entry = m.entries.size();
  m.entries.push_back(std::move(e));
  out->positions.push_back(pos);
}

}  // namespace

PciCfgParse ParsePciCfg(std::string_view text, const std::string& name) {
  PciCfgParse out;
  bool in_section = false;
  int64_t line_no = 0;
  for (auto raw : SplitLines(text)) {
    ++line_no;
    std::string src = name + ":" + std::to_string(line_no);
    std::string_view line = Trim(raw);
    if (line.empty()) {
      in_section = false;
      continue;
    }
    if (line[0] == '#') continue;
    bool indented = raw[0] == ' ' || raw[0] == '\t';
    // A property whose indentation a paste lost ("map id=…" at the start of the line, after a
    // mapping's name): a name is one word, a property a known key and its value.
    size_t word = line.find_first_of(" \t");
    std::string_view first = line.substr(0, word);
    bool property =
        word != std::string_view::npos && (first == "map" || first == "description" ||
                                           first == "mdev" || first == "live-migration-capable");
    if (!indented && !(property && in_section)) {
      // "NAME", or "pci: NAME" as other section configs write their headers.
      std::string header(line);
      if (size_t c = header.find(':'); c != std::string::npos)
        header = std::string(Trim(std::string_view(header).substr(c + 1)));
      if (header.empty() || header.find_first_of(" \t") != std::string::npos) {
        out.problems.push_back(src + ": '" + std::string(line) +
                               "' is not a mapping name (section ignored)");
        in_section = false;
        continue;
      }
      out.mappings.push_back({header, {}});
      in_section = true;
      continue;
    }
    if (!in_section) {
      out.problems.push_back(src + ": property outside a mapping section (ignored)");
      continue;
    }
    size_t sp = line.find_first_of(" \t");
    std::string_view key = line.substr(0, sp);
    std::string_view value = sp == std::string_view::npos ? "" : Trim(line.substr(sp));
    if (key == "map") {
      PciCfgEntry pos;
      pos.mapping = out.mappings.size() - 1;
      pos.line = line_no;
      ParseMapLine(text, value, src, &out, pos);
    } else if (key != "description" && key != "mdev" && key != "live-migration-capable") {
      out.problems.push_back(src + ": unknown property '" + std::string(key) + "' (ignored)");
    }
  }
  return out;
}

}  // namespace dossier::hypervisor
