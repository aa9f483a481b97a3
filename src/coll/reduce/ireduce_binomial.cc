// Binomial-tree reduction as a schedule, for commutative ops. Ranks are renumbered
// relative to the root (v = r - root mod n); the children of v are v + 2^k for every 2^k
// below v's lowest set bit, its parent is v minus that bit.
//  Round 1: receive every child's partial result at once, each into its own temporary.
//  Round 2: fold them into the accumulator (recvbuf at the root, else a temporary, or
//           the input itself on a leaf) and send it to the parent.
// ceil(log2 n) levels; partial results combine ranks in rotated order, hence
// commutative ops only.
#include <vector>

#include "coll/nb_algorithms.h"
#include "op/op.h"

namespace ccmpi::coll {

void addReduceBinomial(Schedule& s, const void* sendbuf, void* recvbuf, int64_t count,
                       MPI_Datatype type, MPI_Op op, int root) {
  const int n = s.size(), r = s.rank();
  const int v = (r - root + n) % n;
  const void* mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  std::vector<void*> parts;
  int mask = 1;
  for (; mask < n && !(v & mask); mask <<= 1) {
    if (v + mask >= n) continue;
    void* t = s.temp(count, type);
    s.recv(t, count, type, (v + mask + root) % n);
    parts.push_back(t);
  }
  const void* acc = mine;
  if (r == root) {
    s.copy(mine, count, type, recvbuf, count, type);
    acc = recvbuf;
  } else if (!parts.empty()) {
    void* t = s.temp(count, type);
    s.copy(mine, count, type, t, count, type);
    acc = t;
  }
  s.endRound();
  for (void* t : parts) s.reduce(op, t, const_cast<void*>(acc), count, type);
  if (v != 0) s.send(acc, count, type, (v - mask + root) % n);
  s.endRound();
}

void addReduce(Schedule& s, const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
               MPI_Op op, int root) {
  if (ccmpi::op::isCommutative(op))
    addReduceBinomial(s, sendbuf, recvbuf, count, type, op, root);
  else
    addReduceOrderedBinomial(s, sendbuf, recvbuf, count, type, op, root);
}

int ireduceBinomial(Plan& p) {
  p.algorithm = "binomial";
  const CollArgs& a = p.args;
  addReduceBinomial(*p.schedule, a.sendbuf, a.recvbuf, a.recvcount, a.recvtype, a.op, a.root);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
