// ccmpi-sim: runs one collective of ccmpi, as the library would schedule it, on a
// simulated switched-Ethernet cluster of any size (tools/sim, docs/simulator.md).
//
//   ccmpi-sim --hosts N [--ranks-per-host K] [--rails R] --rate RATE
//             [--topology one-switch|fat-tree:RADIX:OVERSUB] [--algorithm NAME]
//             [--sharing max-min|per-link] [--tcp fair|tail-drop]
//             [--costs FILE] [--latency SECONDS] [-v] COLLECTIVE SIZE
//   ccmpi-sim ... alltoallv PATTERN_FILE
//
// COLLECTIVE: alltoall, allgather, bcast, scatter, gather, allreduce, reduce, alltoallv.
// SIZE: bytes per block (alltoall, allgather, scatter, gather: root 0) or of the whole
// buffer (bcast, allreduce, reduce), with an
// optional k/m/g suffix. PATTERN_FILE: "SRC DST BYTES" lines as ccmpi-schedule reads.
//
// Every rank's part is built by the library's own schedule algorithm (the nonblocking
// table of the collective, coll/<coll>/i<coll>.cc) for a communicator of N x K ranks:
// the same code that runs MPI_I<coll> and, through it, the blocking call. "auto" asks the
// library's selection rules for the blocking collective (at this size, rank count, host
// count and link rate, CCMPI_LINK_MBITS being set to RATE) and takes the first ruled
// algorithm the schedule table has. The multicast broadcast is the one algorithm not
// built from its schedule (its steps are polled operations): it is modelled as one flow
// from the root to every host, acknowledged up a binary tree.
//
// Prints time_ms=T (the last rank's end) and, with -v, the algorithm, the costs, the
// rounds' end times, the message count and the bytes on the cables.
#include <malloc.h>
#include <mpi.h>
#include <sys/mman.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "coll/algorithm.h"
#include "coll/nb_algorithms.h"
#include "coll/node/topology.h"
#include "coll/phased/phased.h"
#include "coll/plan.h"
#include "coll/rules.h"
#include "comm/comm.h"
#include "sim/sim.h"

namespace {

using ccmpi::sim::Op;
using ccmpi::sim::Program;

int usage() {
  fprintf(stderr,
          "usage: ccmpi-sim --hosts N [--ranks-per-host K] [--rails R] --rate RATE\n"
          "                 [--topology one-switch|fat-tree:RADIX:OVERSUB] [--algorithm NAME]\n"
          "                 [--sharing max-min|per-link] [--tcp fair|tail-drop]\n"
          "                 [--costs FILE] [--latency SECONDS] [-v] COLLECTIVE SIZE\n"
          "       ccmpi-sim ... alltoallv PATTERN_FILE\n"
          "  COLLECTIVE: alltoall allgather bcast scatter gather allreduce reduce alltoallv\n"
          "  RATE: bits/s of each cable, e.g. 25mbit, 10gbit\n");
  return 2;
}

int fail(const std::string& why) {
  fprintf(stderr, "ccmpi-sim: %s\n", why.c_str());
  return 1;
}

// "25mbit" -> 25e6 (bits/s); k/m/g with or without "bit", or a plain number.
bool parseRate(const std::string& s, double* bits) {
  char* end = nullptr;
  const double v = strtod(s.c_str(), &end);
  std::string unit(end);
  if (unit.size() >= 3 && unit.compare(unit.size() - 3, 3, "bit") == 0)
    unit.resize(unit.size() - 3);
  double mul = 1;
  if (unit == "k" || unit == "K")
    mul = 1e3;
  else if (unit == "m" || unit == "M")
    mul = 1e6;
  else if (unit == "g" || unit == "G")
    mul = 1e9;
  else if (!unit.empty())
    return false;
  *bits = v * mul;
  return end != s.c_str() && *bits > 0 && std::isfinite(*bits);
}

bool parseSize(const std::string& s, int64_t* bytes) {
  char* end = nullptr;
  const long long v = strtoll(s.c_str(), &end, 10);
  int64_t mul = 1;
  if (*end == 'k' || *end == 'K')
    mul = 1024, ++end;
  else if (*end == 'm' || *end == 'M')
    mul = 1024 * 1024, ++end;
  else if (*end == 'g' || *end == 'G')
    mul = int64_t{1} << 30, ++end;
  *bytes = v * mul;
  return end != s.c_str() && *end == '\0' && v >= 0;
}

// A large address range nobody touches: the buffers the schedules are built for.
void* dummyBuffer(size_t bytes) {
  void* p = mmap(nullptr, bytes ? bytes : 1, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

struct Call {
  std::string coll;
  int64_t size = 0;
  // alltoallv: counts[src][dst] in bytes.
  std::vector<std::vector<int>> counts;
};

// The plan of `call` for rank c.rank (buffers from `buf`, never touched).
std::shared_ptr<ccmpi::coll::Plan> makePlan(const Call& call, ccmpi::comm::Comm& c,
                                            unsigned char* buf, int64_t half) {
  using namespace ccmpi::coll;
  const int n = c.size;
  unsigned char* in = buf;
  unsigned char* out = buf + half;
  const int cnt = static_cast<int>(call.size);
  if (call.coll == "alltoall")
    return makeAlltoallPlan(in, cnt, MPI_BYTE, out, cnt, MPI_BYTE, c, "ialltoall");
  if (call.coll == "allgather")
    return makeAllgatherPlan(in, cnt, MPI_BYTE, out, cnt, MPI_BYTE, c, "iallgather");
  if (call.coll == "bcast") return makeBcastPlan(in, cnt, MPI_BYTE, 0, c, "ibcast");
  if (call.coll == "scatter")
    return makeScatterPlan(in, cnt, MPI_BYTE, out, cnt, MPI_BYTE, 0, c, "iscatter");
  if (call.coll == "gather")
    return makeGatherPlan(in, cnt, MPI_BYTE, out, cnt, MPI_BYTE, 0, c, "igather");
  if (call.coll == "allreduce")
    return makeAllreducePlan(in, out, cnt / 8, MPI_DOUBLE, MPI_SUM, c, "iallreduce");
  if (call.coll == "reduce")
    return makeReducePlan(in, out, cnt / 8, MPI_DOUBLE, MPI_SUM, 0, c, "ireduce");
  if (call.coll == "alltoallv") {
    std::vector<int> sc(n), sd(n), rc(n), rd(n);
    int64_t so = 0, ro = 0;
    for (int p = 0; p < n; ++p) {
      sc[p] = call.counts[c.rank][p];
      rc[p] = call.counts[p][c.rank];
      sd[p] = static_cast<int>(so);
      rd[p] = static_cast<int>(ro);
      so += sc[p];
      ro += rc[p];
    }
    return makeAlltoallvPlan(in, sc.data(), sd.data(), MPI_BYTE, out, rc.data(), rd.data(),
                             MPI_BYTE, c, "ialltoallv");
  }
  return nullptr;
}

// The rule key of the call: what the blocking collective's selection sees.
int64_t ruleBytes(const Call& call) {
  return call.coll == "alltoallv" ? -1 : call.size;
}

}  // namespace

int main(int argc, char** argv) {
  int hosts = 0, perHost = 1, rails = 1;
  double rateBits = 0, latency = -1;
  std::string topoText = "one-switch", algorithm = "auto", costsFile, sharingText = "max-min",
              tcpText = "fair";
  bool verbose = false;
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool v = i + 1 < argc;
    if (a == "--hosts" && v)
      hosts = atoi(argv[++i]);
    else if (a == "--ranks-per-host" && v)
      perHost = atoi(argv[++i]);
    else if (a == "--rails" && v)
      rails = atoi(argv[++i]);
    else if (a == "--rate" && v) {
      if (!parseRate(argv[++i], &rateBits)) return fail(std::string("bad --rate ") + argv[i]);
    } else if (a == "--topology" && v)
      topoText = argv[++i];
    else if (a == "--sharing" && v)
      sharingText = argv[++i];
    else if (a == "--tcp" && v)
      tcpText = argv[++i];
    else if (a == "--algorithm" && v)
      algorithm = argv[++i];
    else if (a == "--costs" && v)
      costsFile = argv[++i];
    else if (a == "--latency" && v)
      latency = atof(argv[++i]);
    else if (a == "-v" || a == "--verbose")
      verbose = true;
    else if (a == "-h" || a == "--help")
      return usage(), 0;
    else if (!a.empty() && a[0] == '-')
      return fail("unknown option " + a), usage();
    else
      pos.push_back(a);
  }
  if (hosts < 1 || perHost < 1 || rails < 1 || rateBits <= 0 || pos.size() != 2) return usage();
  const int n = hosts * perHost;

  ccmpi::sim::Topology topo;
  std::string why;
  if (!topo.parse(topoText, &why) || !topo.parseSharing(sharingText, &why)) return fail(why);
  topo.hosts = hosts;
  topo.rails = rails;
  topo.rate = rateBits / 8 * 1448.0 / 1538.0;  // TCP payload of Ethernet frames
  topo.frameTime = 1538.0 * 8 / rateBits;
  ccmpi::sim::Costs costs;
  if (!costsFile.empty() && !costs.load(costsFile, &why)) return fail(why);
  topo.latency = latency >= 0 ? latency : costs.wireLatency;
  if (!(costs.linkEfficiency > 0 && costs.linkEfficiency <= 1))
    return fail("link_efficiency must lie in (0, 1]");
  topo.rate *= costs.linkEfficiency;
  if (tcpText != "fair" && tcpText != "tail-drop")
    return fail("unknown --tcp '" + tcpText + "' (fair or tail-drop)");
  topo.tailDrop = tcpText == "tail-drop";
  topo.portBuffer = costs.portBuffer;
  topo.dropFlows = costs.tailDropFlows;
  topo.dropFull = costs.tailDropFull;
  topo.dropIdle = costs.tailDropIdle;
  if (topo.tailDrop && !(costs.tailDropFull >= costs.tailDropFlows))
    return fail("tail_drop_full must be at least tail_drop_flows");
  if (topo.tailDrop && !(costs.portBuffer > 0)) return fail("port_buffer must be positive");

  Call call;
  call.coll = pos[0];
  if (call.coll == "alltoallv") {
    std::ifstream in(pos[1]);
    if (!in) return fail("cannot read " + pos[1]);
    call.counts.assign(static_cast<size_t>(n), std::vector<int>(static_cast<size_t>(n), 0));
    std::string line;
    int ln = 0;
    while (std::getline(in, line)) {
      ++ln;
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      long long s, d, b;
      if (!(ls >> s >> d >> b) || s < 0 || d < 0 || s >= n || d >= n || b < 0 || b > INT32_MAX)
        return fail(pos[1] + ":" + std::to_string(ln) + ": want SRC DST BYTES with ranks < " +
                    std::to_string(n));
      call.counts[static_cast<size_t>(s)][static_cast<size_t>(d)] += static_cast<int>(b);
    }
  } else if (!parseSize(pos[1], &call.size) || call.size > INT32_MAX) {
    return fail("bad SIZE " + pos[1]);
  }
  static const char* const kCollectives[] = {"alltoall", "allgather", "bcast",  "scatter",
                                             "gather",   "allreduce", "reduce", "alltoallv"};
  bool known = false;
  for (const char* k : kCollectives) known = known || call.coll == k;
  const std::string table = "i" + call.coll;
  const auto* algs = known ? ccmpi::coll::scheduleTable(table) : nullptr;
  if (!algs)
    return fail("unknown collective " + call.coll +
                " (alltoall, allgather, bcast, scatter, gather, allreduce, reduce, alltoallv)");

  // The library's view of this run: its link rate and (several ranks per host) the hosts.
  char mbits[32];
  snprintf(mbits, sizeof mbits, "%g", rateBits / 1e6);
  setenv("CCMPI_LINK_MBITS", mbits, 1);
  if (perHost > 1) {
    std::string map;
    for (int h = 0; h < hosts; ++h)
      map += (h ? "," : "") + std::to_string(h) + "*" + std::to_string(perHost);
    setenv("CCMPI_HOST_MAP", map.c_str(), 1);
  }
  // The library is started only for its tables and rules, as a job of one: whatever
  // launched this program (srun, mpirun, a PMI) is no job for it to join.
  for (const char* v :
       {"PMI_FD", "PMI_PORT", "PMI_ID", "PMI_RANK", "PMI_SIZE", "PMIX_RANK", "PMIX_NAMESPACE",
        "SLURM_STEP_NUM_TASKS", "SLURM_STEP_ID", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE"})
    unsetenv(v);
  // Each rank's schedule is built, read and dropped in turn: keep the freed memory for the
  // next one instead of returning it to the kernel and faulting it in again.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  MPI_Init(&argc, &argv);
  // After MPI_Init, which found this process's one rail: the rail-aware algorithms put
  // their edges on the simulated hosts' rails, and the rules see their count.
  ccmpi::coll::setJobRails(rails);
  const auto t0 = std::chrono::steady_clock::now();

  ccmpi::comm::Comm c;
  c.size = n;
  c.worldRanks.resize(static_cast<size_t>(n));
  c.fromWorld.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) c.worldRanks[i] = c.fromWorld[i] = i;
  c.hostCount = hosts;
  c.contextId = 1u << 30;
  std::vector<uint64_t> hostKeys(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) hostKeys[static_cast<size_t>(i)] = static_cast<uint64_t>(i / perHost);
  // Rank r's view of the hosts (node algorithms and rules read it instead of asking): one
  // topology, whose rank-specific fields change with the rank.
  const auto topology = ccmpi::coll::node::makeTopology(hostKeys, 0);
  c.nodeState = topology;
  auto becomeRank = [&](int r) {
    c.rank = r;
    ccmpi::coll::node::Topology& t = *topology;
    t.myHost = t.hostOf[static_cast<size_t>(r)];
    t.localRank = t.localOf[static_cast<size_t>(r)];
    t.localSize = t.hostSize[static_cast<size_t>(t.myHost)];
  };
  becomeRank(0);

  // The algorithm: forced, or the blocking collective's rules.
  std::vector<const ccmpi::coll::ScheduleAlgorithm*> order;
  // Multicast is modelled (below), also where the nonblocking table has no such entry
  // (allgather's multicast is blocking only).
  static const ccmpi::coll::ScheduleAlgorithm kMcastModel{"mcast", nullptr, 0};
  auto find = [&](const std::string& name) -> const ccmpi::coll::ScheduleAlgorithm* {
    for (const auto& a : *algs)
      if (name == a.name) return &a;
    if (name == "mcast" && (call.coll == "bcast" || call.coll == "allgather")) return &kMcastModel;
    return nullptr;
  };
  if (algorithm != "auto") {
    const auto* a = find(algorithm);
    if (!a) {
      std::string valid;
      for (const auto& x : *algs) valid += std::string(valid.empty() ? "" : ", ") + x.name;
      return fail(call.coll + " has no schedule algorithm '" + algorithm + "' (" + valid + ")");
    }
    order.push_back(a);
  } else {
    ccmpi::coll::SelectContext ctx{n, true, ruleBytes(call), &c};
    int err = 0;
    size_t next = 0;
    while (const char* name = ccmpi::coll::ruledAlgorithm(call.coll.c_str(), ctx, &err, &next))
      if (const auto* a = find(name)) order.push_back(a);
    for (const auto& a : *algs) order.push_back(&a);
  }

  const int64_t half =
      call.coll == "alltoallv" ? int64_t{1} << 40 : std::max<int64_t>(call.size, 1) * n;
  auto* buf = static_cast<unsigned char*>(dummyBuffer(static_cast<size_t>(2 * half)));
  if (!buf) return fail("cannot reserve the address range of the buffers");

  ccmpi::sim::Simulator sim(topo, costs, n, perHost);
  const ccmpi::coll::ScheduleAlgorithm* chosen = nullptr;
  for (const auto* a : order) {
    ccmpi::coll::SelectContext ctx{n, true, ruleBytes(call), &c};
    if (!ccmpi::coll::restrictionsHold(a->restrictions, ctx)) continue;
    if (!strcmp(a->name, "mcast")) {
      // Bcast: the root multicasts the buffer. Allgather: every rank multicasts its block
      // at once and waits for everyone's (the library's allgather takes turns paced at the
      // link rate; at once, each port carries the same n - 1 blocks).
      if (call.coll != "bcast" && call.coll != "allgather") continue;
      const bool all = call.coll == "allgather";
      std::vector<int> groups;
      for (int root = 0; root < (all ? n : 1); ++root) {
        std::vector<int> members{root};
        for (int i = 0; i < n; ++i)
          if (i != root) members.push_back(i);
        groups.push_back(sim.addGroup(std::move(members)));
      }
      for (int r = 0; r < n; ++r) {
        Program p;
        p.endRound();
        for (size_t g = 0; g < groups.size(); ++g)
          p.ops.push_back({static_cast<int>(g) == r ? Op::Kind::kMcastSend : Op::Kind::kMcastRecv,
                           false, groups[g], static_cast<double>(call.size)});
        sim.setProgram(r, p);
      }
      chosen = a;
      break;
    }
    // Alltoallv: the phased algorithm agrees on the pattern and schedules it while it runs
    // (steps its schedule does not hold yet); here the pattern is known ahead, so its
    // phases come from the library's scheduler at once, as a compiled program's
    // (MPIX_Alltoallv_data_trans2 of a schedule made beforehand, CC-MPI's Level 3) and the
    // exchange from the same builder. Algorithms that gather the pattern at run time
    // (rs_n, rs_nh, drs_n, adaptive) are not simulated.
    const bool v = call.coll == "alltoallv";
    if (v && strcmp(a->name, "phased") && strcmp(a->name, "linear") &&
        strcmp(a->name, "pairwise")) {
      if (algorithm != "auto")
        return fail(std::string("alltoallv ") + a->name +
                    " schedules at run time (simulated: phased, linear, pairwise)");
      continue;
    }
    std::vector<int> hostOf;
    ccmpi::sched::Phases phases;
    ccmpi::sched::HostSchedule hostPhases;
    ccmpi::coll::PhaseSync sync = ccmpi::coll::defaultPhaseSync();
    const bool precomputed = v && !strcmp(a->name, "phased");
    if (precomputed) {
      ccmpi::sched::Pattern pattern;
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
          if (i != j && call.counts[static_cast<size_t>(i)][static_cast<size_t>(j)] > 0)
            pattern.push_back(
                {i, j, call.counts[static_cast<size_t>(i)][static_cast<size_t>(j)], 0});
      sync = ccmpi::coll::phaseSyncFor(pattern);
      hostOf = ccmpi::coll::commHosts(c);
      if (ccmpi::coll::sharesHosts(hostOf))
        hostPhases = ccmpi::coll::schedulePatternOnHosts(hostOf, pattern);
      else
        phases = ccmpi::coll::schedulePattern(n, pattern);
    }
    bool declined = false, polled = false;
    for (int r = 0; r < n && !declined && !polled; ++r) {
      becomeRank(r);
      auto plan = makePlan(call, c, buf, half);
      if (precomputed) {
        const ccmpi::coll::RankPhases rp = ccmpi::coll::sharesHosts(hostOf)
                                               ? ccmpi::coll::rankPhasesOf(hostPhases, r)
                                               : ccmpi::coll::rankPhasesOf(phases, r);
        auto ac = std::make_shared<ccmpi::coll::AlltoallvCall>(plan->args);
        ccmpi::coll::addPhasedAlltoallv(*plan->schedule, rp, sync, ac);
      } else if (a->fn(*plan) == ccmpi::coll::kDecline) {
        declined = true;
        break;
      }
      Program p;
      size_t lastRound = SIZE_MAX;
      plan->schedule->forEachStep([&](size_t round, const ccmpi::coll::Schedule::StepView& s) {
        using K = ccmpi::coll::Schedule::StepView::Kind;
        if (round != lastRound) {
          p.endRound();
          lastRound = round;
        }
        switch (s.kind) {
          case K::kSend:
            p.ops.push_back({Op::Kind::kSend, false, s.peer, static_cast<double>(s.bytes), s.after,
                             static_cast<int8_t>(std::min(s.rail, 127))});
            break;
          case K::kRecv:
            p.ops.push_back({Op::Kind::kRecv, s.late, s.peer, static_cast<double>(s.bytes)});
            break;
          case K::kCopy:
            p.ops.push_back({Op::Kind::kLocalCopy, false, -1, static_cast<double>(s.bytes)});
            break;
          case K::kReduce:
            p.ops.push_back(
                {Op::Kind::kLocalReduce, false, -1, static_cast<double>(s.bytes), s.after});
            break;
          case K::kLocal:
            break;  // bookkeeping: no cost modelled
          case K::kPoll:
            polled = true;
            break;
        }
      });
      sim.setProgram(r, p);
    }
    if (declined) continue;
    if (polled) return fail(std::string("algorithm ") + a->name + " polls (cannot be simulated)");
    chosen = a;
    break;
  }
  if (!chosen) return fail("no algorithm of " + table + " applies");
  const double buildSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  ccmpi::sim::Result res;
  if (!sim.run(&res, &why)) return fail(why);
  const double runSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() - buildSeconds;
  printf("time_ms=%.4f\n", res.time * 1e3);
  if (verbose) {
    printf(
        "algorithm=%s ranks=%d hosts=%d ranks_per_host=%d rails=%d topology=%s rate_bits=%g "
        "tcp=%s\n",
        chosen->name, n, hosts, perHost, rails, topoText.c_str(), rateBits, tcpText.c_str());
    printf("messages=%llu wire_bytes=%.0f rounds=%zu build_s=%.2f run_s=%.2f\n",
           static_cast<unsigned long long>(res.messages), res.wireBytes, res.roundEnd.size(),
           buildSeconds, runSeconds);
    printf("# costs\n%s", costs.describe().c_str());
    printf("# round end_ms (latest rank)\n");
    for (size_t i = 0; i < res.roundEnd.size(); ++i) printf("%zu %.4f\n", i, res.roundEnd[i] * 1e3);
  }
  munmap(buf, static_cast<size_t>(2 * half));
  MPI_Finalize();
  return 0;
}
