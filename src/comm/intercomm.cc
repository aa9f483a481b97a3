// Intercommunicators (MPI-4.0 section 7.6): MPI_Intercomm_create(_from_groups), merge, and
// dup/split/create on an intercommunicator.
//
// Representation (comm.h): `worldRanks`/`rank`/`size` are the local group, `remote` the
// remote group that point-to-point addresses, and `localComm` a hidden intracommunicator
// over the local group (its own context id) for agreements and the collectives inside one
// group. Both groups send and receive on the same contextId.
//
// Context ids: every constructor runs the same agreement (agreeAcross). Each group ANDs
// its members' free bitmaps over an intracommunicator of the local group (allreduce with
// MPI_BAND); the two group leaders swap their group's bitmap together with the data the
// constructor needs from the other side (the group's members, colors, the merge flag);
// each leader broadcasts what it received to its group; every process then ANDs its own
// group's bitmap with the other group's, so both groups hold the same bitmap, free on
// every member of both, and take the same lowest free slots from it: one for the
// intercommunicator and one for the hidden local communicators (the two groups are
// disjoint, so their local communicators may share it), or one for a merged
// intracommunicator. A process that gets MPI_COMM_NULL still takes part but reserves
// nothing.
//
// The leaders talk over: peer_comm (MPI_Intercomm_create: point-to-point context, the
// user's tag, as the standard describes), the scratch create_group context between the two
// leaders (MPI_Intercomm_create_from_groups, tag derived from the string tag), or the
// intercommunicator being dup'ed/split/merged (its collective context, kTagInterAgree).
// An error found by a leader (bad remote leader, overlapping groups) rides in the
// broadcast, so its whole group returns the error instead of waiting.
//
// MPI_Comm_idup on an intercommunicator runs the same agreement without blocking: a
// schedule on the hidden local communicator (its tag fixed at the call) gathers the
// bitmaps at local rank 0, which ANDs them and swaps the result with the remote leader (a
// polled step), sends both groups' AND back, and its last step builds the duplicate. The idups of
// one intercommunicator agree one after the other (the next takes its bitmap once the previous one
// reserved its ids); the leaders' swap has the tag of the intercommunicator's collective sequence
// number. Creating other communicators on the same processes while an idup agrees may take an
// agreed id (reported as MPI_ERR_INTERN).
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>

#include "base/error.h"
#include "base/siphash.h"
#include "coll/coll.h"
#include "coll/coll_nb.h"
#include "coll/plan.h"
#include "coll/schedule.h"
#include "coll/util.h"
#include "comm/errhandler.h"
#include "comm/group_ops.h"
#include "comm/internal.h"
#include "p2p/p2p.h"
#include "runtime/runtime.h"

namespace ccmpi::comm {
namespace {

// Tag of the leaders' exchanges on an intercommunicator's collective context: above the
// blocking collectives' fixed tags, below the schedules' tags.
constexpr int kTagInterAgree = coll::kFirstScheduleTag - 1;
static_assert(kTagInterAgree >= coll::kTagEnd);

using Words = std::vector<uint64_t>;
// Swaps the leader's words with the other leader's.
using Swap = std::function<int(const Words& mine, Words* theirs)>;

// Two-step swap over p2p (length, then the words) with the peer `peer` of `c`.
int swapOver(Comm& c, int peer, int tag, p2p::Ctx ctx, const Words& mine, Words* theirs) {
  uint64_t n = mine.size(), m = 0;
  if (int rc = p2p::sendrecv(&n, 1, MPI_UINT64_T, peer, tag, &m, 1, MPI_UINT64_T, peer, tag, c,
                             MPI_STATUS_IGNORE, ctx))
    return rc;
  theirs->assign(m, 0);
  return p2p::sendrecv(mine.data(), static_cast<int64_t>(n), MPI_UINT64_T, peer, tag,
                       theirs->data(), static_cast<int64_t>(m), MPI_UINT64_T, peer, tag, c,
                       MPI_STATUS_IGNORE, ctx);
}

// The local group's steps of the agreement run as nonblocking collectives, waited for at
// once: those never run a node (hierarchical) algorithm, whose first use on a
// communicator spanning hosts would agree context ids for its hidden node communicators
// between the snapshot of the free bitmap and the reservation, and take an id the
// bitmap still shows free (MPI_ERR_INTERN "agreed context id ... is not free here").
int allreduceAnd(Words& words, Comm& local) {
  p2p::Request* r = nullptr;
  if (int rc = coll::iallreduce(MPI_IN_PLACE, words.data(), static_cast<int>(words.size()),
                                MPI_UINT64_T, MPI_BAND, local, coll::Mode::kNonblocking, &r))
    return rc;
  return p2p::wait(r, MPI_STATUS_IGNORE);
}

int bcastWords(uint64_t* words, int n, int root, Comm& local) {
  p2p::Request* r = nullptr;
  if (int rc = coll::ibcast(words, n, MPI_UINT64_T, root, local, coll::Mode::kNonblocking, &r))
    return rc;
  return p2p::wait(r, MPI_STATUS_IGNORE);
}

// The agreement described at the top. `local` is an intracommunicator over the local group,
// `leader` the leader's rank in it; `leaderStatus` (significant at the leader) is an error
// the leader found before the swap. `payload` (significant at the leader) goes to the
// other group; `*theirs` receives the other group's payload on every process, `*mask` the
// bitmap free on both groups.
int agreeAcross(Comm& local, int leader, int leaderStatus, const Words& payload, const Swap& swap,
                Words* mask, Words* theirs) {
  sweepFreed();
  constexpr int kW = ContextIdPool::kWords;
  Words mine(contextPool().freeMask().begin(), contextPool().freeMask().end());
  if (local.size > 1) {
    if (int rc = allreduceAnd(mine, local)) return rc;
  }
  // At the leader: [status, the other group's bitmap and payload].
  Words got;
  if (local.rank == leader) {
    uint64_t status = static_cast<uint64_t>(leaderStatus);
    if (status == MPI_SUCCESS) {
      Words out(mine);
      out.insert(out.end(), payload.begin(), payload.end());
      Words in;
      if (int rc = swap(out, &in)) {
        status = static_cast<uint64_t>(rc);
      } else if (in.size() < static_cast<size_t>(kW)) {
        status = setErrorCause(MPI_ERR_INTERN, "the remote leader sent %zu words", in.size());
      } else {
        got = std::move(in);
      }
    }
    got.insert(got.begin(), status);
  }
  uint64_t len = got.size();
  if (local.size > 1) {
    if (int rc = bcastWords(&len, 1, leader, local)) return rc;
    got.resize(len);
    if (int rc = bcastWords(got.data(), static_cast<int>(len), leader, local)) return rc;
  }
  if (got[0] != MPI_SUCCESS) {
    const int cls = static_cast<int>(got[0]);
    if (local.rank == leader) return cls;  // the leader recorded the cause
    return setErrorCause(cls, "the local leader (rank %d) failed to agree with the remote group",
                         leader);
  }
  mask->assign(kW, 0);
  for (int w = 0; w < kW; ++w) (*mask)[w] = mine[w] & got[1 + w];
  theirs->assign(got.begin() + 1 + kW, got.end());
  return MPI_SUCCESS;
}

// Takes the lowest free slot of `mask` (clearing it there); reserves it when asked.
int takeId(Words& mask, bool reserve, uint32_t* ctx) {
  const int64_t id = ContextIdPool::lowestFree(mask.data());
  if (id < 0)
    return setErrorCause(MPI_ERR_INTERN,
                         "no context id is free on every member of both groups (%d "
                         "communicators in use here; free some with MPI_Comm_free)",
                         ContextIdPool::kSlots - contextPool().freeCount());
  const uint32_t slot = static_cast<uint32_t>(id / 2);
  mask[slot / 64] &= ~(uint64_t{1} << (slot % 64));
  if (reserve && !contextPool().reserve(static_cast<uint32_t>(id)))
    return setErrorCause(MPI_ERR_INTERN, "agreed context id %lld is not free here",
                         static_cast<long long>(id));
  *ctx = static_cast<uint32_t>(id);
  return MPI_SUCCESS;
}

std::unique_ptr<Comm> makeComm(const std::vector<int>& worldRanks, uint32_t ctx,
                               MPI_Errhandler errhandler) {
  auto c = std::make_unique<Comm>();
  c->contextId = ctx;
  c->worldRanks = worldRanks;
  c->size = static_cast<int>(worldRanks.size());
  c->fromWorld.assign(runtime::processCount(), MPI_UNDEFINED);
  for (int r = 0; r < c->size; ++r) c->fromWorld[worldRanks[r]] = r;
  c->rank = c->fromWorld[runtime::worldRank()];
  c->errhandler = errhandler;
  retainErrhandler(errhandler);
  return c;
}

// Builds the intercommunicator of localWorld (contains me) and remoteWorld from the agreed
// mask: the first free slot for it, the second for its hidden local communicator.
int buildInter(const std::vector<int>& localWorld, const std::vector<int>& remoteWorld, Words& mask,
               MPI_Errhandler errhandler, MPI_Comm* out) {
  uint32_t ctx, localCtx;
  if (int rc = takeId(mask, true, &ctx)) return rc;
  if (int rc = takeId(mask, true, &localCtx)) {
    contextPool().release(ctx);
    return rc;
  }
  auto local = makeComm(localWorld, localCtx, errhandler);
  local->name = "(local group of an intercommunicator)";
  auto c = makeComm(localWorld, ctx, errhandler);
  c->remote = std::make_unique<RemoteGroup>();
  c->remote->worldRanks = remoteWorld;
  c->remote->fromWorld.assign(runtime::processCount(), MPI_UNDEFINED);
  for (size_t r = 0; r < remoteWorld.size(); ++r)
    c->remote->fromWorld[remoteWorld[r]] = static_cast<int>(r);
  c->localComm = registerComm(std::move(local));
  *out = registerComm(std::move(c));
  return MPI_SUCCESS;
}

// A member list as words: [n, world ranks...].
void appendList(Words& w, const std::vector<int>& list) {
  w.push_back(list.size());
  for (int r : list) w.push_back(static_cast<uint64_t>(r));
}

// Reads a list appended by appendList at *pos; false if malformed.
bool readList(const Words& w, size_t* pos, std::vector<int>* list) {
  if (*pos >= w.size()) return false;
  const uint64_t n = w[(*pos)++];
  if (n > w.size() - *pos) return false;
  list->resize(n);
  for (uint64_t i = 0; i < n; ++i) (*list)[i] = static_cast<int>(w[(*pos)++]);
  return true;
}

// The swap between the leaders of an existing intercommunicator (local rank 0 and remote
// rank 0).
Swap overInter(Comm& inter) {
  return [&inter](const Words& mine, Words* theirs) {
    return swapOver(inter, 0, kTagInterAgree, p2p::Ctx::kColl, mine, theirs);
  };
}

Comm& localOf(Comm& inter) {
  return *lookup(inter.localComm);
}

bool overlap(const std::vector<int>& a, const std::vector<int>& b) {
  for (int x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return true;
  return false;
}

// Shared tail of Intercomm_create(_from_groups): every local member holds `local`; the
// leader swaps the member lists through `swap`.
// Every member's card (runtime::ProcessCard), in local rank order: the other group may be
// of another job, whose processes know this one's by their cards only.
constexpr size_t kCardWords = sizeof(runtime::ProcessCard) / sizeof(uint64_t);

int gatherCards(Comm& local, Words* cards) {
  runtime::ProcessCard mine;
  if (int rc = runtime::myCard(&mine)) return rc;
  cards->assign(kCardWords * static_cast<size_t>(local.size), 0);
  if (local.size == 1) {
    memcpy(cards->data(), &mine, sizeof mine);
    return MPI_SUCCESS;
  }
  p2p::Request* r = nullptr;
  if (int rc = coll::iallgather(&mine, sizeof mine, MPI_BYTE, cards->data(), sizeof mine, MPI_BYTE,
                                local, coll::Mode::kNonblocking, &r))
    return rc;
  return p2p::wait(r, MPI_STATUS_IGNORE);
}

// The process numbers of the cards at w[pos..] (adding processes of other jobs).
int cardsToProcesses(const Words& w, size_t pos, std::vector<int>* procs) {
  if (pos > w.size() || (w.size() - pos) % kCardWords != 0 || w.size() == pos)
    return setErrorCause(MPI_ERR_INTERN, "the remote group was described in %zu words",
                         w.size() - std::min(pos, w.size()));
  procs->resize((w.size() - pos) / kCardWords);
  for (size_t i = 0; i < procs->size(); ++i) {
    runtime::ProcessCard card;
    memcpy(static_cast<void*>(&card), w.data() + pos + i * kCardWords, sizeof card);
    if (int rc = runtime::addProcess(card, &(*procs)[i])) return rc;
  }
  return MPI_SUCCESS;
}

int createAcross(Comm& local, int leader, int leaderStatus, const Swap& swap,
                 MPI_Errhandler errhandler, MPI_Comm* out) {
  Words payload;
  if (int rc = gatherCards(local, &payload)) return rc;
  // The leader checks that the groups are disjoint, so both groups return the error.
  const Swap checked = [&](const Words& mine, Words* theirs) {
    if (int rc = swap(mine, theirs)) return rc;
    std::vector<int> remote;
    if (int rc = cardsToProcesses(*theirs, ContextIdPool::kWords, &remote)) return rc;
    if (overlap(local.worldRanks, remote))
      return setErrorCause(MPI_ERR_GROUP,
                           "the local and remote groups overlap (they must be disjoint)");
    return MPI_SUCCESS;
  };
  Words mask, theirs;
  if (int rc = agreeAcross(local, leader, leaderStatus, payload, checked, &mask, &theirs))
    return rc;
  std::vector<int> remote;
  if (int rc = cardsToProcesses(theirs, 0, &remote)) return rc;
  return buildInter(local.worldRanks, remote, mask, errhandler, out);
}

}  // namespace

int connectGroups(Comm& local, int root, int rootStatus, const WordSwap& swap, MPI_Comm* out) {
  *out = MPI_COMM_NULL;
  return createAcross(local, root, rootStatus, swap, local.errhandler, out);
}

int createIntercomm(Comm& local, int localLeader, MPI_Comm peerComm, int remoteLeader, int tag,
                    MPI_Comm* out) {
  int status = MPI_SUCCESS;
  Comm* peer = nullptr;
  if (local.rank == localLeader) {
    peer = lookup(peerComm);
    if (!peer)
      status = setErrorCause(MPI_ERR_COMM, "peer_comm 0x%x is not a valid communicator", peerComm);
    // An intercommunicator as peer_comm (the parents' of a spawned job, say): the remote
    // leader is a rank of its remote group, which point-to-point on it addresses.
    else if (remoteLeader < 0 || remoteLeader >= peer->peerSize())
      status = setErrorCause(MPI_ERR_RANK,
                             "remote_leader %d is not a rank of peer_comm's %s group (size %d)",
                             remoteLeader, peer->isInter() ? "remote" : "", peer->peerSize());
    else if (!peer->isInter() && remoteLeader == peer->rank)
      status = setErrorCause(MPI_ERR_RANK,
                             "remote_leader %d is the local leader itself (the groups must "
                             "be disjoint)",
                             remoteLeader);
  }
  const Swap swap = [&](const Words& mine, Words* theirs) {
    return swapOver(*peer, remoteLeader, tag, p2p::Ctx::kPt2pt, mine, theirs);
  };
  return createAcross(local, localLeader, status, swap, local.errhandler, out);
}

int createIntercommFromGroups(const std::vector<int>& localWorld, int localLeader,
                              const std::vector<int>& remoteWorld, int remoteLeader,
                              const std::string& stringTag, MPI_Errhandler errhandler,
                              MPI_Comm* out) {
  if (overlap(localWorld, remoteWorld))
    return setErrorCause(MPI_ERR_GROUP,
                         "the local and remote groups overlap (they must be disjoint)");
  // The local group's temporary communicator; its string tag is told apart from the
  // remote group's by nothing else than its members, which are disjoint.
  MPI_Comm tmp;
  if (int rc = createFromGroup(localWorld, stringTag, MPI_ERRORS_RETURN, &tmp)) return rc;
  Comm& local = *lookup(tmp);
  // The leaders meet on the scratch create_group context (point-to-point half, unused
  // otherwise) with a tag made from the string tag.
  const int me = runtime::worldRank();
  const int them = remoteWorld[remoteLeader];
  Comm pair;
  pair.contextId = ContextIdPool::kCreateGroupContext;
  pair.worldRanks = {std::min(me, them), std::max(me, them)};
  pair.size = 2;
  pair.fromWorld.assign(runtime::processCount(), MPI_UNDEFINED);
  pair.fromWorld[pair.worldRanks[0]] = 0;
  pair.fromWorld[pair.worldRanks[1]] = 1;
  pair.rank = pair.fromWorld[me];
  pair.predefined = true;
  const uint64_t h = siphash24(SipKey{0x696e746572636f6dull, 0x6d5f66726f6d5f67ull},
                               stringTag.data(), stringTag.size());
  const int tag = static_cast<int>(h % static_cast<uint64_t>(p2p::kTagUb));
  const Swap swap = [&](const Words& mine, Words* theirs) {
    return swapOver(pair, 1 - pair.rank, tag, p2p::Ctx::kPt2pt, mine, theirs);
  };
  const int rc = createAcross(local, localLeader, MPI_SUCCESS, swap, errhandler, out);
  freeComm(tmp);
  return rc;
}

int mergeIntercomm(Comm& inter, bool high, MPI_Comm* out) {
  Comm& local = localOf(inter);
  const Words payload = {high ? 1u : 0u};
  Words mask, theirs;
  if (int rc = agreeAcross(local, 0, MPI_SUCCESS, payload, overInter(inter), &mask, &theirs))
    return rc;
  const bool remoteHigh = !theirs.empty() && theirs[0] != 0;
  // Low group first; with equal flags, the group holding the lower world rank first.
  bool localFirst = high != remoteHigh ? !high : inter.worldRanks[0] < inter.remote->worldRanks[0];
  std::vector<int> members = localFirst ? inter.worldRanks : inter.remote->worldRanks;
  const std::vector<int>& second = localFirst ? inter.remote->worldRanks : inter.worldRanks;
  members.insert(members.end(), second.begin(), second.end());
  uint32_t ctx;
  if (int rc = takeId(mask, true, &ctx)) return rc;
  *out = registerComm(makeComm(members, ctx, inter.errhandler));
  return MPI_SUCCESS;
}

int dupIntercomm(Comm& inter, MPI_Comm* out) {
  Words mask, theirs;
  if (int rc = agreeAcross(localOf(inter), 0, MPI_SUCCESS, {}, overInter(inter), &mask, &theirs))
    return rc;
  return buildInter(inter.worldRanks, inter.remote->worldRanks, mask, inter.errhandler, out);
}

int splitIntercomm(Comm& inter, int color, int key, MPI_Comm* out) {
  Comm& local = localOf(inter);
  const int n = inter.size;
  std::vector<int> mine = {color, key};
  std::vector<int> all(2 * static_cast<size_t>(n));
  if (int rc = coll::allgather(mine.data(), 2, MPI_INT, all.data(), 2, MPI_INT, local)) return rc;
  Words payload;
  for (int v : all) payload.push_back(static_cast<uint32_t>(v));
  Words mask, theirs;
  if (int rc = agreeAcross(local, 0, MPI_SUCCESS, payload, overInter(inter), &mask, &theirs))
    return rc;
  const int m = inter.remote->size();
  if (theirs.size() != 2 * static_cast<size_t>(m))
    return setErrorCause(MPI_ERR_INTERN, "malformed colors from the remote group");
  std::vector<std::pair<int, int>> localCK(n);
  for (int r = 0; r < n; ++r) localCK[r] = {all[2 * r], all[2 * r + 1]};
  const std::vector<int> localMembers = splitMembers(localCK, inter.rank);
  std::vector<int> remoteRanks;
  if (color != MPI_UNDEFINED) {
    for (int r = 0; r < m; ++r)
      if (static_cast<int>(static_cast<uint32_t>(theirs[2 * r])) == color) remoteRanks.push_back(r);
    std::stable_sort(remoteRanks.begin(), remoteRanks.end(), [&](int a, int b) {
      return static_cast<int>(static_cast<uint32_t>(theirs[2 * a + 1])) <
             static_cast<int>(static_cast<uint32_t>(theirs[2 * b + 1]));
    });
  }
  if (localMembers.empty() || remoteRanks.empty()) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  std::vector<int> lw, rw;
  for (int r : localMembers) lw.push_back(inter.worldRanks[r]);
  for (int r : remoteRanks) rw.push_back(inter.remote->worldRanks[r]);
  return buildInter(lw, rw, mask, inter.errhandler, out);
}

int createIntercommSub(Comm& inter, const std::vector<int>& groupWorld, MPI_Comm* out) {
  bool member = false;
  for (int w : groupWorld) {
    if (inter.commRankOfWorld(w) == MPI_UNDEFINED)
      return setErrorCause(MPI_ERR_GROUP,
                           "world rank %d of the group is not in the local group of the "
                           "intercommunicator",
                           w);
    member |= w == runtime::worldRank();
  }
  // The group goes across as ranks of the local group (process numbers are this process's
  // own: the other group may be of another job).
  std::vector<int> ranks;
  for (int w : groupWorld) ranks.push_back(inter.commRankOfWorld(w));
  Words payload;
  appendList(payload, ranks);
  Words mask, theirs;
  if (int rc =
          agreeAcross(localOf(inter), 0, MPI_SUCCESS, payload, overInter(inter), &mask, &theirs))
    return rc;
  size_t pos = 0;
  std::vector<int> remote;
  if (!readList(theirs, &pos, &remote))
    return setErrorCause(MPI_ERR_INTERN, "malformed group list from the remote leader");
  for (int& r : remote) {
    if (r < 0 || r >= inter.remote->size())
      return setErrorCause(MPI_ERR_INTERN, "the remote leader sent rank %d of %d", r,
                           inter.remote->size());
    r = inter.remote->worldRanks[static_cast<size_t>(r)];
  }
  if (!member || remote.empty()) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  return buildInter(groupWorld, remote, mask, inter.errhandler, out);
}

namespace {

// Awaits *r (a request of a nonblocking step): done once it completed (then released).
int reap(p2p::Request*& r, bool* done) {
  if (r && !r->complete) return MPI_SUCCESS;
  const int rc = r ? p2p::wait(r, MPI_STATUS_IGNORE) : MPI_SUCCESS;
  r = nullptr;
  *done = true;
  return rc;
}

struct IdupState {
  Words mask, theirs;
  p2p::Request* req[2] = {nullptr, nullptr};
  bool started = false;
  uint64_t ticket = 0;  // this idup's place among the idups of its intercommunicator
  int tag = 0;          // of the leaders' swap
};

// Idups of one intercommunicator agree one after the other (each takes the bitmap free once
// the previous one has reserved its ids): issued and finished tickets per communicator.
std::map<const Comm*, std::pair<uint64_t, uint64_t>>& tickets() {
  static std::map<const Comm*, std::pair<uint64_t, uint64_t>> t;
  return t;
}

}  // namespace

int idupIntercomm(Comm& inter, MPI_Comm* out, std::function<void(MPI_Comm)> onDone,
                  p2p::Request** request) {
  constexpr int kW = ContextIdPool::kWords;
  Comm& local = localOf(inter);
  auto st = std::make_shared<IdupState>();
  st->theirs.assign(kW, 0);
  st->mask.assign(kW, 0);  // steps hold its address
  st->ticket = ++tickets()[&inter].first;
  // Both groups number the intercommunicator's collective calls alike.
  st->tag = coll::scheduleTag(++inter.collSeq);
  auto plan = std::make_shared<coll::Plan>(local, "intercomm idup");
  coll::Schedule& s = *plan->schedule;
  Comm* ic = &inter;
  const int n = local.size, me = local.rank;
  ++inter.refs;
  // Round 0: wait for this idup's turn.
  s.poll([st, ic](bool* done) {
    *done = tickets()[ic].second + 1 == st->ticket;
    return MPI_SUCCESS;
  });
  s.endRound();
  // Round 1: the bitmaps free now, gathered at local rank 0.
  s.local([st] {
    sweepFreed();
    std::copy(contextPool().freeMask().begin(), contextPool().freeMask().end(), st->mask.begin());
    return MPI_SUCCESS;
  });
  std::vector<uint64_t*> parts;
  if (me != 0) {
    s.send(st->mask.data(), kW, MPI_UINT64_T, 0);
  } else {
    for (int r = 1; r < n; ++r) {
      parts.push_back(static_cast<uint64_t*>(s.temp(kW, MPI_UINT64_T)));
      s.recv(parts.back(), kW, MPI_UINT64_T, r);
    }
  }
  s.endRound();
  // Round 2 (local rank 0): AND them, swap with the remote leader.
  if (me == 0) {
    s.local([st, parts] {
      for (const uint64_t* p : parts)
        for (int w = 0; w < kW; ++w) st->mask[w] &= p[w];
      return MPI_SUCCESS;
    });
    s.poll([st, ic](bool* done) {
      if (!st->started) {
        st->started = true;
        if (int rc = p2p::irecv(st->theirs.data(), kW, MPI_UINT64_T, 0, st->tag, *ic,
                                p2p::Ctx::kColl, &st->req[0]))
          return rc;
        if (int rc = p2p::isend(st->mask.data(), kW, MPI_UINT64_T, 0, st->tag, *ic, p2p::Ctx::kColl,
                                p2p::SendMode::kStandard, &st->req[1]))
          return rc;
      }
      bool a = false, b = false;
      if (int rc = reap(st->req[0], &a)) return rc;
      if (int rc = reap(st->req[1], &b)) return rc;
      *done = a && b;
      return MPI_SUCCESS;
    });
    s.endRound();
  }
  // Round 3: local rank 0 passes on both groups' AND.
  if (me == 0) {
    s.local([st] {
      for (int w = 0; w < kW; ++w) st->mask[w] &= st->theirs[w];
      return MPI_SUCCESS;
    });
    for (int r = 1; r < n; ++r) s.send(st->mask.data(), kW, MPI_UINT64_T, r);
  } else {
    s.recv(st->mask.data(), kW, MPI_UINT64_T, 0);
  }
  s.endRound();
  s.local([st, ic, out, onDone] {
    const int rc =
        buildInter(ic->worldRanks, ic->remote->worldRanks, st->mask, ic->errhandler, out);
    auto it = tickets().find(ic);
    it->second.second = st->ticket;
    if (it->second.second == it->second.first) tickets().erase(it);
    --ic->refs;
    if (rc == MPI_SUCCESS && onDone) onDone(*out);
    return rc;
  });
  s.endRound();
  return coll::launch(std::move(plan), MPI_SUCCESS, coll::Mode::kNonblocking, request);
}

}  // namespace ccmpi::comm
