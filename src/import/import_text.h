// Helpers the importers share: whitespace tokens, PCI addresses as pasted ("01:00.0",
// "0000:01:00.0", "00000000:01:00.0"), link speeds, and finding or adding a device by address.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "import/importer.h"

namespace dossier::import {

// Pieces of a line split at runs of spaces and tabs.
std::vector<std::string_view> Tokens(std::string_view line);

// "01:00.0", "0000:01:00.0" or nvidia-smi's "00000000:01:00.0" (any case) as "0000:01:00.0";
// nullopt for anything else. A bus id without a domain is domain 0000, as lspci prints it.
std::optional<std::string> NormalizePciAddress(std::string_view s);

// "2.5GT/s" … "64GT/s" as a PCIe generation (1 … 6); nullopt for anything else.
std::optional<int64_t> GenFromSpeed(std::string_view speed);

// The device at `address` (the group, the GPU at `index`), added with only its key when the
// machine has none there yet. Looked up by key: a paste lists tens of thousands of devices, and a
// linear search per line made an IOMMU listing of 40,000 devices take 25 s to import (20,000:
// 7 s), quadratic. Entries the machine held before, or that others appended since, are indexed
// on the next lookup. A reference is valid until the next call that adds an entry.
class MachineIndex {
 public:
  explicit MachineIndex(Machine* m) : m_(m) {}
  PciDevice& DeviceAt(const std::string& address);
  IommuGroup& GroupAt(int64_t id);
  NvmlGpu& NvmlGpuAt(int64_t index);
  Gpu& GpuAt(int64_t index);

 private:
  template <class V, class K, class Key>
  typename V::value_type& At(V& entries, std::unordered_map<K, size_t>& index, size_t& indexed,
                             const K& key, Key key_of);
  Machine* m_;
  std::unordered_map<std::string, size_t> devices_;
  std::unordered_map<int64_t, size_t> groups_, nvml_, gpus_;
  size_t devices_n_ = 0, groups_n_ = 0, nvml_n_ = 0, gpus_n_ = 0;
};

// What lspci prints after an address: "VGA compatible controller [0300]: NVIDIA Corporation
// AD102GL [RTX 6000 Ada Generation] [10de:26b1] (rev a1)" (-nn) or "3D controller: NVIDIA
// Corporation GB202GL" (no ids: vendor and class are then read from the words).
void ReadLspciDescription(std::string_view text, PciDevice* d, const std::string& at);

// A line as a chat or web page may have left it: HTML tags removed ("<td>32 GB</td>",
// "<br>"), the common entities decoded (&nbsp; &amp; &lt; &gt; &quot;), blanks trimmed.
std::string StripMarkup(std::string_view line);

// The HTML entity at `s` (&nbsp; &amp; &lt; &gt; &quot; &#39; &#x27; &#34;): its character
// appended to `out` and its length returned; 0 (nothing appended) when none starts there.
size_t DecodeEntity(std::string_view s, std::string* out);

// "Key: value" of a pasted key-value output (lscpu, dmidecode, numactl), indentation and markup
// ignored; false when the line has no colon or an empty key.
bool KeyValue(std::string_view line, std::string* key, std::string* value);

// Whether a line is a `...` elision a person left in a paste ("...", "[...]", "…", "<snip>").
bool IsElision(std::string_view line);

}  // namespace dossier::import
