// Bruck's alltoall (Bruck, Ho, Kipnis, Upfal, Weathersby 1997), for any n. Works on a
// packed temporary of n blocks of B bytes (B = one block's data):
//   1. rotation: slot i holds the block for rank (r + i) mod n (packed from sendbuf, or
//      from recvbuf under MPI_IN_PLACE);
//   2. round k = 0 .. ceil(log2 n)-1: the slots whose index has bit k set are packed
//      together, sent to (r + 2^k) mod n, and replaced by what (r - 2^k) mod n sends;
//      a block thus travels i = sum of its index bits ranks to its destination;
//   3. inverse rotation: slot i now holds the block from rank (r - i) mod n, unpacked into
//      its place in recvbuf.
// Cost: ceil(log2 n) rounds, each sending one message of at most ceil(n/2) blocks
// (about B n/2 log2 n bytes in all, against B (n-1) for pairwise): the choice for small
// blocks, where the message count dominates. Memory: 2n B bytes of temporaries.
// Send and receive types may differ (same signature); derived types are packed. In place
// is natural: recvbuf is read in step 1 and written only in step 3.
#include <cstring>
#include <vector>

#include "coll/nb_algorithms.h"

namespace ccmpi::coll {

int alltoallBruckSchedule(Plan& p) {
  p.algorithm = "bruck";
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const bool inPlace = a.sendbuf == MPI_IN_PLACE;
  const datatype::Datatype& rt = typeOf(a.recvtype);
  auto recvBlock = [&](int i) { return elemAt(a.recvbuf, i * a.recvcount, rt); };
  if (!inPlace) {
    const datatype::Datatype& st = typeOf(a.sendtype);
    s.copy(elemAt(a.sendbuf, r * a.sendcount, st), a.sendcount, a.sendtype, recvBlock(r),
           a.recvcount, a.recvtype);
  }
  const int64_t bytes = dataBytes(a.recvcount, a.recvtype);  // the same at every rank
  if (n == 1 || bytes == 0) return MPI_SUCCESS;

  // Slot 0 (the own block) never moves; slots 1..n-1 live in `slots`.
  const size_t b = static_cast<size_t>(bytes);
  auto* slots = static_cast<unsigned char*>(s.tempBytes((n - 1) * bytes));
  auto* out = static_cast<unsigned char*>(s.tempBytes(((n + 1) / 2) * bytes));
  auto* in = static_cast<unsigned char*>(s.tempBytes(((n + 1) / 2) * bytes));
  if (int rc = s.buildError()) return rc;
  auto slot = [&](int i) { return slots + (i - 1) * b; };

  for (int i = 1; i < n; ++i) {
    const int to = (r + i) % n;
    if (inPlace) {
      s.copy(recvBlock(to), a.recvcount, a.recvtype, slot(i), bytes, MPI_BYTE);
    } else {
      const datatype::Datatype& st = typeOf(a.sendtype);
      s.copy(elemAt(a.sendbuf, to * a.sendcount, st), a.sendcount, a.sendtype, slot(i), bytes,
             MPI_BYTE);
    }
  }
  for (int pof = 1; pof < n; pof *= 2) {
    std::vector<unsigned char*> moved;
    for (int i = 1; i < n; ++i)
      if (i & pof) moved.push_back(slot(i));
    s.local([moved, out, b] {
      for (size_t j = 0; j < moved.size(); ++j) std::memcpy(out + j * b, moved[j], b);
      return MPI_SUCCESS;
    });
    const int64_t len = static_cast<int64_t>(moved.size()) * bytes;
    s.send(out, len, MPI_BYTE, (r + pof) % n);
    s.recv(in, len, MPI_BYTE, (r - pof + n) % n);
    s.endRound();
    s.local([moved, in, b] {
      for (size_t j = 0; j < moved.size(); ++j) std::memcpy(moved[j], in + j * b, b);
      return MPI_SUCCESS;
    });
  }
  for (int i = 1; i < n; ++i)
    s.copy(slot(i), bytes, MPI_BYTE, recvBlock((r - i + n) % n), a.recvcount, a.recvtype);
  s.endRound();
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
