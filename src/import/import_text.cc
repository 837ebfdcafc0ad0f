#include "import/import_text.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "util/text.h"

namespace dossier::import {

std::string ImportSource::At(size_t line) const {
  return "imported: " + file + ":" + std::to_string(line) + " (" + format + ")";
}

std::vector<std::string_view> Tokens(std::string_view line) {
  return SplitAny(line, " \t");
}

std::optional<std::string> NormalizePciAddress(std::string_view s) {
  auto hex = [](std::string_view p) {
    return !p.empty() && std::all_of(p.begin(), p.end(), [](char c) {
      return std::isxdigit(static_cast<unsigned char>(c)) != 0;
    });
  };
  std::string domain = "0000";
  size_t colon = s.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  size_t colon2 = s.find(':', colon + 1);
  if (colon2 != std::string_view::npos) {
    std::string_view d = s.substr(0, colon);
    if (!hex(d) || d.size() > 8) return std::nullopt;
    // nvidia-smi writes an 8-digit domain; only its low 4 digits exist on Linux.
    if (d.size() > 4) {
      if (d.substr(0, d.size() - 4).find_first_not_of('0') != std::string_view::npos)
        return std::nullopt;
      d = d.substr(d.size() - 4);
    }
    domain = std::string(4 - d.size(), '0') + std::string(d);
    s = s.substr(colon + 1);
  }
  // BB:DD.F
  if (s.size() != 7 || s[2] != ':' || s[5] != '.') return std::nullopt;
  if (!hex(s.substr(0, 2)) || !hex(s.substr(3, 2)) || s[6] < '0' || s[6] > '7') return std::nullopt;
  return ToLower(domain + ":" + std::string(s));
}

std::optional<int64_t> GenFromSpeed(std::string_view speed) {
  speed = Trim(speed);
  if (speed.ends_with(",")) speed.remove_suffix(1);
  static const std::pair<const char*, int64_t> kSpeeds[] = {
      {"2.5GT/s", 1}, {"5GT/s", 2}, {"8GT/s", 3}, {"16GT/s", 4}, {"32GT/s", 5}, {"64GT/s", 6}};
  for (const auto& [s, g] : kSpeeds)
    if (speed == s) return g;
  return std::nullopt;
}

template <class V, class K, class Key>
typename V::value_type& MachineIndex::At(V& entries, std::unordered_map<K, size_t>& index,
                                         size_t& indexed, const K& key, Key key_of) {
  // Entries appended since the last lookup (by this index or by anyone else) are indexed first;
  // the first of equal keys wins, as the linear search did.
  for (; indexed < entries.size(); ++indexed) index.emplace(key_of(entries[indexed]), indexed);
  if (auto it = index.find(key); it != index.end()) return entries[it->second];
  entries.emplace_back();
  index.emplace(key, entries.size() - 1);
  indexed = entries.size();
  return entries.back();
}

PciDevice& MachineIndex::DeviceAt(const std::string& address) {
  size_t before = m_->pci.devices.size();
  PciDevice& d = At(m_->pci.devices, devices_, devices_n_, address,
                    [](const PciDevice& x) { return x.address; });
  if (m_->pci.devices.size() > before) d.address = address;
  return d;
}

IommuGroup& MachineIndex::GroupAt(int64_t id) {
  size_t before = m_->iommu.groups.size();
  IommuGroup& g = At(m_->iommu.groups, groups_, groups_n_, id,
                     [](const IommuGroup& x) { return static_cast<int64_t>(x.id); });
  if (m_->iommu.groups.size() > before) g.id = id;
  return g;
}

NvmlGpu& MachineIndex::NvmlGpuAt(int64_t index) {
  size_t before = m_->nvml.gpus.size();
  NvmlGpu& g = At(m_->nvml.gpus, nvml_, nvml_n_, index,
                  [](const NvmlGpu& x) { return static_cast<int64_t>(x.index); });
  if (m_->nvml.gpus.size() > before) g.index = index;
  return g;
}

Gpu& MachineIndex::GpuAt(int64_t index) {
  size_t before = m_->gpus.size();
  Gpu& g = At(m_->gpus, gpus_, gpus_n_, index,
              [](const Gpu& x) { return static_cast<int64_t>(x.index); });
  if (m_->gpus.size() > before) g.index = index;
  return g;
}

void ReadLspciDescription(std::string_view text, PciDevice* d, const std::string& at) {
  size_t colon = text.find(": ");
  if (colon == std::string_view::npos) return;
  std::string cls(text.substr(0, colon)), name(text.substr(colon + 2));
  static const std::regex kClass(R"(\[([0-9a-fA-F]{4})\]$)");
  static const std::regex kIds(R"(\[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\])");
  std::smatch m;
  if (std::regex_search(cls, m, kClass)) {
    d->class_id.Set("0x" + ToLower(m[1].str()) + "00", at);
    cls = std::string(Trim(cls.substr(0, cls.size() - 6)));
  } else {
    static const std::pair<const char*, const char*> kClasses[] = {
        {"VGA compatible controller", "0x030000"},
        {"3D controller", "0x030200"},
        {"Display controller", "0x038000"},
        {"PCI bridge", "0x060400"},
        {"Host bridge", "0x060000"},
        {"Ethernet controller", "0x020000"},
        {"Infiniband controller", "0x020700"},
        {"Non-Volatile memory controller", "0x010802"},
        {"Audio device", "0x040300"}};
    for (const auto& [c, id] : kClasses)
      if (cls == c) d->class_id.Set(id, at);
  }
  // The last [vvvv:dddd] is the device's; names hold other brackets ("[AMD]").
  std::string id_v, id_d;
  for (auto it = name.cbegin(); std::regex_search(it, name.cend(), m, kIds); it = m[0].second) {
    id_v = m[1].str();
    id_d = m[2].str();
  }
  size_t cut = name.find(" (rev ");
  if (cut == std::string::npos) cut = name.find(" (prog-if ");
  std::string clean = name.substr(0, cut);
  if (!id_v.empty()) {
    d->vendor_id.Set("0x" + ToLower(id_v), at);
    d->device_id.Set("0x" + ToLower(id_d), at);
    size_t ids = clean.rfind(" [" + id_v);
    if (ids != std::string::npos) clean = clean.substr(0, ids);
  } else if (name.starts_with("NVIDIA Corporation")) {
    d->vendor_id.Set("0x10de", at);
  } else if (name.starts_with("Mellanox")) {
    d->vendor_id.Set("0x15b3", at);
  }
  d->name.Set(clean, at);
}

size_t DecodeEntity(std::string_view s, std::string* out) {
  static const std::pair<std::string_view, char> kEntities[] = {
      {"&nbsp;", ' '}, {"&amp;", '&'},  {"&lt;", '<'},    {"&gt;", '>'},
      {"&quot;", '"'}, {"&#39;", '\''}, {"&#x27;", '\''}, {"&#34;", '"'}};
  for (const auto& [e, ch] : kEntities)
    if (s.starts_with(e)) {
      out->push_back(ch);
      return e.size();
    }
  return 0;
}

std::string StripMarkup(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '<') {
      // A tag: "<" then a letter, '/' or '!' and no blank before its '>'.
      size_t close = line.find('>', i);
      if (close != std::string_view::npos && i + 1 < line.size() &&
          (std::isalpha(static_cast<unsigned char>(line[i + 1])) || line[i + 1] == '/' ||
           line[i + 1] == '!') &&
          close - i < 200) {
        std::string_view tag = line.substr(i + 1, close - i - 1);
        std::string name = ToLower(tag.substr(0, tag.find_first_of(" /")));
        // Block-level tags separate words; inline ones do not.
        if (name == "br" || name == "td" || name == "th" || name == "p" || name == "div" ||
            name == "li" || name == "tr")
          out += ' ';
        i = close;
        continue;
      }
    }
    if (c == '&') {
      if (size_t n = DecodeEntity(line.substr(i), &out)) {
        i += n - 1;
        continue;
      }
    }
    out += c;
  }
  return std::string(Trim(out));
}

bool KeyValue(std::string_view line, std::string* key, std::string* value) {
  std::string t = StripMarkup(line);
  size_t colon = t.find(':');
  if (colon == std::string::npos) return false;
  *key = std::string(Trim(std::string_view(t).substr(0, colon)));
  *value = std::string(Trim(std::string_view(t).substr(colon + 1)));
  return !key->empty();
}

bool IsElision(std::string_view line) {
  line = Trim(line);
  return line == "..." || line == "[...]" || line == "\xE2\x80\xA6" || line == "(...)" ||
         line == "<snip>" || line == "[snip]" || line == "...snip..." || line == "…";
}

}  // namespace dossier::import
