// Communicator and group handle tables, the predefined communicators (MPI_COMM_WORLD,
// MPI_COMM_SELF, MPI_GROUP_EMPTY), and the life cycle of communicator objects: a freed
// communicator that in-flight operations still reference stays as a zombie (its handle no
// longer resolves) until its reference count drops to zero, and only then gives its
// context id back to the pool.
#include "comm/comm.h"

#include <algorithm>

#include "base/handles.h"
#include "comm/attributes.h"
#include "comm/context_ids.h"
#include "comm/errhandler.h"
#include "comm/internal.h"

namespace ccmpi::comm {
namespace {

struct Tables {
  HandleTable<Comm> comms{HandleKind::kComm};
  HandleTable<Group> groups{HandleKind::kGroup};
  ContextIdPool contexts;
  std::vector<MPI_Comm> zombies;
  bool selfAttrsDeleted = false;
};

Tables& tables() {
  static Tables t;
  return t;
}

std::unique_ptr<Comm> makePredefined(uint32_t ctx, std::vector<int> worldRanks, int myWorld,
                                     int worldSize, const char* name) {
  auto c = std::make_unique<Comm>();
  c->contextId = ctx;
  c->worldRanks = std::move(worldRanks);
  c->size = static_cast<int>(c->worldRanks.size());
  c->fromWorld.assign(worldSize, MPI_UNDEFINED);
  for (int r = 0; r < c->size; ++r) c->fromWorld[c->worldRanks[r]] = r;
  c->rank = c->fromWorld[myWorld];
  c->name = name;
  c->predefined = true;
  c->errhandler = MPI_ERRORS_ARE_FATAL;
  return c;
}

void destroy(MPI_Comm h) {
  Tables& t = tables();
  Comm* c = t.comms.get(h);
  if (!c) return;
  releaseErrhandler(c->errhandler);
  if (!c->predefined) t.contexts.release(c->contextId);
  std::vector<MPI_Comm> hidden = std::move(c->hiddenComms);
  hidden.push_back(c->localComm);
  t.comms.remove(h);
  // An intercommunicator's hidden local communicator, and the hidden communicators of
  // the collective layer, go with it (or once their own in-flight users finish).
  for (const MPI_Comm sub : hidden) {
    if (Comm* l = t.comms.get(sub)) {
      l->freed = true;
      if (--l->refs <= 0)
        destroy(sub);
      else
        t.zombies.push_back(sub);
    }
  }
}

}  // namespace

int Group::rankOfWorld(int worldRank) const {
  for (size_t i = 0; i < worldRanks.size(); ++i)
    if (worldRanks[i] == worldRank) return static_cast<int>(i);
  return MPI_UNDEFINED;
}

Comm* lookup(MPI_Comm h) {
  Comm* c = tables().comms.get(h);
  return (c && !c->freed && !c->pending) ? c : nullptr;
}

Group* lookupGroup(MPI_Group h) {
  return tables().groups.get(h);
}

ContextIdPool& contextPool() {
  return tables().contexts;
}

void initPredefined(int worldRank, int worldSize) {
  Tables& t = tables();
  t = Tables{};
  std::vector<int> all(worldSize);
  for (int i = 0; i < worldSize; ++i) all[i] = i;
  t.comms.reservePredefined(handleIndex(MPI_COMM_SELF) + 1);
  auto world =
      makePredefined(ContextIdPool::kWorldContext, all, worldRank, worldSize, "MPI_COMM_WORLD");
  world->handle = MPI_COMM_WORLD;
  t.comms.putAt(handleIndex(MPI_COMM_WORLD), std::move(world));
  auto self = makePredefined(ContextIdPool::kSelfContext, {worldRank}, worldRank, worldSize,
                             "MPI_COMM_SELF");
  self->handle = MPI_COMM_SELF;
  t.comms.putAt(handleIndex(MPI_COMM_SELF), std::move(self));
  t.groups.reservePredefined(handleIndex(MPI_GROUP_EMPTY) + 1);
  auto empty = std::make_unique<Group>();
  t.groups.putAt(handleIndex(MPI_GROUP_EMPTY), std::move(empty));
  initPredefinedAttributes(worldSize);
}

void deleteSelfAttributes() {
  Tables& t = tables();
  if (t.selfAttrsDeleted) return;
  t.selfAttrsDeleted = true;
  if (Comm* self = t.comms.get(MPI_COMM_SELF)) deleteAllAttributes(*self, MPI_COMM_SELF);
}

void finalizeComms() {
  deleteSelfAttributes();
  tables() = Tables{};
  finalizeAttributes();
}

MPI_Comm registerComm(std::unique_ptr<Comm> c) {
  Tables& t = tables();
  if (c->fromWorld.empty()) {
    int worldSize = 0;
    for (int w : c->worldRanks) worldSize = std::max(worldSize, w + 1);
    if (Comm* world = t.comms.get(MPI_COMM_WORLD))
      worldSize = std::max(worldSize, static_cast<int>(world->fromWorld.size()));
    c->fromWorld.assign(worldSize, MPI_UNDEFINED);
    for (size_t r = 0; r < c->worldRanks.size(); ++r)
      c->fromWorld[c->worldRanks[r]] = static_cast<int>(r);
  }
  c->size = static_cast<int>(c->worldRanks.size());
  Comm* raw = c.get();
  const MPI_Comm h = t.comms.add(std::move(c));
  raw->handle = h;
  return h;
}

void freeComm(MPI_Comm h) {
  Tables& t = tables();
  Comm* c = t.comms.get(h);
  if (!c || c->predefined) return;
  --c->refs;
  c->freed = true;
  if (c->refs <= 0)
    destroy(h);
  else
    t.zombies.push_back(h);
  sweepFreed();
}

void sweepFreed() {
  Tables& t = tables();
  auto& z = t.zombies;
  for (size_t i = 0; i < z.size();) {
    Comm* c = t.comms.get(z[i]);
    if (!c || c->refs <= 0) {
      if (c) destroy(z[i]);
      z[i] = z.back();
      z.pop_back();
    } else {
      ++i;
    }
  }
}

MPI_Group newGroup(std::vector<int> worldRanks) {
  if (worldRanks.empty()) return MPI_GROUP_EMPTY;
  auto g = std::make_unique<Group>();
  g->worldRanks = std::move(worldRanks);
  return tables().groups.add(std::move(g));
}

void freeGroup(MPI_Group h) {
  Tables& t = tables();
  if (t.groups.isPredefined(h)) return;
  Group* g = t.groups.get(h);
  if (g && --g->refs <= 0) t.groups.remove(h);
}

size_t liveComms() {
  size_t n = 0;
  tables().comms.forEach([&](int, const Comm& c) { n += !c.predefined; });
  return n;
}

size_t liveGroups() {
  return tables().groups.liveDynamic();
}

}  // namespace ccmpi::comm
