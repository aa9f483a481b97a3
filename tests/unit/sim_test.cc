// ccmpi-sim's network and ranks (tools/sim): flow sharing, topologies, and programs whose
// times have closed forms.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "sim/network.h"
#include "sim/sim.h"

namespace ccmpi::sim {
namespace {

constexpr double kRate = 1e6;  // bytes/s per cable direction

Topology oneSwitch(int hosts) {
  Topology t;
  t.hosts = hosts;
  t.rate = kRate;
  return t;
}

// Runs the network alone until every flow ended; returns each flow's end by tag.
std::vector<double> drain(Network& n, size_t flows) {
  std::vector<double> end(flows, -1);
  while (n.active() > 0) {
    const double t = n.nextEnd();
    end[n.popEnded(t)] = t;
  }
  return end;
}

TEST(SimNetwork, OneFlowGetsTheCable) {
  Network n(oneSwitch(2));
  n.start(0, 0, {1}, 0, 1e6, 0);
  EXPECT_DOUBLE_EQ(drain(n, 1)[0], 1.0);
}

TEST(SimNetwork, TwoSendersShareTheReceiversPort) {
  Network n(oneSwitch(3));
  n.start(0, 0, {2}, 0, 1e6, 0);
  n.start(0, 1, {2}, 0, 1e6, 1);
  const auto end = drain(n, 2);
  EXPECT_DOUBLE_EQ(end[0], 2.0);
  EXPECT_DOUBLE_EQ(end[1], 2.0);
}

TEST(SimNetwork, MaxMinGivesTheSpareShareToTheUnconstrainedFlow) {
  // Host 0 sends to 1, 2 and 3 (a third of its cable each); host 4 also sends to 1, whose
  // port then has two thirds left for it: max-min fair, not half each.
  Network n(oneSwitch(5));
  n.start(0, 0, {1}, 0, 1e6, 0);
  n.start(0, 0, {2}, 0, 1e6, 1);
  n.start(0, 0, {3}, 0, 1e6, 2);
  const int f = n.start(0, 4, {1}, 0, 1e6, 3);
  EXPECT_NEAR(n.rateOf(f), 2 * kRate / 3, 1e-6);
  const auto end = drain(n, 4);
  // Host 4's flow ends at 1.5 s; then host 0's three continue at a third until 3 s.
  EXPECT_NEAR(end[3], 1.5, 1e-9);
  EXPECT_NEAR(end[0], 3.0, 1e-9);
}

TEST(SimNetwork, PerLinkSharingKeepsTheEqualShare) {
  // The same four flows with per-link sharing: host 4's flow gets half of host 1's port
  // (two flows there), not the two thirds max-min would hand it.
  Topology t = oneSwitch(5);
  std::string why;
  ASSERT_TRUE(t.parseSharing("per-link", &why)) << why;
  Network n(t);
  n.start(0, 0, {1}, 0, 1e6, 0);
  n.start(0, 0, {2}, 0, 1e6, 1);
  n.start(0, 0, {3}, 0, 1e6, 2);
  const int f = n.start(0, 4, {1}, 0, 1e6, 3);
  EXPECT_NEAR(n.rateOf(f), kRate / 2, 1e-6);
  const auto end = drain(n, 4);
  EXPECT_NEAR(end[3], 2.0, 1e-9);
  // Host 0's flows: a third until 2 s (2/3 of each sent), then the one to host 1 alone
  // on that port but still a third of host 0's cable: all end at 3 s.
  EXPECT_NEAR(end[0], 3.0, 1e-9);
  EXPECT_FALSE(t.parseSharing("fifo", &why));
}

TEST(SimNetwork, FlowsSpeedUpWhenOthersEnd) {
  Network n(oneSwitch(3));
  n.start(0, 0, {2}, 0, 0.5e6, 0);
  n.start(0, 1, {2}, 0, 1e6, 1);
  const auto end = drain(n, 2);
  EXPECT_NEAR(end[0], 1.0, 1e-9);  // half rate for 1 s
  EXPECT_NEAR(end[1], 1.5, 1e-9);  // 0.5e6 left at full rate
}

TEST(SimNetwork, OversubscribedUplinksLimitTrafficBetweenLeaves) {
  Topology t = oneSwitch(8);
  std::string why;
  ASSERT_TRUE(t.parse("fat-tree:4:4", &why)) << why;
  Network n(t);
  EXPECT_EQ(n.hops(0, 1), 1);
  EXPECT_EQ(n.hops(0, 4), 3);
  // Leaf 0's four hosts each send to a host of leaf 1: the uplink (4 x rate / 4) is shared.
  for (int h = 0; h < 4; ++h) n.start(0, h, {h + 4}, 0, 1e6, static_cast<uint64_t>(h));
  const auto end = drain(n, 4);
  for (double e : end) EXPECT_NEAR(e, 4.0, 1e-9);
  // Within a leaf the uplink is not used.
  Network m(t);
  m.start(0, 0, {1}, 0, 1e6, 0);
  EXPECT_NEAR(drain(m, 1)[0], 1.0, 1e-9);
}

TEST(SimNetwork, RejectsBadTopologies) {
  Topology t;
  std::string why;
  EXPECT_FALSE(t.parse("fat-tree:0:4", &why));
  EXPECT_FALSE(t.parse("fat-tree:4:0.5", &why));
  EXPECT_FALSE(t.parse("torus", &why));
  EXPECT_NE(why.find("unknown topology"), std::string::npos);
}

TEST(SimNetwork, MulticastHoldsEveryReceiversPort) {
  Network n(oneSwitch(4));
  n.start(0, 0, {1, 2, 3}, 0, 1e6, 0);
  n.start(0, 3, {2}, 0, 1e6, 1);  // shares host 2's port with the multicast
  const auto end = drain(n, 2);
  EXPECT_NEAR(end[0], 2.0, 1e-9);
  EXPECT_NEAR(end[1], 2.0, 1e-9);
}

// Tail drop with a port that holds 2 flows, is full from 4 (idle 1 us per byte from there).
Topology tailDrop(int hosts) {
  Topology t = oneSwitch(hosts);
  t.tailDrop = true;
  t.portBuffer = Topology::kDropBuffer;
  t.dropFlows = 2;
  t.dropFull = 4;
  t.dropIdle = 1e-6;
  return t;
}

// k senders, 1e6 bytes each, into host k's port; the time the last ends.
double incast(const Topology& t, int k) {
  Network n(t);
  for (int h = 0; h < k; ++h) n.start(0, h, {k}, 0, 1e6, static_cast<uint64_t>(h));
  double last = 0;
  for (double e : drain(n, static_cast<size_t>(k))) last = std::max(last, e);
  return last;
}

TEST(SimNetwork, TailDropCostsNothingWhileTheBufferHoldsTheFlows) {
  EXPECT_NEAR(incast(tailDrop(3), 2), 2.0, 1e-9);   // 2e6 bytes at 1e6 bytes/s
  EXPECT_NEAR(incast(oneSwitch(9), 8), 8.0, 1e-9);  // fair TCP: no idle time at all
}

TEST(SimNetwork, TailDropIdlesThePortPerByteBeyondTheBuffer) {
  // 3 flows: half way to full, 0.5 us idle per byte: 3e6 x (1 + 0.5) us.
  EXPECT_NEAR(incast(tailDrop(4), 3), 4.5, 1e-9);
  // 8 flows: beyond full, 1 us idle per byte: 8e6 x 2 us.
  EXPECT_NEAR(incast(tailDrop(9), 8), 16.0, 1e-9);
  // A port of twice the buffer holds twice the flows: 3 flows cost nothing, 5 are half
  // way (4 holds, 8 full: 0.25 us per byte).
  Topology big = tailDrop(6);
  big.portBuffer = 2 * 131072;
  EXPECT_NEAR(incast(big, 3), 3.0, 1e-9);
  EXPECT_NEAR(incast(big, 5), 5 * 1.25, 1e-9);
}

TEST(SimNetwork, TailDropSparesTheSendersCableAndMulticast) {
  // One host sends 8 flows to 8 hosts: its own queue (the NIC's) drops nothing, and each
  // receiver's port has one flow.
  Network n(tailDrop(9));
  for (int h = 1; h <= 8; ++h) n.start(0, 0, {h}, 0, 1e6, static_cast<uint64_t>(h - 1));
  for (double e : drain(n, 8)) EXPECT_NEAR(e, 8.0, 1e-9);
  // A multicast (UDP) flow shares the port but is no TCP flow that could time out: with 2
  // TCP flows the port is still within its buffer.
  Network m(tailDrop(5));
  m.start(0, 0, {3, 4}, 0, 1e6, 0, /*tcp=*/false);
  m.start(0, 1, {4}, 0, 1e6, 1);
  m.start(0, 2, {4}, 0, 1e6, 2);
  for (double e : drain(m, 3)) EXPECT_NEAR(e, 3.0, 1e-9);
}

TEST(SimNetwork, TailDropOnALeafsUplinksCountsFlowsPerPort) {
  // fat-tree:4:2: a leaf's uplinks are 2 ports of the rate. Leaf 0's 4 hosts send 2 flows
  // each to leaf 1 (8 flows, 4 per uplink port: full, 1 us per byte): the bundle carries
  // 8e6 bytes at 2e6 bytes/s, each port idling 1 us per byte it carries (4e6 each).
  Topology t = tailDrop(8);
  std::string why;
  ASSERT_TRUE(t.parse("fat-tree:4:2", &why)) << why;
  Network n(t);
  for (int h = 0; h < 4; ++h)
    for (int d = 4; d < 6; ++d) n.start(0, h, {d + 2 * (h % 2)}, 0, 1e6, 0);
  double last = 0;
  while (n.active() > 0) last = n.nextEnd(), n.popEnded(last);
  EXPECT_NEAR(last, 4.0 + 4.0, 1e-9);
}

Costs zeroCosts() {
  Costs c;
  c.sendPost = c.recvPost = c.recvDone = c.roundOverhead = 0;
  c.frameBytes = 0;
  c.wireLatency = 0;
  c.copyRate = c.reduceRate = 1e30;
  return c;
}

Op send(int peer, double bytes) {
  return {Op::Kind::kSend, false, peer, bytes};
}
Op recv(int peer, double bytes) {
  return {Op::Kind::kRecv, false, peer, bytes};
}
Op lateRecv(int peer, double bytes) {
  return {Op::Kind::kRecv, true, peer, bytes};
}

// A program of rounds of steps.
Program rounds(std::initializer_list<std::vector<Op>> rs) {
  Program p;
  for (const std::vector<Op>& r : rs) {
    p.endRound();
    p.ops.insert(p.ops.end(), r.begin(), r.end());
  }
  return p;
}

// Runs the ranks' programs (rank i: programs[i]); a run that fails fails the test.
Result runAll(Simulator& s, std::initializer_list<Program> programs) {
  int rank = 0;
  for (const Program& p : programs) s.setProgram(rank++, p);
  Result r;
  std::string why;
  EXPECT_TRUE(s.run(&r, &why)) << why;
  return r;
}

TEST(SimRanks, SmallMessagesLeaveAHostInTheOrderWritten) {
  // Rank 0 writes 10 kB to rank 1, then to rank 2: the NIC's queue sends the first whole,
  // then the second (Costs::fifoBytes); with no such queue the two share the cable.
  for (double fifo : {14480.0, 0.0}) {
    Costs c = zeroCosts();
    c.fifoBytes = fifo;
    Simulator s(oneSwitch(3), c, 3, 1);
    const Result r = runAll(s, {rounds({{send(1, 1e4), send(2, 1e4)}}), rounds({{recv(0, 1e4)}}),
                                rounds({{recv(0, 1e4)}})});
    EXPECT_NEAR(r.rankEnd[1], fifo > 0 ? 0.01 : 0.02, 1e-9) << fifo;
    EXPECT_NEAR(r.rankEnd[2], 0.02, 1e-9) << fifo;
  }
  // A large message shares the cable with the small one ahead of it.
  Simulator s(oneSwitch(3), zeroCosts(), 3, 1);
  const Result r = runAll(s, {rounds({{send(1, 1e4), send(2, 1e6)}}), rounds({{recv(0, 1e4)}}),
                              rounds({{recv(0, 1e6)}})});
  EXPECT_NEAR(r.rankEnd[1], 0.02, 1e-9);
  EXPECT_NEAR(r.rankEnd[2], 1.01, 1e-9);
}

TEST(SimRanks, PingPong) {
  Topology t = oneSwitch(2);
  t.latency = 1e-3;
  t.frameTime = 0;
  Simulator s(t, zeroCosts(), 2, 1);
  const Result r = runAll(s, {rounds({{send(1, 10000)}, {recv(1, 10000)}}),
                              rounds({{recv(0, 10000)}, {send(0, 10000)}})});
  EXPECT_NEAR(r.time, 2 * (1e-3 + 0.01), 1e-9);
  EXPECT_EQ(r.messages, 2u);
}

TEST(SimRanks, RendezvousCostsTwoMoreLatencies) {
  Topology t = oneSwitch(2);
  t.latency = 1e-3;
  Costs c = zeroCosts();
  c.eagerLimit = 1000;
  Simulator s(t, c, 2, 1);
  const Result r = runAll(s, {rounds({{send(1, 1e5)}}), rounds({{recv(0, 1e5)}})});
  // Request to send, clear to send (one frame each, no rate here: frameTime 0), then data.
  EXPECT_NEAR(r.time, 3e-3 + 0.1, 1e-9);
}

// Pairwise all-to-all (round i: send to r+i, receive from r-i) and "everything at once"
// both take (n - 1) x s / rate on one switch: every port is busy all the time.
TEST(SimRanks, AllToAllMeetsTheBound) {
  const int n = 8;
  const double s = 1e5;
  for (bool pairwise : {true, false}) {
    Simulator sim(oneSwitch(n), zeroCosts(), n, 1);
    for (int r = 0; r < n; ++r) {
      Program p;
      p.endRound();
      for (int i = 1; i < n; ++i) {
        p.ops.push_back(recv((r - i + n) % n, s));
        p.ops.push_back(send((r + i) % n, s));
        if (pairwise) p.endRound();
      }
      sim.setProgram(r, p);
    }
    Result res;
    std::string why;
    ASSERT_TRUE(sim.run(&res, &why)) << why;
    EXPECT_NEAR(res.time, (n - 1) * s / kRate, 1e-9) << (pairwise ? "pairwise" : "linear");
  }
}

TEST(SimRanks, RanksOfOneHostUseSharedMemory) {
  Costs c = zeroCosts();
  c.shmLatency = 1e-6;
  c.shmRate = 1e9;
  Simulator s(oneSwitch(1), c, 2, 2);
  const Result r = runAll(s, {rounds({{send(1, 1e6)}}), rounds({{recv(0, 1e6)}})});
  // Rendezvous (1 MB > the eager limit): request, clear to send, data; no cable.
  EXPECT_NEAR(r.time, 3e-6 + 1e-3, 1e-12);
  EXPECT_EQ(r.wireBytes, 0);
}

TEST(SimRanks, StripesLargeMessagesOverRails) {
  Topology t = oneSwitch(2);
  t.rails = 2;
  Costs c = zeroCosts();
  c.eagerLimit = 1e12;
  c.stripeMin = 1e5;
  Simulator s(t, c, 2, 1);
  const Result r = runAll(s, {rounds({{send(1, 1e6)}}), rounds({{recv(0, 1e6)}})});
  EXPECT_NEAR(r.time, 0.5, 1e-9);
}

// A chain 0 -> 1 -> 2 of four pieces in one round: rank 1 forwards each piece once it is
// in (Op::after), so the last reaches rank 2 one piece time after it reached rank 1 (5
// piece times in all); posted when the round starts, rank 1 would send what it has not got.
TEST(SimRanks, SendsAfterAReceiveForwardEachPieceAsItComes) {
  const double piece = 1e5;
  Simulator s(oneSwitch(3), zeroCosts(), 3, 1);
  Program mid;
  mid.endRound();
  for (int k = 0; k < 4; ++k) {
    const int in = static_cast<int>(mid.ops.size());
    mid.ops.push_back(recv(0, piece));
    mid.ops.push_back({Op::Kind::kSend, false, 2, piece, in});
  }
  const Result r =
      runAll(s, {rounds({{send(1, piece), send(1, piece), send(1, piece), send(1, piece)}}), mid,
                 rounds({{recv(1, piece), recv(1, piece), recv(1, piece), recv(1, piece)}})});
  EXPECT_NEAR(r.rankEnd[1], 5 * piece / kRate, 1e-9);
  EXPECT_NEAR(r.rankEnd[2], 5 * piece / kRate, 1e-9);
}

// A reduction waiting for a receive runs once that is in, and a send waiting for the last
// reduction goes once both have run: rank 1 combines its two children's pieces (in at
// 0.2 s: they share its port) in 0.1 s each and sends the result to rank 3 (0.1 s).
TEST(SimRanks, ReductionsAfterReceivesThenTheSend) {
  const double piece = 1e5;
  Costs c = zeroCosts();
  c.reduceRate = kRate;
  Simulator s(oneSwitch(4), c, 4, 1);
  Program mid;
  mid.endRound();
  mid.ops.push_back(recv(0, piece));
  mid.ops.push_back({Op::Kind::kLocalReduce, false, -1, piece, 0});
  mid.ops.push_back(recv(2, piece));
  mid.ops.push_back({Op::Kind::kLocalReduce, false, -1, piece, 2});
  mid.ops.push_back({Op::Kind::kSend, false, 3, piece, 3});
  const Result r = runAll(
      s, {rounds({{send(1, piece)}}), mid, rounds({{send(1, piece)}}), rounds({{recv(1, piece)}})});
  EXPECT_NEAR(r.rankEnd[3], 0.5, 1e-9);
}

// A send naming a rail takes it whole: rank 0's two messages, one on each rail, go at once
// (one message time); on one rail they would share the cable (two).
TEST(SimRanks, ASendNamingARailTakesIt) {
  Topology t = oneSwitch(3);
  t.rails = 2;
  Costs c = zeroCosts();
  c.stripeMin = 1e12;
  for (int rail : {1, 0}) {
    Simulator s(t, c, 3, 1);
    const Result r =
        runAll(s, {rounds({{{Op::Kind::kSend, false, 1, 1e6, -1, 0},
                            {Op::Kind::kSend, false, 2, 1e6, -1, static_cast<int8_t>(rail)}}}),
                   rounds({{recv(0, 1e6)}}), rounds({{recv(0, 1e6)}})});
    EXPECT_NEAR(r.time, (rail == 1 ? 1e6 : 2e6) / kRate, 1e-9) << rail;
  }
}

TEST(SimRanks, LateReceiveIsAwaitedAtTheEndOfTheNextRound) {
  // Rank 1 posts a late receive in round 0 and sends in round 1; rank 0 sends only after
  // it got that message. The late receive must not hold round 0 back (else: deadlock).
  Simulator s(oneSwitch(2), zeroCosts(), 2, 1);
  const Result r = runAll(
      s, {rounds({{recv(1, 1e4)}, {send(1, 1e4)}}), rounds({{lateRecv(0, 1e4)}, {send(0, 1e4)}})});
  EXPECT_NEAR(r.time, 2e4 / kRate, 1e-12);
}

TEST(SimRanks, LateReceiveThatCompletesBetweenRoundsEndsNoRound) {
  // Rank 0's round 0 holds only a late receive, so it ends at once; the receive completes
  // at 10 ms, while round 1 waits for the round overhead (1 s). That must not end round 1
  // before it ran: its send is what rank 1 waits for.
  Costs c = zeroCosts();
  c.roundOverhead = 1;
  Simulator s(oneSwitch(2), c, 2, 1);
  const Result r = runAll(
      s, {rounds({{lateRecv(1, 1e4)}, {send(1, 1e4)}}), rounds({{send(0, 1e4)}, {recv(0, 1e4)}})});
  EXPECT_NEAR(r.rankEnd[0], 1.0, 1e-9);
  EXPECT_NEAR(r.rankEnd[1], 1.01, 1e-9);
}

TEST(SimRanks, MulticastReachesEveryHostAtOnce) {
  Topology t = oneSwitch(4);
  t.latency = 1e-3;
  Simulator s(t, zeroCosts(), 4, 1);
  const int g = s.addGroup({0, 1, 2, 3});
  const Op in{Op::Kind::kMcastRecv, false, g, 1e6};
  const Result res = runAll(s, {rounds({{{Op::Kind::kMcastSend, false, g, 1e6}}}), rounds({{in}}),
                                rounds({{in}}), rounds({{in}})});
  EXPECT_NEAR(res.rankEnd[1], 1.0 + 1e-3, 1e-9);
  // The root: the data, then acknowledgements up a binary tree of 4 hosts (2 latencies).
  EXPECT_NEAR(res.rankEnd[0], 1.0 + 3e-3, 1e-9);
  EXPECT_DOUBLE_EQ(res.wireBytes, 1e6);
}

TEST(SimRanks, MismatchedProgramsAreReportedNotHung) {
  Simulator s(oneSwitch(2), zeroCosts(), 2, 1);
  s.setProgram(0, rounds({{recv(1, 8)}}));
  s.setProgram(1, rounds({{}}));
  Result r;
  std::string why;
  EXPECT_FALSE(s.run(&r, &why));
  EXPECT_NE(why.find("rank 0 never finished"), std::string::npos) << why;
}

TEST(SimCosts, LoadsAndRejects) {
  char path[] = "/tmp/sim_costsXXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  FILE* f = fdopen(fd, "w");
  fputs("# measured\nsend_post 3e-6\nwire_latency 0.0001  # one way\n", f);
  fclose(f);
  Costs c;
  std::string why;
  ASSERT_TRUE(c.load(path, &why)) << why;
  EXPECT_DOUBLE_EQ(c.sendPost, 3e-6);
  EXPECT_DOUBLE_EQ(c.wireLatency, 1e-4);
  f = fopen(path, "w");
  fputs("send_post fast\n", f);
  fclose(f);
  EXPECT_FALSE(c.load(path, &why));
  EXPECT_NE(why.find("bad value"), std::string::npos) << why;
  f = fopen(path, "w");
  fputs("warp_speed 1\n", f);
  fclose(f);
  EXPECT_FALSE(c.load(path, &why));
  EXPECT_NE(why.find("unknown cost"), std::string::npos) << why;
  unlink(path);
  EXPECT_NE(c.describe().find("send_post"), std::string::npos);
}

}  // namespace
}  // namespace ccmpi::sim
