// `lspci -vvv` / `-vvvnn` / `-D` (and -vv, -v), and the greps people paste of it. One stanza per
// device: "BB:DD.F Class [cccc]: Name [vvvv:dddd]" (DDDD: first with -D), then tab-indented lines.
// Facts: pci.devices[] with name, vendor/device id, class, driver, NUMA node, port type, link
// capability and status (gen, width), ACS capability and control, BAR sizes. ACSCtl lines with no
// stanza above them (`lspci -vvv | grep ACSCtl`) become pci.acs_lines: they count for the ACS
// verdict though they name no bridge.
#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

// "01:00.0 VGA compatible controller [0300]: NVIDIA …" or with a domain.
bool StanzaHead(std::string_view line, std::string* address) {
  if (line.empty() || line[0] == ' ' || line[0] == '\t') return false;
  size_t sp = line.find(' ');
  if (sp == std::string_view::npos) return false;
  auto a = NormalizePciAddress(line.substr(0, sp));
  if (!a) return false;
  if (line.find(':', sp) == std::string_view::npos) return false;  // "Class: Name"
  if (address) *address = *a;
  return true;
}

bool AcsLine(std::string_view line) {
  std::string_view t = Trim(line);
  return t.starts_with("ACSCtl:") || t.starts_with("ACSCap:");
}

bool LspciStarts(const Lines& lines, size_t i) {
  if (StanzaHead(lines[i].text, nullptr)) {
    // A stanza has indented detail lines; a one-line `lspci -nn` listing is read too.
    return true;
  }
  return AcsLine(lines[i].text) && (i == 0 || !AcsLine(lines[i - 1].text));
}

int LspciDetect(const Lines& lines) {
  int heads = 0, details = 0;
  for (size_t i = 0; i < lines.size() && i < 400; ++i) {
    const std::string& l = lines[i].text;
    if (StanzaHead(l, nullptr)) ++heads;
    std::string_view t = Trim(l);
    if (t.starts_with("LnkSta:") || t.starts_with("LnkCap:") || t.starts_with("ACSCtl:") ||
        t.starts_with("Capabilities:") || t.starts_with("Kernel driver in use:"))
      ++details;
  }
  if (details > 0) return 85;
  if (heads > 0) return 40;  // plain `lspci` / `lspci -nn`
  return 0;
}

// "SrcValid+ TransBlk- ReqRedir+ …" -> the set bits as model/pci.h names them.
std::vector<std::string> AcsBits(std::string_view rest, bool* complete) {
  static const std::pair<const char*, const char*> kBits[] = {
      {"SrcValid", "SV"},    {"TransBlk", "TB"},   {"ReqRedir", "RR"},   {"CmpltRedir", "CR"},
      {"UpstreamFwd", "UF"}, {"EgressCtrl", "EC"}, {"DirectTrans", "DT"}};
  std::vector<std::string> out;
  int seen = 0;
  for (auto tok : Tokens(rest)) {
    for (const auto& [name, abbr] : kBits) {
      if (tok.size() == std::string_view(name).size() + 1 && tok.starts_with(name)) {
        ++seen;
        if (tok.back() == '+') out.emplace_back(abbr);
      }
    }
  }
  *complete = seen >= 5;  // RR and CR at least; a line cut short says less than it seems
  return out;
}

// "Speed 16GT/s (ok), Width x16 (ok)" -> gen and width.
void LinkState(std::string_view rest, PciLinkState* st, const std::string& at) {
  auto t = Tokens(rest);
  for (size_t k = 0; k + 1 < t.size(); ++k) {
    if (t[k] == "Speed") {
      if (auto g = GenFromSpeed(t[k + 1])) st->gen.Set(*g, at);
    } else if (t[k] == "Width") {
      std::string_view w = t[k + 1];
      if (w.ends_with(",")) w.remove_suffix(1);
      if (w.starts_with("x"))
        if (auto n = ParseInt(w.substr(1))) st->width.Set(*n, at);
    }
  }
}

const char* PortType(std::string_view cap) {
  if (cap.find("Root Port") != std::string_view::npos) return "root_port";
  if (cap.find("Upstream Port") != std::string_view::npos) return "upstream";
  if (cap.find("Downstream Port") != std::string_view::npos) return "downstream";
  if (cap.find("Legacy Endpoint") != std::string_view::npos) return "legacy_endpoint";
  if (cap.find("Root Complex Integrated Endpoint") != std::string_view::npos)
    return "rc_integrated_endpoint";
  if (cap.find("Endpoint") != std::string_view::npos) return "endpoint";
  return nullptr;
}

uint64_t SizeBytes(std::string_view s) {  // "64G", "32M", "256K"
  if (s.empty()) return 0;
  uint64_t mult = s.back() == 'K'   ? 1ull << 10
                  : s.back() == 'M' ? 1ull << 20
                  : s.back() == 'G' ? 1ull << 30
                  : s.back() == 'T' ? 1ull << 40
                                    : 1;
  if (mult != 1) s.remove_suffix(1);
  auto n = ParseUint(s);
  return n && *n < (1ull << 20) ? *n * mult : 0;
}

void ReadHead(std::string_view line, PciDevice* d, const std::string& at) {
  size_t sp = line.find(' ');
  ReadLspciDescription(Trim(line.substr(sp)), d, at);
}

Status LspciParse(const Lines& lines, const ImportSource& src, Imported* out) {
  MachineIndex ix(&out->machine);
  PciDevice* d = nullptr;
  PciAcs* acs_target = nullptr;
  size_t stanzas = 0, acs_alone = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i].text;
    std::string at = src.At(lines[i].number);
    std::string addr;
    if (StanzaHead(l, &addr)) {
      d = &ix.DeviceAt(addr);
      ReadHead(l, d, at);
      ++stanzas;
      out->facts += 2;
      continue;
    }
    std::string_view t = Trim(l);
    if (t.starts_with("ACSCap:") || t.starts_with("ACSCtl:")) {
      bool ctl = t.starts_with("ACSCtl:");
      bool complete = false;
      auto bits = AcsBits(t.substr(7), &complete);
      if (!complete) {
        out->notes.push_back(src.file + ":" + std::to_string(lines[i].number) +
                             ": this ACS line is cut short; not read");
        continue;
      }
      ++out->facts;
      if (d) {
        acs_target = &d->acs;
        acs_target->present.Set(true, at);
        (ctl ? acs_target->control : acs_target->capability).Set(bits, at);
      } else if (ctl) {
        PciAcsLine al;
        al.line = at;
        al.control.Set(bits, at);
        out->machine.pci.acs_lines.push_back(std::move(al));
        ++acs_alone;
      }
      continue;
    }
    if (!d) continue;
    if (t.starts_with("NUMA node:")) {
      if (auto n = ParseInt(Trim(t.substr(10)))) d->numa_node.Set(*n, at), ++out->facts;
    } else if (t.starts_with("Kernel driver in use:")) {
      d->driver.Set(std::string(Trim(t.substr(21))), at), ++out->facts;
    } else if (t.starts_with("LnkCap:")) {
      LinkState(t.substr(7), &d->link.max, at), ++out->facts;
    } else if (t.starts_with("LnkSta:")) {
      LinkState(t.substr(7), &d->link.current, at), ++out->facts;
    } else if (t.starts_with("Capabilities:") && t.find("Express") != std::string_view::npos) {
      if (const char* pt = PortType(t)) d->port_type.Set(pt, at), ++out->facts;
    } else if (t.starts_with("Region ") && t.find("[size=") != std::string_view::npos) {
      // "Region 1: Memory at 38000000000 (64-bit, prefetchable) [size=64G]"
      auto idx = ParseInt(t.substr(7, t.find(':') - 7));
      size_t sz = t.find("[size=");
      size_t end = t.find(']', sz);
      if (idx && end != std::string_view::npos) {
        PciBar b;
        b.index = *idx;
        b.size_bytes = SizeBytes(t.substr(sz + 6, end - sz - 6));
        b.prefetchable = t.find("non-prefetchable") == std::string_view::npos &&
                         t.find("prefetchable") != std::string_view::npos;
        b.is64 = t.find("64-bit") != std::string_view::npos;
        if (b.size_bytes) d->bars.push_back(b), ++out->facts;
      }
    }
  }
  if (stanzas == 0 && acs_alone == 0) return Error::Invalid("no lspci device stanza or ACS line");
  if (acs_alone > 0) {
    out->notes.push_back(src.file + ": " + std::to_string(acs_alone) +
                         " ACSCtl line(s) without their device (a grep of lspci -vvv): they "
                         "count for the ACS verdict; paste `lspci -vvv` whole to say which "
                         "bridges they are");
  }
  return OkStatus();
}

}  // namespace

Importer LspciVerboseImporter() {
  return {"lspci",
          "lspci [-D] [-nn] -vvv, and greps of it (ACSCtl): devices, links, ACS, BARs, NUMA",
          {"lspci -vvv", "lspci -vv", "lspci -v", "lspci -nn", "lspci -D", "lspci -s", "lspci -k",
           "grep ACS", "grep -i acs", "lspci"},
          LspciStarts,
          LspciDetect,
          LspciParse};
}

}  // namespace dossier::import
