#include "probe/nccl_topo_file.h"

#include <pugixml.hpp>
#include <vector>

#include "probe/read_fact.h"
#include "util/text.h"

namespace dossier {
namespace {

// Line of a byte offset (pugixml keeps offsets, not lines). Asked in document order, so it counts
// on from the previous answer: linear in the file, however many nodes ask.
class TopoLines {
 public:
  explicit TopoLines(std::string_view xml) : xml_(xml) {}
  int64_t At(ptrdiff_t off) {
    if (off < 0 || static_cast<size_t>(off) > xml_.size()) return 0;
    size_t o = static_cast<size_t>(off);
    if (o < pos_) pos_ = 0, line_ = 1;
    for (; pos_ < o; ++pos_) line_ += xml_[pos_] == '\n';
    return line_;
  }

 private:
  std::string_view xml_;
  size_t pos_ = 0;
  int64_t line_ = 1;
};

bool IsHexDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// A <pci> node that is a GPU: NCCL's own dumps put a <gpu> under it; files written by hand (and
// dossier's generator) leave the GPU a leaf whose class is a display controller (0x03xxxx).
bool IsGpuPci(const pugi::xml_node& pci) {
  if (pci.child("gpu")) return true;
  if (pci.child("pci")) return false;
  std::string cls = ToLower(pci.attribute("class").value());
  return cls.rfind("0x03", 0) == 0;
}

}  // namespace

std::string NormalizeNcclBusId(std::string_view id) {
  std::string s = ToLower(Trim(id));
  auto parts = Split(s, ':');
  if (parts.size() == 2) {
    s = "0000:" + s;
    parts = Split(s, ':');
  }
  if (parts.size() != 3) return "";
  std::string dom(parts[0]);
  if (dom.size() == 8 && dom.rfind("0000", 0) == 0) dom = dom.substr(4);
  auto dot = parts[2].find('.');
  if (dom.size() != 4 || !IsHexDigits(dom) || parts[1].size() != 2 || !IsHexDigits(parts[1]) ||
      dot != 2 || parts[2].size() != 4 || !IsHexDigits(parts[2].substr(0, 2)) ||
      !IsHexDigits(parts[2].substr(3)))
    return "";
  return dom + ":" + std::string(parts[1]) + ":" + std::string(parts[2]);
}

NcclTopoFile ParseNcclTopoXml(std::string_view text, const std::string& path) {
  NcclTopoFile out;
  pugi::xml_document doc;
  pugi::xml_parse_result r = doc.load_buffer(text.data(), text.size(), pugi::parse_default);
  if (!r) {
    out.parse_error = path + ":" + std::to_string(TopoLines(text).At(r.offset)) +
                      ": not valid XML (" + r.description() + ")";
    return out;
  }
  pugi::xml_node sys = doc.child("system");
  if (!sys) {
    out.parse_error = path + ": no <system> element (not an NCCL topology file)";
    return out;
  }
  // Depth-first without recursion: (node, numaid of the nearest <cpu> above it).
  struct Item {
    pugi::xml_node node;
    Fact<int64_t> numa;
  };
  std::vector<Item> stack;
  TopoLines lines(text);
  Fact<int64_t> none;
  none.Unknown("not under a <cpu numaid=…>", path);
  for (pugi::xml_node c = sys.last_child(); c; c = c.previous_sibling()) stack.push_back({c, none});
  while (!stack.empty()) {
    Item it = std::move(stack.back());
    stack.pop_back();
    std::string name = it.node.name();
    if (name == "cpu") {
      std::string where = path + ":" + std::to_string(lines.At(it.node.offset_debug()));
      pugi::xml_attribute a = it.node.attribute("numaid");
      auto id = a ? ParseInt(Trim(a.value())) : std::nullopt;
      if (id) {
        it.numa.Set(*id, where);
        out.cpu_numa_ids.push_back(*id);
      } else {
        it.numa.Unknown(a ? "numaid \"" + Printable(a.value(), 40) + "\" is not a number"
                          : "<cpu> without numaid",
                        where);
      }
    } else if (name == "pci" && IsGpuPci(it.node)) {
      NcclTopoGpu g;
      std::string raw = it.node.attribute("busid").value();
      g.bus_id = NormalizeNcclBusId(raw);
      if (g.bus_id.empty()) g.bus_id = Printable(raw, 40);  // kept as written: a mismatch
      g.numa_id = it.numa;
      g.line = lines.At(it.node.offset_debug());
      out.gpus.push_back(std::move(g));
      continue;  // a GPU's children (<gpu>, <nvlink>) place nothing more
    }
    for (pugi::xml_node c = it.node.last_child(); c; c = c.previous_sibling())
      if (c.type() == pugi::node_element) stack.push_back({c, it.numa});
  }
  return out;
}

NcclTopoFile ReadNcclTopoFile(const RootFs& fs, const std::map<std::string, std::string>& environ,
                              const std::string& cwd, const std::string& env_source) {
  NcclTopoFile out;
  auto e = environ.find("NCCL_TOPO_FILE");
  if (e == environ.end() || e->second.empty()) {
    out.file.Unknown("NCCL_TOPO_FILE not set", env_source);
    return out;
  }
  std::string path = e->second;
  if (!path.starts_with('/')) {
    if (cwd.empty()) {
      out.file.Unknown("NCCL_TOPO_FILE is relative (" + Printable(path, 120) +
                           ") and the working directory is unknown",
                       env_source);
      return out;
    }
    path = JoinPath(cwd, path);
  }
  auto data = fs.Read(path, kMaxNcclTopoBytes);
  if (!data) {
    out.file.Unknown(path + ": " + ReasonFor(data.error()), env_source);
    return out;
  }
  NcclTopoFile parsed = ParseNcclTopoXml(*data, path);
  parsed.file.Set(path, env_source + " NCCL_TOPO_FILE");
  return parsed;
}

}  // namespace dossier
