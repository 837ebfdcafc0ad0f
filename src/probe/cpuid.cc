#include "probe/cpuid.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstring>

namespace dossier {
namespace {

struct Signature {
  const char* text;  // as CPUID returns it in EBX, ECX, EDX, trailing NULs removed
  const char* id;
};
// The signatures systemd-detect-virt knows (src/basic/virt.c), and the names dossier gives them.
constexpr Signature kSignatures[] = {
    {"KVMKVMKVM", "kvm"},           {"Microsoft Hv", "hyper-v"}, {"VMwareVMware", "vmware"},
    {"XenVMMXenVMM", "xen"},        {"TCGTCGTCGTCG", "qemu"},  // QEMU without acceleration (TCG)
    {"ACRNACRNACRN", "acrn"},       {"bhyve bhyve ", "bhyve"},   {"QNXQVMBSQG", "qnx"},
    {" lrpepyh  vr", "parallels"},  // Parallels' byte-swapped "prl hyperv"
    {"VBoxVBoxVBox", "virtualbox"},
};

std::string SignatureOf(const CpuidRegs& r) {
  char text[13] = {};
  std::memcpy(text, &r.ebx, 4);
  std::memcpy(text + 4, &r.ecx, 4);
  std::memcpy(text + 8, &r.edx, 4);
  std::string s(text, 12);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

std::string Printable12(const std::string& s) {
  std::string out;
  for (char c : s) out += (c >= 0x20 && c < 0x7f) ? c : '.';
  return out;
}

}  // namespace

CpuidReader LiveCpuid() {
  return [](uint32_t leaf) -> std::optional<CpuidRegs> {
#if defined(__x86_64__) || defined(__i386__)
    CpuidRegs r;
    __cpuid_count(leaf, 0, r.eax, r.ebx, r.ecx, r.edx);
    return r;
#else
    (void)leaf;
    return std::nullopt;
#endif
  };
}

std::string HypervisorFromSignature(const std::string& signature) {
  for (const auto& s : kSignatures)
    if (signature == s.text) return s.id;
  return {};
}

std::optional<CpuidHypervisor> ReadCpuidHypervisor(const CpuidReader& cpuid) {
  if (!cpuid) return std::nullopt;
  auto basic = cpuid(1);
  if (!basic) return std::nullopt;
  CpuidHypervisor h;
  h.present = (basic->ecx >> 31) & 1;
  // Without the flag, leaves 0x40000000 and up are not the hypervisor's: an Intel CPU answers
  // them with its highest basic leaf's data.
  if (!h.present) return h;
  auto leaf = cpuid(0x40000000);
  if (!leaf) return h;
  h.signature = SignatureOf(*leaf);
  h.id = HypervisorFromSignature(h.signature);
  h.source = "CPUID 0x40000000 \"" + Printable12(h.signature) + "\"";
  if (h.id == "hyper-v") {
    // KVM with Hyper-V enlightenments puts Hyper-V's leaves first and its own at 0x40000100.
    if (auto kvm = cpuid(0x40000100); kvm && HypervisorFromSignature(SignatureOf(*kvm)) == "kvm") {
      h.id = "kvm";
      h.source += " and 0x40000100 \"" + Printable12(SignatureOf(*kvm)) +
                  "\" (KVM offering Hyper-V enlightenments)";
    }
  }
  return h;
}

}  // namespace dossier
