// Hierarchical alltoall (ranks on several hosts, some sharing one): every rank packs its
// n blocks in host order of their destinations; each host gathers them at its leader;
// the leaders exchange one message per pair of hosts (alltoallv: host h's message to
// host g holds every block from a rank of h to a rank of g); each leader sorts what it
// received by destination and scatters it to its ranks, who unpack (any placement, any
// datatypes). Each host's cable carries its ranks' blocks for other hosts once, in
// hosts-1 messages instead of ranks x (n - ranks): fewer, larger messages, which is what
// pays across a slow network; within a host it costs two extra copies. Declines with one
// rank per host, on one host, or past 2 GiB at a leader.
#include <climits>
#include <cstring>
#include <vector>

#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/coll.h"
#include "coll/node/shm.h"
#include "coll/util.h"

namespace ccmpi::coll {

int alltoallNode(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int64_t recvcount, MPI_Datatype recvtype, comm::Comm& c) {
  const int n = c.size;
  const int64_t bytes = dataBytes(recvcount, recvtype);
  int rc = MPI_SUCCESS;
  if (node::Topology* t0 = node::hierTopology(c, &rc)) {
    if (bytes * n * t0->maxLocal > INT_MAX / 2) return kDecline;
  } else {
    return rc ? rc : kDecline;
  }
  node::Topology* t;
  comm::Comm *local, *leaders;
  if ((rc = node::hierBegin(c, &t, &local, &leaders))) return rc;
  const size_t b = static_cast<size_t>(bytes);
  const int L = t->localSize, H = t->hosts;
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  const datatype::Datatype& rt = typeOf(recvtype);
  const datatype::Datatype& st = inPlace ? rt : typeOf(sendtype);
  const void* src = inPlace ? recvbuf : sendbuf;
  const int64_t scount = inPlace ? recvcount : sendcount;
  // My blocks in host order of their destinations.
  std::vector<unsigned char> mine(b * n + 1);
  for (int pos = 0; pos < n; ++pos) {
    const int r = t->byHost[static_cast<size_t>(pos)];
    st.pack(elemAt(src, r * scount, st), scount, 0, mine.data() + pos * b, b);
  }
  const int row = static_cast<int>(b) * n;
  std::vector<unsigned char> hostRows, out, in, back;
  if (t->isLeader()) hostRows.resize(static_cast<size_t>(row) * L + 1);
  if ((rc = gather(mine.data(), row, MPI_BYTE, hostRows.data(), row, MPI_BYTE, 0, *local)))
    return rc;
  std::vector<unsigned char> result(b * n + 1);
  if (t->isLeader()) {
    // To host g: for each of my ranks i, its blocks for g's ranks (consecutive in its row).
    std::vector<int> scounts(static_cast<size_t>(H)), sdispls(scounts.size()),
        rcounts(scounts.size()), rdispls(scounts.size());
    int so = 0, ro = 0;
    for (int g = 0; g < H; ++g) {
      const int gs = t->hostSize[static_cast<size_t>(g)];
      scounts[static_cast<size_t>(g)] = L * gs * static_cast<int>(b);
      rcounts[static_cast<size_t>(g)] = gs * L * static_cast<int>(b);
      sdispls[static_cast<size_t>(g)] = so;
      rdispls[static_cast<size_t>(g)] = ro;
      so += scounts[static_cast<size_t>(g)];
      ro += rcounts[static_cast<size_t>(g)];
    }
    out.resize(static_cast<size_t>(so) + 1);
    in.resize(static_cast<size_t>(ro) + 1);
    for (int g = 0, o = 0; g < H; ++g) {
      const int gs = t->hostSize[static_cast<size_t>(g)];
      const size_t from = static_cast<size_t>(t->firstOf[static_cast<size_t>(g)]) * b;
      for (int i = 0; i < L; ++i, o += gs * static_cast<int>(b))
        memcpy(out.data() + o, hostRows.data() + static_cast<size_t>(i) * row + from, gs * b);
    }
    if ((rc = alltoallv(out.data(), scounts.data(), sdispls.data(), MPI_BYTE, in.data(),
                        rcounts.data(), rdispls.data(), MPI_BYTE, *leaders)))
      return rc;
    // From host h: for each of h's ranks i (host order), its blocks for my ranks j. Sorted
    // to: for each of my ranks j, the blocks of every rank in host order.
    back.resize(static_cast<size_t>(row) * L + 1);
    for (int h = 0; h < H; ++h) {
      const int hs = t->hostSize[static_cast<size_t>(h)];
      const int f = t->firstOf[static_cast<size_t>(h)];
      for (int i = 0; i < hs; ++i)
        for (int j = 0; j < L; ++j)
          memcpy(back.data() + static_cast<size_t>(j) * row + (f + i) * b,
                 in.data() + rdispls[static_cast<size_t>(h)] + (static_cast<size_t>(i) * L + j) * b,
                 b);
    }
  }
  if ((rc = scatter(back.data(), row, MPI_BYTE, result.data(), row, MPI_BYTE, 0, *local)))
    return rc;
  for (int pos = 0; pos < n; ++pos) {
    const int r = t->byHost[static_cast<size_t>(pos)];
    rt.unpack(elemAt(recvbuf, r * recvcount, rt), recvcount, 0, result.data() + pos * b, b);
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
