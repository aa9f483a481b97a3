// Hierarchical alltoallv (ranks on several hosts, some sharing one), the alltoallv form of
// alltoall_node.cc: every rank gathers at its host's leader its row of byte counts to
// send to and receive from every rank (2n numbers), then its blocks packed in host order
// of their destinations (gatherv). The leader knows from the send rows how much its host
// sends each host and from the receive rows how much it receives, without asking other
// hosts: the leaders exchange one message per pair of hosts (alltoallv: host h's message
// to host g holds every block from a rank of h to a rank of g, by h's ranks, then g's),
// and each leader sorts what it received by destination rank and scatters (scatterv) to
// its ranks, who unpack every block in host order of its source (any counts,
// displacements and datatypes; MPI_IN_PLACE: the blocks are packed from the receive
// buffer before anything arrives; empty blocks take no room). Each host's cable carries
// its ranks' blocks for other hosts once, in hosts-1 messages. Before any block moves the
// leaders agree (an allreduce of one number among them, then a broadcast within each
// host) on whether some leader would hold 2 GiB or more: the algorithm then declines on
// every rank alike (the counts of an alltoallv are not known everywhere, so this cannot be
// decided before communicating). Declines also on one host or with one rank per host.
#include <algorithm>
#include <climits>
#include <cstring>
#include <vector>

#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/coll.h"
#include "coll/node/shm.h"
#include "coll/util.h"

namespace ccmpi::coll {

int alltoallvNode(const void* sendbuf, const int* sendcounts, const int* sdispls,
                  MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                  MPI_Datatype recvtype, comm::Comm& c) {
  node::Topology* t;
  comm::Comm *local, *leaders;
  if (int rc = node::hierBegin(c, &t, &local, &leaders)) return rc;
  const int n = c.size, L = t->localSize, H = t->hosts;
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  const datatype::Datatype& rt = typeOf(recvtype);
  const datatype::Datatype& st = inPlace ? rt : typeOf(sendtype);
  const void* src = inPlace ? recvbuf : sendbuf;
  const int* scounts = inPlace ? recvcounts : sendcounts;
  const int* sdisp = inPlace ? rdispls : sdispls;
  // My row: bytes to every rank, then bytes from every rank (comm rank order).
  std::vector<int64_t> row(2 * static_cast<size_t>(n));
  int64_t sendTotal = 0;
  for (int r = 0; r < n; ++r) {
    row[static_cast<size_t>(r)] = scounts[r] * st.size();
    row[static_cast<size_t>(n + r)] = recvcounts[r] * rt.size();
    sendTotal += row[static_cast<size_t>(r)];
  }
  std::vector<int64_t> rows(t->isLeader() ? 2 * static_cast<size_t>(n) * L : 1);
  if (int rc = gather(row.data(), 2 * n, MPI_INT64_T, rows.data(), 2 * n, MPI_INT64_T, 0, *local))
    return rc;
  auto sendBytes = [&](int i, int to) {  // local rank i to comm rank `to`
    return rows[static_cast<size_t>(i) * 2 * n + to];
  };
  auto recvBytes = [&](int j, int from) {  // local rank j from comm rank `from`
    return rows[static_cast<size_t>(j) * 2 * n + n + from];
  };
  // The leader's buffers: what its ranks send (gathered, then regrouped by host) and what
  // they receive (from the other leaders, then sorted by rank).
  int64_t gathered = 0, received = 0;
  if (t->isLeader()) {
    for (int i = 0; i < L; ++i)
      for (int r = 0; r < n; ++r) {
        gathered += sendBytes(i, r);
        received += recvBytes(i, r);
      }
  }
  int64_t big = std::max(gathered, received) > INT_MAX / 2 ? 1 : 0;
  if (leaders)
    if (int rc = allreduce(MPI_IN_PLACE, &big, 1, MPI_INT64_T, MPI_MAX, *leaders)) return rc;
  if (int rc = bcastSelect(&big, 1, MPI_INT64_T, 0, *local)) return rc;
  if (big) return kDecline;
  // My blocks in host order of their destinations.
  std::vector<unsigned char> mine(static_cast<size_t>(sendTotal) + 1);
  for (int pos = 0, at = 0; pos < n; ++pos) {
    const int r = t->byHost[static_cast<size_t>(pos)];
    const int64_t len = row[static_cast<size_t>(r)];
    st.pack(elemAt(src, sdisp[r], st), scounts[r], 0, mine.data() + at, static_cast<size_t>(len));
    at += static_cast<int>(len);
  }
  std::vector<int> lcounts(static_cast<size_t>(L)), ldispls(lcounts.size());
  std::vector<unsigned char> hostRows, back;
  if (t->isLeader()) {
    for (int i = 0, at = 0; i < L; ++i) {
      int64_t s = 0;
      for (int r = 0; r < n; ++r) s += sendBytes(i, r);
      lcounts[static_cast<size_t>(i)] = static_cast<int>(s);
      ldispls[static_cast<size_t>(i)] = at;
      at += static_cast<int>(s);
    }
    hostRows.resize(static_cast<size_t>(gathered) + 1);
  }
  if (int rc = gatherv(mine.data(), static_cast<int>(sendTotal), MPI_BYTE, hostRows.data(),
                       lcounts.data(), ldispls.data(), MPI_BYTE, 0, *local))
    return rc;
  if (t->isLeader()) {
    // Where the blocks of local rank i for host g start in its row: the row is in host
    // order of destinations, so host g's blocks are consecutive.
    std::vector<int64_t> hostStart(static_cast<size_t>(L) * H);
    for (int i = 0; i < L; ++i) {
      int64_t at = ldispls[static_cast<size_t>(i)];
      for (int g = 0; g < H; ++g) {
        hostStart[static_cast<size_t>(i) * H + g] = at;
        const int f = t->firstOf[static_cast<size_t>(g)];
        for (int k = 0; k < t->hostSize[static_cast<size_t>(g)]; ++k)
          at += sendBytes(i, t->byHost[static_cast<size_t>(f + k)]);
      }
    }
    std::vector<int> scount(static_cast<size_t>(H)), sdispl(scount.size()), rcount(scount.size()),
        rdispl(scount.size());
    std::vector<unsigned char> out(static_cast<size_t>(gathered) + 1),
        in(static_cast<size_t>(received) + 1);
    int so = 0, ro = 0;
    for (int g = 0; g < H; ++g) {
      const int f = t->firstOf[static_cast<size_t>(g)], gs = t->hostSize[static_cast<size_t>(g)];
      sdispl[static_cast<size_t>(g)] = so;
      rdispl[static_cast<size_t>(g)] = ro;
      for (int i = 0; i < L; ++i) {
        int64_t len = 0;
        for (int k = 0; k < gs; ++k) len += sendBytes(i, t->byHost[static_cast<size_t>(f + k)]);
        if (len)
          memcpy(out.data() + so, hostRows.data() + hostStart[static_cast<size_t>(i) * H + g],
                 static_cast<size_t>(len));
        so += static_cast<int>(len);
      }
      for (int k = 0; k < gs; ++k)
        for (int j = 0; j < L; ++j)
          ro += static_cast<int>(recvBytes(j, t->byHost[static_cast<size_t>(f + k)]));
      scount[static_cast<size_t>(g)] = so - sdispl[static_cast<size_t>(g)];
      rcount[static_cast<size_t>(g)] = ro - rdispl[static_cast<size_t>(g)];
    }
    hostRows = std::vector<unsigned char>();
    if (int rc = alltoallv(out.data(), scount.data(), sdispl.data(), MPI_BYTE, in.data(),
                           rcount.data(), rdispl.data(), MPI_BYTE, *leaders))
      return rc;
    // From host h: for each of h's ranks (host order), its blocks for my ranks j. Sorted
    // to: for each of my ranks j, the blocks from every rank in host order.
    for (int j = 0, at = 0; j < L; ++j) {
      int64_t s = 0;
      for (int r = 0; r < n; ++r) s += recvBytes(j, r);
      lcounts[static_cast<size_t>(j)] = static_cast<int>(s);
      ldispls[static_cast<size_t>(j)] = at;
      at += static_cast<int>(s);
    }
    back.resize(static_cast<size_t>(received) + 1);
    std::vector<int64_t> fill(ldispls.begin(), ldispls.end());
    size_t from = 0;
    for (int pos = 0; pos < n; ++pos) {
      const int r = t->byHost[static_cast<size_t>(pos)];
      for (int j = 0; j < L; ++j) {
        const int64_t len = recvBytes(j, r);
        if (len) memcpy(back.data() + fill[static_cast<size_t>(j)], in.data() + from, len);
        fill[static_cast<size_t>(j)] += len;
        from += static_cast<size_t>(len);
      }
    }
  }
  int64_t recvTotal = 0;
  for (int r = 0; r < n; ++r) recvTotal += row[static_cast<size_t>(n + r)];
  std::vector<unsigned char> result(static_cast<size_t>(recvTotal) + 1);
  if (int rc = scatterv(back.data(), lcounts.data(), ldispls.data(), MPI_BYTE, result.data(),
                        static_cast<int>(recvTotal), MPI_BYTE, 0, *local))
    return rc;
  for (int pos = 0, at = 0; pos < n; ++pos) {
    const int r = t->byHost[static_cast<size_t>(pos)];
    const int64_t len = row[static_cast<size_t>(n + r)];
    rt.unpack(elemAt(recvbuf, rdispls[r], rt), recvcounts[r], 0, result.data() + at,
              static_cast<size_t>(len));
    at += static_cast<int>(len);
  }
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
