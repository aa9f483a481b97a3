// Phased allgather (CC-MPI section 4.2, Table 1's "phased"): every rank sends its block
// straight to every other rank in the n-1 all-to-all phases {j -> (j + i) mod n}, kept
// apart by a synchronization (coll/phased/phased.h): "phased" uses CCMPI_PHASE_SYNC
// (default: the receiver-ready signal), "phased_barrier" the paper's barrier. Each block
// crosses each cable once, as in the ring, but a phase waits for no forwarding.
//
// Where ranks share hosts (phased.h, commHosts), a block needs to cross a host's cable
// once, not once per rank there. With every host holding L ranks: H - 1 host phases; in
// host phase k the rank of local index i on host h sends its block to the rank of local
// index i on host (h + k) mod H (L streams on the cable, all to one host). Each rank then
// holds the blocks of its local index from every host and hands them to its local peers
// (one last round, within the host), who hand it theirs; its own block goes to them with
// the first phase. Each cable carries (H - 1) L blocks each way, the least possible.
// Hosts of different sizes take the all-to-all phases on hosts instead (every block to
// every rank of another host, L copies over the cable).
#include <algorithm>
#include <functional>
#include <vector>

#include "coll/nb_algorithms.h"
#include "coll/phased/phased.h"

namespace ccmpi::coll {
namespace {

// The ranks of every host when all hosts hold the same number (> 1) of ranks and there
// are several hosts; else empty.
std::vector<std::vector<int>> evenHosts(const std::vector<int>& hostOf) {
  if (!sharesHosts(hostOf)) return {};
  int hosts = 0;
  for (int h : hostOf) hosts = std::max(hosts, h + 1);
  std::vector<std::vector<int>> ranksOf(hosts);
  for (size_t r = 0; r < hostOf.size(); ++r) ranksOf[hostOf[r]].push_back(static_cast<int>(r));
  for (const auto& v : ranksOf)
    if (v.size() != ranksOf[0].size()) return {};
  if (hosts < 2) return {};
  return ranksOf;
}

// One copy per host (see above): the host phases, then forwarding within the host.
void addOneCopyPerHost(Schedule& s, PhaseSync sync, const std::vector<std::vector<int>>& ranksOf,
                       const std::vector<int>& hostOf, const std::vector<Block>& out,
                       const std::function<Block(int)>& recvBlock) {
  const int r = s.rank(), hosts = static_cast<int>(ranksOf.size()), h = hostOf[r];
  const std::vector<int>& mine = ranksOf[h];
  const size_t i = std::find(mine.begin(), mine.end(), r) - mine.begin();
  RankPhases rp;
  for (int k = 1; k < hosts; ++k)
    rp.phases.push_back({ranksOf[(h + k) % hosts][i], ranksOf[(h - k + hosts) % hosts][i]});
  for (int q : mine)
    if (q != r) rp.localSendTo.push_back(q), rp.localRecvFrom.push_back(q);
  addPhasedExchange(s, rp, sync, out, recvBlock);
  for (size_t j = 0; j < mine.size(); ++j) {
    if (j == i) continue;
    for (int k = 1; k < hosts; ++k) {
      const Block in = recvBlock(ranksOf[(h - k + hosts) % hosts][j]);
      s.recv(in.addr, in.count, in.type, mine[j]);
      const Block fwd = recvBlock(ranksOf[(h - k + hosts) % hosts][i]);
      s.send(fwd.addr, fwd.count, fwd.type, mine[j]);
    }
  }
  s.endRound();
}

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
  const std::vector<int> hostOf = commHosts(s.comm());
  const std::vector<std::vector<int>> ranksOf = evenHosts(hostOf);
  if (!ranksOf.empty()) {
    addOneCopyPerHost(s, sync, ranksOf, hostOf, out, recvBlock);
    return MPI_SUCCESS;
  }
  addPhasedExchange(s,
                    sharesHosts(hostOf) ? allToAllRankPhases(hostOf, r) : allToAllRankPhases(n, r),
                    sync, out, recvBlock);
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
