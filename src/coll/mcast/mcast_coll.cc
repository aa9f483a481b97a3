// Multicast collectives' common part (see mcast_coll.h).
#include "coll/mcast/mcast_coll.h"

#include <arpa/inet.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "base/log.h"
#include "coll/util.h"
#include "p2p/p2p.h"

namespace ccmpi::coll {
namespace {

constexpr int kTagAgree = kTagBcast;  // the agreement runs before any data of the call

// Logical AND of `mine` over the communicator: dissemination, ceil(log2 n) rounds.
int agreeAll(comm::Comm& c, bool mine, bool* all) {
  int32_t v = mine ? 1 : 0;
  for (int d = 1; d < c.size; d <<= 1) {
    const int to = (c.rank + d) % c.size, from = (c.rank - d + c.size) % c.size;
    int32_t in = 0;
    if (int rc = p2p::sendrecv(&v, 1, MPI_INT32_T, to, kTagAgree, &in, 1, MPI_INT32_T, from,
                               kTagAgree, c, MPI_STATUS_IGNORE, kCtx))
      return rc;
    v = v & in;
  }
  *all = v != 0;
  return MPI_SUCCESS;
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

}  // namespace

McastGroup::~McastGroup() {
  if (works) {
    transport::mcast().leave(group);
    transport::mcast().unsubscribe(context);
  }
}

McastGroup* mcastGroup(comm::Comm& c) {
  if (c.mcastState) {
    auto* g = static_cast<McastGroup*>(c.mcastState.get());
    return g->works ? g : nullptr;
  }
  auto g = std::make_shared<McastGroup>();
  g->context = c.contextId + static_cast<uint32_t>(kCtx);
  auto& m = transport::mcast();
  g->group = m.groupFor(g->context);
  const bool joined = m.available() && m.join(g->group);
  if (joined) m.subscribe(g->context);
  bool all = false;
  if (agreeAll(c, joined, &all) != MPI_SUCCESS) all = false;
  if (!all) {
    if (joined) {
      m.leave(g->group);
      m.unsubscribe(g->context);
    }
    if (c.rank == 0 || !joined)
      noteOff(c, joined ? "another rank could not join the group" : m.why());
    c.mcastState = g;
    return nullptr;
  }
  // The probe: does a datagram reach everyone? On a lossy network a member's IGMP join
  // can be lost on its way to the switch, which then keeps the group's datagrams from
  // that member's port until the kernel repeats the report (at a random time within
  // about a second). So a failed probe is repeated, up to kProbeRounds in all, 600 ms
  // apart, before multicast is declared off: every rank sees the same AND after each
  // round, so all ranks run the same rounds. Where multicast does not work at all, this
  // costs about 3 s once per communicator (CCMPI_MCAST_PORT=0 switches it off at once).
  constexpr int kProbeRounds = 4;
  g->works = true;
  static const char kProbe[] = "ccmpi multicast probe";
  bool via = true;
  int rc = MPI_SUCCESS;
  for (int round = 0; round < kProbeRounds; ++round) {
    char got[sizeof kProbe] = {};
    via = true;
    transport::McastKey key{g->context, g->seq, c.worldRankOf(0), 0};
    if (c.rank == 0) {
      // Three copies 10 ms apart: a lost datagram should not switch multicast off.
      if (round > 0) m.pause(600'000'000);
      rc = m.send(g->group, key, kProbe, sizeof kProbe);
      for (int i = 0; i < 2 && rc == MPI_SUCCESS; ++i) {
        m.pause(10'000'000);
        rc = m.send(g->group, key, kProbe, sizeof kProbe);
      }
    } else {
      // Silence before asking for a repair: 4 x 100 ms, and 4 x 250 ms in the later
      // rounds, longer than the root's pause, so the copies can come by multicast.
      rc = m.receive(key, got, sizeof kProbe, &via, round > 0 ? 250'000 : 100'000);
      if (rc == MPI_SUCCESS && std::memcmp(got, kProbe, sizeof kProbe) != 0) via = false;
    }
    if (rc == MPI_SUCCESS) rc = ackTree(c, 0);
    if (c.rank == 0) m.retire(key);
    mcastRetire(*g);
    if (rc != MPI_SUCCESS || agreeAll(c, via, &all) != MPI_SUCCESS) {
      all = false;
      break;
    }
    if (all) break;
    log::info("multicast probe round %d did not reach every rank by multicast%s", round + 1,
              round + 1 < kProbeRounds ? "; trying again" : "");
  }
  if (!all) {
    if (c.rank == 0 || !via) {
      char a[INET_ADDRSTRLEN] = {};
      in_addr ia{};
      ia.s_addr = g->group;
      inet_ntop(AF_INET, &ia, a, sizeof a);
      noteOff(c, std::string("a probe to ") + a + ":" + std::to_string(m.port()) +
                     " did not arrive by multicast" + (via ? " at another rank" : ""));
    }
    m.leave(g->group);
    m.unsubscribe(g->context);
    g->works = false;
  }
  c.mcastState = g;
  return g->works ? g.get() : nullptr;
}

int mcastMessage(McastGroup& g, comm::Comm& c, int root, const void* sendData, void* recvData,
                 uint64_t bytes, uint16_t sub) {
  auto& m = transport::mcast();
  const transport::McastKey key = mcastKey(g, c, root, sub);
  int rc;
  if (c.rank == root) {
    rc = m.send(g.group, key, sendData, bytes);
    if (rc == MPI_SUCCESS) rc = ackTree(c, root);
    m.retire(key);
  } else {
    rc = m.receive(key, recvData, bytes);
    if (rc == MPI_SUCCESS) rc = ackTree(c, root);
  }
  return rc;
}

transport::McastKey mcastKey(const McastGroup& g, comm::Comm& c, int root, uint16_t sub) {
  return transport::McastKey{g.context, g.seq, c.worldRankOf(root), sub};
}

int mcastAllDone(comm::Comm& c) {
  bool all = false;
  return agreeAll(c, true, &all);
}

void mcastRetire(McastGroup& g) {
  transport::mcast().retireUpTo(g.context, g.seq);
  ++g.seq;
}

}  // namespace ccmpi::coll
