#include "measure/p2p/host_memory.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace dossier::p2p {
namespace {

constexpr int kMpolBind = 2;                   // MPOL_BIND, linux/mempolicy.h
constexpr unsigned kMpolMfStrict = 1u << 0;    // MPOL_MF_STRICT
constexpr unsigned long kMpolFNode = 1u << 0;  // MPOL_F_NODE
constexpr unsigned long kMpolFAddr = 1u << 1;  // MPOL_F_ADDR

// Binds [p, p+len) to `node`; "" on success, else strerror.
std::string Bind(void* p, size_t len, int64_t node) {
  if (node < 0 || node >= 4096) return "no such node";
  const size_t bits = 8 * sizeof(unsigned long);
  std::vector<unsigned long> mask(static_cast<size_t>(node) / bits + 1, 0);
  mask[static_cast<size_t>(node) / bits] |= 1ul << (static_cast<size_t>(node) % bits);
  long rc =
      ::syscall(SYS_mbind, p, len, kMpolBind, mask.data(), mask.size() * bits + 1, kMpolMfStrict);
  return rc == 0 ? std::string() : std::string(std::strerror(errno));
}

// The node holding the page at p, or -1.
int64_t NodeOf(void* p) {
  int node = -1;
  long rc = ::syscall(SYS_get_mempolicy, &node, nullptr, 0, p, kMpolFNode | kMpolFAddr);
  return rc == 0 ? node : -1;
}

}  // namespace

std::string DescribePlacement(const std::string& bind_error, int64_t node, int64_t landed) {
  std::string where = landed >= 0 ? "pages on node " + std::to_string(landed) : "node not known";
  // Bound: the node asked for, unless the kernel, asked back, says the first page is elsewhere.
  // When it would not say, the bind that succeeded stands.
  if (node >= 0 && bind_error.empty())
    return landed == node || landed < 0
               ? "NUMA node " + std::to_string(node)
               : "NUMA node " + std::to_string(node) + " asked for; " + where;
  if (node >= 0)
    return "default policy (mbind to node " + std::to_string(node) + ": " + bind_error + "); " +
           where;
  return "default policy; " + where;
}

Result<std::unique_ptr<PinnedHostMemory>> PinnedHostMemory::Create(const gpu::CudaLibrary& cuda,
                                                                   size_t bytes, int64_t node) {
  std::unique_ptr<PinnedHostMemory> m(new PinnedHostMemory(cuda));
  size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  size_t len = (std::max<size_t>(bytes, 1) + page - 1) / page * page;
  void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return Error::Io("mmap of " + std::to_string(len) + " bytes: " + std::strerror(errno));
  m->data_ = static_cast<uint8_t*>(p);
  m->size_ = len;
  std::string why = node >= 0 ? Bind(p, len, node) : std::string();
  std::memset(p, 0, len);  // first touch: the pages land where the policy says
  m->placement_ = DescribePlacement(why, node, NodeOf(p));
  CUresult rc = cuda.host_register.fn(p, len, CU_MEMHOSTREGISTER_PORTABLE);
  if (rc != CUDA_SUCCESS) return Error::Io(gpu::CudaLibrary::Why(cuda.host_register, rc));
  m->registered_ = true;
  return m;
}

PinnedHostMemory::~PinnedHostMemory() {
  if (abandoned_ || !data_) return;
  if (registered_) cuda_.host_unregister.fn(data_);
  ::munmap(data_, size_);
}

}  // namespace dossier::p2p
