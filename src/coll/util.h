#pragma once
// Helpers shared by the collective algorithms: tags, buffer arithmetic by extent,
// temporary buffers with a datatype's layout, and local copies between two typed buffers.
//
// Tags: every collective kind has its own fixed tag on the communicator's collective
// context. Collectives on one communicator are started in the same order everywhere and
// p2p does not overtake, so a fixed tag per kind keeps consecutive collectives apart; a
// collective built from others (allreduce = reduce + bcast) uses theirs. Nonblocking and
// persistent collectives use one tag per call, above all of these (coll/schedule.h).
#include <mpi.h>

#include <cstdint>
#include <memory>

#include "comm/comm.h"
#include "datatype/datatype.h"
#include "p2p/p2p.h"

namespace ccmpi::coll {

enum Tag : int {
  kTagBarrier = 1,
  kTagBcast,
  kTagReduce,
  kTagAllreduce,
  kTagGather,
  kTagGatherv,
  kTagScatter,
  kTagScatterv,
  kTagAllgather,
  kTagAllgatherv,
  kTagAlltoall,
  kTagAlltoallv,
  kTagAlltoallw,
  kTagReduceScatter,
  kTagReduceScatterBlock,
  kTagScan,
  kTagExscan,
  kTagEnd,  // one past the last fixed tag: keep new ones above this line
};

constexpr p2p::Ctx kCtx = p2p::Ctx::kColl;

// The datatype behind a handle the API layer already checked.
inline const datatype::Datatype& typeOf(MPI_Datatype t) {
  return *datatype::lookup(t);
}

// Address of element `index` of a buffer of `type` elements (offsets by extent).
inline void* elemAt(void* buf, int64_t index, const datatype::Datatype& dt) {
  return static_cast<unsigned char*>(buf) + index * dt.extent();
}
inline const void* elemAt(const void* buf, int64_t index, const datatype::Datatype& dt) {
  return static_cast<const unsigned char*>(buf) + index * dt.extent();
}
inline void* byteAt(void* buf, int64_t bytes) {
  return static_cast<unsigned char*>(buf) + bytes;
}
inline const void* byteAt(const void* buf, int64_t bytes) {
  return static_cast<const unsigned char*>(buf) + bytes;
}

// Storage for `count` elements of a datatype, laid out as a user buffer of that type would
// be: get() is the address of element 0 (true lower bound and negative extents included).
class TempBuffer {
 public:
  TempBuffer() = default;
  TempBuffer(const TempBuffer&) = delete;
  TempBuffer& operator=(const TempBuffer&) = delete;
  // Returns MPI_ERR_NO_MEM (with a cause) if the allocation fails.
  int alloc(int64_t count, const datatype::Datatype& dt);
  void* get() const { return base_; }
  bool empty() const { return base_ == nullptr; }

 private:
  std::unique_ptr<unsigned char[]> storage_;
  void* base_ = nullptr;
};

// Copies the data of (src, scount, stype) into (dst, rcount, rtype); the type signatures
// must match (the smaller packed size is copied). memcpy when both are contiguous, else
// through the packed stream in chunks.
int copyLocal(const void* src, int64_t scount, MPI_Datatype stype, void* dst, int64_t rcount,
              MPI_Datatype rtype);

// Bytes of data (packed size) of `count` elements.
inline int64_t dataBytes(int64_t count, MPI_Datatype t) {
  return count * typeOf(t).size();
}

// Largest power of two <= n (n >= 1).
inline int floorPow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

// Exchanges, for every peer p != me, the block of `buf` that belongs to p with p's block
// for me, in place: the MPI_IN_PLACE form of the all-to-all family. block(p) gives
// (address, count, type) of p's block. Peers are paired by the involution
// p = (step - me) mod n, so each exchange is a sendrecv with one partner and a block is
// overwritten only after it was sent (it is packed to a temporary first).
struct Block {
  void* addr;
  int64_t count;
  MPI_Datatype type;
};
template <typename BlockOf>
int exchangeInPlace(comm::Comm& c, int tag, BlockOf&& block);
int exchangeBlockInPlace(comm::Comm& c, int tag, int peer, const Block& b);

template <typename BlockOf>
int exchangeInPlace(comm::Comm& c, int tag, BlockOf&& block) {
  const int n = c.size, me = c.rank;
  for (int step = 0; step < n; ++step) {
    const int peer = ((step - me) % n + n) % n;
    if (peer == me) continue;
    if (int rc = exchangeBlockInPlace(c, tag, peer, block(peer))) return rc;
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
