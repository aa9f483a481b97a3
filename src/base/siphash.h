#pragma once
// SipHash-2-4 (Aumasson & Bernstein): a keyed 64-bit PRF used as the MAC that proves a
// peer knows the job secret (TCP handshake, and later multicast packets).
#include <cstddef>
#include <cstdint>

namespace ccmpi {

struct SipKey {
  uint64_t k0 = 0, k1 = 0;
};

uint64_t siphash24(const SipKey& key, const void* data, size_t len);

// Parses 32 hex digits into a key; false if malformed.
bool parseSipKey(const char* hex, SipKey* key);
// 32 hex digits.
void formatSipKey(const SipKey& key, char out[33]);

}  // namespace ccmpi
