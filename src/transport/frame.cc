// Frame header encoding and validation.
#include "transport/frame.h"

#include <cstring>

namespace ccmpi::transport {
namespace {

template <typename T>
void put(unsigned char*& p, T v) {
  memcpy(p, &v, sizeof v);
  p += sizeof v;
}
template <typename T>
T get(const unsigned char*& p) {
  T v;
  memcpy(&v, p, sizeof v);
  p += sizeof v;
  return v;
}

}  // namespace

void encodeHeader(const FrameHeader& h, void* out) {
  auto* p = static_cast<unsigned char*>(out);
  put(p, h.magic);
  put(p, static_cast<uint8_t>(h.type));
  put(p, h.flags);
  put(p, h.reserved);
  put(p, h.src);
  put(p, h.context);
  put(p, h.tag);
  put(p, uint32_t{0});  // padding
  put(p, h.msgSize);
  put(p, h.payloadLen);
  put(p, h.offset);
  put(p, h.a);
  put(p, h.b);
}

DecodeStatus decodeHeader(const void* data, size_t len, const FrameLimits& lim, FrameHeader* h,
                          const char** why) {
  if (len < kHeaderBytes) return DecodeStatus::kNeedMore;
  const auto* p = static_cast<const unsigned char*>(data);
  FrameHeader f;
  f.magic = get<uint32_t>(p);
  const uint8_t type = get<uint8_t>(p);
  f.flags = get<uint8_t>(p);
  f.reserved = get<uint16_t>(p);
  f.src = get<int32_t>(p);
  f.context = get<uint32_t>(p);
  f.tag = get<int32_t>(p);
  const uint32_t pad = get<uint32_t>(p);
  f.msgSize = get<uint64_t>(p);
  f.payloadLen = get<uint64_t>(p);
  f.offset = get<uint64_t>(p);
  f.a = get<uint64_t>(p);
  f.b = get<uint64_t>(p);
  auto bad = [&](const char* w) {
    if (why) *why = w;
    return DecodeStatus::kBad;
  };
  if (f.magic != kFrameMagic) return bad("magic");
  if (f.reserved != 0 || pad != 0) return bad("reserved bits");
  if (f.flags & ~(kFlagSync | kFlagCompressed | kFlagCma | kFlagCmaSplit | kFlagStriped |
                  kFlagRail | kFlagMore))
    return bad("flags");
  if ((f.flags & kFlagRail) && static_cast<FrameType>(type) != FrameType::kRts)
    return bad("rail flag outside a request to send");
  if ((f.flags & kFlagMore) && static_cast<FrameType>(type) != FrameType::kEager)
    return bad("more flag outside an eager message");
  if (f.src < 0 || f.src >= lim.worldSize) return bad("source rank");
  switch (static_cast<FrameType>(type)) {
    case FrameType::kChallenge:
    case FrameType::kHello:
    case FrameType::kAccept:
    case FrameType::kReject:
    case FrameType::kPreamble:
      if (f.payloadLen != 0 || f.msgSize != 0 || f.offset != 0) return bad("handshake fields");
      break;
    case FrameType::kHostInfo:
      if (f.payloadLen != 0 || f.msgSize != 0 || f.flags != 0) return bad("host info fields");
      if (f.a == 0 || f.a > 0x7fffffff) return bad("process id");
      break;
    case FrameType::kEager:
      if (f.tag < 0 || f.tag > lim.tagUb) return bad("tag");
      if (f.context >= lim.maxContext) return bad("context id");
      if (f.msgSize > lim.maxMessage) return bad("message size");
      if (f.flags & kFlagCompressed) {
        // A coded payload: at most the message plus the codec's header.
        if (f.msgSize > lim.maxEager) return bad("eager message size");
        if (f.payloadLen > f.msgSize + kCodedOverhead) return bad("eager payload length");
        if (f.flags & kFlagMore) return bad("compressed eager message in parts");
      } else if (f.flags & kFlagMore) {
        // The first part of a message sent in parts (kEagerMore).
        if (f.msgSize > lim.maxEager) return bad("eager message size");
        if (f.payloadLen == 0 || f.payloadLen >= f.msgSize) return bad("eager part length");
        if (f.a == 0) return bad("eager message id");
      } else {
        if (f.payloadLen > lim.maxEager) return bad("eager payload length");
        if (f.payloadLen != f.msgSize) return bad("eager length");
      }
      if (f.offset != 0) return bad("eager offset");
      break;
    case FrameType::kEagerMore:
      if (f.tag < 0 || f.tag > lim.tagUb) return bad("tag");
      if (f.context >= lim.maxContext) return bad("context id");
      if (f.flags != 0) return bad("eager part flags");
      if (f.msgSize > lim.maxEager || f.offset == 0 || f.offset >= f.msgSize || f.payloadLen == 0 ||
          f.payloadLen > f.msgSize - f.offset)
        return bad("eager part range");
      if (f.a == 0) return bad("eager message id");
      break;
    case FrameType::kRts:
      if (f.tag < 0 || f.tag > lim.tagUb) return bad("tag");
      if (f.context >= lim.maxContext) return bad("context id");
      if (f.msgSize > lim.maxMessage) return bad("message size");
      if (f.payloadLen != 0 || f.offset != 0) return bad("rts fields");
      if ((f.flags & kFlagCma) && f.b == 0) return bad("rts buffer address");
      break;
    case FrameType::kCts:
      if (f.msgSize > lim.maxMessage) return bad("accepted size");
      if ((f.flags & kFlagStriped) && (f.flags & (kFlagCma | kFlagCmaSplit)))
        return bad("striped cts flags");
      if (f.flags & kFlagCmaSplit) {
        if (f.payloadLen != 8 || f.offset == 0 || f.offset >= f.msgSize || (f.flags & kFlagCma))
          return bad("split cts fields");
      } else if (f.payloadLen != 0 || f.offset != 0) {
        return bad("cts fields");
      }
      break;
    case FrameType::kRailDown:
      if (f.payloadLen != 0 || f.msgSize != 0 || f.offset != 0 || f.flags != 0 || f.a == 0 ||
          f.a > 64)
        return bad("rail fields");
      break;
    case FrameType::kStripeAck:
      if (f.payloadLen != 0 || f.offset != 0 || f.flags != 0 || f.a == 0 ||
          f.msgSize > lim.maxMessage)
        return bad("stripe acknowledgement fields");
      break;
    case FrameType::kCmaDone:
      if (f.payloadLen != 0 || f.flags != 0 || f.msgSize == 0 || f.offset > lim.maxMessage ||
          f.msgSize > lim.maxMessage - f.offset || (f.a == 0) == (f.b == 0))
        return bad("single-copy completion fields");
      break;
    case FrameType::kData:
      if (f.payloadLen == 0) return bad("empty data frame");
      if ((f.flags & kFlagStriped) && (f.flags & kFlagCompressed)) return bad("striped flags");
      if (f.offset > lim.maxMessage || f.payloadLen > lim.maxMessage - f.offset)
        return bad("data range");
      break;
    case FrameType::kMcastNak:
      // The context of a multicast message may name a dynamic group (any value).
      if (f.msgSize > lim.maxMessage || f.offset != 0) return bad("nak fields");
      if (f.payloadLen % 16 != 0 || f.payloadLen > 16 * 256) return bad("nak ranges");
      break;
    case FrameType::kMcastAck:
      if (f.payloadLen != 0 || f.msgSize != 0 || f.offset != 0) return bad("ack fields");
      break;
    case FrameType::kCancelReq:
      if (f.payloadLen != 0 || f.msgSize != 0 || f.offset != 0 || f.flags != 0)
        return bad("cancel fields");
      if (f.context >= lim.maxContext) return bad("context id");
      break;
    case FrameType::kCancelAck:
      if (f.payloadLen != 0 || f.msgSize != 0 || f.offset != 0 || f.flags != 0 || f.a > 1)
        return bad("cancel reply fields");
      break;
    case FrameType::kMcastRepair:
      if (f.tag <= 0 || f.payloadLen == 0 || f.msgSize > lim.maxMessage || f.offset > f.msgSize ||
          f.payloadLen > f.msgSize - f.offset)
        return bad("repair range");
      break;
    case FrameType::kAm:
      if (f.tag < -kAmInternalHandlers || f.tag >= kAmMaxHandlers)
        return bad("active message handler");
      if (f.context >= lim.maxContext) return bad("context id");
      if (f.payloadLen > lim.maxEager || f.payloadLen != f.msgSize || f.offset != 0 || f.flags != 0)
        return bad("active message fields");
      break;
    default:
      return bad("frame type");
  }
  f.type = static_cast<FrameType>(type);
  *h = f;
  return DecodeStatus::kOk;
}

DecodeStatus decodeCompactEager(const void* data, int32_t src, const FrameLimits& lim,
                                FrameHeader* h, const char** why) {
  const auto* p = static_cast<const unsigned char*>(data);
  const uint8_t mark = get<uint8_t>(p);
  const uint8_t flags = get<uint8_t>(p);
  const uint16_t reserved = get<uint16_t>(p);
  FrameHeader f;
  f.type = FrameType::kEager;
  f.src = src;
  f.context = get<uint32_t>(p);
  f.tag = get<int32_t>(p);
  f.msgSize = f.payloadLen = get<uint32_t>(p);
  f.a = get<uint64_t>(p);
  auto bad = [&](const char* w) {
    if (why) *why = w;
    return DecodeStatus::kBad;
  };
  if (mark != kCompactEagerMark) return bad("compact mark");
  if (flags != 0 || reserved != 0) return bad("reserved bits");
  if (f.tag < 0 || f.tag > lim.tagUb) return bad("tag");
  if (f.context >= lim.maxContext) return bad("context id");
  if (f.payloadLen > lim.maxEager) return bad("eager payload length");
  *h = f;
  return DecodeStatus::kOk;
}

}  // namespace ccmpi::transport
