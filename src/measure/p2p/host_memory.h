// Page-locked host memory placed on a chosen NUMA node, for host<->device copies that say where
// the host side lives. The pages are mapped, bound to the node with mbind(2) before they are first
// touched, touched, and then registered with CUDA (cuMemHostRegister), which locks them. mbind is
// called through syscall(2) because libnuma is not a dependency and this is its only use; when the
// kernel refuses (one node, a container without the capability) the memory is placed by the
// default policy and placement() says so. Where the first page really landed is asked back from
// the kernel (get_mempolicy), not assumed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "gpu/cuda_loader.h"
#include "util/result.h"

namespace dossier::p2p {

// What placement() says, from mbind's failure (`bind_error`, "" when it bound; ignored when no
// node was asked for: node < 0) and the node the kernel says the first page is on (`landed`, -1
// when it would not say): "NUMA node 1", "NUMA node 1 asked for; pages on node 0",
// "default policy (mbind to node 1: Invalid argument); pages on node 0", "default policy; node
// not known".
std::string DescribePlacement(const std::string& bind_error, int64_t node, int64_t landed);

class PinnedHostMemory {
 public:
  // node < 0: no binding. The CUDA library must outlive the object.
  static Result<std::unique_ptr<PinnedHostMemory>> Create(const gpu::CudaLibrary& cuda,
                                                          size_t bytes, int64_t node);
  ~PinnedHostMemory();
  PinnedHostMemory(const PinnedHostMemory&) = delete;
  PinnedHostMemory& operator=(const PinnedHostMemory&) = delete;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // "NUMA node 1"; "default policy (mbind to node 1: Invalid argument); pages on node 0".
  const std::string& placement() const { return placement_; }
  // A copy that never completed may still touch the memory: keep it mapped and registered for
  // the life of the process.
  void Abandon() { abandoned_ = true; }

 private:
  PinnedHostMemory(const gpu::CudaLibrary& cuda) : cuda_(cuda) {}
  const gpu::CudaLibrary& cuda_;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  bool registered_ = false;
  bool abandoned_ = false;
  std::string placement_;
};

}  // namespace dossier::p2p
