// The broadcasts' cost model (coll/cost_model.h): the tree walks, the pipelines, the
// scatter-ring and the machine's terms (an idle cable's burst, the CPU floor) against
// closed forms worked by hand.
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
  // The binary tree: an interior rank sends every segment to two children at once, and
  // they share its cable packet by packet (the first is whole a packet before the
  // second). The last rank is 15, the first child of 7, 3 and 1 and the only child of 7:
  // three hops of two segments less a packet, one of one segment; then 3 more segments,
  // each sent twice on the busiest cables.
  EXPECT_DOUBLE_EQ(predictBcastUs("binary_tree", 4 * 65536, params(10)),
                   3 * (10 + 100 + 2 * s - 1448) + (10 + 100 + s) + 3 * 2 * (s + 10));
  // Traffic both ways leaves the pipelines' streams a share of the cable (duplexShare),
  // not their first segment.
  BcastCostParams p = params(10);
  p.duplexShare = 0.5;
  EXPECT_DOUBLE_EQ(predictBcastUs("chain", 4 * 65536, p), 15 * (10 + 100 + s) + 3 * (2 * s + 10));
}

TEST(CostModel, AnIdleCablePassesItsBurstAtOnce) {
  // The chain's one segment finds every cable idle: each hop carries 1000 bytes less.
  BcastCostParams p = params(10);
  p.burstBytes = 1000;
  const double s = 65536;
  EXPECT_DOUBLE_EQ(predictBcastUs("chain", 65536, p), 15 * (10 + 100 + s - 1000));
  // Linear: the root's cable is idle once, for the first bytes of all 15 messages.
  EXPECT_DOUBLE_EQ(predictBcastUs("linear", 1000, p), 100 + 15 * 10 + 15 * 1000.0 - 1000);
  // A stream's share of the link slows every byte (linkShare).
  p.burstBytes = 0;
  p.linkShare = 0.5;
  EXPECT_DOUBLE_EQ(predictBcastUs("chain", 65536, p), 15 * (10 + 100 + 2 * s));
}

TEST(CostModel, ScatterThenRing) {
  // 4 ranks, 4000 bytes: blocks of 1000, eager, o = 0. The scatter: the root hands 2000
  // bytes for ranks 2-3 and 1000 for rank 1 to TCP at once; rank 1's is whole after 2000
  // bytes of the cable, rank 2's after 2552 (its last packet after the other message);
  // rank 2 then sends rank 3 its 1000. So the ranks have their blocks at 0, 2100, 2652 and
  // 3752. The ring: a step costs l + 1000 = 1100 and starts when the block to forward
  // has arrived, the rank's own scatter is done and its previous send is out: rank 0's last
  // send (step 2) starts at 5952 (rank 3's step-1 send, itself waiting on rank 3's
  // step-0 send from 3752 to 4852).
  BcastCostParams p = params(0);
  p.ranks = 4;
  EXPECT_DOUBLE_EQ(predictBcastUs("scatter_ring_allgather", 4000, p), 7052);
  // Blocks of 20000 (kScatterAckMin and up): the root's first child answers, so the
  // second starts only then (40100 + 100) and has its block at 60300; rank 3 has it at
  // 60200 from rank 2. The ring's steps of 20100 then end with ranks 1-3's last sends at
  // 120600 (rank 2's step 1 starts when rank 1's step-0 send is out, at 80400).
  EXPECT_DOUBLE_EQ(predictBcastUs("scatter_ring_allgather", 80000, p), 120600);
}

TEST(CostModel, RanksOutnumberingCoresHaveACpuFloor) {
  // 16 ranks on 2 cores, 1000 us a wake-up that sends on (half for one that only
  // receives): the binomial tree of 1 byte wakes 7 ranks that forward and 8 leaves, 5.5
  // ms of the two cores, more than its 4 hops of 100 us.
  BcastCostParams p = params(0);
  p.cores = 2;
  p.cpuUs = 1000;
  EXPECT_DOUBLE_EQ(predictBcastUs("binomial", 1, p), (7 + 8 / 2.0) * 1000 / 2);
  // Linear: 15 receivers that send nothing on.
  EXPECT_DOUBLE_EQ(predictBcastUs("linear", 1, p), 15 / 2.0 * 1000 / 2);
  // Multicast: the sender and 15 receivers.
  EXPECT_NEAR(predictBcastUs("mcast", 1, p), (1 + 15 / 2.0) * 1000 / 2, 1e-9);
  // Without the floor (a core per rank) the network's time alone.
  p.cores = 0;
  EXPECT_DOUBLE_EQ(predictBcastUs("binomial", 1, p), 4 * 100 + 4 * 1);
}

TEST(CostModel, NoModelNoRate) {
  EXPECT_EQ(predictBcastUs("nosuch", 1000, params(0)), -1);
  BcastCostParams p = params(0);
  p.bytesPerSec = 0;
  EXPECT_EQ(predictBcastUs("binomial", 1000, p), -1);
}

}  // namespace
}  // namespace ccmpi::coll
