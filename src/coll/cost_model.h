#pragma once
// Cost models of the broadcasts (issue 24, part 3; the multirail seed's formulas with the
// costs this implementation adds, docs/multirail.md "Cost model"): the time each broadcast
// algorithm should take for a buffer of `bytes` over `ranks` ranks, one per host, whose
// hosts have `rails` NICs of `bytesPerSec` TCP payload each. Two latencies complete it:
//  - hopUs: a small message's one-way time between two ranks (the seed's l), what every
//    step of a tree costs beyond its bytes; a rendezvous message (above the eager limit)
//    pays it three times (RTS, CTS, data);
//  - roundUs: what a round of a two-lane pipeline adds to its segments' transfer (the
//    rail-directed segment's rendezvous and acknowledgement; CCMPI_RAIL_HOP_US).
//  - sendUs: what a message costs its sender before the next can start (LogP's o), which
//    grows with the ranks sharing a host's cores.
// Three more describe the machine and its cables:
//  - burstBytes: what a cable that has been idle passes at once (a shaper's token bucket:
//    the emulated cluster's --bucket frames; 0 on a plain switch);
//  - linkShare: the share of the link's payload rate one TCP stream gets;
//  - duplexShare: the further share of a cable's payload rate left to data when the cable also
//    carries the acknowledgements and control frames of data coming the other way (the
//    pipelines and the ring, where every rank receives and sends at once);
//  - cpuUs and cores: when the job's ranks outnumber the cores of their machine
//    (ccmpi.ranks_per_core above 1: an emulated cluster, an oversubscribed node), every
//    time a rank is woken for a message costs cpuUs of one of `cores` cores (the context
//    switches, the receive, what it sends on), so no broadcast is faster than its
//    wake-ups spread over those cores.
// They are given (CCMPI_LINK_LATENCY_US; CCMPI_LANE_ROUND_US, else CCMPI_RAIL_HOP_US, which
// also sizes the lanes' segments; CCMPI_SEND_OVERHEAD_US; CCMPI_LINK_BURST_BYTES,
// CCMPI_LINK_SHARE, CCMPI_LINK_DUPLEX_SHARE, CCMPI_MESSAGE_CPU_US) or fitted to measurements by
// bench/coll/bcast_model.py, which shows each prediction beside the measured time
// (docs/results/multirail-model). The rule table may name the algorithm "model": the
// broadcast then runs the algorithm this model predicts fastest (coll/algorithm.h).
#include <cstdint>
#include <string>
#include <vector>

namespace ccmpi::coll {

struct BcastCostParams {
  int ranks = 1;
  int rails = 1;
  double bytesPerSec = 0;      // TCP payload of one rail (0: unknown, no predictions)
  double hopUs = 0;            // l
  double sendUs = 0;           // o: a message's cost to its sender (CCMPI_SEND_OVERHEAD_US)
  double roundUs = 0;          // a two-lane pipeline's per-round addition
  int mcastLanes = 1;          // rails a multicast takes (transport/mcast.h lanes)
  uint64_t eagerLimit = 0;     // largest message sent eagerly (CCMPI_EAGER_LIMIT)
  uint64_t stripeMin = 0;      // smallest message striped over the rails (CCMPI_STRIPE_MIN)
  uint64_t railDirectMin = 0;  // smallest segment sent on its own rail (rendezvous)
  double burstBytes = 0;       // what an idle cable passes at once
  double linkShare = 1;        // one stream's share of the payload rate
  double duplexShare = 1;      // data's share of a cable carrying data both ways
  double cpuUs = 0;            // CPU of a wake-up for a message, when cores > 0
  int cores = 0;               // cores the ranks share (0: at least one each)
};

// The job's parameters for a communicator of `ranks` ranks: the link rate found or
// declared, the job's rails, the tunables above.
BcastCostParams bcastCostParams(int ranks);

// Predicted time in microseconds, or -1 where `algorithm` has no model.
double predictBcastUs(const std::string& algorithm, uint64_t bytes, const BcastCostParams& p);

// The broadcasts with a model, fastest predicted first (ties in table order).
std::vector<std::string> bcastByModel(uint64_t bytes, const BcastCostParams& p);

// The rule table's name for "the algorithm the cost model predicts fastest", for the
// collectives that have a model (bcast, ibcast); the selector then tries the modelled
// algorithms fastest first, falling through on one that declines or is not in the table.
inline constexpr const char* kModelAlgorithm = "model";
inline bool hasCostModel(const std::string& collective) {
  return collective == "bcast" || collective == "ibcast";
}
// Fastest predicted first for a call of `bytes` (-1: ranks differ, no ranking) on a
// communicator of `ranks` ranks; empty without a model.
std::vector<std::string> modelRanking(const std::string& collective, int ranks, int64_t bytes);

}  // namespace ccmpi::coll
