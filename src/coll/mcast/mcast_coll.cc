// Multicast collectives' common part (see mcast_coll.h).
#include "coll/mcast/mcast_coll.h"

#include <arpa/inet.h>
#include <sys/random.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>

#include "base/log.h"
#include "base/tunables.h"
#include "coll/rules.h"
#include "coll/schedule.h"
#include "coll/util.h"
#include "p2p/p2p.h"
#include "progress/engine.h"

namespace ccmpi::coll {
namespace {

constexpr int kTagAgree = kTagBcast;  // the agreement runs before any data of the call

// A random nonzero 32-bit number: this rank's proposal for a group's epoch.
uint32_t randomEpoch() {
  uint32_t v = 0;
  while (v == 0)
    if (getrandom(&v, sizeof v, 0) != sizeof v)
      v = static_cast<uint32_t>(progress::Engine::nowNs() * 0x9e3779b97f4a7c15ull >> 32);
  return v;
}

// The agreements' one combination, over two words: AND of [0], the largest [1]. Both are
// idempotent, so a dissemination computes them (ceil(log2 n) rounds).
void combine(uint64_t* v, const uint64_t* in) {
  v[0] &= in[0];
  v[1] = std::max(v[1], in[1]);
}

// Over the communicator: *all = the bitwise AND of `mine`, and *epoch (when given) = the
// largest of the members' *epoch (the join's agreement).
int agreeBits(comm::Comm& c, uint64_t mine, uint64_t* all, uint32_t* epoch = nullptr) {
  uint64_t v[2] = {mine, epoch ? *epoch : 0u};
  for (int d = 1; d < c.size; d <<= 1) {
    const int to = (c.rank + d) % c.size, from = (c.rank - d + c.size) % c.size;
    uint64_t in[2] = {0, 0};
    if (int rc = p2p::sendrecv(v, 2, MPI_UINT64_T, to, kTagAgree, in, 2, MPI_UINT64_T, from,
                               kTagAgree, c, MPI_STATUS_IGNORE, kCtx))
      return rc;
    combine(v, in);
  }
  *all = v[0];
  if (epoch) *epoch = static_cast<uint32_t>(v[1]);
  return MPI_SUCCESS;
}

int agreeAll(comm::Comm& c, bool mine, bool* all, uint32_t* epoch = nullptr) {
  uint64_t v = 0;
  const int rc = agreeBits(c, mine ? 1 : 0, &v, epoch);
  *all = v != 0;
  return rc;
}

// Lanes the probe tries: the job's rails (every rank has as many), at most the
// transport's limit; the same number on every rank.
int probeLanes() {
  return std::clamp(jobRails(), 1, transport::kMcastMaxLanes);
}

// The probe's bit for lane k, where this rank has the lane (a root without it sends that
// probe on lane 0; a receiver without it may get it from another of its lanes).
uint64_t laneBit(int k, bool via) {
  return via && k < transport::mcast().lanes() ? uint64_t{1} << k : 0;
}

// The lanes from a probe's AND: lane 0 and those after it without a gap.
uint8_t lanesOf(uint64_t bits) {
  uint8_t n = 1;
  while (n < transport::kMcastMaxLanes && (bits >> n & 1)) ++n;
  return n;
}

// A probe round's word also says, from bit kHaveShift on, which lanes this rank has and
// would probe again: their AND tells whether a lane that did not reach every rank is worth
// another round (a member's IGMP join on that rail may be late, as on lane 0). A lane
// that failed every round on an earlier communicator is not probed again in later rounds
// (gLanesWithout): where a rail's switch does not carry multicast that costs once per job.
constexpr int kProbeRounds = 4;
constexpr int kHaveShift = 16;

Tunable<uint64_t> gTestLaneMiss(
    "CCMPI_MCAST_TEST_LANE_MISS", 0,
    "fault injection for tests: in this many first probe rounds of a communicator's "
    "multicast agreement, a receiver counts the probes of every lane but the first as "
    "not arrived (a late IGMP join on the other rails)");

// A receiver's bit for lane k of probe round `round` (laneBit, with the fault injection).
uint64_t probeBit(int k, int round, bool arrived) {
  if (k > 0 && static_cast<uint64_t>(round) < gTestLaneMiss.get()) arrived = false;
  return laneBit(k, arrived);
}
uint64_t gLanesWithout = 0;

uint64_t haveBits(int probed) {
  uint64_t b = 0;
  for (int k = 0; k < probed && k < transport::mcast().lanes(); ++k)
    if (!(gLanesWithout >> k & 1)) b |= uint64_t{1} << (kHaveShift + k);
  return b;
}

// After probe round `round` with AND `all` (both agreement forms): the most lanes any
// round reached so far (`best`, 0 while lane 0 has not reached every rank) and what
// follows: kOn with `best` lanes, kAgain, or kOff. Another round is run while lane 0
// failed, or while the next lane failed that every rank has and would probe again; after
// the last, a lane that never reached every rank is probed in the first round only on
// this process's later communicators (gLanesWithout).
enum class ProbeNext { kOn, kAgain, kOff };
ProbeNext afterProbeRound(uint64_t all, int probed, int round, uint8_t* best) {
  if (all & 1) *best = std::max(*best, lanesOf(all));
  const bool nextLaneWanted = *best < probed && (all >> (kHaveShift + *best) & 1);
  if (*best > 0 && !nextLaneWanted) {
    log::debug("multicast on %d lane(s)", *best);
    return ProbeNext::kOn;
  }
  if (round + 1 < kProbeRounds) {
    log::info("multicast probe round %d: %s did not reach every rank by multicast; trying again",
              round + 1, *best ? "a later lane" : "the probe");
    return ProbeNext::kAgain;
  }
  if (*best == 0) {
    log::info("multicast probe round %d did not reach every rank by multicast", kProbeRounds);
    return ProbeNext::kOff;
  }
  gLanesWithout |= uint64_t{1} << *best;
  log::info(
      "multicast lane %d did not reach every rank in %d probe rounds; the communicator "
      "uses %d lane(s)",
      *best, kProbeRounds, *best);
  return ProbeNext::kOn;
}

// The probe of lane k: its own message (sub k), on that lane alone.
transport::McastKey probeKey(const McastGroup& g, comm::Comm& c, uint64_t seq, int k) {
  return transport::McastKey{g.context, seq, c.worldRankOf(0), static_cast<uint16_t>(k), g.epoch};
}

// Zero-byte acknowledgements up the binomial tree rooted at `root`.
int ackTree(comm::Comm& c, int root) {
  const int n = c.size;
  const int v = (c.rank - root + n) % n;
  int lowbit = 1;
  while (lowbit < n && !(v & lowbit)) lowbit <<= 1;
  for (int mask = 1; mask < lowbit && v + mask < n; mask <<= 1) {
    const int child = (v + mask + root) % n;
    if (int rc = p2p::recv(nullptr, 0, MPI_BYTE, child, kTagBcast, c, MPI_STATUS_IGNORE, kCtx))
      return rc;
  }
  if (v == 0) return MPI_SUCCESS;
  const int parent = (v - lowbit + root) % n;
  return p2p::send(nullptr, 0, MPI_BYTE, parent, kTagBcast, c, kCtx);
}

// Multicast does not work on a communicator: said once per process on stderr whatever the
// verbosity (later ones at CCMPI_VERBOSE=2), since it changes how collectives perform.
void noteOff(const comm::Comm& c, const std::string& why) {
  static bool said = false;
  if (!said) {
    said = true;
    std::fprintf(stderr,
                 "ccmpi: rank %d: multicast collectives off on a communicator of %d ranks (%s); "
                 "unicast algorithms are used\n",
                 c.worldRankOf(c.rank), c.size, why.c_str());
  } else {
    log::info("multicast collectives off on a communicator of %d ranks: %s", c.size, why.c_str());
  }
}

const char kProbe[] = "ccmpi multicast probe";

// Silence before a receiver asks for the probe by repair: 4 x 100 ms, and 4 x 250 ms in
// the later rounds, longer than the root's pause, so the copies can come by multicast.
int64_t probeNakUs(int round) {
  return round > 0 ? 250'000 : 100'000;
}

std::string probeFailure(const McastGroup& g, bool via) {
  char a[INET_ADDRSTRLEN] = {};
  in_addr ia{};
  ia.s_addr = g.group;
  inet_ntop(AF_INET, &ia, a, sizeof a);
  return std::string("a probe to ") + a + ":" + std::to_string(transport::mcast().port()) +
         " did not arrive by multicast" + (via ? " at another rank" : "");
}

bool joinGroup(McastGroup& g) {
  auto& m = transport::mcast();
  if (!m.available() || !m.join(g.group)) return false;
  m.subscribe(g.context);
  g.joined = true;
  return true;
}

void leaveGroup(McastGroup& g) {
  if (!g.joined) return;
  transport::mcast().leave(g.group);
  transport::mcast().unsubscribe(g.context);
  g.joined = false;
}

// The agreement as a schedule, for nonblocking and persistent operations (see
// mcast_coll.h): the same steps as the blocking agreement in mcastGroup(), as rounds. The
// probe rounds after the one that settled the question are skipped, alike on every rank
// (they skip on the outcome of an AND).
class Agreement {
 public:
  Agreement(comm::Comm& c, McastGroup* g, uint64_t base) : c_(c), g_(g), base_(base) {}

  static void build(Schedule& s, const std::shared_ptr<Agreement>& a) {
    Agreement* st = a.get();
    s.local([st] {
      st->join_[0] = joinGroup(*st->g_) ? 1 : 0;
      st->join_[1] = randomEpoch();
      return MPI_SUCCESS;
    });
    s.endRound();
    st->appendAgree(s, st->join_, nullptr);
    s.local([st] {
      st->g_->epoch = static_cast<uint32_t>(st->join_[1]);
      if (st->join_[0]) return MPI_SUCCESS;
      const bool mine = st->g_->joined;
      leaveGroup(*st->g_);
      if (st->c_.rank == 0 || !mine)
        noteOff(st->c_, mine ? "another rank could not join the group" : transport::mcast().why());
      st->g_->state = McastGroup::State::kOff;
      return MPI_SUCCESS;
    });
    s.endRound();
    for (int round = 0; round < kProbeRounds; ++round) {
      auto skip = [st] { return st->g_->decided(); };
      s.poll([a, round](bool* done) { return a->probe(round, done); },
             [a] { transport::mcast().receiveCancel(&a->rop_); });
      s.skipRoundIf(skip);
      s.endRound();
      // Acknowledgements up the binomial tree rooted at rank 0.
      const int n = s.size(), v = s.rank();
      int lowbit = 1;
      while (lowbit < n && !(v & lowbit)) lowbit <<= 1;
      for (int mask = 1; mask < lowbit && v + mask < n; mask <<= 1)
        s.recv(nullptr, 0, MPI_BYTE, v + mask);
      s.skipRoundIf(skip);
      s.endRound();
      if (v != 0) s.send(nullptr, 0, MPI_BYTE, v - lowbit);
      s.local([st, round] {
        const uint64_t seq = st->base_ + static_cast<uint64_t>(round);
        if (st->c_.rank == 0)
          for (int k = 0; k < st->lanes_; ++k)
            transport::mcast().retire(probeKey(*st->g_, st->c_, seq, k));
        transport::mcast().retireSeq(st->g_->context, seq);
        return MPI_SUCCESS;
      });
      s.skipRoundIf(skip);
      s.endRound();
      st->appendAgree(s, st->via_, skip);
      s.local([st, round] {
        McastGroup& g = *st->g_;
        const ProbeNext next = afterProbeRound(st->via_[0], st->lanes_, round, &st->best_);
        if (next == ProbeNext::kOn) {
          g.lanes = st->best_;
          g.state = McastGroup::State::kOn;
          transport::mcast().noteCommLanes(g.lanes);
        } else if (next == ProbeNext::kOff) {
          const bool mine = (st->myVia_ & 1) != 0;
          if (st->c_.rank == 0 || !mine) noteOff(st->c_, probeFailure(g, mine));
          leaveGroup(g);
          g.state = McastGroup::State::kOff;
        }
        return MPI_SUCCESS;
      });
      s.skipRoundIf(skip);
      s.endRound();
    }
  }

 private:
  // Rounds of a dissemination of x[2] over the communicator (combine), in place.
  void appendAgree(Schedule& s, uint64_t* x, const std::function<bool()>& skip) {
    const int n = c_.size;
    for (int d = 1; d < n; d <<= 1) {
      uint64_t* out = slots_.emplace_back().data();  // a deque: earlier cells stay put
      uint64_t* in = out + 2;
      s.local([x, out] {
        std::copy(x, x + 2, out);
        return MPI_SUCCESS;
      });
      s.send(out, 2, MPI_UINT64_T, (c_.rank + d) % n);
      s.recv(in, 2, MPI_UINT64_T, (c_.rank - d + n) % n);
      if (skip) s.skipRoundIf(skip);
      s.endRound();
      s.local([x, in] {
        combine(x, in);
        return MPI_SUCCESS;
      });
      if (skip) s.skipRoundIf(skip);
      s.endRound();
    }
  }

  // One probe round's multicast: rank 0 sends three copies 10 ms apart (after 600 ms in
  // the later rounds) of each lane's probe, the others receive one of each and say
  // which came by multicast.
  int probe(int round, bool* done) {
    auto& m = transport::mcast();
    const uint64_t seq = base_ + static_cast<uint64_t>(round);
    const int64_t now = progress::Engine::nowNs();
    if (c_.rank != 0) {
      for (;;) {
        if (phase_ == 0) {
          phase_ = 1;
          if (lane_ == 0) myVia_ = 0;
          if (m.receiveStart(&rop_, probeKey(*g_, c_, seq, lane_), got_, sizeof kProbe,
                             probeNakUs(round)) != MPI_SUCCESS)
            return finishProbe(done);
        }
        int64_t wake = 0;
        bool got = false;
        if (m.receiveSome(&rop_, &got, &wake) != MPI_SUCCESS) return finishProbe(done);
        if (!got) {
          progress::engine().wakeBy(wake);
          return MPI_SUCCESS;
        }
        myVia_ |=
            probeBit(lane_, round, rop_.viaMcast && std::memcmp(got_, kProbe, sizeof kProbe) == 0);
        phase_ = 0;
        if (++lane_ == lanes_) return finishProbe(done);
      }
    }
    for (;;) {
      if (phase_ == 0) {
        sent_ = 0;
        at_ = round > 0 ? now + 600'000'000 : now;
        phase_ = 1;
      }
      if (phase_ == 1) {  // waiting to send the next copy
        if (now < at_) {
          progress::engine().wakeBy(at_);
          return MPI_SUCCESS;
        }
        myVia_ = 0;
        for (int k = 0; k < lanes_; ++k) myVia_ |= laneBit(k, true);
        phase_ = 2;
      }
      if (phase_ == 2) {  // the next lane's copy
        if (m.sendStart(&sop_, g_->group, probeKey(*g_, c_, seq, lane_), kProbe, sizeof kProbe, 0,
                        transport::McastLanes{static_cast<uint8_t>(lane_), 1}) != MPI_SUCCESS)
          return finishProbe(done);
        phase_ = 3;
      }
      int64_t wake = 0;
      bool sent = false;
      if (m.sendSome(&sop_, &sent, &wake) != MPI_SUCCESS) return finishProbe(done);
      if (!sent) {
        progress::engine().wakeBy(wake);
        return MPI_SUCCESS;
      }
      if (++lane_ < lanes_) {
        phase_ = 2;
        continue;
      }
      lane_ = 0;
      if (++sent_ == 3) return finishProbe(done);
      at_ = now + 10'000'000;
      phase_ = 1;
    }
  }

  // A failed step leaves this rank's bits as they are: lanes not yet heard stay off.
  int finishProbe(bool* done) {
    via_[0] = myVia_ | haveBits(lanes_);
    phase_ = 0;
    lane_ = 0;
    *done = true;
    return MPI_SUCCESS;
  }

  comm::Comm& c_;
  McastGroup* g_;
  const uint64_t base_;
  std::deque<std::array<uint64_t, 4>> slots_;  // out[2], in[2] of each agreement round
  uint64_t join_[2] = {0, 0};                  // joined, epoch
  uint64_t via_[2] = {0, 0};                   // lanes whose probe came by multicast, unused
  uint64_t myVia_ = 0;                         // this rank's bits of via_[0]
  const int lanes_ = probeLanes();             // lanes probed
  uint8_t best_ = 0;                           // the most lanes a round reached (afterProbeRound)
  int lane_ = 0;                               // the lane being probed
  int phase_ = 0;
  int sent_ = 0;
  int64_t at_ = 0;
  transport::McastSendOp sop_;
  transport::McastRecvOp rop_;
  char got_[sizeof kProbe] = {};
};

}  // namespace

McastGroup::~McastGroup() {
  leaveGroup(*this);
}

std::shared_ptr<McastGroup> mcastGroupRecord(comm::Comm& c) {
  if (c.mcastState) return std::static_pointer_cast<McastGroup>(c.mcastState);
  auto g = std::make_shared<McastGroup>();
  g->context = c.contextId + static_cast<uint32_t>(kCtx);
  g->group = transport::mcast().groupFor(g->context);
  // A communicator of one rank has nobody to reach: no agreement (its probes cost 20 ms),
  // the unicast path, which moves nothing, serves.
  if (c.size == 1) g->state = McastGroup::State::kOff;
  c.mcastState = g;
  return g;
}

void mcastAgreeStart(comm::Comm& c, McastGroup& g, int tag) {
  if (g.state != McastGroup::State::kUnknown) return;
  g.state = McastGroup::State::kAgreeing;
  auto a = std::make_shared<Agreement>(c, &g, g.seq);
  g.seq += kProbeRounds;
  auto s = std::make_shared<Schedule>(c, tag);
  Agreement::build(*s, a);
  g.agreement = s;
  s->start(nullptr);
}

McastGroup* mcastGroup(comm::Comm& c) {
  std::shared_ptr<McastGroup> rec = mcastGroupRecord(c);
  McastGroup* g = rec.get();
  if (g->state == McastGroup::State::kAgreeing) {
    // A nonblocking operation started the agreement: every rank started it in the same
    // place among its collectives, so it completes.
    progress::engine().waitUntil([g] { return g->decided(); });
  }
  if (g->state != McastGroup::State::kUnknown) return g->works() ? g : nullptr;
  g->state = McastGroup::State::kAgreeing;
  auto& m = transport::mcast();
  const bool joined = joinGroup(*g);
  bool all = false;
  uint32_t epoch = randomEpoch();
  if (agreeAll(c, joined, &all, &epoch) != MPI_SUCCESS) all = false;
  g->epoch = epoch;
  if (!all) {
    leaveGroup(*g);
    if (c.rank == 0 || !joined)
      noteOff(c, joined ? "another rank could not join the group" : m.why());
    g->state = McastGroup::State::kOff;
    return nullptr;
  }
  // The probe: does a datagram reach everyone? On a lossy network a member's IGMP join
  // can be lost on its way to the switch, which then keeps the group's datagrams from
  // that member's port until the kernel repeats the report (at a random time within
  // about a second). So a failed probe is repeated, up to kProbeRounds in all, 600 ms
  // apart, before multicast is declared off: every rank sees the same AND after each
  // round, so all ranks run the same rounds. Where multicast does not work at all, this
  // costs about 3 s once per communicator (CCMPI_MCAST_PORT=0 switches it off at once).
  // With several lanes, each lane has a probe of its own (sub k) on that lane alone, and
  // a later lane that failed is probed again like lane 0 (afterProbeRound).
  bool via = true;
  int rc = MPI_SUCCESS;
  const int lanes = probeLanes();
  const uint64_t have = haveBits(lanes);
  uint8_t best = 0;
  uint64_t allBits = 0;
  for (int round = 0; round < kProbeRounds; ++round) {
    uint64_t bits = have;
    via = true;
    if (c.rank == 0) {
      // Three copies 10 ms apart: a lost datagram should not switch multicast off.
      if (round > 0) m.pause(600'000'000);
      for (int i = 0; i < 3 && rc == MPI_SUCCESS; ++i) {
        if (i > 0) m.pause(10'000'000);
        for (int k = 0; k < lanes && rc == MPI_SUCCESS; ++k)
          rc = m.send(g->group, probeKey(*g, c, g->seq, k), kProbe, sizeof kProbe, 0,
                      transport::McastLanes{static_cast<uint8_t>(k), 1});
      }
      for (int k = 0; k < lanes; ++k) bits |= laneBit(k, true);
    } else {
      for (int k = 0; k < lanes && rc == MPI_SUCCESS; ++k) {
        char got[sizeof kProbe] = {};
        bool v = false;
        rc = m.receive(probeKey(*g, c, g->seq, k), got, sizeof kProbe, &v, probeNakUs(round));
        bits |= probeBit(k, round,
                         rc == MPI_SUCCESS && v && std::memcmp(got, kProbe, sizeof kProbe) == 0);
      }
      via = (bits & 1) != 0;
    }
    if (rc == MPI_SUCCESS) rc = ackTree(c, 0);
    if (c.rank == 0)
      for (int k = 0; k < lanes; ++k) m.retire(probeKey(*g, c, g->seq, k));
    m.retireSeq(g->context, g->seq);
    ++g->seq;
    if (rc != MPI_SUCCESS || agreeBits(c, bits, &allBits) != MPI_SUCCESS) {
      best = 0;
      break;
    }
    if (afterProbeRound(allBits, lanes, round, &best) != ProbeNext::kAgain) break;
  }
  all = best > 0;
  if (!all) {
    if (c.rank == 0 || !via) noteOff(c, probeFailure(*g, via));
    leaveGroup(*g);
    g->state = McastGroup::State::kOff;
    return nullptr;
  }
  g->lanes = best;
  m.noteCommLanes(best);
  g->state = McastGroup::State::kOn;
  return g;
}

int mcastMessage(McastGroup& g, comm::Comm& c, int root, const void* sendData, void* recvData,
                 uint64_t bytes, uint16_t sub) {
  auto& m = transport::mcast();
  const transport::McastKey key = mcastKey(g, c, root, sub);
  int rc;
  if (c.rank == root) {
    rc = m.sendComplete(g.group, key, sendData, bytes, c.size - 1, nullptr, g.laneSet());
  } else {
    rc = m.receive(key, recvData, bytes);
    if (rc == MPI_SUCCESS) m.ack(key, bytes);
  }
  return rc;
}

transport::McastKey mcastKey(const McastGroup& g, comm::Comm& c, int root, uint16_t sub) {
  return transport::McastKey{g.context, g.seq, c.worldRankOf(root), sub, g.epoch};
}

int mcastAllDone(comm::Comm& c) {
  bool all = false;
  return agreeAll(c, true, &all);
}

void mcastRetire(McastGroup& g) {
  transport::mcast().retireSeq(g.context, g.seq);
  ++g.seq;
}

}  // namespace ccmpi::coll
