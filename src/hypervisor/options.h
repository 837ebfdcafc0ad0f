// Proxmox and QEMU property strings: "0000:01:00,pcie=1,x-vga=1" or "vfio-pci,host=…,id=…" — a
// comma-separated list of key=value items where the first item may be a bare value (the default
// key). QEMU escapes a comma inside a value as ",,". Pure; shared by the hypervisor parsers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dossier::hypervisor {

struct Option {
  std::string key;  // empty for a bare item
  std::string value;
};

std::vector<Option> SplitOptions(std::string_view s);

// The value of `key`, or nullptr.
const std::string* FindOption(const std::vector<Option>& opts, std::string_view key);

// A PCI address as Proxmox and QEMU write it ("01:00", "0000:01:00.0", "1:0.0") in full
// DDDD:BB:DD.F form; `function_default` fills a missing function. Empty when it is not one.
std::string FullPciAddress(std::string_view s, int function_default = 0);
// True when s names all functions of a device ("0000:01:00", no function).
bool IsWholeDevice(std::string_view s);

}  // namespace dossier::hypervisor
