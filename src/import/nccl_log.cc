// NCCL_DEBUG=INFO logs, and the lines an inference server prints around NCCL (vLLM's "vLLM is
// using nccl==2.26.2", "Custom allreduce is disabled because your platform lacks GPU P2P
// capability"). Facts: nccl.version, nccl.cuda_driver, nccl.ranks[] (rank, nranks, cudaDev, bus
// id from "comm 0x… rank 0 nranks 2 cudaDev 0 … busId 1000"), nccl.connections[] ("Channel 00/0 :
// 0[0] -> 1[1] via P2P/IPC/read"), nccl.p2p_refused[] ("Could not enable P2P between dev 1(=81000)
// and dev 0(=1000)", and the server's P2P refusals).
#include <regex>

#include "import/import_text.h"
#include "util/text.h"

namespace dossier::import {
namespace {

bool NcclLine(std::string_view l) {
  // "NCCL version 2.20.5+cuda12.4" as NCCL prints it on stdout without the host:pid prefix.
  std::string_view t = Trim(l);
  if (t.starts_with("NCCL version ")) return true;
  return l.find("NCCL INFO") != std::string_view::npos ||
         l.find("NCCL WARN") != std::string_view::npos ||
         l.find("is using nccl==") != std::string_view::npos ||
         l.find("Custom allreduce is disabled") != std::string_view::npos;
}

bool NcclStarts(const Lines& lines, size_t i) {
  // The first NCCL line after other text: what precedes (a server's startup) is its own part.
  return NcclLine(lines[i].text) && (i == 0 || !NcclLine(lines[i - 1].text));
}

int NcclDetect(const Lines& lines) {
  for (const auto& l : lines)
    if (NcclLine(l.text)) return 75;
  return 0;
}

// NCCL's busId is the bus id's hex digits run together without separators, leading zeros
// dropped: "1000" = 0000:01:00.0, "81000" = 0000:81:00.0, "10000e1000" = 0001:e1:00.0.
std::string BusId(const std::string& hex) {
  if (hex.empty() || hex.size() > 12) return {};
  std::string d = std::string(hex.size() < 9 ? 9 - hex.size() : 0, '0') + ToLower(hex);
  size_t n = d.size();
  std::string addr = d.substr(0, n - 5) + ":" + d.substr(n - 5, 2) + ":" + d.substr(n - 3, 2) +
                     "." + d.substr(n - 1);
  auto norm = NormalizePciAddress(addr);
  return norm ? *norm : std::string();
}

Status NcclParse(const Lines& lines, const ImportSource& src, Imported* out) {
  NcclInfo& n = out->machine.nccl;
  static const std::regex kVersion(R"(NCCL version ([0-9][0-9.]*[0-9]))");
  static const std::regex kVllm(R"(using nccl==([0-9][0-9.]*[0-9]))");
  static const std::regex kDriver(R"(cudaDriverVersion ([0-9]+))");
  static const std::regex kRank(
      R"(rank (\d+) nranks (\d+) cudaDev (\d+)(?: nvmlDev \d+)? busId ([0-9a-fA-F]+))");
  // "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read" (2.8+: device index in brackets), "Channel 00 :
  // 2[201c0] -> 3[201d0] via P2P/IPC/read" (2.7: the short bus id), "Ring 00 : 0[0] -> 1[1] via
  // P2P/IPC" (2.4-2.6), and the old transport names with spaces ("P2P/direct pointer",
  // "direct shared memory").
  static const std::regex kChannel(
      R"((?:Channel|Ring) (\d+)(?:/\d+)? : (\d+)\[[0-9a-fA-F]+\] (?:->|\xE2\x86\x92) (\d+)\[[0-9a-fA-F]+\] (?:\[\w+\] )?via ([^\r\n]+?)\s*$)");
  static const std::regex kRefusedPair(
      R"((?:dev|GPUs) (\d+)(?:\(=([0-9a-fA-F]+)\))? and (?:dev )?(\d+)(?:\(=([0-9a-fA-F]+)\))?)");
  size_t seen = 0;
  for (const auto& l : lines) {
    if (!NcclLine(l.text)) continue;
    ++seen;
    std::string at = src.At(l.number);
    std::smatch m;
    const std::string& t = l.text;
    if (t.size() > 8192) continue;  // std::regex on a huge line: not worth it, and slow
    if (std::regex_search(t, m, kVersion) || std::regex_search(t, m, kVllm)) {
      if (!n.version.known()) n.version.Set(m[1].str(), at), ++out->facts;
    } else if (std::regex_search(t, m, kDriver)) {
      n.cuda_driver.Set(m[1].str(), at), ++out->facts;
    } else if (std::regex_search(t, m, kRank)) {
      int64_t rank = ParseInt(m[1].str()).value_or(-1);
      NcclRank* r = nullptr;
      for (auto& x : n.ranks)
        if (x.rank == rank) r = &x;
      if (!r) {
        n.ranks.emplace_back();
        r = &n.ranks.back();
        r->rank = rank;
      }
      if (auto v = ParseInt(m[2].str())) r->nranks.Set(*v, at);
      if (auto v = ParseInt(m[3].str())) r->cuda_device.Set(*v, at);
      if (auto b = BusId(m[4].str()); !b.empty()) r->bus_id.Set(b, at);
      out->facts += 3;
    } else if (std::regex_search(t, m, kChannel)) {
      NcclConnection c;
      c.channel = ParseInt(m[1].str()).value_or(-1);
      c.from_rank = ParseInt(m[2].str()).value_or(-1);
      c.to_rank = ParseInt(m[3].str()).value_or(-1);
      c.transport = m[4].str();
      c.line = at;
      if (n.connections.size() < 4096) n.connections.push_back(std::move(c)), ++out->facts;
    } else if (size_t p = t.find("Could not enable P2P"), d = t.find("P2P is disabled between");
               p != std::string::npos || d != std::string::npos) {
      if (p == std::string::npos)
        p = d;  // transport/p2p.cc: "P2P is disabled between
                // connected GPUs 1 and 0."
      NcclP2pRefused r{t.substr(p, 200), at, {}, {}};
      // The pair: "dev 1(=81000) and dev 0(=1000)" (transport/p2p.cc, bus ids in brackets),
      // "connected GPUs 1 and 0" (ordinals only).
      std::smatch pm;
      std::string rest = t.substr(p, 300);
      if (std::regex_search(rest, pm, kRefusedPair)) {
        for (int k : {1, 3})
          if (auto v = ParseInt(pm[k].str())) r.devices.push_back(*v);
        for (int k : {2, 4})
          if (auto b = BusId(pm[k].str()); !b.empty()) r.bus_ids.push_back(b);
        if (r.devices.size() != 2) r.devices.clear();
        if (r.bus_ids.size() != 2) r.bus_ids.clear();
      }
      n.p2p_refused.push_back(std::move(r));
      ++out->facts;
    } else if (size_t q = t.find("Custom allreduce is disabled"); q != std::string::npos) {
      std::string msg = t.substr(q, 200);
      bool dup = false;
      for (const auto& r : n.p2p_refused) dup = dup || r.message == msg;
      if (!dup) n.p2p_refused.push_back({msg, at, {}, {}}), ++out->facts;
    }
  }
  if (seen == 0) return Error::Invalid("no NCCL line (NCCL INFO …)");
  return OkStatus();
}

}  // namespace

Importer NcclLogImporter() {
  return {"nccl-log",
          "NCCL_DEBUG=INFO logs (and vLLM's NCCL lines): version, ranks and bus ids, channel "
          "transports, refused P2P",
          {"NCCL_DEBUG=INFO", "NCCL_DEBUG"},
          NcclStarts,
          NcclDetect,
          NcclParse};
}

}  // namespace dossier::import
