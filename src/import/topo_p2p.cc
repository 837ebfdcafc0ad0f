// `nvidia-smi topo -p2p r|w|n|a|p`: one matrix of P2P status codes (X, OK, CNS, GNS, TNS, DR, NS,
// U) for one capability (read, write, nvlink, atomics, prop = pci). The output does not say which
// capability it is: the pasted command line does. Without it the matrix is kept as
// topology.p2p_status.unstated and the note says so.
#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

bool P2pCode(std::string_view t) {
  return t == "X" || t == "OK" || t == "CNS" || t == "GNS" || t == "TNS" || t == "DR" ||
         t == "NS" || t == "U";
}

bool P2pHeader(std::string_view line) {
  auto t = Tokens(line);
  if (t.empty() || t[0] != "GPU0") return false;
  for (auto x : t)
    if (!x.starts_with("GPU") || !ParseInt(x.substr(3))) return false;
  return true;
}

bool TopoP2pStarts(const Lines& lines, size_t i) {
  if (!P2pHeader(lines[i].text)) return false;
  for (size_t j = i + 1; j < lines.size() && j < i + 3; ++j) {
    auto t = Tokens(lines[j].text);
    if (t.size() >= 2 && t[0] == "GPU0") {
      for (size_t k = 1; k < t.size(); ++k)
        if (!P2pCode(t[k])) return false;
      return true;
    }
  }
  return false;
}

int TopoP2pDetect(const Lines& lines) {
  for (size_t i = 0; i < lines.size() && i < 50; ++i)
    if (TopoP2pStarts(lines, i)) return 90;
  return 0;
}

// "nvidia-smi topo -p2p r" -> the P2pStatusMatrices member it fills.
std::vector<std::vector<std::string>>* Capability(const std::string& command, P2pStatusMatrices* st,
                                                  std::string* name) {
  size_t at = command.find("-p2p");
  if (at == std::string::npos) at = command.find("--p2pstatus");
  if (at != std::string::npos) {
    auto t = Tokens(std::string_view(command).substr(at));
    if (t.size() >= 2) {
      std::string_view c = t[1];
      if (c == "r") return *name = "read", &st->read;
      if (c == "w") return *name = "write", &st->write;
      if (c == "n") return *name = "nvlink", &st->nvlink;
      if (c == "a") return *name = "atomics", &st->atomics;
      if (c == "p") return *name = "pci", &st->pci;
    }
  }
  *name = "unstated";
  return &st->unstated;
}

Status TopoP2pParse(const Lines& lines, const ImportSource& src, Imported* out) {
  size_t h = 0;
  while (h < lines.size() && !TopoP2pStarts(lines, h)) ++h;
  if (h == lines.size()) return Error::Invalid("no nvidia-smi topo -p2p header (GPU0 GPU1 …)");
  size_t n = Tokens(lines[h].text).size();
  std::vector<std::vector<std::string>> m;
  size_t last_line = lines[h].number;
  for (size_t i = h + 1; i < lines.size() && m.size() < n; ++i) {
    auto t = Tokens(lines[i].text);
    if (t.empty()) continue;
    if (t[0] != "GPU" + std::to_string(m.size())) break;
    if (t.size() != n + 1) {
      out->notes.push_back(src.file + ":" + std::to_string(lines[i].number) +
                           ": this topo -p2p row is incomplete (cut off); the matrix stops here");
      break;
    }
    std::vector<std::string> row;
    for (size_t k = 1; k <= n; ++k) row.emplace_back(P2pCode(t[k]) ? t[k] : "?");
    m.push_back(std::move(row));
    last_line = lines[i].number;
  }
  if (m.size() < n) {
    out->notes.push_back(src.file + ":" + std::to_string(last_line) +
                         ": the topo -p2p matrix has " + std::to_string(m.size()) + " of " +
                         std::to_string(n) + " rows; only the complete square is kept");
    for (auto& r : m) r.resize(m.size());
  }
  std::string cap;
  auto* dst = Capability(src.command, &out->machine.topology.p2p_status, &cap);
  *dst = m;
  out->facts += m.size() * m.size();
  if (cap == "unstated") {
    out->notes.push_back(src.file + ":" + std::to_string(lines[h].number) +
                         ": which capability (-p2p r, w, n, a or p) was not pasted with the "
                         "output; kept as topology.p2p_status.unstated (import with the command "
                         "line, or '$ nvidia-smi topo -p2p r' above the output, to say it)");
  }
  return OkStatus();
}

}  // namespace

Importer TopoP2pImporter() {
  return {"topo-p2p",
          "nvidia-smi topo -p2p r|w|n|a|p: P2P status per GPU pair (OK, NS, CNS, GNS, TNS…)",
          {"nvidia-smi topo -p2p", "nvidia-smi topo --p2pstatus"},
          TopoP2pStarts,
          TopoP2pDetect,
          TopoP2pParse};
}

}  // namespace dossier::import
