// Communicator creation. Every constructor first agrees on a context id
// (comm/context_agreement.h: the members' free-id bitmaps ANDed, the lowest id common to
// all, confirmed by a second vote so that agreements in flight at once never take the
// same id). Parent members that end up with MPI_COMM_NULL still take part.
// MPI_Comm_idup registers its communicator at the call (the handle is returned at once,
// the object is unusable until the request completes) and agrees without blocking.
//
// Split: an allgather of (color, key) over the parent; the members of each color are
// ordered by (key, parent rank). Split by host: an allgather of the processor names, and
// the color of a process is the lowest parent rank with the same name.
// Create_group and create_from_group (sessions): only the group's members call, so they
// agree over a temporary communicator made of the group with the reserved create_group
// context. Create_from_group also checks that every member passed the same string tag:
// two extra words h and ~h (h = a hash of the tag) ride along in the bitmap allreduce;
// after the AND they are still h and ~h exactly when every member's hash equals h.
#include <mpi.h>

#include <cstring>
#include <map>
#include <string>

#include "base/error.h"
#include "base/siphash.h"
#include "coll/coll.h"
#include "comm/attributes.h"
#include "comm/context_agreement.h"
#include "comm/errhandler.h"
#include "comm/group_ops.h"
#include "comm/internal.h"
#include "runtime/runtime.h"

namespace ccmpi::comm {

int agreeContextId(Comm& over, bool reserve, uint32_t* ctx) {
  return ContextAgreement::agree(over, reserve, {}, nullptr, ctx);
}

namespace {

std::unique_ptr<Comm> makeComm(const std::vector<int>& worldRanks, uint32_t ctx) {
  auto c = std::make_unique<Comm>();
  c->contextId = ctx;
  c->worldRanks = worldRanks;
  c->size = static_cast<int>(worldRanks.size());
  c->fromWorld.assign(runtime::processCount(), MPI_UNDEFINED);
  for (int r = 0; r < c->size; ++r) c->fromWorld[worldRanks[r]] = r;
  c->rank = c->fromWorld[runtime::worldRank()];
  return c;
}

}  // namespace

MPI_Comm buildComm(const Comm& parent, const std::vector<int>& worldRanks, uint32_t ctx) {
  auto c = makeComm(worldRanks, ctx);
  if (c->rank == MPI_UNDEFINED) return MPI_COMM_NULL;
  c->errhandler = parent.errhandler;
  retainErrhandler(c->errhandler);
  return registerComm(std::move(c));
}

int dupComm(Comm& parent, MPI_Comm* out) {
  uint32_t ctx;
  if (int rc = agreeContextId(parent, true, &ctx)) return rc;
  *out = buildComm(parent, parent.worldRanks, ctx);
  return MPI_SUCCESS;
}

int idupComm(Comm& parent, MPI_Comm* out, Comm** created, std::function<void(int rc)> finished) {
  auto c = makeComm(parent.worldRanks, 0);
  c->pending = true;
  c->errhandler = parent.errhandler;
  retainErrhandler(c->errhandler);
  copyTopology(parent, *c);
  Comm* raw = c.get();
  const MPI_Comm h = registerComm(std::move(c));
  auto done = [raw, h, finished = std::move(finished)](int rc, uint32_t ctx) {
    if (rc == MPI_SUCCESS) {
      raw->contextId = ctx;
      raw->pending = false;
    } else {
      raw->pending = false;
      deleteAllAttributes(*raw, h);
      freeComm(h);
    }
    finished(rc);
  };
  if (int rc = ContextAgreement::start(parent, true, {}, nullptr, std::move(done))) {
    raw->pending = false;
    freeComm(h);
    return rc;
  }
  *out = h;
  *created = raw;
  return MPI_SUCCESS;
}

namespace {

// Shared tail of split and split_type: order the members of my color, agree, build.
int splitByColorKey(Comm& parent, const std::vector<std::pair<int, int>>& colorKey, MPI_Comm* out) {
  const std::vector<int> members = splitMembers(colorKey, parent.rank);
  uint32_t ctx;
  if (int rc = agreeContextId(parent, !members.empty(), &ctx)) return rc;
  if (members.empty()) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  std::vector<int> world(members.size());
  for (size_t i = 0; i < members.size(); ++i) world[i] = parent.worldRanks[members[i]];
  *out = buildComm(parent, world, ctx);
  return MPI_SUCCESS;
}

}  // namespace

int splitComm(Comm& parent, int color, int key, MPI_Comm* out) {
  std::vector<int> mine = {color, key};
  std::vector<int> all(2 * static_cast<size_t>(parent.size));
  if (int rc = coll::allgather(mine.data(), 2, MPI_INT, all.data(), 2, MPI_INT, parent)) return rc;
  std::vector<std::pair<int, int>> colorKey(parent.size);
  for (int r = 0; r < parent.size; ++r) {
    colorKey[r] = {all[2 * r], all[2 * r + 1]};
    if (colorKey[r].first < 0 && colorKey[r].first != MPI_UNDEFINED)
      return setErrorCause(MPI_ERR_ARG, "rank %d of the parent passed the negative color %d", r,
                           colorKey[r].first);
  }
  return splitByColorKey(parent, colorKey, out);
}

int splitShared(Comm& parent, bool undefined, int key, MPI_Comm* out) {
  constexpr int kLen = MPI_MAX_PROCESSOR_NAME;
  std::vector<char> mine(kLen + sizeof(int) * 2, 0);
  strncpy(mine.data(), runtime::processorName().c_str(), kLen - 1);
  const int ck[2] = {undefined ? MPI_UNDEFINED : 0, key};
  memcpy(mine.data() + kLen, ck, sizeof ck);
  const int rec = static_cast<int>(mine.size());
  std::vector<char> all(static_cast<size_t>(rec) * parent.size);
  if (int rc = coll::allgather(mine.data(), rec, MPI_BYTE, all.data(), rec, MPI_BYTE, parent))
    return rc;
  std::vector<std::pair<int, int>> colorKey(parent.size);
  std::map<std::string, int> firstOnHost;
  for (int r = 0; r < parent.size; ++r) {
    const char* name = all.data() + static_cast<size_t>(r) * rec;
    const int color = firstOnHost.emplace(std::string(name, strnlen(name, kLen)), r).first->second;
    int k[2];
    memcpy(k, name + kLen, sizeof k);
    colorKey[r] = {k[0] == MPI_UNDEFINED ? MPI_UNDEFINED : color, k[1]};
  }
  return splitByColorKey(parent, colorKey, out);
}

void copyTopology(const Comm& from, Comm& to) {
  to.topoKind = from.topoKind;
  if (from.cart) to.cart = std::make_unique<CartTopology>(*from.cart);
  if (from.graph) to.graph = std::make_unique<GraphTopology>(*from.graph);
  if (from.distGraph) to.distGraph = std::make_unique<DistGraphTopology>(*from.distGraph);
}

int createComm(Comm& parent, const std::vector<int>& groupWorld, MPI_Comm* out) {
  bool member = false;
  for (int w : groupWorld) {
    if (parent.commRankOfWorld(w) == MPI_UNDEFINED)
      return setErrorCause(MPI_ERR_GROUP, "world rank %d of the group is not in the communicator",
                           w);
    member |= w == runtime::worldRank();
  }
  uint32_t ctx;
  if (int rc = agreeContextId(parent, member, &ctx)) return rc;
  *out = member ? buildComm(parent, groupWorld, ctx) : MPI_COMM_NULL;
  return MPI_SUCCESS;
}

namespace {

// The temporary communicator of the group's members (create_group, create_from_group).
void makeScratch(const std::vector<int>& groupWorld, MPI_Errhandler errhandler, Comm* scratch) {
  scratch->contextId = ContextIdPool::kCreateGroupContext;
  scratch->worldRanks = groupWorld;
  scratch->size = static_cast<int>(groupWorld.size());
  scratch->fromWorld.assign(runtime::processCount(), MPI_UNDEFINED);
  for (int r = 0; r < scratch->size; ++r) scratch->fromWorld[groupWorld[r]] = r;
  scratch->rank = scratch->fromWorld[runtime::worldRank()];
  scratch->errhandler = errhandler;
  scratch->predefined = true;
}

}  // namespace

int createFromGroup(const std::vector<int>& groupWorld, const std::string& stringTag,
                    MPI_Errhandler errhandler, MPI_Comm* out) {
  const int worldSize = runtime::processCount();
  bool member = false;
  std::vector<bool> seen(worldSize, false);
  for (int w : groupWorld) {
    if (w < 0 || w >= worldSize || seen[w])
      return setErrorCause(MPI_ERR_GROUP, "the group names process %d twice or out of range", w);
    seen[w] = true;
    member |= w == runtime::worldRank();
  }
  if (!member)
    return setErrorCause(MPI_ERR_GROUP,
                         "the calling process (world rank %d) is not a member of the group",
                         runtime::worldRank());
  Comm scratch;
  makeScratch(groupWorld, MPI_ERRORS_RETURN, &scratch);
  const uint64_t h = siphash24(SipKey{0x63636d7069746167ull, 0x5f66726f6d5f6772ull},
                               stringTag.data(), stringTag.size());
  uint32_t id;
  if (int rc = ContextAgreement::agree(
          scratch, true, {h, ~h},
          [&](const uint64_t* words) {
            if (words[0] == h && words[1] == ~h) return MPI_SUCCESS;
            return setErrorCause(MPI_ERR_ARG,
                                 "the members of the group passed different string tags (mine "
                                 "is \"%s\")",
                                 stringTag.c_str());
          },
          &id))
    return rc;
  auto c = std::make_unique<Comm>();
  c->contextId = id;
  c->worldRanks = groupWorld;
  c->size = scratch.size;
  c->fromWorld = scratch.fromWorld;
  c->rank = scratch.rank;
  c->errhandler = errhandler;
  retainErrhandler(errhandler);
  *out = registerComm(std::move(c));
  return MPI_SUCCESS;
}

int createCommGroup(Comm& parent, const std::vector<int>& groupWorld, MPI_Comm* out) {
  bool member = false;
  for (int w : groupWorld) {
    if (parent.commRankOfWorld(w) == MPI_UNDEFINED)
      return setErrorCause(MPI_ERR_GROUP, "world rank %d of the group is not in the communicator",
                           w);
    member |= w == runtime::worldRank();
  }
  if (!member) {
    *out = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  Comm scratch;
  makeScratch(groupWorld, parent.errhandler, &scratch);
  uint32_t ctx;
  if (int rc = agreeContextId(scratch, true, &ctx)) return rc;
  *out = buildComm(parent, groupWorld, ctx);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::comm
