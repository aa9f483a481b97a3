// Generate_Recv (see generate_recv.h).
#include "coll/generate_recv/generate_recv.h"

#include <cstring>
#include <deque>
#include <vector>

#include "base/error.h"
#include "base/log.h"
#include "base/tunables.h"
#include "coll/algorithm.h"
#include "coll/coll.h"
#include "p2p/am.h"
#include "p2p/request.h"

namespace ccmpi::coll {
namespace {

// One rank's part of one am call: its receive counts and how many are still to come.
struct Call {
  uint32_t context = 0;
  uint64_t seq = 0;
  comm::Comm* c = nullptr;
  int* recvcounts = nullptr;
  int arrived = 0;
};

struct Early {
  uint32_t context;
  int world;
  uint64_t seq;
  int count;
};

std::vector<Call*> gCalls;
std::deque<Early> gEarly;

void deliver(Call& k, int world, int count) {
  k.recvcounts[k.c->peerRankOfWorld(world)] = count;
  ++k.arrived;
}

void onMessage(uint32_t context, int world, uint64_t seq, const void* payload, size_t len) {
  int count = 0;
  if (len == sizeof count) memcpy(&count, payload, sizeof count);
  for (Call* k : gCalls)
    if (k->context == context && k->seq == seq) return deliver(*k, world, count);
  gEarly.push_back(Early{context, world, seq, count});
}

const bool kRegistered = [] {
  p2p::amSetInternal(p2p::InternalAm::kGenerateRecv, onMessage);
  return true;
}();

int viaConcat(const int* sendcounts, int* recvcounts, comm::Comm& c) {
  const int n = c.size, r = c.rank;
  std::vector<int> all(static_cast<size_t>(n) * n);
  const int rc = allgather(sendcounts, n, MPI_INT, all.data(), n, MPI_INT, c);
  if (rc != MPI_SUCCESS) return rc;
  for (int p = 0; p < n; ++p) recvcounts[p] = all[static_cast<size_t>(p) * n + r];
  return MPI_SUCCESS;
}

int viaAm(const int* sendcounts, int* recvcounts, comm::Comm& c) {
  (void)kRegistered;
  const int n = c.size, r = c.rank;
  ++c.collSeq;
  Call k;
  k.context = c.contextId;
  k.seq = c.collSeq;
  k.c = &c;
  k.recvcounts = recvcounts;
  for (int p = 0; p < n; ++p) recvcounts[p] = 0;
  // Messages that came before this rank got here are this call's.
  gCalls.push_back(&k);
  {
    std::deque<Early> keep;
    for (const Early& e : gEarly)
      if (e.context == k.context && e.seq == k.seq)
        deliver(k, e.world, e.count);
      else
        keep.push_back(e);
    gEarly.swap(keep);
  }
  std::vector<int> mask(n);
  for (int p = 0; p < n; ++p) mask[p] = (p != r && sendcounts[p] != 0) ? 1 : 0;
  int expected = 0;
  int rc = reduceScatterBlock(mask.data(), &expected, 1, MPI_INT, MPI_SUM, c);
  if (rc == MPI_SUCCESS) {
    recvcounts[r] = sendcounts[r];
    for (int p = 0; p < n; ++p)
      if (mask[p]) {
        const int count = sendcounts[p];
        p2p::amSendInternal(c, p, p2p::InternalAm::kGenerateRecv, k.seq, &count, sizeof count);
      }
    p2p::waitUntil([&]() { return k.arrived >= expected; });
  }
  for (size_t i = 0; i < gCalls.size(); ++i)
    if (gCalls[i] == &k) gCalls.erase(gCalls.begin() + static_cast<std::ptrdiff_t>(i));
  return rc;
}

using GenerateRecvFn = int (*)(const int*, int*, comm::Comm&);
const Algorithm<GenerateRecvFn> kAlgorithms[] = {
    {"am",
     "a reduce-scatter of the send masks tells each rank how many messages come; then one "
     "active message per message carries its count (CM-5 seed, Figure 1)",
     viaAm, kAnySize},
    {"concat", "an allgather of every rank's send counts (n values each)", viaConcat, kAnySize},
};
AlgorithmTable gTable("generate_recv", "CCMPI_GENERATE_RECV_ALGORITHM", kAlgorithms);

}  // namespace

int generateRecv(const int* sendcounts, int* recvcounts, comm::Comm& c) {
  if (c.size == 1) {
    recvcounts[0] = sendcounts[0];
    return MPI_SUCCESS;
  }
  return gTable.run(SelectContext{c.size, true, -1, &c}, sendcounts, recvcounts, c);
}

}  // namespace ccmpi::coll
