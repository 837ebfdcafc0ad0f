// The domain of the model's numbers, by key: one table, used wherever numbers come from outside
// (records read back in json_io.cc, imported facts in import/import_numbers.cc), so that a value
// outside it (memory.total_bytes: -1, threads: -7, a link generation of -5) is unknown with a
// warning instead of a wrong fact (16384 PiB of memory, "Gen-5 x-5").
//
// The model's integers and reals are counts, sizes, rates, ids, indices and generations: at
// least 0. The exceptions are the keys where -1 means "none" (the kernel's numa_node of a device
// without one, a host endpoint of a copy, a rank not said): at least -1. The upper bound is the
// C++ type's (a JSON 1e30 does not fit an int64), and lower for the few keys the hardware or the
// kernel caps (a PCIe link width above x32, a NUMA node above 1023: number_domain.cc's table).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace dossier {

// The smallest value `key` (the last part of a path: "numa_node", "total_bytes") may hold.
int64_t SmallestAllowed(std::string_view key);

// Why `v` is outside the domain of `key`, or nullopt when it is inside.
std::optional<std::string> OutsideDomain(std::string_view key, double v);

}  // namespace dossier
