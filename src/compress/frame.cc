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

// The checksum's state: four 64-bit lanes; lane l takes the words l, l + 4, l + 8, ... of
// the data (64-bit words, 32-byte blocks). For block j, word w of lane l, with
// a = kKey[l] + j * kStep[l] and the key k = a ^ (a >> 29) ^ (a << 35):
//   acc[l] += lo32(w ^ k) * hi32(w ^ k) + w'      (w' = the other word of w's 16-byte pair)
// The product makes the sum non-linear in the data, so the smooth error sequences a
// predictor that lost step produces (+d, -d, -d, +d, ...) do not cancel as they do in
// Fletcher-type sums; the key changing with the block makes it depend on positions. The
// key is a scrambled, not a plain arithmetic progression: a bit flipped in every p-th
// word (a stride predictor repeating one corrupt residual) changes the sum by
// +-lo32(k_j) * 2^s, and over keys in arithmetic progression such sums cancel (the fuzzer
// found 8 flips of bit 61, 12 words apart, in zeros that left the checksum unchanged).
// The shifts mix each half of a with the other; the progression itself stays the only
// serial dependency, so the scrambling costs little (about 40 GB/s with AVX2, was 47).
constexpr uint64_t kKey[4] = {0x243F6A8885A308D3ull, 0x13198A2E03707344ull, 0xA4093822299F31D0ull,
                              0x082EFA98EC4E6C89ull};
constexpr uint64_t kStep[4] = {0x9E3779B97F4A7C15ull, 0xBF58476D1CE4E5B9ull, 0x94D049BB133111EBull,
                               0xD6E8FEB86659FD93ull};

struct Lanes {
#if defined(__SSE2__)
  __m128i acc[2] = {};
  __m128i key[2] = {_mm_set_epi64x(static_cast<int64_t>(kKey[1]), static_cast<int64_t>(kKey[0])),
                    _mm_set_epi64x(static_cast<int64_t>(kKey[3]), static_cast<int64_t>(kKey[2]))};
  const __m128i step[2] = {
      _mm_set_epi64x(static_cast<int64_t>(kStep[1]), static_cast<int64_t>(kStep[0])),
      _mm_set_epi64x(static_cast<int64_t>(kStep[3]), static_cast<int64_t>(kStep[2]))};
  void block(const uint8_t* p) {
    for (int h = 0; h < 2; ++h) {
      const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * h));
      const __m128i a = key[h];
      const __m128i k =
          _mm_xor_si128(_mm_xor_si128(a, _mm_srli_epi64(a, 29)), _mm_slli_epi64(a, 35));
      const __m128i dk = _mm_xor_si128(w, k);
      const __m128i prod = _mm_mul_epu32(dk, _mm_srli_epi64(dk, 32));
      acc[h] = _mm_add_epi64(acc[h], _mm_add_epi64(prod, _mm_shuffle_epi32(w, 0x4E)));
      key[h] = _mm_add_epi64(a, step[h]);
    }
  }
  void get(uint64_t* out) const {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), acc[0]);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2), acc[1]);
  }
  void set(const uint64_t* a, const uint64_t* k) {
    acc[0] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a));
    acc[1] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + 2));
    key[0] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(k));
    key[1] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(k + 2));
  }
#else
  uint64_t acc[4] = {};
  uint64_t key[4] = {kKey[0], kKey[1], kKey[2], kKey[3]};
  void block(const uint8_t* p) {
    uint64_t w[4];
    std::memcpy(w, p, sizeof(w));
    for (int l = 0; l < 4; ++l) {
      const uint64_t a = key[l];
      const uint64_t dk = w[l] ^ (a ^ (a >> 29) ^ (a << 35));
      acc[l] += (dk & 0xFFFFFFFFu) * (dk >> 32) + w[l ^ 1];
      key[l] = a + kStep[l];
    }
  }
  void get(uint64_t* out) const {
    std::memcpy(out, acc, sizeof(acc));
  }
  void set(const uint64_t* a, const uint64_t* k) {
    std::memcpy(acc, a, sizeof(acc));
    std::memcpy(key, k, sizeof(key));
  }
#endif
};
}  // namespace

namespace {
#if defined(__x86_64__) && defined(__SSE2__)
// The same lanes with AVX2 (one vector of four). Whole blocks only; returns the bytes done
// and leaves the sums and keys in `lanes`.
__attribute__((target("avx2"))) size_t lanesAvx2(const uint8_t* p, size_t bytes, Lanes& lanes) {
  __m256i acc = _mm256_setzero_si256();
  __m256i key = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kKey));
  const __m256i step = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kStep));
  size_t i = 0;
  for (; i + 32 <= bytes; i += 32) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + i));
    const __m256i k = _mm256_xor_si256(_mm256_xor_si256(key, _mm256_srli_epi64(key, 29)),
                                       _mm256_slli_epi64(key, 35));
    const __m256i dk = _mm256_xor_si256(w, k);
    const __m256i prod = _mm256_mul_epu32(dk, _mm256_srli_epi64(dk, 32));
    acc = _mm256_add_epi64(acc, _mm256_add_epi64(prod, _mm256_shuffle_epi32(w, 0x4E)));
    key = _mm256_add_epi64(key, step);
  }
  alignas(32) uint64_t a[4], k[4];
  _mm256_store_si256(reinterpret_cast<__m256i*>(a), acc);
  _mm256_store_si256(reinterpret_cast<__m256i*>(k), key);
  lanes.set(a, k);
  return i;
}

bool haveAvx2() {
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
}
#endif
}  // namespace

// Four keyed multiply-accumulate lanes over the data (Lanes above), then the lanes and
// the length folded by multiply-rotate rounds and a final avalanche. Runs at tens of GB/s
// (SSE2, or AVX2 where the processor has it, with the same result), so it costs a small
// fraction of any codec. It is meant to catch corruption and a predictor that lost step
// with its peer (caught with probability about 1 - 2^-32), not an adversary.
uint32_t checksum32(const void* data, size_t bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  Lanes lanes;
  size_t i = 0;
#if defined(__x86_64__) && defined(__SSE2__)
  if (bytes >= 256 && haveAvx2()) i = lanesAvx2(p, bytes, lanes);
#endif
  for (; i + 32 <= bytes; i += 32) lanes.block(p + i);
  if (i < bytes) {
    uint8_t last[32] = {};
    std::memcpy(last, p + i, bytes - i);
    lanes.block(last);
  }
  uint64_t a[4];
  lanes.get(a);
  uint64_t h = kP1 ^ bytes;
  for (int k = 0; k < 4; ++k) h = round(h, a[k]);
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP1;
  h ^= h >> 32;
  return static_cast<uint32_t>(h);
}

}  // namespace ccmpi::compress
