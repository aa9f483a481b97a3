// Message header (see frame.h) and the checksum.
#include "compress/frame.h"

#include <cstring>
#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

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
// Folds one 64-bit value into the final hash: multiply, rotate, multiply.
inline uint64_t round(uint64_t acc, uint64_t w) {
  return rotl(acc + w * kP2, 31) * kP1;
}

// Eight lanes of (a, b): lane k takes the 32-bit words k, k + 8, k + 16, ... of the data.
struct Lanes {
#if defined(__SSE2__)
  __m128i a[4] = {}, b[4] = {};
  // One 32-byte block: the eight words zero-extended into the lanes' sums a, and the
  // running sums into b.
  void step(const uint8_t* p) {
    const __m128i zero = _mm_setzero_si128();
    for (int h = 0; h < 2; ++h) {
      const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * h));
      a[2 * h] = _mm_add_epi64(a[2 * h], _mm_unpacklo_epi32(w, zero));
      a[2 * h + 1] = _mm_add_epi64(a[2 * h + 1], _mm_unpackhi_epi32(w, zero));
      b[2 * h] = _mm_add_epi64(b[2 * h], a[2 * h]);
      b[2 * h + 1] = _mm_add_epi64(b[2 * h + 1], a[2 * h + 1]);
    }
  }
  void get(uint64_t* outA, uint64_t* outB) const {  // lane k = words k, k + 8, ...
    for (int v = 0; v < 4; ++v) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(outA + 2 * v), a[v]);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(outB + 2 * v), b[v]);
    }
  }
#else
  uint64_t a[8] = {}, b[8] = {};
  void step(const uint8_t* p) {
    for (int k = 0; k < 8; ++k) {
      uint32_t w;
      std::memcpy(&w, p + 4 * k, 4);
      a[k] += w;
      b[k] += a[k];
    }
  }
  void get(uint64_t* outA, uint64_t* outB) const {
    std::memcpy(outA, a, sizeof(a));
    std::memcpy(outB, b, sizeof(b));
  }
#endif
};
}  // namespace

namespace {
#if defined(__x86_64__)
// The same lanes with AVX2, four at a time: a 32-byte block is two widenings and four
// additions. Whole blocks only; returns the bytes done.
__attribute__((target("avx2"))) size_t lanesAvx2(const uint8_t* p, size_t bytes, Lanes& lanes) {
  __m256i a0 = _mm256_setzero_si256(), a1 = a0, b0 = a0, b1 = a0;
  size_t i = 0;
  for (; i + 32 <= bytes; i += 32) {
    a0 = _mm256_add_epi64(
        a0, _mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i))));
    a1 = _mm256_add_epi64(
        a1, _mm256_cvtepu32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i + 16))));
    b0 = _mm256_add_epi64(b0, a0);
    b1 = _mm256_add_epi64(b1, a1);
  }
  // Lanes::a[v] holds words 2v, 2v + 1: the low and high halves of the 4-lane sums.
  lanes.a[0] = _mm256_castsi256_si128(a0);
  lanes.a[1] = _mm256_extracti128_si256(a0, 1);
  lanes.a[2] = _mm256_castsi256_si128(a1);
  lanes.a[3] = _mm256_extracti128_si256(a1, 1);
  lanes.b[0] = _mm256_castsi256_si128(b0);
  lanes.b[1] = _mm256_extracti128_si256(b0, 1);
  lanes.b[2] = _mm256_castsi256_si128(b1);
  lanes.b[3] = _mm256_extracti128_si256(b1, 1);
  return i;
}

bool haveAvx2() {
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
}
#endif
}  // namespace

// A Fletcher sum over 32-bit words in eight lanes with 64-bit sums, then the 16 sums and
// the length folded by multiply-rotate rounds. Vectorises with plain SSE2, so it costs a
// small fraction of any codec. Guarantees within a lane (words 8 apart), for messages
// below 2^35 bytes: any change to one word changes a; two words changed by opposite
// amounts at different positions change b. Beyond that (and in the 32-bit output) it is a
// hash, meant to catch a predictor that lost step with its peer, not an adversary.
uint32_t checksum32(const void* data, size_t bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  Lanes lanes;
  size_t i = 0;
#if defined(__x86_64__)
  if (bytes >= 256 && haveAvx2()) i = lanesAvx2(p, bytes, lanes);
#endif
  for (; i + 32 <= bytes; i += 32) lanes.step(p + i);
  if (i < bytes) {
    uint8_t last[32] = {};
    std::memcpy(last, p + i, bytes - i);
    lanes.step(last);
  }
  uint64_t a[8], b[8];
  lanes.get(a, b);
  uint64_t h = kP1 ^ bytes;
  for (int k = 0; k < 8; ++k) {
    h = round(h, a[k]);
    h = round(h, b[k]);
  }
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP1;
  h ^= h >> 32;
  return static_cast<uint32_t>(h);
}

}  // namespace ccmpi::compress
