// SipHash-2-4, written from the published specification: 2 compression rounds per
// 8-byte word, 4 finalization rounds, little-endian word loads.
#include "base/siphash.h"

#include <cstdio>
#include <cstring>

namespace ccmpi {
namespace {

inline uint64_t rotl(uint64_t x, int b) {
  return (x << b) | (x >> (64 - b));
}

struct State {
  uint64_t v0, v1, v2, v3;
  void round() {
    v0 += v1;
    v1 = rotl(v1, 13);
    v1 ^= v0;
    v0 = rotl(v0, 32);
    v2 += v3;
    v3 = rotl(v3, 16);
    v3 ^= v2;
    v0 += v3;
    v3 = rotl(v3, 21);
    v3 ^= v0;
    v2 += v1;
    v1 = rotl(v1, 17);
    v1 ^= v2;
    v2 = rotl(v2, 32);
  }
  void absorb(uint64_t m) {
    v3 ^= m;
    round();
    round();
    v0 ^= m;
  }
};

}  // namespace

uint64_t siphash24(const SipKey& key, const void* data, size_t len) {
  State s{key.k0 ^ 0x736f6d6570736575ull, key.k1 ^ 0x646f72616e646f6dull,
          key.k0 ^ 0x6c7967656e657261ull, key.k1 ^ 0x7465646279746573ull};
  const auto* p = static_cast<const unsigned char*>(data);
  const size_t whole = len & ~size_t{7};
  for (size_t i = 0; i < whole; i += 8) {
    uint64_t m;
    memcpy(&m, p + i, 8);  // little-endian host assumed (x86_64, aarch64)
    s.absorb(m);
  }
  uint64_t last = static_cast<uint64_t>(len & 0xff) << 56;
  for (size_t i = 0; i < (len & 7); ++i) last |= static_cast<uint64_t>(p[whole + i]) << (8 * i);
  s.absorb(last);
  s.v2 ^= 0xff;
  for (int i = 0; i < 4; ++i) s.round();
  return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

bool parseSipKey(const char* hex, SipKey* key) {
  if (!hex || strlen(hex) != 32) return false;
  uint64_t w[2] = {0, 0};
  for (int i = 0; i < 32; ++i) {
    const char c = hex[i];
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return false;
    w[i / 16] = (w[i / 16] << 4) | static_cast<uint64_t>(d);
  }
  key->k0 = w[0];
  key->k1 = w[1];
  return true;
}

void formatSipKey(const SipKey& key, char out[33]) {
  snprintf(out, 33, "%016llx%016llx", static_cast<unsigned long long>(key.k0),
           static_cast<unsigned long long>(key.k1));
}

}  // namespace ccmpi
