#pragma once
// The wire frame: a fixed 64-byte header, then `payloadLen` bytes of payload.
// Every field read from the wire is validated by decodeHeader() before anything
// else looks at it; a frame that fails closes the connection.
#include <cstddef>
#include <cstdint>

namespace ccmpi::transport {

enum class FrameType : uint8_t {
  // connection set-up (no payload)
  kChallenge = 1,  // acceptor -> connector: nonce in a/b
  kHello = 2,      // connector -> acceptor: src rank, nonce in b, MAC in a
  kAccept = 3,     // acceptor -> connector: MAC over the connector's nonce in a
  kReject = 4,     // acceptor -> connector: another connection between the pair won
  // connector -> acceptor, its first bytes (nothing in it is trusted or used): the TCP
  // handshake's last ACK rides on data, so when that ACK is lost the connector's
  // retransmission (milliseconds) completes the connection, not the acceptor's SYN-ACK
  // timer (1 s); the acceptor speaks only once the connection is complete
  kPreamble = 6,
  // first frame each way on an open connection between two ends on one address (cma.h):
  // a = pid, b = address of the sender's token, offset = the token's value
  kHostInfo = 5,
  // messages
  kEager = 16,  // envelope + whole message as payload
  kRts = 17,    // envelope, msgSize, a = sender request id; kFlagCma: b = buffer address
  kCts = 18,    // a = sender request id, b = receiver request id, msgSize = bytes accepted;
                // kFlagCma: the receiver has read the bytes itself, the send is complete
  kData = 19,   // b = receiver request id, offset, payload = bytes [offset, offset+len)
  // reliable multicast repair (mcast.h): context, a = collective seq, b = sub id
  kMcastNak = 20,     // msgSize = message length, payload = (offset, length) u64 pairs
  kMcastRepair = 21,  // tag = fragment size, msgSize, offset, payload = the bytes
  kMcastAck = 22,     // receiver -> root: the message is whole here (no payload)
  // cancelling a send (p2p.cc): context of the message, a = the message's wire id (the
  // a of its eager frame or RTS), b = the sender's ticket; the answer carries the ticket
  // in b and a = 1 when the unmatched message was removed, 0 when it was already matched
  kCancelReq = 23,
  kCancelAck = 24,
  // a split single-copy transfer (p2p.cc): one side has copied its part, bytes [offset,
  // offset + msgSize) of the message: to the receiver (b = its request id) the sender has
  // written them, to the sender (a = its request id) the receiver has read them
  kCmaDone = 25,
  // an active message (p2p/am.h): context of the communicator it was registered on, tag =
  // handler id, a = a word for the handler, payload = its bytes (at most the eager limit)
  kAm = 26,
  // the receiver of a striped rendezvous transfer (docs/multirail.md) has every byte:
  // a = the sender's request id, msgSize = the bytes
  kStripeAck = 27,
  // the sender's connection of a rail failed (docs/multirail.md): a = the receiver's index
  // of that rail, whose connection to the sender it closes too
  kRailDown = 28,
  // the rest of an eager message sent in parts (its first frame, kEager, has kFlagMore):
  // context and tag of the message, msgSize, a = its wire id, payload = bytes [offset,
  // offset + payloadLen); the parts of one message come in order, on its connection
  kEagerMore = 29,
};

// Handler ids of active messages are below this (p2p/am.h).
constexpr int32_t kAmMaxHandlers = 1024;
// Library-internal active-message handlers (p2p/am.h) use the ids -1 .. -kAmInternalHandlers.
constexpr int32_t kAmInternalHandlers = 16;

enum FrameFlags : uint8_t {
  kFlagSync = 1,        // synchronous send (completion needs the match)
  kFlagCompressed = 2,  // payload is compressed (compress/ stage)
  kFlagCma = 4,         // RTS: readable in place (cma.h); CTS: read, transfer done
  kFlagCmaSplit = 8,    // CTS: the receiver reads [0, offset) itself; the sender writes the
                        // rest to the address in the 8-byte payload, then sends kCmaDone
  kFlagStriped = 16,    // CTS: DATA may come over several rails, in any order (the receive
                        // buffer is contiguous); DATA: a frame of such a transfer
  kFlagRail = 32,       // RTS: the sender wants the data on a rail of its choice (a
                        // rail-directed send, p2p.h): stripes allowed at any size
  kFlagMore = 64,       // eager: the payload is the message's first bytes, kEagerMore frames
                        // bring the rest (never with kFlagCompressed)
};

constexpr uint32_t kFrameMagic = 0xCC4D5049u;  // "CCMPI"
// Largest growth of a compressed payload over its original bytes (compress::kMaxOverhead).
constexpr uint64_t kCodedOverhead = 16;
constexpr size_t kHeaderBytes = 64;

struct FrameHeader {
  uint32_t magic = kFrameMagic;
  FrameType type = FrameType::kEager;
  uint8_t flags = 0;
  uint16_t reserved = 0;
  int32_t src = 0;       // sender's world rank
  uint32_t context = 0;  // context id (communicator + p2p/collective)
  int32_t tag = 0;
  uint64_t msgSize = 0;     // bytes of the whole message
  uint64_t payloadLen = 0;  // bytes following this header
  uint64_t offset = 0;      // kData: position of the payload in the message
  uint64_t a = 0;
  uint64_t b = 0;
};

// Limits a decoded header must respect (set by the transport from the job).
struct FrameLimits {
  int32_t worldSize = 1;
  int32_t tagUb = (1 << 30) - 1;
  uint32_t maxContext = 1u << 20;
  uint64_t maxEager = 64 * 1024;     // payload of an eager frame
  uint64_t maxMessage = 1ull << 46;  // any message
};

enum class DecodeStatus { kOk, kNeedMore, kBad };

// Encodes h into exactly kHeaderBytes bytes (little-endian host layout).
void encodeHeader(const FrameHeader& h, void* out);
// Decodes and validates the header at the start of [data, data+len). On kBad, *why
// names the offending field.
DecodeStatus decodeHeader(const void* data, size_t len, const FrameLimits& lim, FrameHeader* h,
                          const char** why);

// The compact header of an uncoded eager frame on a stream whose source is known (a
// shared-memory ring): 24 bytes, so a small message and its header share one cache line.
// Its first byte, kCompactEagerMark, is never the first byte of a full header (the low
// byte of kFrameMagic). Layout: mark, flags (0), 2 reserved bytes (0), context, tag,
// length (message = payload), a.
constexpr size_t kCompactEagerBytes = 24;
constexpr uint8_t kCompactEagerMark = 0x90;
static_assert(kCompactEagerMark != (kFrameMagic & 0xff));
// Whether h can travel with a compact header.
inline bool compactEager(const FrameHeader& h) {
  return h.type == FrameType::kEager && h.flags == 0 && h.payloadLen == h.msgSize &&
         h.msgSize <= UINT32_MAX && h.offset == 0 && h.b == 0;
}
inline void encodeCompactEager(void* out, uint32_t context, int32_t tag, uint32_t len, uint64_t a) {
  auto* p = static_cast<unsigned char*>(out);
  p[0] = kCompactEagerMark;
  p[1] = p[2] = p[3] = 0;  // flags, reserved
  __builtin_memcpy(p + 4, &context, 4);
  __builtin_memcpy(p + 8, &tag, 4);
  __builtin_memcpy(p + 12, &len, 4);
  __builtin_memcpy(p + 16, &a, 8);
}
inline void encodeCompactEager(const FrameHeader& h, void* out) {
  encodeCompactEager(out, h.context, h.tag, static_cast<uint32_t>(h.msgSize), h.a);
}
// Decodes and validates a compact header (kCompactEagerBytes at data) from rank `src`.
DecodeStatus decodeCompactEager(const void* data, int32_t src, const FrameLimits& lim,
                                FrameHeader* h, const char** why);

}  // namespace ccmpi::transport
