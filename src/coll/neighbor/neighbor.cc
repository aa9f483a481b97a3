// Neighbourhood collectives (see neighbor.h).
#include "coll/neighbor/neighbor.h"

#include <vector>

#include "coll/algorithm.h"
#include "coll/util.h"
#include "comm/topology.h"

namespace ccmpi::coll {
namespace {

// The order in which a rank posts its sends: destination index order, except on a
// Cartesian topology where each dimension's +1 neighbour (index 2d + 1) comes before its -1
// neighbour (2d) (see neighbor.h).
std::vector<size_t> sendOrder(const comm::Comm& c, size_t n) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  if (c.topoKind == MPI_CART)
    for (size_t i = 0; i + 1 < n; i += 2) std::swap(order[i], order[i + 1]);
  return order;
}

// The one round of a neighbourhood collective: receive blocks in source order, then send
// blocks in sendOrder.
int neighborLinear(Plan& p) {
  p.algorithm = "linear";
  const NeighborCall& k = *static_cast<const NeighborCall*>(p.args.call);
  std::vector<int> sources, destinations;
  if (!comm::topologyNeighbors(p.comm, &sources, &destinations))
    return MPI_ERR_TOPOLOGY;  // the API layer checked; a topology never goes away
  Schedule& s = *p.schedule;
  using K = NeighborCall::Kind;
  for (size_t i = 0; i < sources.size(); ++i) {
    if (sources[i] == MPI_PROC_NULL) continue;
    Block b{};
    switch (k.kind) {
      case K::kAllgather:
      case K::kAlltoall:
        b = Block{elemAt(k.recvbuf, static_cast<int64_t>(i) * k.recvcount, typeOf(k.recvtype)),
                  k.recvcount, k.recvtype};
        break;
      case K::kAllgatherv:
      case K::kAlltoallv:
        b = Block{elemAt(k.recvbuf, k.displAt(k.rdispls, i), typeOf(k.recvtype)),
                  k.countAt(k.recvcounts, i), k.recvtype};
        break;
      case K::kAlltoallw:
        b = Block{byteAt(k.recvbuf, k.rdisplsW[i]), k.countAt(k.recvcounts, i), k.recvtypes[i]};
        break;
    }
    s.recv(b.addr, b.count, b.type, sources[i]);
  }
  for (size_t i : sendOrder(p.comm, destinations.size())) {
    if (destinations[i] == MPI_PROC_NULL) continue;
    const void* addr = nullptr;
    int64_t count = 0;
    MPI_Datatype type = k.sendtype;
    switch (k.kind) {
      case K::kAllgather:
      case K::kAllgatherv:
        addr = k.sendbuf;
        count = k.sendcount;
        break;
      case K::kAlltoall:
        addr = elemAt(k.sendbuf, static_cast<int64_t>(i) * k.sendcount, typeOf(k.sendtype));
        count = k.sendcount;
        break;
      case K::kAlltoallv:
        addr = elemAt(k.sendbuf, k.displAt(k.sdispls, i), typeOf(k.sendtype));
        count = k.countAt(k.sendcounts, i);
        break;
      case K::kAlltoallw:
        addr = byteAt(k.sendbuf, k.sdisplsW[i]);
        count = k.countAt(k.sendcounts, i);
        type = k.sendtypes[i];
        break;
    }
    s.send(addr, count, type, destinations[i]);
  }
  s.endRound();
  return MPI_SUCCESS;
}

const Algorithm<ScheduleFn> kAlgorithms[] = {
    {"linear",
     "one round: a receive from every source, then a send to every destination (the "
     "topology's own order; each Cartesian dimension sends up before down)",
     neighborLinear, kAnySize},
};
AlgorithmTable gAllgather("neighbor_allgather", "CCMPI_NEIGHBOR_ALLGATHER_ALGORITHM", kAlgorithms);
AlgorithmTable gAllgatherv("neighbor_allgatherv", "CCMPI_NEIGHBOR_ALLGATHERV_ALGORITHM",
                           kAlgorithms);
AlgorithmTable gAlltoall("neighbor_alltoall", "CCMPI_NEIGHBOR_ALLTOALL_ALGORITHM", kAlgorithms);
AlgorithmTable gAlltoallv("neighbor_alltoallv", "CCMPI_NEIGHBOR_ALLTOALLV_ALGORITHM", kAlgorithms);
AlgorithmTable gAlltoallw("neighbor_alltoallw", "CCMPI_NEIGHBOR_ALLTOALLW_ALGORITHM", kAlgorithms);

AlgorithmTable<ScheduleFn, 1>& tableOf(NeighborCall::Kind k) {
  switch (k) {
    case NeighborCall::Kind::kAllgather:
      return gAllgather;
    case NeighborCall::Kind::kAllgatherv:
      return gAllgatherv;
    case NeighborCall::Kind::kAlltoall:
      return gAlltoall;
    case NeighborCall::Kind::kAlltoallv:
      return gAlltoallv;
    case NeighborCall::Kind::kAlltoallw:
      break;
  }
  return gAlltoallw;
}

// The plan of a call, its schedule compiled by the selected algorithm (kDecline or an
// error class in *rc).
std::shared_ptr<Plan> compile(const NeighborCall& call, comm::Comm& c, int* rc) {
  auto p = std::make_shared<Plan>(c, neighborCollective(call.kind));
  p->args.sendbuf = call.sendbuf;
  p->args.recvbuf = call.recvbuf;
  p->args.call = &call;  // read while the schedule is built, not after
  int64_t bytes = -1;
  if (call.kind == NeighborCall::Kind::kAllgather || call.kind == NeighborCall::Kind::kAlltoall)
    bytes = dataBytes(call.sendcount, call.sendtype);
  *rc = tableOf(call.kind).run(SelectContext{c.size, true, bytes, &c}, *p);
  p->args.call = nullptr;
  return p;
}

}  // namespace

const char* neighborCollective(NeighborCall::Kind k) {
  switch (k) {
    case NeighborCall::Kind::kAllgather:
      return "neighbor_allgather";
    case NeighborCall::Kind::kAllgatherv:
      return "neighbor_allgatherv";
    case NeighborCall::Kind::kAlltoall:
      return "neighbor_alltoall";
    case NeighborCall::Kind::kAlltoallv:
      return "neighbor_alltoallv";
    case NeighborCall::Kind::kAlltoallw:
      break;
  }
  return "neighbor_alltoallw";
}

int ineighbor(const NeighborCall& call, comm::Comm& c, Mode mode, p2p::Request** out) {
  int rc = MPI_SUCCESS;
  std::shared_ptr<Plan> p = compile(call, c, &rc);
  return launch(std::move(p), rc, mode, out);
}

int neighbor(const NeighborCall& call, comm::Comm& c) {
  p2p::Request* r = nullptr;
  if (int rc = ineighbor(call, c, Mode::kNonblocking, &r)) return rc;
  return p2p::wait(r, MPI_STATUS_IGNORE);
}

}  // namespace ccmpi::coll
