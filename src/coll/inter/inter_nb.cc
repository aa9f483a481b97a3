// Nonblocking and persistent collectives on intercommunicators (inter.h): schedules on the
// intercommunicator itself, so every peer is a rank of the remote group. Each process
// exchanges directly with the remote processes it needs (one round), and reductions are
// computed where they are needed from the remote group's contributions, combined in rank
// order (acc = x[n-1]; acc = x[i] op acc for i = n-2 .. 0), so non-commutative operations
// get the standard's order.
#include <memory>
#include <vector>

#include "coll/inter/inter.h"
#include "coll/util.h"

namespace ccmpi::coll::inter {
namespace {

std::shared_ptr<Plan> plan(comm::Comm& c, const char* name) {
  auto p = std::make_shared<Plan>(c, name);
  p->algorithm = "intercommunicator linear";
  return p;
}

// Receives `count` elements from every remote rank and reduces them into `result` (which
// must not alias the receive temporaries), in rank order. Two rounds: receive, reduce.
void recvReduce(Schedule& s, int count, MPI_Datatype type, MPI_Op op, void* result, int n) {
  std::vector<void*> parts(n);
  for (int r = 0; r < n; ++r) {
    parts[r] = s.temp(count, type);
    s.recv(parts[r], count, type, r);
  }
  s.endRound();
  if (n == 0) return;
  s.copy(parts[n - 1], count, type, result, count, type);
  for (int r = n - 2; r >= 0; --r) s.reduce(op, parts[r], result, count, type);
  s.endRound();
}

}  // namespace

int ibarrier(comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = plan(c, "ibarrier");
  Schedule& s = *p->schedule;
  for (int r = 0; r < c.peerSize(); ++r) s.recv(nullptr, 0, MPI_BYTE, r);
  for (int r = 0; r < c.peerSize(); ++r) s.send(nullptr, 0, MPI_BYTE, r);
  s.endRound();
  return launch(std::move(p), MPI_SUCCESS, mode, out);
}

int ibcast(void* buf, int count, MPI_Datatype type, int root, comm::Comm& c, Mode mode,
           p2p::Request** out) {
  auto p = plan(c, "ibcast");
  Schedule& s = *p->schedule;
  if (root == MPI_ROOT) {
    for (int r = 0; r < c.peerSize(); ++r) s.send(buf, count, type, r);
  } else if (root != MPI_PROC_NULL) {
    s.recv(buf, count, type, root);
  }
  s.endRound();
  return launch(std::move(p), MPI_SUCCESS, mode, out);
}

int ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
            comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = plan(c, "ireduce");
  Schedule& s = *p->schedule;
  if (root == MPI_ROOT) {
    recvReduce(s, count, type, op, recvbuf, c.peerSize());
  } else if (root != MPI_PROC_NULL) {
    s.send(sendbuf, count, type, root);
    s.endRound();
  }
  return launch(std::move(p), s.buildError(), mode, out);
}

int iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = plan(c, "iallreduce");
  Schedule& s = *p->schedule;
  for (int r = 0; r < c.peerSize(); ++r) s.send(sendbuf, count, type, r);
  recvReduce(s, count, type, op, recvbuf, c.peerSize());
  return launch(std::move(p), s.buildError(), mode, out);
}

namespace {

// The reduce-scatter family: every remote process's whole vector (total elements) comes
// here; my block [offset, offset + mine) of their reduction goes to recvbuf.
int reduceScatterPlan(const char* name, const void* sendbuf, void* recvbuf, int total,
                      int64_t offset, int mine, MPI_Datatype type, MPI_Op op, comm::Comm& c,
                      Mode mode, p2p::Request** out) {
  auto p = plan(c, name);
  Schedule& s = *p->schedule;
  for (int r = 0; r < c.peerSize(); ++r) s.send(sendbuf, total, type, r);
  void* acc = s.temp(total, type);
  recvReduce(s, total, type, op, acc, c.peerSize());
  if (mine > 0) s.copy(elemAt(acc, offset, typeOf(type)), mine, type, recvbuf, mine, type);
  s.endRound();
  return launch(std::move(p), s.buildError(), mode, out);
}

}  // namespace

int ireduceScatterBlock(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                        MPI_Op op, comm::Comm& c, Mode mode, p2p::Request** out) {
  return reduceScatterPlan("ireduce_scatter_block", sendbuf, recvbuf, recvcount * c.size,
                           static_cast<int64_t>(recvcount) * c.rank, recvcount, type, op, c, mode,
                           out);
}

int ireduceScatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                   MPI_Op op, comm::Comm& c, Mode mode, p2p::Request** out) {
  int total = 0;
  int64_t offset = 0;
  for (int r = 0; r < c.size; ++r) {
    if (r == c.rank) offset = total;
    total += recvcounts[r];
  }
  return reduceScatterPlan("ireduce_scatter", sendbuf, recvbuf, total, offset, recvcounts[c.rank],
                           type, op, c, mode, out);
}

int igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = plan(c, "igather");
  Schedule& s = *p->schedule;
  if (root == MPI_ROOT) {
    for (int r = 0; r < c.peerSize(); ++r)
      s.recv(elemAt(recvbuf, static_cast<int64_t>(r) * recvcount, typeOf(recvtype)), recvcount,
             recvtype, r);
  } else if (root != MPI_PROC_NULL) {
    s.send(sendbuf, sendcount, sendtype, root);
  }
  s.endRound();
  return launch(std::move(p), MPI_SUCCESS, mode, out);
}

int igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
             comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = plan(c, "igatherv");
  Schedule& s = *p->schedule;
  if (root == MPI_ROOT) {
    for (int r = 0; r < c.peerSize(); ++r)
      s.recv(elemAt(recvbuf, displs[r], typeOf(recvtype)), recvcounts[r], recvtype, r);
  } else if (root != MPI_PROC_NULL) {
    s.send(sendbuf, sendcount, sendtype, root);
  }
  s.endRound();
  return launch(std::move(p), MPI_SUCCESS, mode, out);
}

int iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, comm::Comm& c, Mode mode,
             p2p::Request** out) {
  auto p = plan(c, "iscatter");
  Schedule& s = *p->schedule;
  if (root == MPI_ROOT) {
    for (int r = 0; r < c.peerSize(); ++r)
      s.send(elemAt(sendbuf, static_cast<int64_t>(r) * sendcount, typeOf(sendtype)), sendcount,
             sendtype, r);
  } else if (root != MPI_PROC_NULL) {
    s.recv(recvbuf, recvcount, recvtype, root);
  }
  s.endRound();
  return launch(std::move(p), MPI_SUCCESS, mode, out);
}

int iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
              MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
              comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = plan(c, "iscatterv");
  Schedule& s = *p->schedule;
  if (root == MPI_ROOT) {
    for (int r = 0; r < c.peerSize(); ++r)
      s.send(elemAt(sendbuf, displs[r], typeOf(sendtype)), sendcounts[r], sendtype, r);
  } else if (root != MPI_PROC_NULL) {
    s.recv(recvbuf, recvcount, recvtype, root);
  }
  s.endRound();
  return launch(std::move(p), MPI_SUCCESS, mode, out);
}

int iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = plan(c, "iallgather");
  Schedule& s = *p->schedule;
  for (int r = 0; r < c.peerSize(); ++r)
    s.recv(elemAt(recvbuf, static_cast<int64_t>(r) * recvcount, typeOf(recvtype)), recvcount,
           recvtype, r);
  for (int r = 0; r < c.peerSize(); ++r) s.send(sendbuf, sendcount, sendtype, r);
  s.endRound();
  return launch(std::move(p), MPI_SUCCESS, mode, out);
}

int iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, comm::Comm& c,
                Mode mode, p2p::Request** out) {
  auto p = plan(c, "iallgatherv");
  Schedule& s = *p->schedule;
  for (int r = 0; r < c.peerSize(); ++r)
    s.recv(elemAt(recvbuf, displs[r], typeOf(recvtype)), recvcounts[r], recvtype, r);
  for (int r = 0; r < c.peerSize(); ++r) s.send(sendbuf, sendcount, sendtype, r);
  s.endRound();
  return launch(std::move(p), MPI_SUCCESS, mode, out);
}

int ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = plan(c, "ialltoall");
  Schedule& s = *p->schedule;
  for (int r = 0; r < c.peerSize(); ++r)
    s.recv(elemAt(recvbuf, static_cast<int64_t>(r) * recvcount, typeOf(recvtype)), recvcount,
           recvtype, r);
  for (int r = 0; r < c.peerSize(); ++r)
    s.send(elemAt(sendbuf, static_cast<int64_t>(r) * sendcount, typeOf(sendtype)), sendcount,
           sendtype, r);
  s.endRound();
  return launch(std::move(p), MPI_SUCCESS, mode, out);
}

int ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
               MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
               MPI_Datatype recvtype, comm::Comm& c, Mode mode, p2p::Request** out) {
  auto p = plan(c, "ialltoallv");
  Schedule& s = *p->schedule;
  for (int r = 0; r < c.peerSize(); ++r)
    s.recv(elemAt(recvbuf, rdispls[r], typeOf(recvtype)), recvcounts[r], recvtype, r);
  for (int r = 0; r < c.peerSize(); ++r)
    s.send(elemAt(sendbuf, sdispls[r], typeOf(sendtype)), sendcounts[r], sendtype, r);
  s.endRound();
  return launch(std::move(p), MPI_SUCCESS, mode, out);
}

int ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
               const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
               const int rdispls[], const MPI_Datatype recvtypes[], comm::Comm& c, Mode mode,
               p2p::Request** out) {
  auto p = plan(c, "ialltoallw");
  Schedule& s = *p->schedule;
  for (int r = 0; r < c.peerSize(); ++r)
    s.recv(byteAt(recvbuf, rdispls[r]), recvcounts[r], recvtypes[r], r);
  for (int r = 0; r < c.peerSize(); ++r)
    s.send(byteAt(sendbuf, sdispls[r]), sendcounts[r], sendtypes[r], r);
  s.endRound();
  return launch(std::move(p), MPI_SUCCESS, mode, out);
}

}  // namespace ccmpi::coll::inter
