#include "measure/p2p/verify.h"

#include <algorithm>
#include <cstring>

namespace dossier::p2p {
namespace {

// splitmix64: a fast, well-mixed function of (seed, 8-byte block index).
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

uint64_t Block(uint64_t seed, size_t block) {
  uint64_t w = Mix(seed * 0x100000001b3ull ^ Mix(block));
  // No zero byte: a destination cleared to zeros can never match by accident.
  for (int i = 0; i < 8; ++i)
    if (((w >> (i * 8)) & 0xff) == 0) w |= uint64_t{0xa5} << (i * 8);
  return w;
}

}  // namespace

uint8_t PatternByte(uint64_t seed, size_t offset) {
  return static_cast<uint8_t>(Block(seed, offset / 8) >> ((offset % 8) * 8));
}

void FillPattern(uint64_t seed, size_t offset, size_t len, uint8_t* out) {
  size_t i = 0;
  while (i < len && (offset + i) % 8 != 0) {
    out[i] = PatternByte(seed, offset + i);
    ++i;
  }
  for (; i + 8 <= len; i += 8) {
    uint64_t w = Block(seed, (offset + i) / 8);
    for (int k = 0; k < 8; ++k) out[i + k] = static_cast<uint8_t>(w >> (k * 8));
  }
  for (; i < len; ++i) out[i] = PatternByte(seed, offset + i);
}

std::optional<size_t> FirstMismatch(uint64_t seed, size_t offset, size_t len, const uint8_t* data) {
  uint8_t expect[4096];
  for (size_t done = 0; done < len; done += sizeof expect) {
    size_t n = std::min(sizeof expect, len - done);
    FillPattern(seed, offset + done, n, expect);
    if (std::memcmp(expect, data + done, n) == 0) continue;
    for (size_t i = 0; i < n; ++i)
      if (expect[i] != data[done + i]) return offset + done + i;
  }
  return std::nullopt;
}

std::vector<Window> CheckWindows(size_t bytes) {
  std::vector<Window> w;
  if (bytes == 0) return w;
  if (CheckedEntirely(bytes)) {
    w.push_back({0, bytes});
    return w;
  }
  const size_t last = bytes - kWindowBytes;
  for (size_t i = 0; i < kWindows; ++i) {
    // Evenly spread from the first byte to the last window, rounded down to 4 KiB pages but for
    // the last one, so page-sized holes in a copy line up with window starts.
    size_t off = last / (kWindows - 1) * i;
    if (i + 1 < kWindows)
      off &= ~size_t{4095};
    else
      off = last;
    w.push_back({off, kWindowBytes});
  }
  return w;
}

}  // namespace dossier::p2p
