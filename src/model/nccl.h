// What an NCCL_DEBUG=INFO log (or an inference server's startup log around NCCL) says about a
// machine: NCCL's version, the ranks with their GPUs' bus ids, the transport of every channel
// connection, and the P2P it refused. Filled by import/nccl_log.cc; read by rules/nccl.cc.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/fact.h"

namespace dossier {

struct NcclRank {
  int64_t rank = -1;
  Fact<int64_t> nranks;
  Fact<int64_t> cuda_device;
  Fact<std::string> bus_id;  // DDDD:BB:DD.F from NCCL's busId
  template <class V>
  void visit(V& v) {
    v("rank", rank);
    v("nranks", nranks);
    v("cuda_device", cuda_device);
    v("bus_id", bus_id);
  }
};

struct NcclConnection {
  int64_t channel = -1;
  int64_t from_rank = -1, to_rank = -1;
  std::string transport;  // "P2P/IPC/read", "P2P/CUMEM", "SHM/direct/direct", "NET/IB/0/GDRDMA"…
  std::string line;       // "imported: FILE:LINE (nccl-log)"
  template <class V>
  void visit(V& v) {
    v("channel", channel);
    v("from_rank", from_rank);
    v("to_rank", to_rank);
    v("transport", transport);
    v("line", line);
  }
};

struct NcclP2pRefused {
  std::string message;  // "Could not enable P2P between dev 1(=81000) and dev 0(=1000)"
  std::string line;
  // The pair the message names, when it does: CUDA device ordinals ("dev 1", "GPUs 1 and 0")
  // and bus ids ("(=81000)" = 0000:81:00.0). Empty for a message that names no pair (vLLM's
  // "Custom allreduce is disabled …").
  std::vector<int64_t> devices;
  std::vector<std::string> bus_ids;
  template <class V>
  void visit(V& v) {
    v("message", message);
    v("line", line);
    v("devices", devices);
    v("bus_ids", bus_ids);
  }
};

struct NcclInfo {
  Fact<std::string> version;      // "2.26.2"
  Fact<std::string> cuda_driver;  // "12040" as NCCL prints it
  std::vector<NcclRank> ranks;
  std::vector<NcclConnection> connections;
  std::vector<NcclP2pRefused> p2p_refused;
  template <class V>
  void visit(V& v) {
    v("version", version);
    v("cuda_driver", cuda_driver);
    v("ranks", ranks);
    v("connections", connections);
    v("p2p_refused", p2p_refused);
  }
};

}  // namespace dossier
