// Node topology of a communicator (see topology.h): host keys, the per-host layout, and
// the hidden node and leaders' communicators.
#include "coll/node/topology.h"

#include <mpi.h>

#include <string>
#include <unordered_map>

#include "base/error.h"
#include "coll/algorithms.h"
#include "coll/node/segment.h"
#include "coll/rules.h"
#include "comm/internal.h"
#include "runtime/runtime.h"

namespace ccmpi::coll::node {

Topology::~Topology() = default;

namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

}  // namespace

int hostKeys(comm::Comm& c, std::vector<uint64_t>* keys) {
  keys->assign(static_cast<size_t>(c.size), 0);
  const std::vector<int>& placed = worldRankHosts();
  bool known = !placed.empty();
  for (int i = 0; known && i < c.size; ++i) {
    const int w = c.worldRankOf(i);
    if (w < 0 || w >= static_cast<int>(placed.size()))
      known = false;  // a rank of another job (spawned, connected)
    else
      (*keys)[static_cast<size_t>(i)] = static_cast<uint64_t>(placed[static_cast<size_t>(w)]);
  }
  if (known) return MPI_SUCCESS;
  // Processes of different jobs never share a node segment: the job is part of the key.
  const uint64_t mine = fnv1a(runtime::processorName()) ^ runtime::jobIdentity();
  return allgatherRing(&mine, 8, MPI_BYTE, keys->data(), 8, MPI_BYTE, c);
}

std::shared_ptr<Topology> makeTopology(const std::vector<uint64_t>& keys, int rank) {
  auto t = std::make_shared<Topology>();
  const int n = static_cast<int>(keys.size());
  std::unordered_map<uint64_t, int> hostOfKey;  // host numbers in order of first rank
  t->hostOf.resize(static_cast<size_t>(n));
  t->localOf.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto [it, added] = hostOfKey.emplace(keys[i], static_cast<int>(hostOfKey.size()));
    const int h = it->second;
    if (added) {
      t->leaders.push_back(i);
      t->hostSize.push_back(0);
    }
    t->hostOf[static_cast<size_t>(i)] = h;
    t->localOf[static_cast<size_t>(i)] = t->hostSize[static_cast<size_t>(h)]++;
  }
  t->hosts = static_cast<int>(hostOfKey.size());
  t->myHost = t->hostOf[static_cast<size_t>(rank)];
  t->localRank = t->localOf[static_cast<size_t>(rank)];
  t->localSize = t->hostSize[static_cast<size_t>(t->myHost)];
  t->firstOf.resize(static_cast<size_t>(t->hosts));
  for (int h = 0, at = 0; h < t->hosts; ++h) {
    t->firstOf[static_cast<size_t>(h)] = at;
    at += t->hostSize[static_cast<size_t>(h)];
    t->maxLocal = std::max(t->maxLocal, t->hostSize[static_cast<size_t>(h)]);
    if (t->hostSize[static_cast<size_t>(h)] != t->hostSize[0]) t->uniform = false;
  }
  t->byHost.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int pos = t->firstOf[static_cast<size_t>(t->hostOf[static_cast<size_t>(i)])] +
                    t->localOf[static_cast<size_t>(i)];
    t->byHost[static_cast<size_t>(pos)] = i;
    if (pos != i) t->contiguous = false;
  }
  return t;
}

Topology* topology(comm::Comm& c, int* rc) {
  *rc = MPI_SUCCESS;
  if (c.nodeState) return static_cast<Topology*>(c.nodeState.get());
  if (c.isInter()) return nullptr;
  std::vector<uint64_t> keys;
  if ((*rc = hostKeys(c, &keys))) return nullptr;
  auto t = makeTopology(keys, c.rank);
  c.nodeState = t;
  return t.get();
}

int nodeComms(comm::Comm& c, Topology& t, comm::Comm** node, comm::Comm** leaders) {
  if (!t.commsBuilt) {
    t.building = true;
    int rc = MPI_SUCCESS;
    if (t.hosts == 1) {
      t.nodeHandle = c.handle;
    } else {
      std::vector<int> world;
      for (int i = 0; i < c.size; ++i)
        if (t.hostOf[static_cast<size_t>(i)] == t.myHost) world.push_back(c.worldRankOf(i));
      uint32_t ctx = 0;
      rc = comm::agreeContextId(c, true, &ctx);
      if (rc == MPI_SUCCESS) {
        t.nodeHandle = comm::buildComm(c, world, ctx);
        c.hiddenComms.push_back(t.nodeHandle);
        if (comm::Comm* nc = comm::lookup(t.nodeHandle)) nc->name = "(ranks of a host)";
      }
      if (rc == MPI_SUCCESS) {
        world.clear();
        for (int l : t.leaders) world.push_back(c.worldRankOf(l));
        rc = comm::agreeContextId(c, t.isLeader(), &ctx);
        if (rc == MPI_SUCCESS && t.isLeader()) {
          t.leadersHandle = comm::buildComm(c, world, ctx);
          c.hiddenComms.push_back(t.leadersHandle);
          if (comm::Comm* lc = comm::lookup(t.leadersHandle)) lc->name = "(host leaders)";
        }
      }
    }
    t.building = false;
    if (rc) return rc;
    t.commsBuilt = true;
  }
  *node = t.hosts == 1 ? &c : comm::lookup(t.nodeHandle);
  *leaders = t.leadersHandle == MPI_COMM_NULL ? nullptr : comm::lookup(t.leadersHandle);
  if (!*node || (t.isLeader() && t.hosts > 1 && !*leaders))
    return setErrorCause(MPI_ERR_INTERN, "the node communicators of a communicator are gone");
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll::node

namespace ccmpi::coll {

const std::vector<int>& worldRankHosts() {
  return runtime::worldHosts();
}

int ruleRanksPerHost(comm::Comm* c) {
  if (!c || c->isInter()) return -1;
  int rc = MPI_SUCCESS;
  const node::Topology* t = node::topology(*c, &rc);
  return t ? t->maxLocal : -1;
}

}  // namespace ccmpi::coll
