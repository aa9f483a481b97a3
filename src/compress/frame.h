#pragma once
// Per-message header shared by all codecs.
//
//   byte 0      magic 0xCE
//   byte 1      codec id (Codec::id())
//   byte 2      flags: bits 0-1 mode (0 = raw, 1 = coded), bit 2 = 4-byte words
//               (DataType::kFloat32 coded by a codec with a 32-bit path); others zero
//   bytes 3..   original length in bytes, LEB128, 1..9 bytes (so < 2^63), canonical
//   next 4      frameChecksum(): checksum32() of the original bytes mixed with the codec
//               id and flags, little-endian
//   then        payload: raw bytes (mode 0), or the codec's coded words followed by
//               the last (length % wordBytes) bytes of the input verbatim (mode 1)
//
// The header is 8..16 bytes; for messages below 2 MiB it is at most 10.
#include <cstddef>
#include <cstdint>

namespace ccmpi::compress {

constexpr uint8_t kFrameMagic = 0xCE;
constexpr size_t kMaxHeaderBytes = 16;

enum FrameMode : uint8_t { kModeRaw = 0, kModeCoded = 1 };
enum FrameFlags : uint8_t { kFlagModeMask = 0x3, kFlagWords32 = 0x4 };

struct FrameHeader {
  uint8_t codecId = 0;
  uint8_t flags = 0;
  uint64_t length = 0;  // original bytes
  uint32_t checksum = 0;
  size_t headerBytes = 0;  // filled by parseFrameHeader
};

// Writes the header into out (>= kMaxHeaderBytes available); returns its size, 0 if the
// length is not representable (>= 2^63).
size_t writeFrameHeader(const FrameHeader& h, uint8_t* out);
// Parses and validates a header; false if malformed or truncated.
bool parseFrameHeader(const uint8_t* in, size_t inBytes, FrameHeader* h);

// Checksum over 64-bit words: four lanes of add-rotate-multiply rounds, merged,
// mixed with the length and folded to 32 bits. It is there to catch corrupt input and a sender and
// receiver whose predictor states have drifted apart, not to resist an adversary.
uint32_t checksum32(const void* data, size_t bytes);

// The header's checksum: dataSum (checksum32 of the original bytes) mixed with the codec
// id and flags, so that no header bit can change without notice.
inline uint32_t frameChecksum(uint8_t codecId, uint8_t flags, uint32_t dataSum) {
  return dataSum ^ (uint32_t{codecId} * 0x9E3779B1u) ^ (uint32_t{flags} * 0x85EBCA77u);
}

}  // namespace ccmpi::compress
