// NVIDIA PCI device ids -> what the GPU is: marketing name, architecture, compute capability.
//
// One table (device_ids.cc) of the compute GPUs people run inference on, Ampere and later, each
// row with the sources it was checked against. The probe (probe/gpus.cc) uses it to name a GPU
// from sysfs alone, without the NVIDIA driver or NVML. An id that is not in the table is not
// guessed: the lookup returns nothing and the caller records "not in dossier's table".
//
// A few device ids are shared by products that differ only in their PCI subsystem id (A2 and A16
// share 0x25b6; GH200 120GB and 480GB share 0x2342). Those rows carry the subsystem device id, and
// a lookup with the subsystem id prefers them; without it the device-only row answers.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace dossier {

struct GpuModel {
  uint16_t device_id = 0;
  uint16_t subsystem_device_id = 0;     // 0: any subsystem (the device-only row)
  const char* name = "";                // as the NVIDIA driver README names it ("NVIDIA H100 PCIe")
  const char* architecture = "";        // "Ampere", "Ada Lovelace", "Hopper", "Blackwell"
  const char* compute_capability = "";  // "9.0"
  const char* id_source = "";           // where the id -> name pair was checked
  const char* cc_source = "";           // where the compute capability was checked
};

// The row for an NVIDIA device id (vendor 0x10de), or nullptr when the table does not hold it.
// With a subsystem device id, a row for exactly that subsystem wins over the device-only row.
const GpuModel* FindGpuModel(uint16_t device_id,
                             std::optional<uint16_t> subsystem_device_id = std::nullopt);

// "0x2bb5" or "2bb5" (any case) -> 0x2bb5; nullopt for anything that is not 1-4 hex digits.
std::optional<uint16_t> ParsePciId(std::string_view text);

// Every row, for tests and for 'dossier help'-style listings.
std::span<const GpuModel> GpuModelTable();

}  // namespace dossier
