// Checking that copied bytes arrived intact. Every source buffer holds a pattern derived from a
// seed and the byte offset, with no zero byte in it; every destination is cleared to zeros before
// the copies. After them, the destination is compared with the pattern: entirely when the copy is
// small, in windows spread over it when large (reading back hundreds of MiB per result would cost
// more than the copies). A byte that stayed zero, or arrived from the wrong place, differs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace dossier::p2p {

// The pattern byte at `offset` of a buffer filled with `seed`; never 0.
uint8_t PatternByte(uint64_t seed, size_t offset);
// Writes the pattern for [offset, offset+len) of the buffer to out[0..len).
void FillPattern(uint64_t seed, size_t offset, size_t len, uint8_t* out);
// The first offset in [offset, offset+len) whose byte (data[0..len)) differs from the pattern.
std::optional<size_t> FirstMismatch(uint64_t seed, size_t offset, size_t len, const uint8_t* data);

struct Window {
  size_t offset = 0;
  size_t len = 0;
};
// Copies up to kWholeCheckBytes are checked entirely; larger ones in kWindows windows of
// kWindowBytes: the first and last and the rest evenly spread, so a short or shifted copy, one that
// stopped early and one that stopped late are all caught.
inline constexpr size_t kWholeCheckBytes = 4u << 20;
inline constexpr size_t kWindowBytes = 64u << 10;
inline constexpr size_t kWindows = 64;
std::vector<Window> CheckWindows(size_t bytes);
// Whether CheckWindows covers every byte.
inline bool CheckedEntirely(size_t bytes) {
  return bytes <= kWholeCheckBytes;
}

}  // namespace dossier::p2p
