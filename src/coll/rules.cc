// The rule table (see rules.h): the built-in rules, the CCMPI_COLL_RULES file, parsing.
//
// How the built-in rules were made (rules with a hosts range: see below): bench/coll/rules.sh
// forces every algorithm of a collective in turn (CCMPI_<COLL>_ALGORITHM) and times it with
// bench/coll/coll_sweep.c at 4, 8 and 16 ranks over message sizes from 8 B to 4 MiB, on one machine
// (TCP over loopback, ranks sharing its cores); the rules name the fastest algorithm of each
// (ranks, size) cell, merged into ranges. Its output and the figures behind these rules
// are in docs/results/coll-rules/. On a network with other costs, measure again and hand
// the result in with CCMPI_COLL_RULES (the same format).
#include "coll/rules.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

#include "base/tunables.h"
#include "coll/coll.h"
#include "coll/cost_model.h"
#include "comm/comm.h"

namespace ccmpi::coll {
namespace {

Tunable<std::string> kRulesFile(
    "CCMPI_COLL_RULES", "",
    "file of collective selection rules replacing the built-in table (see ccmpi_info "
    "--algorithms for the rules in force and the format)");

// The built-in rules, in the file format.
const char kBuiltinRules[] = R"(
# collective            ranks   bytes        algorithm
# Node-aware collectives (coll/node/). On one host, the shared-memory algorithms: the
# ranks map one segment and move data through it with no message (docs/collectives.md).
# bench: 16 ranks on the 2 cores, 2026-11-26, drafts taken while other builds ran (load
# 5-10), average us, auto before / shm: barrier 821 / 84; bcast 8 B 48 / 4-20, 64 KiB
# 642 / 33-115, 1 MiB 3411 / 103-338; allreduce 8 B 883 / 405-677, 64 KiB 1773 / 740-1352,
# 1 MiB 12986 / 4393-11791; reduce 675 / 364-489, 1456 / 633-1124, 9380 / 4167-6076;
# allgather 1022 / 329-446, 3015 / 3064-3436, 38446 / 15777-17911; alltoall 8 B 1105 /
# 360, 64 KiB 8089 / 4333, 1 MiB 33733 / 108108 (64 copies of 16 KiB sub-slots: not used
# there). 4 ranks: barrier 163 / 27, bcast 1 MiB 583 / 78, allreduce 1 MiB 1857 / 642,
# reduce 1 MiB 2379 / 1008.
barrier                 *       *            shm                  1
bcast                   *       *            shm                  1
reduce                  *       *            shm                  1
allreduce               *       *            shm                  1
allgather               *       *            shm                  1
alltoall                *       0-64k        shm                  1
# Ranks on several hosts, some sharing one: hierarchical (within each host through the
# rules above, then among one leader per host through the rules for the leaders'
# communicator), so a vector crosses each host's cable once per leader step rather than
# once per rank. Only where some host has 2 or more ranks (the seventh field). The
# emulated cluster, 4 hosts x 4 ranks at 25 Mbit/s, 2026-11-26 (2 iterations each, one
# run; ms): allreduce 1 MiB node 573, rabenseifner 2325 (Open MPI's best forced: 3861,
# FINDINGS; a hierarchical algorithm's cable traffic alone takes ~534); allgather 64 KiB
# node 288, auto before 1281; alltoall 64 KiB node 1217, phased 1162, pairwise 1398 (so
# alltoall keeps its rules); bcast 1 MiB node 726, binomial 728, multicast over all 16
# ranks 525 (one copy per cable already: the multicast rules stay ahead of node, below).
barrier                 *       *            node                 2-*     *       2-*
reduce                  *       *            node                 2-*     *       2-*
allreduce               *       *            node                 2-*     *       2-*
allgather               *       *            node                 2-*     *       2-*
# The same cluster, node against the automatic choice before (bench/node/node_rules.py,
# 2026-11-26 03:45, 2 iterations, 2 runs, drafts taken while other work ran: load 6-8;
# ms): allgatherv 1 KiB a rank node 4.6-5.4, ring 6.9-9.7; 64 KiB 290-299 vs 346-347;
# reduce_scatter 1 KiB a rank (16 KiB vector) 4.7-6.1 vs 13.9-14.1 (reduce_scatterv),
# 64 KiB 289-297 vs 1432-1529 (pairwise; the leaders' cable bound is ~267);
# reduce_scatter_block 1 KiB 4.8-5.8 vs 13.8-14.0, 64 KiB 290-306 vs 989-1006
# (reduce_scatter). No node rule where it does not win: gather, gatherv, scatter and
# scatterv are bound by the root's cable either way (64 KiB: linear 266-306, node
# 269-273) and node's extra step costs ~0.5-1 ms at 1 KiB (gather 3.1 vs 3.7, scatterv
# 3.4 vs 4.3); alltoallv keeps phased (1 KiB 20.6-20.9 vs node 22.0-24.5, 64 KiB
# 1135-1204 vs 1184-1255, 256 KiB 4717-4760 vs 4815-4890, bound ~4280: both near the
# cables' bound, node pays two more steps).
allgatherv              *       *            node                 2-*     *       2-*
reduce_scatter          *       *            node                 2-*     *       2-*
reduce_scatter_block    *       *            node                 2-*     *       2-*
# On one host the tree barrier's 2(n-1) messages cost less CPU than dissemination's
# n log2 n where ranks share cores (OSU osu_barrier on 2 cores, 2026-11-24, 3 runs:
# 16 ranks 221-254 us against 285-403 us; 4 ranks within the noise), and it releases
# rank 0 first, so a collective rooted there that follows it starts early (osu_bcast 8 B,
# 4 ranks: 4-7 us against 16-26 us). Across hosts dissemination's log2 n rounds win when
# every rank has a core of its own; where ranks queue for cores (ranks per core, the sixth
# field: the emulated cluster's hosts share this machine's 2 cores) the tree's fewer
# messages win again (osu_barrier, 100 Mbit/s emulated hosts, 2026-11-25, 2 runs each:
# 29 hosts 579 us against 1011 (Open MPI 984), 16 hosts 285-319 against 427-438, 8 hosts
# 149-177 against 165-177, 4 hosts 45-62 against 45-59).
barrier                 *       *            tree                 1
barrier                 *       *            tree                 *       4-*
barrier                 *       *            dissemination
ibarrier                *       *            dissemination
# Multicast where ranks are on 3 or more hosts (the emulated 100 Mbit/s switch, 2-29
# hosts, docs/results/bcast and bcast-sizes): from 4 KiB on one paced multicast beats every
# tree (at 16 hosts 64 KiB: 7.9 ms vs 16 ms for the best unicast algorithm; at 10 KiB it
# wins from 4 hosts up); below, trees are as fast. On 2 hosts there is one remote
# receiver and a plain send is 8% faster (10 KiB: 0.87 vs 0.94 ms). It declines where
# multicast does not work, and the rules below apply.
# Since a small multicast's root returns as soon as its datagram is out (acknowledgements
# come later, docs/multicast.md), multicast is also the fastest broadcast below 4 KiB from
# 16 hosts on (2026-11-25: 16 hosts 1 B 0.28-0.32 ms vs 0.31-0.38 for the best unicast
# algorithm, 1 KiB 0.26 vs 0.32; 20 hosts 1 B 0.39 vs 0.46; 29 hosts 0.65 vs 0.67;
# docs/results/bcast and bcast-sizes). On 5-15 hosts the binary tree is the fastest below
# 1 KiB (8 hosts 1 B 0.12 ms vs binomial's 0.15, 12 hosts 0.24 vs 0.31).
# Hosts with two NICs on switches of their own (docs/multirail.md): multicast takes both
# rails at once (a lane per rail), and stays ahead; where it declines, the two-tree
# broadcast over both rails from 2 MiB. 16 emulated hosts x 2 rails at 25 Mbit/s,
# 2026-11-27 (3 repetitions, best, load 1.2-2.2), ms: 256 KiB multicast 47.2, two_tree
# 97.5 (the two-rail bound 44.5); 1 MiB 190 vs 353; 4 MiB 754 vs 1405 (bound 713). Before
# multicast took the second rail (docs/results/multirail, one repetition): 4 MiB two_tree
# 1435, multicast 2814, Open MPI's best 2244.
bcast                   *       *            mcast                16-*
bcast                   *       4k-*         mcast                3-*
bcast                   *       2m-*         two_tree             3-*     *       *       2-*
bcast                   *       *            node                 2-*     *       2-*
# Within one host large messages move by single-copy reads (p2p/cma): every receiver
# reads the root's buffer at once, so the linear broadcast beats the trees from 64 KiB
# (OSU sweep on 2 cores, 2026-11-25, docs/results/osu-coll/sweep.md: 4 ranks 64 KiB 7.1
# vs 10.3 us binomial, 1 MiB 154 vs 193 us; 16 ranks 64 KiB 41 vs 55 us, 1 MiB 414 vs
# 823 us).
bcast                   *       64k-*        linear               1
bcast                   *       0-1k         binary_tree          5-*
bcast                   1-6     16k-512k     binary_tree
bcast                   *       *            binomial
# The same for the nonblocking and persistent broadcast (the multicast algorithm is the
# same message as a schedule).
ibcast                  *       *            mcast                16-*
ibcast                  *       4k-*         mcast                3-*
ibcast                  *       2m-*         two_tree             3-*     *       *       2-*
ibcast                  *       *            binomial
allreduce               1-6     0-16k        recursive_doubling
allreduce               1-6     16k-256k     reduce_bcast
# Within a host large messages move by single-copy reads (p2p/cma), which favour fewer,
# larger transfers: OSU osu_allreduce on 2 cores, 2026-11-25, 2 runs, 256 KiB-2 MiB,
# rabenseifner against ring: 3 ranks 230-604 vs 303-656 us, 4 ranks 200-594 vs 368-854,
# 5 ranks 367-815 vs 671-1326, 6 ranks 415-1100 vs 659-1851 (mixed at 4 MiB).
allreduce               1-6     256k-*       rabenseifner
allreduce               7-12    0-1k         recursive_doubling
allreduce               7-*     0-256k       reduce_bcast
allreduce               7-*     256k-*       rabenseifner
iallreduce              1-6     0-16k        recursive_doubling
iallreduce              1-6     16k-256k     reduce_bcast
iallreduce              1-6     256k-*       ring
iallreduce              7-*     0-256k       reduce_bcast
iallreduce              7-*     256k-*       rabenseifner
reduce                  *       *            binomial
# One rank per host on 9 or more hosts (the emulated 100 Mbit/s switch, 16 hosts:
# docs/results/coll-rules/network.md): phases pay off for large alltoall blocks. Alltoall
# from 512 B to 64 KiB: pairwise; the sweep of network.md had linear ahead by 8-17%, both
# ccmpi-bench alltoall runs (2026-11-22 and 11-24, docs/results/alltoall) pairwise ahead
# by 6-33% (11-24, 4 KiB: pairwise 7.9 ms, linear 11.8 ms). Phased from 16 KiB (ranges
# are inclusive: the rule "512-64k pairwise" had 64 KiB itself go pairwise). The run of
# 2026-11-25 with TCP pacing (docs/results/alltoall), ms: 4 KiB pairwise 7.02, phased
# 9.88; 16 KiB phased 32.7, pairwise 34.6; 64 KiB phased 121, pairwise 211, and the
# automatic choice (then pairwise) 222.
allgather               9-*     0-4k         recursive_doubling   9-*
allgather               9-*     4k-32k       ring                 9-*
# Allgather from 32 KiB on 9 or more hosts: n multicasts, each block crossing every cable
# once (2026-11-25 with TCP pacing, docs/results/allgather, 16 hosts, ms: 64 KiB mcast
# 93.7, recursive doubling 109, ring 108; 256 KiB mcast 372, recursive doubling 396,
# ring 437). Where multicast does not work it declines and the next rule applies.
allgather               9-*     32k-*        mcast                9-*
allgather               9-*     32k-*        recursive_doubling   9-*
alltoall                9-*     0-512        bruck                9-*
alltoall                9-*     512-16383    pairwise             9-*
# Hosts with two NICs or more (one rank each): two phases at once, each whole on a rail of
# its own (phased_rails, docs/multirail.md), ahead of one phase at a time striped over both.
# 16 emulated hosts x 2 rails at 12.5 Mbit/s, 2026-11-28, coll_bench medians, ms (2-3
# runs each): 16 KiB 166-168 vs 176-177; 64 KiB 507-513 vs 740-781; 256 KiB 1468-1533
# vs 1585-1643 (bound 1336); 1 MiB 6180-6387 vs 6384-6442 (bound 5346).
alltoall                9-*     16k-*        phased_rails         9-*     *       1       2-*
alltoall                9-*     16k-*        phased               9-*
ialltoall               9-*     64k-*        phased               9-*
# Several ranks per host (9 or more ranks on 2-8 hosts): the phases are host-level
# (coll/phased/phased.h). 4 emulated hosts x 4 ranks at 25 Mbit/s, 2026-11-26 (drafts,
# load average 5-7), ms: alltoall 16 KiB phased 283, pairwise 307; 64 KiB phased
# 1121-1140, pairwise 1317-1404 (host-cable bound 1069); 4 KiB pairwise 71, phased 76-79.
# Allgather (one copy per host): 16 KiB phased 73, bruck 362; 64 KiB 283-290 vs 1260
# (bound 267); 256 KiB 1160 vs 1436.
alltoall                9-*     16k-*        phased               2-8
allgather               9-*     16k-*        phased               2-8
# Ranks on 2-8 hosts (the emulated 100 Mbit/s switch, 4 hosts: docs/results/alltoall):
# Bruck's log2 n rounds forward blocks again, which a link pays for from 1 KiB on (4 hosts,
# 1 KiB: bruck 356 us, pairwise 285 us; 4 KiB: 1449 vs 1084 us; 16 KiB: 6442 vs 4365 us).
alltoall                *       0-512        bruck                2-8
alltoall                *       512-*        pairwise             2-8
ialltoall               *       0-512        bruck                2-8
ialltoall               *       512-*        pairwise             2-8
# One host, small blocks: recursive doubling (folding the ranks beyond a power of two)
# ahead of Bruck at every size tried (OSU osu_allgather 8 B-8 KiB on 2 cores, 2026-11-25,
# 2000 iterations: 3 ranks 19-27 vs 23-27 us, 5 ranks 48-59 vs 57-72, 8 ranks 90-107 vs
# 105-122, 16 ranks 313-417 vs 345-418; 4 ranks 8 B, 20,000 iterations: 29 vs 34-38 us).
allgather               *       0-8k         recursive_doubling   1
allgather               *       0-128k       bruck
allgather               1-6     128k-*       recursive_doubling
allgather               7-*     128k-*       ring
iallgather              *       0-128k       bruck
iallgather              *       128k-*       ring
allgatherv              *       *            ring
# One host, 7 ranks or more, from 64 KiB: every exchange posted at once (the same sweep:
# 16 ranks 64 KiB 2.7 vs 3.4 ms pairwise, 1 MiB 16.8 vs 21.5 ms; at 4 ranks the two are
# within 3%).
alltoall                7-*     64k-*        linear               1
alltoall                *       0-4k         bruck
alltoall                *       4k-*         pairwise
ialltoall               *       0-4k         bruck
ialltoall               *       4k-*         pairwise
# Alltoallv where ranks are on 2 or more hosts: phased, which first agrees on the largest
# message (one dissemination allreduce) and goes linear below CCMPI_PHASED_MIN (8 KiB).
# NPB IS on the emulated switch (docs/results/npb-is, 2026-11-25, TCP paced), class A / B
# in s: 16 hosts phased 2.63 / 8.78, pairwise 2.64 / 8.81, linear 4.60 / 11.51; 8 hosts
# phased 3.44 / 14.20, linear 4.02 / 15.36. Pairwise is as good there but loses on sparse
# patterns (docs/results/unstructured, 24 hosts, 4 peers of 128 KiB: 213 ms, phased 129,
# linear 139). Small exchanges pay for the agreement, less since a call after a small
# dense one skips it (16 hosts, 2 KiB a pair, docs/results/alltoallv: automatic choice
# 4.55 ms, forced linear 3.89, Open MPI 4.88). Phased itself goes linear for thin
# patterns (some rank sends to fewer than 3/4 of its peers) and skips the agreement for a
# while after a sparse or thin one (docs/unstructured.md: 32 hosts, d = 4 and 16, 16 B -
# 128 KiB: at most 14% behind the best forced algorithm, 0.4-0.9x Open MPI's best).
alltoallv               *       *            phased               2-*
alltoallv               *       *            linear
reduce_scatter_block    1-6     *            pairwise
reduce_scatter_block    7-*     0-64k        reduce_scatter
reduce_scatter_block    7-*     64k-*        pairwise
reduce_scatter          1-6     *            pairwise
reduce_scatter          7-*     0-64k        reduce_scatterv
reduce_scatter          7-*     64k-*        pairwise
gather                  *       *            linear
# Scatter: the binomial tree from 13 ranks below 8 KiB on one host (the loopback sweep);
# across hosts the root's cable carries every block either way and linear keeps it busy
# without store-and-forward stages (29 emulated hosts, 100 Mbit/s, docs/results/scatter,
# 2026-11-25: linear / binomial 50 B 0.71 / 0.73 ms, 1 KiB 2.51 / 2.48, 4 KiB 9.75 / 14.7,
# 16 KiB 39.1 / 62.6).
scatter                 13-*    0-8k         binomial             1
scatter                 *       *            linear
)";

bool knownAlgorithm(const std::string& coll, const std::string& alg, bool* knownColl) {
  *knownColl = false;
  if (alg == kModelAlgorithm && hasCostModel(coll)) {
    *knownColl = true;
    return true;
  }
  for (const auto& d : algorithmTables()) {
    if (d.collective != coll) continue;
    *knownColl = true;
    for (const auto& a : d.algorithms)
      if (a.name == alg) return true;
  }
  return false;
}

}  // namespace

int ruleHosts(int commSize, const comm::Comm* c) {
  if (c && c->size == commSize) {
    if (c->hostCount > 0) return c->hostCount;
    const std::vector<int>& hostOf = worldRankHosts();
    bool known = !hostOf.empty();
    std::vector<int> seen;
    for (int i = 0; known && i < c->size; ++i) {
      const int w = c->worldRankOf(i);
      if (w < 0 || w >= static_cast<int>(hostOf.size())) {
        known = false;  // a rank of another job (spawned, connected)
        break;
      }
      seen.push_back(hostOf[static_cast<size_t>(w)]);
    }
    if (known) {
      std::sort(seen.begin(), seen.end());
      c->hostCount = static_cast<int>(std::unique(seen.begin(), seen.end()) - seen.begin());
      return c->hostCount;
    }
  }
  static const int jobHosts = [] {
    const char* v = getenv("CCMPI_NUM_NODES");
    const int h = v ? atoi(v) : 1;
    return h > 0 ? h : 1;
  }();
  return std::min(commSize, jobHosts);
}

namespace {
std::atomic<int> gRanksPerCore{-1};
}  // namespace

void setJobRanksPerCore(int n) {
  gRanksPerCore.store(n < 0 ? -1 : n);
}
int jobRanksPerCore() {
  return gRanksPerCore.load();
}

namespace {
std::atomic<int> gRails{1};
}  // namespace

void setJobRails(int n) {
  gRails.store(n < 1 ? 1 : n);
}
int jobRails() {
  return gRails.load();
}

const std::vector<Rule>& activeRules(std::string* error, std::string* source) {
  static std::once_flag once;
  static std::vector<Rule> rules;
  static std::string loadError, from;
  std::call_once(once, [] {
    const std::string path = kRulesFile.get();
    std::string text = kBuiltinRules;
    from = "built-in";
    if (!path.empty()) {
      from = path;
      std::ifstream f(path);
      if (!f) {
        loadError = "CCMPI_COLL_RULES=" + path + ": cannot open the file";
        return;
      }
      std::ostringstream ss;
      ss << f.rdbuf();
      text = ss.str();
    }
    std::vector<Rule> parsed;
    std::string e;
    if (!parseRules(text, &parsed, &e)) {
      loadError = "CCMPI_COLL_RULES=" + path + ": " + e;
      return;
    }
    for (const Rule& r : parsed) {
      bool knownColl = false;
      if (knownAlgorithm(r.collective, r.algorithm, &knownColl)) continue;
      const std::string where =
          path.empty() ? "built-in rules"
                       : "CCMPI_COLL_RULES=" + path + ": line " + std::to_string(r.line);
      loadError = knownColl ? where + ": " + r.collective + " has no algorithm '" + r.algorithm +
                                  "' (ccmpi_info --algorithms lists them)"
                            : where + ": no collective '" + r.collective + "'";
      return;
    }
    rules = std::move(parsed);
  });
  if (error) *error = loadError;
  if (source) *source = from;
  return rules;
}

std::vector<std::string> ruleLines(const std::string& collective) {
  std::vector<std::string> lines;
  for (const Rule& r : activeRules(nullptr, nullptr))
    if (r.collective == collective) lines.push_back(ruleText(r));
  return lines;
}

std::string rulesSource(std::string* error) {
  std::string source;
  activeRules(error, &source);
  return source;
}

}  // namespace ccmpi::coll
