// The CPUID hypervisor leaves (0x40000000 on): the signature a hypervisor puts in EBX, ECX, EDX,
// which names it even where the machine has no DMI (a microVM). systemd-detect-virt reads it
// first, for the same reason. Read live through an injectable reader so tests give any CPU; a
// --root tree has no CPU to ask, so its hypervisor comes from files only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace dossier {

struct CpuidRegs {
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
};

// leaf -> registers; nullopt where CPUID cannot be asked (not x86).
using CpuidReader = std::function<std::optional<CpuidRegs>(uint32_t leaf)>;

// This CPU's CPUID (subleaf 0); a reader answering nullopt on anything but x86.
CpuidReader LiveCpuid();

struct CpuidHypervisor {
  bool present = false;   // CPUID.1:ECX bit 31, the "hypervisor" flag
  std::string signature;  // the 12 bytes of leaf 0x40000000, trailing NULs removed
  std::string id;         // "kvm", "hyper-v", …; empty for a signature not in the table
  std::string source;     // "CPUID 0x40000000 \"KVMKVMKVM\"" (or 0x40000100, see below)
};

// The hypervisor CPUID names, or nullopt when the reader cannot ask. Where 0x40000000 says
// "Microsoft Hv" and 0x40000100 says "KVMKVMKVM", the host is KVM offering Hyper-V's
// enlightenments to the guest (Proxmox's Windows VMs, QEMU -cpu hv-*): KVM is named.
std::optional<CpuidHypervisor> ReadCpuidHypervisor(const CpuidReader& cpuid);

// "KVMKVMKVM" -> "kvm", "Microsoft Hv" -> "hyper-v", …; "" when unknown.
std::string HypervisorFromSignature(const std::string& signature);

}  // namespace dossier
