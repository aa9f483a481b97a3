// Shared-memory allreduce (one host): in chunks of CCMPI_NODE_SHM_SLOT bytes, every rank
// copies its chunk into its slot of the communicator's segment; a barrier; rank r reduces
// the r-th 1/n slice of the chunk over all slots, in place in the last slot, from the
// last rank down (x_j op acc), so the operands keep rank order and non-commutative ops
// are right; a barrier; every rank copies the reduced chunk out (for the reduce, the root
// only: the others leave once their slice is done). Chunks up to 8 KiB skip the slices:
// after the first barrier, each rank that needs the result combines every slot itself. Each rank
// reads and combines 1/n of the data, and every byte is copied twice (in, out) with no message.
// Dense datatypes only (the op runs on slices in the segment); declines otherwise, where
// the communicator spans several hosts, or where shared memory is not available.
#include <cstring>

#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/node/shm.h"
#include "coll/util.h"
#include "op/op.h"

namespace ccmpi::coll {
namespace {
// Chunks up to this size are combined whole by every rank that needs the result
// (n x the work of a slice, one barrier instead of two).
constexpr size_t kWholeChunk = 8 * 1024;
}  // namespace

// Shared by allreduceShm and reduceShm: the reduced vector lands in recvbuf of every rank
// (root < 0) or of `root` only.
int reduceShmCommon(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                    int root, comm::Comm& c) {
  if (!node::denseType(type)) return kDecline;
  const size_t ext = static_cast<size_t>(typeOf(type).size());
  if (ext > 512 * 1024) return kDecline;
  int rc = MPI_SUCCESS;
  node::Segment* s = node::shmSegment(c, &rc, static_cast<size_t>(count) * ext);
  if (!s) return rc ? rc : kDecline;
  const int64_t perChunk = static_cast<int64_t>(s->slotBytes() / ext);
  if (perChunk < 1) return kDecline;
  const int n = c.size, r = c.rank;
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  const unsigned char* in = static_cast<const unsigned char*>(inPlace ? recvbuf : sendbuf);
  unsigned char* out = static_cast<unsigned char*>(recvbuf);
  for (int64_t off = 0; off < count; off += perChunk) {
    const int64_t k = std::min(perChunk, count - off);
    const size_t len = static_cast<size_t>(k) * ext;
    const uint64_t ph = s->beginPhase(true);
    memcpy(s->slot(ph, r), in + off * ext, len);
    const bool gets = root < 0 || r == root;
    if (len <= kWholeChunk) {
      // Small: whoever needs the result combines every slot itself (one barrier).
      const uint64_t ticket = s->arrive();
      if (gets) {
        s->awaitRelease(ticket);
        unsigned char* dst = out + off * ext;
        memcpy(dst, s->slot(ph, n - 1), len);
        for (int j = n - 2; j >= 0 && rc == MPI_SUCCESS; --j)
          rc = op::apply(op, s->slot(ph, j), dst, k, type);
      }
      s->endPhase(ph);
      if (rc) return rc;
      continue;
    }
    s->barrier();
    const int64_t lo = k * r / n, hi = k * (r + 1) / n;
    if (hi > lo) {
      unsigned char* acc = s->slot(ph, n - 1) + lo * ext;
      for (int j = n - 2; j >= 0 && rc == MPI_SUCCESS; --j)
        rc = op::apply(op, s->slot(ph, j) + lo * ext, acc, hi - lo, type);
    }
    const uint64_t ticket = s->arrive();
    if (gets) {
      s->awaitRelease(ticket);
      memcpy(out + off * ext, s->slot(ph, n - 1), len);
    }
    s->endPhase(ph);
    if (rc) return rc;
  }
  return MPI_SUCCESS;
}

int allreduceShm(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
                 comm::Comm& c) {
  return reduceShmCommon(sendbuf, recvbuf, count, type, op, -1, c);
}

}  // namespace ccmpi::coll
