// Frame header encoding and validation (every field read from the wire is checked).
#include <gtest/gtest.h>

#include <cstring>

#include "transport/frame.h"

using namespace ccmpi::transport;

namespace {

FrameLimits limits() {
  FrameLimits l;
  l.worldSize = 4;
  l.tagUb = 1000;
  l.maxContext = 64;
  l.maxEager = 4096;
  return l;
}

FrameHeader eager(uint64_t len) {
  FrameHeader h;
  h.type = FrameType::kEager;
  h.src = 2;
  h.context = 3;
  h.tag = 17;
  h.msgSize = len;
  h.payloadLen = len;
  return h;
}

DecodeStatus roundTrip(const FrameHeader& in, FrameHeader* out, const char** why = nullptr) {
  unsigned char buf[kHeaderBytes];
  encodeHeader(in, buf);
  return decodeHeader(buf, sizeof buf, limits(), out, why);
}

}  // namespace

TEST(Frame, RoundTripsEveryField) {
  FrameHeader h;
  h.type = FrameType::kData;
  h.flags = kFlagCompressed;
  h.src = 3;
  h.context = 9;
  h.tag = 5;
  h.msgSize = 1 << 20;
  h.payloadLen = 4000;
  h.offset = 8192;
  h.a = 0x1122334455667788ull;
  h.b = 42;
  FrameHeader out;
  ASSERT_EQ(roundTrip(h, &out), DecodeStatus::kOk);
  EXPECT_EQ(out.type, h.type);
  EXPECT_EQ(out.flags, h.flags);
  EXPECT_EQ(out.src, 3);
  EXPECT_EQ(out.context, 9u);
  EXPECT_EQ(out.tag, 5);
  EXPECT_EQ(out.msgSize, h.msgSize);
  EXPECT_EQ(out.payloadLen, 4000u);
  EXPECT_EQ(out.offset, 8192u);
  EXPECT_EQ(out.a, h.a);
  EXPECT_EQ(out.b, 42u);
}

TEST(Frame, NeedsWholeHeader) {
  unsigned char buf[kHeaderBytes];
  encodeHeader(eager(10), buf);
  FrameHeader out;
  for (size_t n = 0; n < kHeaderBytes; ++n)
    EXPECT_EQ(decodeHeader(buf, n, limits(), &out, nullptr), DecodeStatus::kNeedMore);
}

TEST(Frame, RejectsBadFields) {
  FrameHeader out;
  const char* why = nullptr;
  auto bad = [&](FrameHeader h, const char* field) {
    EXPECT_EQ(roundTrip(h, &out, &why), DecodeStatus::kBad) << field;
    ASSERT_NE(why, nullptr);
    EXPECT_NE(std::string(why).find(field), std::string::npos) << why;
  };
  FrameHeader h = eager(10);
  h.src = 4;
  bad(h, "source");
  h = eager(10);
  h.src = -1;
  bad(h, "source");
  h = eager(10);
  h.tag = 1001;
  bad(h, "tag");
  h = eager(10);
  h.tag = -3;
  bad(h, "tag");
  h = eager(10);
  h.context = 64;
  bad(h, "context");
  h = eager(5000);
  bad(h, "eager payload");
  h = eager(10);
  h.msgSize = 11;
  bad(h, "eager length");
  h = eager(10);
  h.flags = 0x80;
  bad(h, "flags");
  h = eager(0);
  h.type = static_cast<FrameType>(99);
  bad(h, "frame type");
  h = FrameHeader{};
  h.type = FrameType::kRts;
  h.payloadLen = 1;
  bad(h, "rts");
  h = FrameHeader{};
  h.type = FrameType::kData;
  h.payloadLen = 0;
  bad(h, "empty data");
  h.payloadLen = 10;
  h.offset = ~0ull - 5;
  bad(h, "data range");
  h = FrameHeader{};
  h.type = FrameType::kHello;
  h.payloadLen = 3;
  bad(h, "handshake");
}

TEST(Frame, RejectsBadMagicAndReservedBits) {
  unsigned char buf[kHeaderBytes];
  encodeHeader(eager(1), buf);
  FrameHeader out;
  const char* why = nullptr;
  buf[0] ^= 1;
  EXPECT_EQ(decodeHeader(buf, sizeof buf, limits(), &out, &why), DecodeStatus::kBad);
  EXPECT_STREQ(why, "magic");
  encodeHeader(eager(1), buf);
  buf[6] = 1;  // reserved
  EXPECT_EQ(decodeHeader(buf, sizeof buf, limits(), &out, &why), DecodeStatus::kBad);
  encodeHeader(eager(1), buf);
  buf[21] = 1;  // padding after the tag
  EXPECT_EQ(decodeHeader(buf, sizeof buf, limits(), &out, &why), DecodeStatus::kBad);
}

TEST(Frame, CompressedEagerBounds) {
  FrameHeader out;
  // A coded payload may be shorter than the message, or longer by the codec's header.
  FrameHeader h = eager(4096);
  h.flags = kFlagCompressed;
  h.payloadLen = 1000;
  EXPECT_EQ(roundTrip(h, &out), DecodeStatus::kOk);
  h.payloadLen = 4096 + kCodedOverhead;
  EXPECT_EQ(roundTrip(h, &out), DecodeStatus::kOk);
  h.payloadLen = 4096 + kCodedOverhead + 1;
  EXPECT_EQ(roundTrip(h, &out), DecodeStatus::kBad);
  // The message itself must still be an eager one.
  h = eager(4097);
  h.flags = kFlagCompressed;
  h.payloadLen = 100;
  EXPECT_EQ(roundTrip(h, &out), DecodeStatus::kBad);
  // Without the flag the lengths must agree.
  h = eager(100);
  h.payloadLen = 99;
  EXPECT_EQ(roundTrip(h, &out), DecodeStatus::kBad);
}

// An eager message in parts (p2p.cc EagerParts): its first frame (kFlagMore) holds fewer
// bytes than the message, the later ones (kEagerMore) the rest, within the eager limit.
TEST(Frame, EagerPartsAreChecked) {
  FrameHeader out;
  const char* why = nullptr;
  FrameHeader h = eager(4096);
  h.flags = kFlagMore;
  h.payloadLen = 1024;
  h.a = 5;
  ASSERT_EQ(roundTrip(h, &out), DecodeStatus::kOk);
  EXPECT_EQ(out.flags, kFlagMore);
  EXPECT_EQ(out.payloadLen, 1024u);
  h.payloadLen = 4096;  // all of it: not a part
  EXPECT_EQ(roundTrip(h, &out, &why), DecodeStatus::kBad);
  EXPECT_STREQ(why, "eager part length");
  h.payloadLen = 0;
  EXPECT_EQ(roundTrip(h, &out), DecodeStatus::kBad);
  h = eager(4097);  // above the eager limit (4096 here)
  h.flags = kFlagMore;
  h.payloadLen = 1024;
  h.a = 5;
  EXPECT_EQ(roundTrip(h, &out, &why), DecodeStatus::kBad);
  EXPECT_STREQ(why, "eager message size");
  h = eager(4096);
  h.flags = kFlagMore | kFlagCompressed;  // a coded message goes whole
  h.payloadLen = 1024;
  h.a = 5;
  EXPECT_EQ(roundTrip(h, &out), DecodeStatus::kBad);
  h.flags = kFlagMore;
  h.a = 0;  // the later parts name the message by its id
  EXPECT_EQ(roundTrip(h, &out, &why), DecodeStatus::kBad);
  EXPECT_STREQ(why, "eager message id");
  FrameHeader r;
  r.type = FrameType::kRts;  // the flag belongs on an eager frame alone
  r.flags = kFlagMore;
  r.src = 1;
  r.msgSize = 100000;
  r.a = 1;
  EXPECT_EQ(roundTrip(r, &out, &why), DecodeStatus::kBad);
  EXPECT_STREQ(why, "more flag outside an eager message");

  FrameHeader m = eager(4096);
  m.type = FrameType::kEagerMore;
  m.offset = 1024;
  m.payloadLen = 3072;
  m.a = 5;
  ASSERT_EQ(roundTrip(m, &out), DecodeStatus::kOk);
  EXPECT_EQ(out.type, FrameType::kEagerMore);
  EXPECT_EQ(out.offset, 1024u);
  EXPECT_EQ(out.a, 5u);
  auto bad = [&](FrameHeader x, const char* want) {
    const char* w = nullptr;
    EXPECT_EQ(roundTrip(x, &out, &w), DecodeStatus::kBad) << want;
    EXPECT_STREQ(w, want);
  };
  FrameHeader x = m;
  x.payloadLen = 3073;  // past the message's end
  bad(x, "eager part range");
  x = m;
  x.offset = 0;  // the first part is the kEager frame
  bad(x, "eager part range");
  x = m;
  x.offset = 4096;
  x.payloadLen = 1;
  bad(x, "eager part range");
  x = m;
  x.payloadLen = 0;
  bad(x, "eager part range");
  x = m;
  x.msgSize = 8192;
  x.payloadLen = 1024;
  bad(x, "eager part range");
  x = m;
  x.flags = kFlagSync;
  bad(x, "eager part flags");
  x = m;
  x.a = 0;
  bad(x, "eager message id");
  x = m;
  x.tag = -1;
  bad(x, "tag");
  x = m;
  x.context = 64;
  bad(x, "context id");
}

TEST(Frame, MulticastRepairFrames) {
  FrameHeader out;
  FrameHeader nak;
  nak.type = FrameType::kMcastNak;
  nak.src = 1;
  nak.context = 0x80001234u;  // a dynamic group's context: any value
  nak.a = 7;
  nak.msgSize = 100000;
  nak.payloadLen = 32;  // two (offset, length) pairs
  EXPECT_EQ(roundTrip(nak, &out), DecodeStatus::kOk);
  EXPECT_EQ(out.context, 0x80001234u);
  nak.payloadLen = 24;  // not whole pairs
  EXPECT_EQ(roundTrip(nak, &out), DecodeStatus::kBad);
  nak.payloadLen = 16 * 257;  // too many ranges
  EXPECT_EQ(roundTrip(nak, &out), DecodeStatus::kBad);

  FrameHeader rep;
  rep.type = FrameType::kMcastRepair;
  rep.src = 0;
  rep.tag = 1400;  // fragment size
  rep.msgSize = 5000;
  rep.offset = 2800;
  rep.payloadLen = 2200;
  EXPECT_EQ(roundTrip(rep, &out), DecodeStatus::kOk);
  rep.payloadLen = 2201;  // past the message
  EXPECT_EQ(roundTrip(rep, &out), DecodeStatus::kBad);
  rep.payloadLen = 10;
  rep.tag = 0;  // no fragment size
  EXPECT_EQ(roundTrip(rep, &out), DecodeStatus::kBad);

  FrameHeader ack;
  ack.type = FrameType::kMcastAck;
  ack.src = 2;
  ack.context = 0xC0000401u;
  ack.a = 9;
  ack.b = 2;
  EXPECT_EQ(roundTrip(ack, &out), DecodeStatus::kOk);
  EXPECT_EQ(out.type, FrameType::kMcastAck);
  EXPECT_EQ(out.a, 9u);
  ack.payloadLen = 8;  // an acknowledgement carries nothing
  EXPECT_EQ(roundTrip(ack, &out), DecodeStatus::kBad);
}

TEST(Frame, CompactEagerRoundTripsAndIsChecked) {
  FrameHeader h = eager(33);
  h.a = 0x1122334455667788ull;
  ASSERT_TRUE(compactEager(h));
  unsigned char buf[kCompactEagerBytes];
  encodeCompactEager(h, buf);
  EXPECT_EQ(buf[0], kCompactEagerMark);
  FrameHeader out;
  const char* why = nullptr;
  ASSERT_EQ(decodeCompactEager(buf, 2, limits(), &out, &why), DecodeStatus::kOk);
  EXPECT_EQ(out.type, FrameType::kEager);
  EXPECT_EQ(out.src, 2);
  EXPECT_EQ(out.context, 3u);
  EXPECT_EQ(out.tag, 17);
  EXPECT_EQ(out.msgSize, 33u);
  EXPECT_EQ(out.payloadLen, 33u);
  EXPECT_EQ(out.a, 0x1122334455667788ull);
  EXPECT_EQ(out.flags, 0);
  // Frames a compact header cannot carry.
  FrameHeader coded = h;
  coded.flags = kFlagCompressed;
  EXPECT_FALSE(compactEager(coded));
  FrameHeader rts = h;
  rts.type = FrameType::kRts;
  EXPECT_FALSE(compactEager(rts));
  // Each checked field, broken in turn.
  auto broken = [&](int at, unsigned char v) {
    unsigned char b[kCompactEagerBytes];
    memcpy(b, buf, sizeof b);
    b[at] = v;
    const char* w = nullptr;
    const DecodeStatus st = decodeCompactEager(b, 2, limits(), &out, &w);
    return st == DecodeStatus::kBad ? std::string(w) : std::string("accepted");
  };
  EXPECT_EQ(broken(0, 0x49), "compact mark");
  EXPECT_EQ(broken(1, kFlagCompressed), "reserved bits");
  EXPECT_EQ(broken(2, 1), "reserved bits");
  EXPECT_EQ(broken(4, 64), "context id");               // maxContext 64
  EXPECT_EQ(broken(11, 0x80), "tag");                   // negative
  EXPECT_EQ(broken(9, 0x10), "tag");                    // above tagUb 1000
  EXPECT_EQ(broken(13, 0x10), "eager payload length");  // above maxEager 4096
}

// Striping over rails (docs/multirail.md): the flag on CTS and DATA, and the receiver's
// acknowledgement.
TEST(Frame, StripedFramesAreChecked) {
  FrameHeader out;
  FrameHeader d;
  d.type = FrameType::kData;
  d.flags = kFlagStriped;
  d.src = 1;
  d.msgSize = 1 << 20;
  d.payloadLen = 4096;
  d.offset = 65536;
  d.b = 7;
  ASSERT_EQ(roundTrip(d, &out), DecodeStatus::kOk);
  EXPECT_EQ(out.flags, kFlagStriped);
  d.flags = kFlagStriped | kFlagCompressed;  // a striped stream is never coded
  EXPECT_EQ(roundTrip(d, &out), DecodeStatus::kBad);
  d.flags = kFlagStriped | kFlagRail;  // the rail flag belongs on the RTS alone
  EXPECT_EQ(roundTrip(d, &out), DecodeStatus::kBad);

  // A rail-directed send's request to send (p2p::isendOnRail).
  FrameHeader r;
  r.type = FrameType::kRts;
  r.flags = kFlagRail;
  r.src = 1;
  r.tag = 70;
  r.msgSize = 16384;
  r.a = 9;
  ASSERT_EQ(roundTrip(r, &out), DecodeStatus::kOk);
  EXPECT_EQ(out.flags, kFlagRail);

  FrameHeader c;
  c.type = FrameType::kCts;
  c.flags = kFlagStriped;
  c.src = 1;
  c.msgSize = 1 << 20;
  c.a = 3;
  c.b = 4;
  EXPECT_EQ(roundTrip(c, &out), DecodeStatus::kOk);
  c.flags = kFlagStriped | kFlagCma;  // the receiver read the bytes itself: nothing to stripe
  EXPECT_EQ(roundTrip(c, &out), DecodeStatus::kBad);

  FrameHeader a;
  a.type = FrameType::kStripeAck;
  a.src = 2;
  a.a = 9;
  a.msgSize = 1 << 20;
  ASSERT_EQ(roundTrip(a, &out), DecodeStatus::kOk);
  EXPECT_EQ(out.type, FrameType::kStripeAck);
  EXPECT_EQ(out.a, 9u);
  const char* why = nullptr;
  a.a = 0;  // names no send
  EXPECT_EQ(roundTrip(a, &out, &why), DecodeStatus::kBad);
  a.a = 9;
  a.payloadLen = 8;
  EXPECT_EQ(roundTrip(a, &out, &why), DecodeStatus::kBad);
  a.payloadLen = 0;
  a.flags = kFlagSync;
  EXPECT_EQ(roundTrip(a, &out, &why), DecodeStatus::kBad);

  // A rail's connection dropped at the sender's end: the receiver's index of the rail.
  FrameHeader d2;
  d2.type = FrameType::kRailDown;
  d2.src = 1;
  d2.a = 1;
  ASSERT_EQ(roundTrip(d2, &out), DecodeStatus::kOk);
  EXPECT_EQ(out.type, FrameType::kRailDown);
  d2.a = 0;  // rail 0 is never dropped
  EXPECT_EQ(roundTrip(d2, &out), DecodeStatus::kBad);
  d2.a = 1;
  d2.payloadLen = 4;
  EXPECT_EQ(roundTrip(d2, &out), DecodeStatus::kBad);
}
