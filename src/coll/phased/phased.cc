// Phased exchanges: the per-rank view of a schedule, the exchange with its
// synchronization, and the scheduler settings (see phased.h).
#include "coll/phased/phased.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/link.h"
#include "base/tunables.h"
#include "coll/nb_algorithms.h"
#include "runtime/runtime.h"

namespace ccmpi::coll {
namespace {

Tunable<std::string> kPhaseSync(
    "CCMPI_PHASE_SYNC", "ready",
    "how phased Alltoall/Allgather/Alltoallv keep phases apart: ready (a receiver tells its "
    "next sender it is ready), barrier (the paper's barrier between phases), none");
Tunable<uint64_t> kPhaseSmall(
    "CCMPI_PHASE_SMALL", 4096,
    "messages below this many bytes go into one last unsynchronized phase of a schedule");
Tunable<double> kPhaseSyncUs(
    "CCMPI_PHASE_SYNC_US", 200,
    "scheduler cost model: microseconds one phase boundary costs (greedy vs all-to-all based)");

Tunable<std::string> kHostMap(
    "CCMPI_HOST_MAP", "",
    "the host of every world rank for the phased algorithms, \"HOST*COUNT,...\" in rank order "
    "(emulated hosts, for tests); default: the hosts the ranks share memory on (as the "
    "shared-memory transport sees them: CCMPI_SHM_ISLAND splits hosts too)");

const std::vector<int>& worldHosts() {
  static const std::vector<int> hosts = [] {
    const std::string& m = kHostMap.get();
    if (!m.empty()) {
      std::vector<int> v;
      if (!sched::parseHostMap(m, &v))
        fprintf(stderr, "ccmpi: warning: CCMPI_HOST_MAP=%s is not HOST*COUNT,...; ignored\n",
                m.c_str());
      else
        return v;
    }
    return runtime::worldHosts();
  }();
  return hosts;
}

}  // namespace

std::vector<int> commHosts(const comm::Comm& c) {
  const std::vector<int>& world = worldHosts();
  static const size_t worldHostIds =
      world.empty() ? 0 : static_cast<size_t>(*std::max_element(world.begin(), world.end())) + 1;
  std::vector<int> out(c.size), dense(worldHostIds, -1);
  int next = 0;
  for (int i = 0; i < c.size; ++i) {
    const int w = c.isInter() ? -1 : c.worldRankOf(i);
    if (w < 0 || w >= static_cast<int>(world.size())) {
      for (int j = 0; j < c.size; ++j) out[j] = j;  // unknown: a host per rank
      return out;
    }
    int& id = dense[static_cast<size_t>(world[w])];
    if (id < 0) id = next++;
    out[i] = id;
  }
  return out;
}

bool sharesHosts(const std::vector<int>& hostOf) {
  int hosts = 0;
  for (int h : hostOf) hosts = std::max(hosts, h + 1);
  return hosts >= 2 && hosts < static_cast<int>(hostOf.size());
}

const char* phaseSyncName(PhaseSync s) {
  switch (s) {
    case PhaseSync::kReady:
      return "ready";
    case PhaseSync::kBarrier:
      return "barrier";
    case PhaseSync::kNone:
      return "none";
  }
  return "?";
}

PhaseSync defaultPhaseSync() {
  static const PhaseSync sync = [] {
    const char* v = kPhaseSync.get().c_str();
    if (!*v || !strcmp(v, "ready")) return PhaseSync::kReady;
    if (!strcmp(v, "barrier")) return PhaseSync::kBarrier;
    if (!strcmp(v, "none")) return PhaseSync::kNone;
    fprintf(stderr,
            "ccmpi: warning: CCMPI_PHASE_SYNC=%s is not one of ready, barrier, none; using "
            "ready\n",
            v);
    return PhaseSync::kReady;
  }();
  return sync;
}

namespace {
// Whether the messages of at least phaseSmallThreshold() bytes differ by more than 2x.
struct SizeSpread {
  int64_t lo = INT64_MAX, hi = 0;
  void add(const sched::Message& m) {
    if (m.src == m.dst || m.bytes < phaseSmallThreshold()) return;
    lo = std::min(lo, m.bytes);
    hi = std::max(hi, m.bytes);
  }
  PhaseSync sync() const {
    if (kPhaseSync.fromEnv()) return defaultPhaseSync();
    return hi > 0 && lo * 2 < hi ? PhaseSync::kBarrier : defaultPhaseSync();
  }
};
}  // namespace

PhaseSync phaseSyncFor(const sched::Pattern& pattern) {
  SizeSpread s;
  for (const sched::Message& m : pattern) s.add(m);
  return s.sync();
}

PhaseSync phaseSyncFor(const sched::Phases& phases) {
  SizeSpread s;
  for (const sched::Phase& ph : phases)
    if (!ph.small)
      for (const sched::Message& m : ph.messages) s.add(m);
  return s.sync();
}

int64_t phaseSmallThreshold() {
  static const int64_t t = static_cast<int64_t>(kPhaseSmall.get());
  return t;
}

namespace {
const sched::CostModel& costModel() {
  static const sched::CostModel model = [] {
    sched::CostModel m;
    m.bytesPerSecond = tcpPayloadBytesPerSecond(linkMbits());
    m.syncSeconds = std::max(0.0, kPhaseSyncUs.get()) * 1e-6;
    return m;
  }();
  return model;
}
}  // namespace

sched::Phases schedulePattern(int n, const sched::Pattern& pattern, sched::Scheduler* which) {
  return sched::best(n, pattern, phaseSmallThreshold(), costModel(), which);
}

sched::HostSchedule schedulePatternOnHosts(const std::vector<int>& hostOf,
                                           const sched::Pattern& pattern, sched::Scheduler* which) {
  return sched::bestOnHosts(hostOf, pattern, phaseSmallThreshold(), costModel(), which);
}

RankPhases allToAllRankPhases(int n, int rank) {
  RankPhases rp;
  rp.phases.resize(n > 1 ? n - 1 : 0);
  for (int i = 1; i < n; ++i) rp.phases[i - 1] = {(rank + i) % n, (rank - i + n) % n};
  return rp;
}

RankPhases scheduleRankPhases(const comm::Comm& c, const sched::Pattern& pattern, int rank) {
  const std::vector<int> hosts = commHosts(c);
  if (sharesHosts(hosts)) return rankPhasesOf(schedulePatternOnHosts(hosts, pattern), rank);
  return rankPhasesOf(schedulePattern(c.size, pattern), rank);
}

RankPhases allToAllRankPhases(const comm::Comm& c, int rank) {
  const std::vector<int> hosts = commHosts(c);
  return sharesHosts(hosts) ? allToAllRankPhases(hosts, rank) : allToAllRankPhases(c.size, rank);
}

RankPhases allToAllRankPhases(const std::vector<int>& hostOf, int rank) {
  const sched::RankSteps st = sched::allToAllOnHosts(hostOf, rank);
  RankPhases rp;
  rp.phases.reserve(st.steps.size());
  for (const auto& [to, from] : st.steps) rp.phases.push_back({to, from});
  rp.localSendTo = st.local;
  rp.localRecvFrom = st.local;
  return rp;
}

RankPhases rankPhasesOf(const sched::HostSchedule& hs, int rank) {
  RankPhases rp = rankPhasesOf(hs.phases, rank);
  for (const sched::Message& m : hs.local) {
    if (m.src == rank) rp.localSendTo.push_back(m.dst);
    if (m.dst == rank) rp.localRecvFrom.push_back(m.src);
  }
  return rp;
}

RankPhases rankPhasesOf(const sched::Phases& phases, int rank) {
  RankPhases rp;
  for (const sched::Phase& ph : phases) {
    if (ph.small) {
      rp.hasSmall = true;
      for (const sched::Message& m : ph.messages) {
        if (m.src == rank) rp.smallSendTo.push_back(m.dst);
        if (m.dst == rank) rp.smallRecvFrom.push_back(m.src);
      }
      continue;
    }
    RankPhases::Step st;
    for (const sched::Message& m : ph.messages) {
      if (m.src == rank) st.sendTo = m.dst;
      if (m.dst == rank) st.recvFrom = m.src;
    }
    rp.phases.push_back(st);
  }
  return rp;
}

std::string checkRankPhases(const sched::Phases& phases, int rank, int n,
                            const std::function<int64_t(int)>& sendBytes,
                            const std::function<int64_t(int)>& recvBytes) {
  std::vector<int64_t> sent(n, -1), received(n, -1);
  for (const sched::Phase& ph : phases)
    for (const sched::Message& m : ph.messages) {
      if (m.src < 0 || m.src >= n || m.dst < 0 || m.dst >= n)
        return "the schedule names rank " +
               std::to_string(m.src < 0 || m.src >= n ? m.src : m.dst) +
               " outside the communicator of size " + std::to_string(n);
      if (m.src == rank) sent[m.dst] = m.bytes;
      if (m.dst == rank) received[m.src] = m.bytes;
    }
  char buf[160];
  for (int p = 0; p < n; ++p) {
    if (p == rank) continue;
    const int64_t s = sendBytes(p), r = recvBytes(p);
    if ((s > 0 || sent[p] >= 0) && s != sent[p]) {
      snprintf(buf, sizeof buf, "rank %d sends %lld bytes to rank %d but the schedule has %lld",
               rank, static_cast<long long>(s), p,
               static_cast<long long>(sent[p] < 0 ? 0 : sent[p]));
      return buf;
    }
    if ((r > 0 || received[p] >= 0) && r != received[p]) {
      snprintf(buf, sizeof buf,
               "rank %d receives %lld bytes from rank %d but the schedule has %lld", rank,
               static_cast<long long>(r), p,
               static_cast<long long>(received[p] < 0 ? 0 : received[p]));
      return buf;
    }
  }
  return "";
}

void addDisseminationBarrier(Schedule& s) {
  const int n = s.size(), r = s.rank();
  for (int k = 1; k < n; k <<= 1) {
    s.recv(nullptr, 0, MPI_BYTE, (r - k + n) % n);
    s.send(nullptr, 0, MPI_BYTE, (r + k) % n);
    s.endRound();
  }
}

void addPhasedAlltoall(Schedule& s, const RankPhases& rp, PhaseSync sync, bool inPlace,
                       const std::function<Block(int)>& sendBlock,
                       const std::function<Block(int)>& recvBlock, int rails) {
  const std::vector<Block> out = outgoingBlocks(s, inPlace, sendBlock, recvBlock);
  if (!inPlace) {
    const Block from = sendBlock(s.rank()), to = recvBlock(s.rank());
    s.copy(from.addr, from.count, from.type, to.addr, to.count, to.type);
  }
  addPhasedExchange(s, rp, sync, out, recvBlock, rails);
}

void addPhasedExchange(Schedule& s, const RankPhases& rp, PhaseSync sync,
                       const std::vector<Block>& out, const std::function<Block(int)>& recvBlock,
                       int rails) {
  s.endRound();
  // Messages within the host go with the first round (they use no cable).
  for (int from : rp.localRecvFrom) {
    const Block b = recvBlock(from);
    s.recv(b.addr, b.count, b.type, from);
  }
  for (int to : rp.localSendTo) {
    const Block& b = out[to];
    s.send(b.addr, b.count, b.type, to);
  }
  // With several rails, `rails` consecutive phases run at once, phase j of the group on
  // rail j: each rail's switch carries one permutation, so no cable of any rail carries
  // two messages at once. With one, every message the ordinary way (a large one striped
  // over the rails), as in a last group of a single phase.
  const size_t group = static_cast<size_t>(std::max(rails, 1));
  const size_t nPhases = rp.phases.size();
  for (size_t k = 0; k < nPhases; k += group) {
    const size_t m = std::min(group, nPhases - k);
    auto railOf = [m](size_t j) { return m > 1 ? static_cast<int>(j) : -1; };
    auto step = [&](size_t j) -> const RankPhases::Step& { return rp.phases[k + j]; };
    auto in = [&](size_t j) {
      return step(j).recvFrom >= 0 ? recvBlock(step(j).recvFrom) : Block{nullptr, 0, MPI_BYTE};
    };
    switch (sync) {
      case PhaseSync::kReady: {
        // Round 1: post the receives and say "ready" to their senders; wait for the
        // receivers of this rank's messages to say the same. Round 2: send. The receives
        // complete with round 2, so the next phases' "ready" leave only once they have
        // arrived. A rank that only receives waits for its messages in round 1 (no round
        // 2). A peer sends its "ready" before its data, so every "ready" receive is posted
        // before the data receives (a peer may be this rank's receiver in one phase of the
        // group and its sender in another; it is never the receiver of two).
        bool sends = false;
        for (size_t j = 0; j < m; ++j)
          if (step(j).sendTo >= 0) {
            s.recv(nullptr, 0, MPI_BYTE, step(j).sendTo);
            sends = true;
          }
        for (size_t j = 0; j < m; ++j) {
          const RankPhases::Step& st = step(j);
          if (st.recvFrom < 0) continue;
          const Block b = in(j);
          if (sends)
            s.recvLate(b.addr, b.count, b.type, st.recvFrom);
          else
            s.recv(b.addr, b.count, b.type, st.recvFrom);
          s.send(nullptr, 0, MPI_BYTE, st.recvFrom);
        }
        s.endRound();
        for (size_t j = 0; j < m; ++j)
          if (step(j).sendTo >= 0) {
            const Block& b = out[step(j).sendTo];
            s.send(b.addr, b.count, b.type, step(j).sendTo, railOf(j));
          }
        s.endRound();
        break;
      }
      case PhaseSync::kBarrier:
      case PhaseSync::kNone:
        for (size_t j = 0; j < m; ++j) {
          const RankPhases::Step& st = step(j);
          if (st.recvFrom >= 0) {
            const Block b = in(j);
            s.recv(b.addr, b.count, b.type, st.recvFrom);
          }
          if (st.sendTo >= 0) {
            const Block& b = out[st.sendTo];
            s.send(b.addr, b.count, b.type, st.sendTo, railOf(j));
          }
        }
        s.endRound();
        if (sync == PhaseSync::kBarrier && (k + m < nPhases || rp.hasSmall))
          addDisseminationBarrier(s);
        break;
    }
  }
  for (int from : rp.smallRecvFrom) {
    const Block b = recvBlock(from);
    s.recv(b.addr, b.count, b.type, from);
  }
  for (int to : rp.smallSendTo) {
    const Block& b = out[to];
    s.send(b.addr, b.count, b.type, to);
  }
  s.endRound();
}

}  // namespace ccmpi::coll
