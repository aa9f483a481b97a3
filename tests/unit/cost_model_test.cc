// The broadcasts' cost model (coll/cost_model.h): the binomial tree walk and the linear
// broadcast against their closed forms.
#include "coll/cost_model.h"

#include <gtest/gtest.h>

namespace ccmpi::coll {
namespace {

// 16 ranks on one rail of 1 byte per microsecond, no striping; l = 100 us.
BcastCostParams params(double sendUs) {
  BcastCostParams p;
  p.ranks = 16;
  p.rails = 1;
  p.bytesPerSec = 1e6;
  p.hopUs = 100;
  p.sendUs = sendUs;
  p.eagerLimit = 1 << 20;
  p.stripeMin = uint64_t{1} << 40;
  p.railDirectMin = uint64_t{1} << 40;
  return p;
}

TEST(CostModel, BinomialRendezvousGoesOneChildAfterTheOther) {
  // Above the eager limit a parent's sends wait for each transfer: the root's 4th child,
  // and the first child's 3rd, arrive after 4 messages of o + 3l + B/b each.
  BcastCostParams p = params(7);
  p.eagerLimit = 1000;
  const double B = 5000;
  EXPECT_DOUBLE_EQ(predictBcastUs("binomial", 5000, p), 4 * (7 + 3 * 100 + B));
}

TEST(CostModel, BinomialEagerOfOnePacketEach) {
  // One packet per message: the i-th of a parent's messages is out after i packets (and
  // i overheads). Every path's positions sum to 4 (log2 16), and the deepest has 4 hops.
  const double B = 1000;
  EXPECT_DOUBLE_EQ(predictBcastUs("binomial", 1000, params(0)), 4 * 100 + 4 * B);
  // With o: the root's 4th child waits 4 o; the path 1, 1, 1, 1 of 4 hops waits 4 o too.
  EXPECT_DOUBLE_EQ(predictBcastUs("binomial", 1000, params(10)), 4 * 100 + 4 * 10 + 4 * B);
}

TEST(CostModel, BinomialEagerLongMessagesShareTheCable) {
  // 100 packets per message: a parent's k messages go packet by packet, so the first of
  // k is whole after (99k + 1) packets. The path of first children (k = 4, 3, 2, 1) takes
  // (99·10 + 4)/100 message times, close to the 1 + 2 + 3 + 4 of whole messages in turn.
  const double B = 1448 * 100;
  EXPECT_NEAR(predictBcastUs("binomial", 1448 * 100, params(0)), 4 * 100 + 9.94 * B, 1e-6);
}

TEST(CostModel, LinearSendsEverythingAtOnce) {
  // Eager, one packet each: the root's 15 messages leave one after the other.
  EXPECT_DOUBLE_EQ(predictBcastUs("linear", 1000, params(10)), 100 + 15 * 10 + 15 * 1000.0);
  // Rendezvous: one message's handshake, then the 15 transfers back to back.
  BcastCostParams p = params(10);
  p.eagerLimit = 1000;
  EXPECT_DOUBLE_EQ(predictBcastUs("linear", 5000, p), 10 + 300 + 5000 + 14 * (5000 + 10.0));
}

TEST(CostModel, PipelinesFlow) {
  // The chain of 16 ranks, 4 segments of 64 KiB (CCMPI_BCAST_SEGMENT's default), eager:
  // the first segment takes 15 hops of a whole message (o + l + s/b), the other 3 follow
  // one segment time (s/b + o) apart.
  const double s = 65536;
  EXPECT_DOUBLE_EQ(predictBcastUs("chain", 4 * 65536, params(10)),
                   15 * (10 + 100 + s) + 3 * (s + 10));
  // The binary tree (depth 4): an interior rank sends every segment twice on its cable.
  EXPECT_DOUBLE_EQ(predictBcastUs("binary_tree", 4 * 65536, params(10)),
                   4 * (10 + 100 + s + (s + 10)) + 3 * 2 * (s + 10));
}

TEST(CostModel, NoModelNoRate) {
  EXPECT_EQ(predictBcastUs("nosuch", 1000, params(0)), -1);
  BcastCostParams p = params(0);
  p.bytesPerSec = 0;
  EXPECT_EQ(predictBcastUs("binomial", 1000, p), -1);
}

}  // namespace
}  // namespace ccmpi::coll
