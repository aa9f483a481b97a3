// Blocking collectives on intercommunicators (inter.h). Two schemes, both over the
// intercommunicator's collective context (the same context id on both groups) and the
// hidden local intracommunicator of each group:
//  - linear: gather/scatter(v) between the root and every remote process, all-to-all and
//    allgather(v) as one message per pair of processes of different groups;
//  - through the leaders (local rank 0 of each group): bcast (root -> remote leader ->
//    local bcast), reductions (local reduce to the leader, the leaders swap or send the
//    group's result, then a local bcast or scatter(v) of the other group's result), and
//    the barrier (local barrier, leaders swap an empty message, local barrier).
#include "coll/inter/inter.h"

#include <vector>

#include "base/error.h"
#include "coll/coll.h"
#include "coll/util.h"
#include "p2p/p2p.h"

namespace ccmpi::coll::inter {
namespace {

comm::Comm& localOf(comm::Comm& c) {
  return *comm::lookup(c.localComm);
}

// Nonblocking p2p operations started together and completed together.
class Batch {
 public:
  explicit Batch(comm::Comm& c) : c_(c) {}
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;
  ~Batch() { wait(); }
  void send(const void* buf, int64_t count, MPI_Datatype type, int dest, int tag) {
    if (rc_) return;
    p2p::Request* r = nullptr;
    rc_ = p2p::isend(buf, count, type, dest, tag, c_, kCtx, p2p::SendMode::kStandard, &r);
    if (r) reqs_.push_back(r);
  }
  void recv(void* buf, int64_t count, MPI_Datatype type, int source, int tag) {
    if (rc_) return;
    p2p::Request* r = nullptr;
    rc_ = p2p::irecv(buf, count, type, source, tag, c_, kCtx, &r);
    if (r) reqs_.push_back(r);
  }
  int wait() {
    if (!reqs_.empty()) {
      const int rc =
          p2p::waitAll(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
      reqs_.clear();
      if (!rc_) rc_ = rc;
    }
    return rc_;
  }

 private:
  comm::Comm& c_;
  std::vector<p2p::Request*> reqs_;
  int rc_ = MPI_SUCCESS;
};

// The reduction of my group's sendbuf (count elements) at my leader, swapped with the
// other group's: *theirs (allocated at the leader only) gets the other group's result.
int swapReductions(const void* sendbuf, int count, MPI_Datatype type, MPI_Op op, comm::Comm& c,
                   TempBuffer* theirs) {
  comm::Comm& l = localOf(c);
  TempBuffer mine;
  if (l.rank == 0) {
    if (int rc = mine.alloc(count, typeOf(type))) return rc;
    if (int rc = theirs->alloc(count, typeOf(type))) return rc;
  }
  if (int rc = coll::reduce(sendbuf, mine.get(), count, type, op, 0, l)) return rc;
  if (l.rank != 0) return MPI_SUCCESS;
  return p2p::sendrecv(mine.get(), count, type, 0, kTagReduceScatter, theirs->get(), count, type, 0,
                       kTagReduceScatter, c, MPI_STATUS_IGNORE, kCtx);
}

}  // namespace

int barrier(comm::Comm& c) {
  comm::Comm& l = localOf(c);
  if (int rc = coll::barrier(l)) return rc;
  if (c.rank == 0) {
    if (int rc = p2p::sendrecv(nullptr, 0, MPI_BYTE, 0, kTagBarrier, nullptr, 0, MPI_BYTE, 0,
                               kTagBarrier, c, MPI_STATUS_IGNORE, kCtx))
      return rc;
  }
  return coll::barrier(l);
}

int bcast(void* buf, int count, MPI_Datatype type, int root, comm::Comm& c) {
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (root == MPI_ROOT) return p2p::send(buf, count, type, 0, kTagBcast, c, kCtx);
  if (c.rank == 0) {
    if (int rc = p2p::recv(buf, count, type, root, kTagBcast, c, MPI_STATUS_IGNORE, kCtx))
      return rc;
  }
  return coll::bcast(buf, count, type, 0, localOf(c));
}

int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
           comm::Comm& c) {
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (root == MPI_ROOT)
    return p2p::recv(recvbuf, count, type, 0, kTagReduce, c, MPI_STATUS_IGNORE, kCtx);
  comm::Comm& l = localOf(c);
  TempBuffer tmp;
  if (l.rank == 0) {
    if (int rc = tmp.alloc(count, typeOf(type))) return rc;
  }
  if (int rc = coll::reduce(sendbuf, tmp.get(), count, type, op, 0, l)) return rc;
  if (l.rank != 0) return MPI_SUCCESS;
  return p2p::send(tmp.get(), count, type, root, kTagReduce, c, kCtx);
}

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              comm::Comm& c) {
  TempBuffer theirs;
  if (int rc = swapReductions(sendbuf, count, type, op, c, &theirs)) return rc;
  if (c.rank == 0) {
    if (int rc = copyLocal(theirs.get(), count, type, recvbuf, count, type)) return rc;
  }
  return coll::bcast(recvbuf, count, type, 0, localOf(c));
}

int reduceScatterBlock(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                       MPI_Op op, comm::Comm& c) {
  const int total = recvcount * c.size;
  TempBuffer theirs;
  if (int rc = swapReductions(sendbuf, total, type, op, c, &theirs)) return rc;
  return coll::scatter(theirs.get(), recvcount, type, recvbuf, recvcount, type, 0, localOf(c));
}

int reduceScatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                  MPI_Op op, comm::Comm& c) {
  std::vector<int> displs(c.size);
  int total = 0;
  for (int r = 0; r < c.size; ++r) {
    displs[r] = total;
    total += recvcounts[r];
  }
  TempBuffer theirs;
  if (int rc = swapReductions(sendbuf, total, type, op, c, &theirs)) return rc;
  return coll::scatterv(theirs.get(), recvcounts, displs.data(), type, recvbuf, recvcounts[c.rank],
                        type, 0, localOf(c));
}

int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, comm::Comm& c) {
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (root != MPI_ROOT) return p2p::send(sendbuf, sendcount, sendtype, root, kTagGather, c, kCtx);
  Batch b(c);
  const datatype::Datatype& rt = typeOf(recvtype);
  for (int r = 0; r < c.peerSize(); ++r)
    b.recv(elemAt(recvbuf, static_cast<int64_t>(r) * recvcount, rt), recvcount, recvtype, r,
           kTagGather);
  return b.wait();
}

int gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            comm::Comm& c) {
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (root != MPI_ROOT) return p2p::send(sendbuf, sendcount, sendtype, root, kTagGatherv, c, kCtx);
  Batch b(c);
  const datatype::Datatype& rt = typeOf(recvtype);
  for (int r = 0; r < c.peerSize(); ++r)
    b.recv(elemAt(recvbuf, displs[r], rt), recvcounts[r], recvtype, r, kTagGatherv);
  return b.wait();
}

int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, comm::Comm& c) {
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (root != MPI_ROOT)
    return p2p::recv(recvbuf, recvcount, recvtype, root, kTagScatter, c, MPI_STATUS_IGNORE, kCtx);
  Batch b(c);
  const datatype::Datatype& st = typeOf(sendtype);
  for (int r = 0; r < c.peerSize(); ++r)
    b.send(elemAt(sendbuf, static_cast<int64_t>(r) * sendcount, st), sendcount, sendtype, r,
           kTagScatter);
  return b.wait();
}

int scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, comm::Comm& c) {
  if (root == MPI_PROC_NULL) return MPI_SUCCESS;
  if (root != MPI_ROOT)
    return p2p::recv(recvbuf, recvcount, recvtype, root, kTagScatterv, c, MPI_STATUS_IGNORE, kCtx);
  Batch b(c);
  const datatype::Datatype& st = typeOf(sendtype);
  for (int r = 0; r < c.peerSize(); ++r)
    b.send(elemAt(sendbuf, displs[r], st), sendcounts[r], sendtype, r, kTagScatterv);
  return b.wait();
}

int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  Batch b(c);
  const datatype::Datatype& rt = typeOf(recvtype);
  for (int r = 0; r < c.peerSize(); ++r)
    b.recv(elemAt(recvbuf, static_cast<int64_t>(r) * recvcount, rt), recvcount, recvtype, r,
           kTagAllgather);
  for (int r = 0; r < c.peerSize(); ++r) b.send(sendbuf, sendcount, sendtype, r, kTagAllgather);
  return b.wait();
}

int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, comm::Comm& c) {
  Batch b(c);
  const datatype::Datatype& rt = typeOf(recvtype);
  for (int r = 0; r < c.peerSize(); ++r)
    b.recv(elemAt(recvbuf, displs[r], rt), recvcounts[r], recvtype, r, kTagAllgatherv);
  for (int r = 0; r < c.peerSize(); ++r) b.send(sendbuf, sendcount, sendtype, r, kTagAllgatherv);
  return b.wait();
}

int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  Batch b(c);
  const datatype::Datatype& st = typeOf(sendtype);
  const datatype::Datatype& rt = typeOf(recvtype);
  for (int r = 0; r < c.peerSize(); ++r)
    b.recv(elemAt(recvbuf, static_cast<int64_t>(r) * recvcount, rt), recvcount, recvtype, r,
           kTagAlltoall);
  for (int r = 0; r < c.peerSize(); ++r)
    b.send(elemAt(sendbuf, static_cast<int64_t>(r) * sendcount, st), sendcount, sendtype, r,
           kTagAlltoall);
  return b.wait();
}

int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, comm::Comm& c) {
  Batch b(c);
  const datatype::Datatype& st = typeOf(sendtype);
  const datatype::Datatype& rt = typeOf(recvtype);
  for (int r = 0; r < c.peerSize(); ++r)
    b.recv(elemAt(recvbuf, rdispls[r], rt), recvcounts[r], recvtype, r, kTagAlltoallv);
  for (int r = 0; r < c.peerSize(); ++r)
    b.send(elemAt(sendbuf, sdispls[r], st), sendcounts[r], sendtype, r, kTagAlltoallv);
  return b.wait();
}

int alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], comm::Comm& c) {
  Batch b(c);
  for (int r = 0; r < c.peerSize(); ++r)
    b.recv(byteAt(recvbuf, rdispls[r]), recvcounts[r], recvtypes[r], r, kTagAlltoallw);
  for (int r = 0; r < c.peerSize(); ++r)
    b.send(byteAt(sendbuf, sdispls[r]), sendcounts[r], sendtypes[r], r, kTagAlltoallw);
  return b.wait();
}

}  // namespace ccmpi::coll::inter
