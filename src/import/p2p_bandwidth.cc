// The CUDA sample p2pBandwidthLatencyTest: devices with their bus ids, which pairs "CAN Access
// Peer", then bandwidth matrices (GB/s) for unidirectional and bidirectional copies with P2P
// disabled (staged through the host) and enabled, and latency matrices (us). Becomes one p2p
// measurement in the form `dossier p2p` writes (tool "p2pBandwidthLatencyTest"): results per
// ordered pair and mode (uni-staged, uni-p2p, bi-staged, bi-p2p, latency-staged, latency-p2p).
// The sample copies 10,000,000 ints (40,000,000 bytes) per bandwidth run (its source says so; the
// output does not). The diagonal (a GPU's copy to itself) is not a pair and is left out.
#include <cstdio>
#include <map>
#include <set>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

constexpr uint64_t kSampleBytes = 40000000;

bool P2pBwHead(std::string_view line) {
  return line.find("P2P (Peer-to-Peer) GPU Bandwidth Latency Test") != std::string_view::npos;
}

bool P2pBwStarts(const Lines& lines, size_t i) {
  return P2pBwHead(lines[i].text);
}

int P2pBwDetect(const Lines& lines) {
  for (const auto& l : lines) {
    if (P2pBwHead(l.text)) return 95;
    if (l.text.find("Bandwidth Matrix (GB/s)") != std::string_view::npos) return 80;
  }
  return 0;
}

// The mode a matrix title names; empty for a matrix that is not kept (CPU latency).
std::string MatrixMode(std::string_view title) {
  bool en = title.find("P2P=Enabled") != std::string_view::npos;
  bool dis = title.find("P2P=Disabled") != std::string_view::npos;
  if (!en && !dis) return {};
  if (title.find("Unidirectional") != std::string_view::npos) return en ? "uni-p2p" : "uni-staged";
  if (title.find("Bidirectional") != std::string_view::npos) return en ? "bi-p2p" : "bi-staged";
  if (title.find("Latency") != std::string_view::npos) return en ? "latency-p2p" : "latency-staged";
  return {};
}

Status P2pBwParse(const Lines& lines, const ImportSource& src, Imported* out) {
  P2pMeasurement pm;
  pm.tool = "p2pBandwidthLatencyTest";
  std::set<std::pair<int64_t, int64_t>> no_access;
  std::string mode;       // the matrix being read
  bool cpu_rows = false;  // inside a latency matrix's CPU part
  size_t matrices = 0, first = lines.empty() ? 0 : lines.front().number;
  bool cut = false;
  size_t expect_cols = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = Trim(lines[i].text);
    if (t.starts_with("Device: ")) {
      // "Device: 0, NVIDIA …, pciBusID: b4, pciDeviceID: 0, pciDomainID:0"
      auto idx = ParseInt(Trim(t.substr(8, t.find(',') - 8)));
      size_t b = t.find("pciBusID:"), dv = t.find("pciDeviceID:"), dm = t.find("pciDomainID:");
      if (idx && b != std::string_view::npos && dv != std::string_view::npos &&
          dm != std::string_view::npos && *idx >= 0 && *idx < 1024) {
        auto bus = ParseInt(Trim(t.substr(b + 9, t.find(',', b) - b - 9)), 16);
        auto dev = ParseInt(Trim(t.substr(dv + 12, t.find(',', dv) - dv - 12)), 16);
        auto dom = ParseInt(Trim(t.substr(dm + 12)), 16);
        if (bus && dev && dom) {
          char buf[32];
          std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.0", static_cast<unsigned>(*dom & 0xffff),
                        static_cast<unsigned>(*bus & 0xff), static_cast<unsigned>(*dev & 0x1f));
          if (pm.gpu_addresses.size() <= static_cast<size_t>(*idx))
            pm.gpu_addresses.resize(*idx + 1);
          pm.gpu_addresses[*idx] = buf;
        }
      }
      continue;
    }
    if (t.starts_with("Device=") && t.find("CANNOT Access Peer") != std::string_view::npos) {
      auto a = ParseInt(t.substr(7, t.find(' ') - 7));
      size_t at = t.rfind("Device=");
      auto b = ParseInt(t.substr(at + 7));
      if (a && b) no_access.insert({*a, *b});
      continue;
    }
    if (t.find("Matrix") != std::string_view::npos) {
      mode = MatrixMode(t);
      cpu_rows = false;
      expect_cols = 0;
      if (!mode.empty()) ++matrices;
      continue;
    }
    auto tok = Tokens(t);
    if (tok.empty()) continue;
    if (tok[0] == "D\\D" || tok[0] == "GPU" || tok[0] == "CPU") {
      cpu_rows = tok[0] == "CPU";
      expect_cols = tok.size() - 1;
      continue;
    }
    if (mode.empty() || cpu_rows || expect_cols == 0) continue;
    auto src_gpu = ParseInt(tok[0]);
    if (!src_gpu) continue;
    if (tok.size() != expect_cols + 1) {
      cut = true;
      out->notes.push_back(src.file + ":" + std::to_string(lines[i].number) +
                           ": this matrix row is incomplete (cut off); left out");
      continue;
    }
    for (size_t k = 1; k < tok.size(); ++k) {
      int64_t dst = static_cast<int64_t>(k - 1);
      if (dst == *src_gpu) continue;
      auto val = ParseDouble(tok[k]);
      if (!val) continue;
      bool p2p_mode = mode.find("p2p") != std::string::npos;
      if (p2p_mode && (no_access.count({*src_gpu, dst}) || no_access.count({dst, *src_gpu}))) {
        continue;  // without peer access the "enabled" run repeats staged copies
      }
      P2pResult r;
      r.src = *src_gpu;
      r.dst = dst;
      r.mode = mode;
      r.verdict = "ok";
      r.detail = "imported from " + src.At(lines[i].number);
      if (mode.starts_with("latency")) {
        r.latency_us.Set(*val, src.At(lines[i].number));
      } else {
        r.size_bytes = kSampleBytes;
        r.gbps_median.Set(*val, src.At(lines[i].number));
      }
      pm.results.push_back(std::move(r));
      ++out->facts;
    }
  }
  if (matrices == 0 && pm.results.empty())
    return Error::Invalid("no p2pBandwidthLatencyTest matrix");
  if (!no_access.empty())
    out->notes.push_back(src.file + ": " + std::to_string(no_access.size()) +
                         " ordered pair(s) CANNOT access each other: their 'P2P=Enabled' "
                         "numbers are staged copies and are not kept as P2P");
  pm.interrupted = cut;
  pm.imported_from = src.At(first);
  out->p2p.push_back(std::move(pm));
  return OkStatus();
}

}  // namespace

Importer P2pBandwidthImporter() {
  return {"p2p-bandwidth-latency",
          "CUDA sample p2pBandwidthLatencyTest: a p2p measurement (bandwidth, latency per pair)",
          {"p2pBandwidthLatencyTest"},
          P2pBwStarts,
          P2pBwDetect,
          P2pBwParse};
}

}  // namespace dossier::import
