// Rank-ordered binomial reduction as a schedule, correct for non-commutative ops. The
// tree is rooted at rank 0 without renumbering: rank r's children are r + 2^k for every
// 2^k below its lowest set bit, and child r + 2^k holds x_{r+2^k} op ... op x_{r+2^(k+1)-1}.
//  Round 1: receive every child's partial result at once, each into its own temporary.
//  Round 2: acc = mine; for each child in increasing order, child := acc op child and
//           acc := child (lower ranks on the left); send acc to the parent.
//  Round 3: rank 0 hands x_0 op ... op x_{n-1} to the root (or copies it, root 0).
#include <vector>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

void addReduceOrderedBinomial(Schedule& s, const void* sendbuf, void* recvbuf, int64_t count,
                              MPI_Datatype type, MPI_Op op, int root) {
  const int n = s.size(), r = s.rank();
  const void* mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  std::vector<void*> parts;
  int mask = 1;
  for (; mask < n && !(r & mask); mask <<= 1) {
    if (r + mask >= n) continue;
    void* t = s.temp(count, type);
    s.recv(t, count, type, r + mask);
    parts.push_back(t);
  }
  s.endRound();
  const void* acc = mine;
  for (void* t : parts) {
    s.reduce(op, acc, t, count, type);
    acc = t;
  }
  if (r != 0) s.send(acc, count, type, r - mask);
  s.endRound();
  if (r == 0) {
    if (root == 0)
      s.copy(acc, count, type, recvbuf, count, type);
    else
      s.send(acc, count, type, root);
  } else if (r == root) {
    s.recv(recvbuf, count, type, 0);
  }
  s.endRound();
}

int ireduceOrderedBinomial(Plan& p) {
  p.algorithm = "ordered_binomial";
  const CollArgs& a = p.args;
  addReduceOrderedBinomial(*p.schedule, a.sendbuf, a.recvbuf, a.recvcount, a.recvtype, a.op,
                           a.root);
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
