#pragma once
// The rule table: which algorithm a collective uses by default, keyed by communicator size
// and message size (SelectContext::bytes). Built in (coll/rules.cc, with how the rules
// were measured), or replaced as a whole by the file named by CCMPI_COLL_RULES:
//
//   # collective   ranks    bytes       algorithm
//   bcast          1-8      0-64k       binomial
//   bcast          9-*      *           scatter_ring_allgather
//   allreduce      *        1m-*        ring
//
// One rule a line: a collective's table name (bcast, ibcast, ...), an inclusive range of
// communicator sizes and one of message bytes ("N", "A-B", "A-*" or "*"; sizes take k/m/g
// suffixes, powers of 1024), and an algorithm of that table. '#' starts a comment. The
// first rule that matches wins; a collective without a matching rule uses its table order.
// A rule with a bytes range other than "*" never matches a call whose ranks do not share
// a message size (bytes = -1). An optional fifth field is a range of hosts (the hosts
// the communicator spans, see ruleHosts), e.g. phased all-to-all only where ranks sit on
// separate hosts:
//
//   alltoall       *        16k-*       phased     4-*
//
// An optional sixth field is a range of ranks per core (see jobRanksPerCore): the job's
// ranks on its busiest machine over that machine's CPUs, rounded down; 0 when every rank
// has a core of its own. A rule with a range other than "*" there never matches while the
// figure is unknown (another launcher). E.g. the tree barrier where ranks queue for cores:
//
//   barrier        *        *           tree       *     4-*
//
// An optional seventh field is a range of ranks per host: the most ranks of the
// communicator on one host (coll/node/topology.h; the same on every rank), e.g. the
// hierarchical algorithms where hosts are shared:
//
//   allreduce      *        *           node       2-*   *     2-*
//
// An optional eighth field is a range of rails: the job's rails (see jobRails), the NICs
// each host has on networks of their own (docs/multirail.md), e.g. the two-tree broadcast
// where hosts have two NICs or more:
//
//   bcast          *        64k-*       two_tree   3-*   *     *     2-*
#include <cstdint>
#include <string>
#include <vector>

namespace ccmpi::comm {
struct Comm;
}

namespace ccmpi::coll {

struct Rule {
  std::string collective;
  int minRanks = 1;
  int maxRanks = 0x7fffffff;
  int64_t minBytes = 0;
  int64_t maxBytes = INT64_MAX;
  int minHosts = 1;
  int maxHosts = 0x7fffffff;
  int minRanksPerCore = 0;
  int maxRanksPerCore = 0x7fffffff;
  int minRanksPerHost = 1;
  int maxRanksPerHost = 0x7fffffff;
  int minRails = 1;
  int maxRails = 0x7fffffff;
  std::string algorithm;
  int line = 0;  // in the rules file (0 = built in)
};

// Parses rules text. On error returns false with *error = "line N: what".
bool parseRules(const std::string& text, std::vector<Rule>* out, std::string* error);
// The host count the rules see for a communicator of `commSize` ranks.
// The hosts a communicator of commSize ranks spans, for rules with a hosts range:
// counted from the host of every rank (worldRankHosts) and cached in the communicator;
// for ranks of another job (spawned, connected), the job's host count CCMPI_NUM_NODES
// capped at the communicator size.
int ruleHosts(int commSize, const comm::Comm* c);
// The host of every world rank (runtime::worldHosts: ranks that share memory and were
// placed on one host by the launcher). Defined in coll/node/topology.cc.
const std::vector<int>& worldRankHosts();
// The job's ranks per core: set once by MPI_Init from the process manager
// (ccmpi.ranks_per_core) or CCMPI_RANKS_PER_CORE; -1 = unknown. Every rank sees the same
// figure, so rules may depend on it.
void setJobRanksPerCore(int n);
int jobRanksPerCore();
// The job's rails: the fewest rails (rail 0 included) any rank of the job has, set once by
// MPI_Init from the rail cards every rank publishes (mpirun combines them at the barrier,
// ccmpi.rails; another process manager: each rank reads them all). 1 in a one-host job or
// without further NICs. Every rank sees the same figure, so rules may depend on it.
void setJobRails(int n);
int jobRails();
// The most ranks of c on one host (coll/node/topology.h; collective over c the first time
// when the launcher's placement does not cover it); -1 when unknown.
int ruleRanksPerHost(comm::Comm* c);
// "bcast 1-8 0-64k binomial" (normalized).
std::string ruleText(const Rule& r);

// The rules in force, loaded on first use. *error is set (and the result empty) when the
// CCMPI_COLL_RULES file cannot be read, does not parse, or names a collective or algorithm
// that no table has.
const std::vector<Rule>& activeRules(std::string* error, std::string* source);

}  // namespace ccmpi::coll
