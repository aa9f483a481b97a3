// Shared-memory reduce (one host): the shm allreduce's steps (coll/allreduce/
// allreduce_shm.cc: chunks copied into per-rank slots, each rank reduces a 1/n slice in
// place keeping rank order, a barrier) with only the root copying the result out. Dense
// datatypes only; declines otherwise, across hosts, or without shared memory.
#include "coll/algorithms.h"

namespace ccmpi::coll {

int reduceShm(const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type, MPI_Op op,
              int root, comm::Comm& c) {
  // Non-roots may pass MPI_IN_PLACE-free sendbufs only; their recvbuf is not significant.
  return reduceShmCommon(sendbuf, recvbuf, count, type, op, root, c);
}

}  // namespace ccmpi::coll
