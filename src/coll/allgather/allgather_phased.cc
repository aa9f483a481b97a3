// Phased allgather (CC-MPI section 4.2, Table 1's "phased"): every rank sends its block
// straight to every other rank in the n-1 all-to-all phases {j -> (j + i) mod n}, kept
// apart by a synchronization (coll/phased/phased.h): "phased" uses CCMPI_PHASE_SYNC
// (default: the receiver-ready signal), "phased_barrier" the paper's barrier. Each block
// crosses each cable once, as in the ring, but a phase waits for no forwarding.
#include "coll/nb_algorithms.h"
#include "coll/phased/phased.h"

namespace ccmpi::coll {
namespace {

int allgatherPhased(Plan& p, PhaseSync sync) {
  Schedule& s = *p.schedule;
  const CollArgs& a = p.args;
  const int n = s.size(), r = s.rank();
  const datatype::Datatype& rt = typeOf(a.recvtype);
  auto recvBlock = [&](int i) {
    return Block{elemAt(a.recvbuf, i * a.recvcount, rt), a.recvcount, a.recvtype};
  };
  Block mine = recvBlock(r);
  if (a.sendbuf != MPI_IN_PLACE) {
    s.copy(a.sendbuf, a.sendcount, a.sendtype, mine.addr, mine.count, mine.type);
    // Sent from the user's send buffer: the copy into recvbuf need not come first.
    mine = Block{const_cast<void*>(a.sendbuf), a.sendcount, a.sendtype};
  }
  if (dataBytes(a.recvcount, a.recvtype) == 0) return MPI_SUCCESS;
  const std::vector<Block> out(n, mine);
  addPhasedExchange(s, allToAllRankPhases(n, r), sync, out, recvBlock);
  return MPI_SUCCESS;
}

}  // namespace

int allgatherPhasedSchedule(Plan& p) {
  p.algorithm = "phased";
  return allgatherPhased(p, defaultPhaseSync());
}

int allgatherPhasedBarrierSchedule(Plan& p) {
  p.algorithm = "phased_barrier";
  return allgatherPhased(p, PhaseSync::kBarrier);
}

}  // namespace ccmpi::coll
