// Codec table and the framing every codec shares: header, checksum, raw fallback,
// raw tail, output-space and state checks (see codec.h and frame.h).
#include "compress/codec.h"

#include <cstring>

#include "compress/codec_list.h"
#include "compress/frame.h"

namespace ccmpi::compress {

const char* statusName(int status) {
  switch (status) {
    case kOk:
      return "ok";
    case kErrCorrupt:
      return "corrupt input";
    case kErrOutputSpace:
      return "output buffer too small";
    case kErrWrongCodec:
      return "wrong codec";
    case kErrBrokenState:
      return "codec state broken by an earlier error";
    case kErrInvalidArgument:
      return "invalid argument";
    default:
      return "unknown status";
  }
}

const std::vector<const Codec*>& allCodecs() {
  static const std::vector<const Codec*> codecs = [] {
    std::vector<const Codec*> v = {&rawCodec(),     &cmpiCodec(),  &fpcCodec(),      &spxCodec(),
                                   &spxFastCodec(), &adaptCodec(), &adaptFastCodec()};
    for (const Codec* c : {zstdCodec(), shuffleZstdCodec(), lz4Codec()}) {
      if (c) v.push_back(c);
    }
    return v;
  }();
  return codecs;
}

const Codec* findCodec(std::string_view name) {
  for (const Codec* c : allCodecs()) {
    if (name == c->name()) return c;
  }
  return nullptr;
}

const Codec* findCodecById(uint8_t id) {
  for (const Codec* c : allCodecs()) {
    if (c->id() == id) return c;
  }
  return nullptr;
}

int Codec::compress(CodecState& st, const void* in, size_t inBytes, void* out, size_t outCap,
                    size_t* outBytes, DataType type) const {
  if (&st.codec() != this) return fail(st, kErrWrongCodec, "state was made by another codec");
  if (st.broken_) return kErrBrokenState;
  if ((in == nullptr && inBytes > 0) || out == nullptr || outBytes == nullptr ||
      (type != DataType::kFloat64 && type != DataType::kFloat32)) {
    return fail(st, kErrInvalidArgument, "null buffer or bad data type");
  }
  if (outCap < maxCompressedSize(inBytes) || inBytes >= (uint64_t{1} << 62)) {
    return fail(st, kErrOutputSpace, "compress needs outCap >= maxCompressedSize(inBytes)");
  }
  const bool words32 = type == DataType::kFloat32 && supportsFloat32();
  const size_t wordBytes = words32 ? 4 : 8;
  const size_t n = inBytes / wordBytes;
  const size_t tail = inBytes - n * wordBytes;
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);

  FrameHeader h;
  h.codecId = id();
  h.length = inBytes;
  const uint32_t sum = checksum32(in, inBytes);
  h.flags = static_cast<uint8_t>(kModeRaw | (words32 ? kFlagWords32 : 0));
  h.checksum = frameChecksum(h.codecId, h.flags, sum);
  const size_t hb = writeFrameHeader(h, dst);  // raw header; same size as the coded one
  size_t payload = 0;
  if (n > 0) {
    // The coded payload must beat the raw words, leaving room for the tail.
    const size_t budget = n * wordBytes - 1;
    payload =
        encode(st, src, n, words32 ? DataType::kFloat32 : DataType::kFloat64, dst + hb, budget);
    if (payload > budget) payload = 0;
  }
  if (payload > 0) {
    h.flags = static_cast<uint8_t>(kModeCoded | (words32 ? kFlagWords32 : 0));
    h.checksum = frameChecksum(h.codecId, h.flags, sum);
    writeFrameHeader(h, dst);
    if (tail) std::memcpy(dst + hb + payload, src + n * wordBytes, tail);
    *outBytes = hb + payload + tail;
  } else {
    if (inBytes) std::memcpy(dst + hb, src, inBytes);
    *outBytes = hb + inBytes;
  }
  return kOk;
}

int Codec::decompress(CodecState& st, const void* in, size_t inBytes, void* out, size_t outCap,
                      size_t* outBytes) const {
  if (&st.codec() != this) return fail(st, kErrWrongCodec, "state was made by another codec");
  if (st.broken_) return kErrBrokenState;
  if ((in == nullptr && inBytes > 0) || (out == nullptr && outCap > 0) || outBytes == nullptr) {
    return fail(st, kErrInvalidArgument, "null buffer");
  }
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  FrameHeader h;
  if (!parseFrameHeader(src, inBytes, &h)) {
    return corrupt(st, "bad or truncated message header");
  }
  if (h.codecId != id()) return fail(st, kErrWrongCodec, "message was coded by another codec");
  if (h.length > outCap) return fail(st, kErrOutputSpace, "decompress output buffer too small");
  const size_t len = static_cast<size_t>(h.length);
  const uint8_t* body = src + h.headerBytes;
  const size_t bodyBytes = inBytes - h.headerBytes;
  const bool words32 = (h.flags & kFlagWords32) != 0;
  const DataType type = words32 ? DataType::kFloat32 : DataType::kFloat64;
  const size_t wordBytes = words32 ? 4 : 8;
  const size_t n = len / wordBytes;
  const size_t tail = len - n * wordBytes;

  if (words32 && !supportsFloat32()) {
    return corrupt(st, "32-bit words flag for a codec without a 32-bit path");
  }
  if ((h.flags & kFlagModeMask) == kModeRaw) {
    if (bodyBytes != len) return corrupt(st, "raw message length mismatch");
    if (len) std::memcpy(dst, body, len);
    if (frameChecksum(h.codecId, h.flags, checksum32(dst, len)) != h.checksum) {
      return corrupt(st, "checksum mismatch in raw message");
    }
    train(st, dst, n, type);
    *outBytes = len;
    return kOk;
  }
  // A coded payload is never longer than the words it replaces (compress stores those raw).
  if (n == 0 || bodyBytes < tail + 1 || bodyBytes - tail >= n * wordBytes) {
    return corrupt(st, "coded message length mismatch");
  }
  const size_t payload = bodyBytes - tail;
  int rc = decode(st, body, payload, type, dst, n);
  if (rc != kOk) {
    st.broken_ = true;
    return rc;
  }
  if (tail) std::memcpy(dst + n * wordBytes, body + payload, tail);
  if (frameChecksum(h.codecId, h.flags, checksum32(dst, len)) != h.checksum) {
    return corrupt(st, "checksum mismatch (corrupt message or predictor out of sync)");
  }
  *outBytes = len;
  return kOk;
}

}  // namespace ccmpi::compress
