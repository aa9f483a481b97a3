// Message header (see frame.h) and the checksum.
#include "compress/frame.h"

#include <cstring>

namespace ccmpi::compress {

size_t writeFrameHeader(const FrameHeader& h, uint8_t* out) {
  if (h.length >= (uint64_t{1} << 63)) return 0;
  size_t p = 0;
  out[p++] = kFrameMagic;
  out[p++] = h.codecId;
  out[p++] = h.flags;
  uint64_t v = h.length;
  do {
    uint8_t b = v & 0x7f;
    v >>= 7;
    out[p++] = static_cast<uint8_t>(b | (v ? 0x80 : 0));
  } while (v);
  for (int i = 0; i < 4; ++i) out[p++] = static_cast<uint8_t>(h.checksum >> (8 * i));
  return p;
}

bool parseFrameHeader(const uint8_t* in, size_t inBytes, FrameHeader* h) {
  if (in == nullptr || inBytes < 8 || in[0] != kFrameMagic) return false;
  h->codecId = in[1];
  h->flags = in[2];
  if ((h->flags & ~(kFlagModeMask | kFlagWords32)) != 0) return false;
  if ((h->flags & kFlagModeMask) > kModeCoded) return false;
  uint64_t v = 0;
  size_t p = 3;
  for (int i = 0;; ++i) {
    if (i == 9 || p >= inBytes) return false;
    const uint8_t b = in[p++];
    v |= uint64_t{b & 0x7fu} << (7 * i);
    if (!(b & 0x80)) {
      if (b == 0 && i > 0) return false;  // non-canonical (overlong) encoding
      break;
    }
  }
  if (v >= (uint64_t{1} << 63) || inBytes - p < 4) return false;
  h->length = v;
  h->checksum = uint32_t{in[p]} | uint32_t{in[p + 1]} << 8 | uint32_t{in[p + 2]} << 16 |
                uint32_t{in[p + 3]} << 24;
  h->headerBytes = p + 4;
  return true;
}

namespace {
constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4Full;
inline uint64_t rotl(uint64_t v, int r) {
  return (v << r) | (v >> (64 - r));
}
// One lane step: multiply, rotate, multiply. Unlike a plain sum it cannot be cancelled by
// repeating an error an even number of times (a sign bit flipped in two words).
inline uint64_t round(uint64_t acc, uint64_t w) {
  return rotl(acc + w * kP2, 31) * kP1;
}
}  // namespace

uint32_t checksum32(const void* data, size_t bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t a0 = kP1 + kP2, a1 = kP2, a2 = 0, a3 = 0 - kP1;
  size_t i = 0;
  for (; i + 32 <= bytes; i += 32) {
    uint64_t w[4];
    std::memcpy(w, p + i, 32);
    a0 = round(a0, w[0]);
    a1 = round(a1, w[1]);
    a2 = round(a2, w[2]);
    a3 = round(a3, w[3]);
  }
  uint64_t h = rotl(a0, 1) + rotl(a1, 7) + rotl(a2, 12) + rotl(a3, 18) + bytes;
  for (; i < bytes; i += 8) {
    uint64_t t = 0;
    const size_t m = bytes - i < 8 ? bytes - i : 8;
    std::memcpy(&t, p + i, m);
    h = round(h, t);
  }
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP1;
  h ^= h >> 32;
  return static_cast<uint32_t>(h);
}

}  // namespace ccmpi::compress
