// Small text helpers for the parsers of foreign text (sysfs attributes, /proc files, tool
// output). Strict: a number that does not parse is an error, never 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dossier {

std::string_view Trim(std::string_view s);
std::vector<std::string_view> SplitLines(std::string_view s);
// Splits on any run of the given separators; no empty pieces.
std::vector<std::string_view> SplitAny(std::string_view s, std::string_view seps);
// Splits on one separator; keeps empty pieces.
std::vector<std::string_view> Split(std::string_view s, char sep);

// Whole-string integer in base 10 (or base 16 with 0x when base==0); nullopt on anything else.
std::optional<int64_t> ParseInt(std::string_view s, int base = 10);
std::optional<uint64_t> ParseUint(std::string_view s, int base = 10);
std::optional<double> ParseDouble(std::string_view s);

// CPU numbers stop far below this (the kernel's NR_CPUS is at most 8192): a larger one, in a
// list, a mask or a pasted table, is damage.
inline constexpr int64_t kCpuNumberLimit = int64_t{1} << 20;
inline bool PlausibleCpu(int64_t c) {
  return c >= 0 && c < kCpuNumberLimit;
}

// "0-3,8,10-11" -> {0,1,2,3,8,10,11}; nullopt when malformed or absurdly large.
std::optional<std::vector<int64_t>> ParseCpuList(std::string_view s);
// The kernel's hex CPU mask (cpumap, local_cpus, thread_siblings): 32-bit words, most
// significant first, separated by commas: "00000000,0000ffff" -> {0..15}. nullopt when malformed
// or longer than 8192 CPUs (the largest NR_CPUS a distribution kernel builds).
std::optional<std::vector<int64_t>> ParseCpuMask(std::string_view s);
// {0,1,2,3,8} -> "0-3,8"
std::string FormatCpuList(const std::vector<int64_t>& cpus);

// "key: value" / "key=value" helpers: the value after the first separator, trimmed.
std::optional<std::string_view> ValueAfter(std::string_view line, char sep);
// Removes one pair of surrounding double or single quotes.
std::string_view Unquote(std::string_view s);

std::string ToLower(std::string_view s);
// Printable form of foreign bytes for messages: control and non-ASCII bytes as \xNN, at most n.
std::string Printable(std::string_view s, size_t n = 80);

}  // namespace dossier
