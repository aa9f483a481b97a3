// Multicast scatterv to a group of only the receiving ranks, owned by the request
// (CC-MPI §4.1, compiler-assisted group management through MPI-4 persistent requests):
// MPI_Scatterv_init creates the group, every MPI_Start only moves data, and freeing the
// request leaves the group. As MPI_Iscatterv it is the dynamic scheme (a group for one
// call).
//
// Membership is local knowledge: a rank is a member when its block is not empty
// (recvcount x type size > 0), and the root knows the members from sendcounts, so the
// initiation joins the group without communicating (members join a pool address beside
// the communicator's, under a context id derived from the plan's sequence number).
// Ranks that receive nothing take part in no round (only in the communicator's
// multicast agreement, if this is its first multicast operation).
// Rounds of the root: (first start only) tell each member its block's place in the
// aggregate and wait for every member to say it has joined; pack the members' blocks into
// the aggregate (in rank order); multicast it to the group (or send each member its block
// by TCP where multicast does not work); collect one acknowledgement per member. Members:
// (first start only) learn their place and say they joined; receive the aggregate;
// acknowledge; unpack their block.
#include <algorithm>
#include <cstring>
#include <set>

#include "base/error.h"
#include "coll/mcast/mcast_sched.h"
#include "coll/nb_algorithms.h"
#include "coll/util.h"
#include "datatype/datatype.h"
#include "transport/mcast.h"

namespace ccmpi::coll {
namespace {

// What the plan keeps between starts; leaves the group with the plan.
// Contexts of the group-owning requests alive in this process.
std::set<uint32_t>& liveContexts() {
  static std::set<uint32_t> live;
  return live;
}

struct GroupState {
  in_addr_t group = 0;
  uint32_t context = 0;
  bool joined = false;
  bool subscribed = false;
  bool live = false;  // context in liveContexts()
  uint64_t nextSeq = 0;
  bool placed = false;           // the first start's exchange is done
  uint64_t place[3] = {};        // member: offset, bytes of its block, aggregate bytes
  std::vector<uint64_t> places;  // root: (offset, bytes, total) per member
  std::vector<unsigned char> aggregate;
  ~GroupState() {
    auto& m = transport::mcast();
    if (joined) m.leave(group);
    if (subscribed) m.unsubscribe(context);
    if (live) liveContexts().erase(context);
  }
};

}  // namespace

int iscattervMcastGroup(Plan& p) {
  Schedule& s = *p.schedule;
  comm::Comm& c = p.comm;
  const CollArgs& a = p.args;
  p.algorithm = "mcast_group";
  const int n = c.size, me = c.rank, root = a.root;
  auto st = std::make_shared<GroupState>();
  auto op = appendMcastStart(s, c);
  // The group's own context and address: the same on every rank (from the plan's place
  // among the communicator's group-owning plans, which every rank initiates in the same
  // order), apart from the communicator's static group.
  const uint64_t id = op->agreed->groupPlans++;
  st->context =
      0xC0000000u | ((op->agreed->context & 0xFFFFFu) << 10) | static_cast<uint32_t>(id & 0x3FFu);
  if (liveContexts().count(st->context))
    return setErrorCause(MPI_ERR_OTHER,
                         "more than 1024 multicast-group scatterv requests made on one "
                         "communicator while an early one is still alive");
  liveContexts().insert(st->context);
  st->live = true;
  st->group = transport::mcast().groupBeside(op->agreed->context, id);
  op->group = st->group;
  op->context = st->context;
  const std::shared_ptr<GroupState>& g = st;  // closures keep the state alive
  op->nextSeq = [g] { return g->nextSeq++; };

  auto m = std::make_shared<McastMsg>();
  m->root = root;
  m->sub = 2;
  if (me == root) {
    const datatype::Datatype& dt = typeOf(a.sendtype);
    uint64_t total = 0;
    std::vector<std::pair<int, uint64_t>> blocks;  // member, bytes
    for (int i = 0; i < n; ++i) {
      const uint64_t b =
          static_cast<uint64_t>(dataBytes(a.sendcounts[static_cast<size_t>(i)], a.sendtype));
      if (i == root || b == 0) continue;
      blocks.emplace_back(i, b);
      m->receivers.push_back(i);
      m->parts.emplace_back(total, b);
      total += b;
    }
    for (const auto& [offset, b] : m->parts)
      st->places.insert(st->places.end(), {offset, b, total});
    st->aggregate.resize(total);
    m->send = st->aggregate.data();
    m->bytes = total;
    if (!blocks.empty()) {
      // First start: each member learns its place, and says it has joined.
      for (size_t k = 0; k < blocks.size(); ++k) {
        s.send(&st->places[3 * k], 3, MPI_UINT64_T, blocks[k].first);
        s.recv(nullptr, 0, MPI_BYTE, blocks[k].first);
      }
      s.local([g] {
        g->placed = true;
        return MPI_SUCCESS;
      });
      s.skipRoundIf([g] { return g->placed; });
      s.endRound();
      // Every start: the members' blocks, packed in rank order.
      uint64_t at = 0;
      for (const auto& [i, b] : blocks) {
        s.copy(elemAt(a.sendbuf, a.sdispls[static_cast<size_t>(i)], dt),
               a.sendcounts[static_cast<size_t>(i)], a.sendtype, st->aggregate.data() + at,
               static_cast<int64_t>(b), MPI_BYTE);
        at += b;
      }
      s.endRound();
      appendMcastMessage(s, op, m);
      appendMcastDone(s, op, m);
    }
    if (a.recvbuf != MPI_IN_PLACE)
      s.copy(elemAt(a.sendbuf, a.sdispls[static_cast<size_t>(root)], dt),
             a.sendcounts[static_cast<size_t>(root)], a.sendtype, a.recvbuf, a.recvcount,
             a.recvtype);
    s.endRound();
    return MPI_SUCCESS;
  }
  const int64_t want = dataBytes(a.recvcount, a.recvtype);
  if (want == 0) return MPI_SUCCESS;  // not a member: only the agreement round
  auto& t = transport::mcast();
  if (t.available()) {
    t.subscribe(st->context);
    st->subscribed = true;
    st->joined = t.join(st->group);
  }
  m->receivers.push_back(me);
  s.recv(st->place, 3, MPI_UINT64_T, root);
  s.send(nullptr, 0, MPI_BYTE, root);
  s.skipRoundIf([g] { return g->placed; });
  s.endRound();
  s.local([g, m] {
    g->placed = true;
    g->aggregate.resize(g->place[2]);
    m->recv = g->aggregate.data();
    m->bytes = g->place[2];
    m->parts.assign(1, {g->place[0], g->place[1]});
    return MPI_SUCCESS;
  });
  s.skipRoundIf([g] { return g->placed; });
  s.endRound();
  appendMcastMessage(s, op, m);
  appendMcastDone(s, op, m);
  void* recvbuf = a.recvbuf;
  const int64_t rcount = a.recvcount;
  const MPI_Datatype rtype = s.ownType(a.recvtype);
  s.local([g, recvbuf, rcount, rtype, want] {
    // A block longer than the receive is reported after taking part in every round (a
    // member that left early would keep the root waiting for its acknowledgement).
    const uint64_t n = std::min<uint64_t>(g->place[1], static_cast<uint64_t>(want));
    typeOf(rtype).unpack(recvbuf, rcount, 0, g->aggregate.data() + g->place[0], n);
    if (g->place[1] > n)
      return setErrorCause(MPI_ERR_TRUNCATE, "scatterv block of %llu bytes for a %lld-byte receive",
                           static_cast<unsigned long long>(g->place[1]),
                           static_cast<long long>(want));
    return MPI_SUCCESS;
  });
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
