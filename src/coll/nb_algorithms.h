#pragma once
// Schedule algorithms of the nonblocking and persistent collectives (one file each,
// coll/<coll>/i<coll>_<alg>.cc), and the building blocks composed algorithms append to a
// schedule of their own. Arguments are in p.args (coll/plan.h), already checked; the
// entry points (coll/<coll>/i<coll>.cc) handle the trivial cases (count 0, size 1)
// before consulting a table.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "coll/lanes.h"
#include "coll/plan.h"
#include "coll/schedule.h"

namespace ccmpi::coll {

// --- plans: a Plan holding one call's arguments (coll/plan.h), for the entry points and
// for the blocking tables' viaSchedule adapters; `collective` names the calling table ---
std::shared_ptr<Plan> makeBcastPlan(void* buf, int64_t count, MPI_Datatype type, int root,
                                    comm::Comm& c, const char* collective);

// allgather, allgatherv, alltoall, alltoallv, alltoallw (plans)
std::shared_ptr<Plan> makeAllgatherPlan(const void* sendbuf, int64_t sendcount,
                                        MPI_Datatype sendtype, void* recvbuf, int64_t recvcount,
                                        MPI_Datatype recvtype, comm::Comm& c,
                                        const char* collective);
std::shared_ptr<Plan> makeAllgathervPlan(const void* sendbuf, int64_t sendcount,
                                         MPI_Datatype sendtype, void* recvbuf,
                                         const int* recvcounts, const int* displs,
                                         MPI_Datatype recvtype, comm::Comm& c,
                                         const char* collective);
std::shared_ptr<Plan> makeAlltoallPlan(const void* sendbuf, int64_t sendcount,
                                       MPI_Datatype sendtype, void* recvbuf, int64_t recvcount,
                                       MPI_Datatype recvtype, comm::Comm& c,
                                       const char* collective);
std::shared_ptr<Plan> makeAlltoallvPlan(const void* sendbuf, const int* sendcounts,
                                        const int* sdispls, MPI_Datatype sendtype, void* recvbuf,
                                        const int* recvcounts, const int* rdispls,
                                        MPI_Datatype recvtype, comm::Comm& c,
                                        const char* collective);
std::shared_ptr<Plan> makeAlltoallwPlan(const void* sendbuf, const int* sendcounts,
                                        const int* sdispls, const MPI_Datatype* sendtypes,
                                        void* recvbuf, const int* recvcounts, const int* rdispls,
                                        const MPI_Datatype* recvtypes, comm::Comm& c,
                                        const char* collective);

// bcast, barrier, gather, gatherv, scatter, scatterv (plans)
std::shared_ptr<Plan> makeBarrierPlan(comm::Comm& c, const char* collective);
std::shared_ptr<Plan> makeGatherPlan(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                                     void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                                     int root, comm::Comm& c, const char* collective);
// recvcounts/displs are read at the root only.
std::shared_ptr<Plan> makeGathervPlan(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                                      void* recvbuf, const int* recvcounts, const int* displs,
                                      MPI_Datatype recvtype, int root, comm::Comm& c,
                                      const char* collective);
std::shared_ptr<Plan> makeScatterPlan(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                                      void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                                      int root, comm::Comm& c, const char* collective);
// sendcounts/displs are read at the root only.
std::shared_ptr<Plan> makeScattervPlan(const void* sendbuf, const int* sendcounts,
                                       const int* displs, MPI_Datatype sendtype, void* recvbuf,
                                       int64_t recvcount, MPI_Datatype recvtype, int root,
                                       comm::Comm& c, const char* collective);

// reduce, allreduce, reduce_scatter, reduce_scatter_block, scan, exscan (plans)
std::shared_ptr<Plan> makeReducePlan(const void* sendbuf, void* recvbuf, int64_t count,
                                     MPI_Datatype type, MPI_Op op, int root, comm::Comm& c,
                                     const char* collective);
std::shared_ptr<Plan> makeAllreducePlan(const void* sendbuf, void* recvbuf, int64_t count,
                                        MPI_Datatype type, MPI_Op op, comm::Comm& c,
                                        const char* collective);
std::shared_ptr<Plan> makeReduceScatterPlan(const void* sendbuf, void* recvbuf,
                                            const int* recvcounts, MPI_Datatype type, MPI_Op op,
                                            comm::Comm& c, const char* collective);
std::shared_ptr<Plan> makeReduceScatterBlockPlan(const void* sendbuf, void* recvbuf,
                                                 int64_t recvcount, MPI_Datatype type, MPI_Op op,
                                                 comm::Comm& c, const char* collective);
std::shared_ptr<Plan> makeScanPlan(const void* sendbuf, void* recvbuf, int64_t count,
                                   MPI_Datatype type, MPI_Op op, comm::Comm& c,
                                   const char* collective);
std::shared_ptr<Plan> makeExscanPlan(const void* sendbuf, void* recvbuf, int64_t count,
                                     MPI_Datatype type, MPI_Op op, comm::Comm& c,
                                     const char* collective);

// --- algorithms (ScheduleFn) ---
// bcast, barrier, gather, gatherv, scatter, scatterv (algorithms)
int bcastLinearSchedule(Plan& p);
int bcastChainSchedule(Plan& p);
int bcastBinaryTreeSchedule(Plan& p);
int bcastTwoTreeSchedule(Plan& p);
int bcastTwoChainSchedule(Plan& p);
int bcastScatterRdAllgatherSchedule(Plan& p);
int bcastScatterRingAllgatherSchedule(Plan& p);
int barrierTreeSchedule(Plan& p);
int gatherBinomialSchedule(Plan& p);
int gathervBinomialSchedule(Plan& p);
int scatterBinomialSchedule(Plan& p);
int scattervBinomialSchedule(Plan& p);

// allgather, allgatherv, alltoall, alltoallv, alltoallw (algorithms)
int allgatherRecursiveDoublingSchedule(Plan& p);
int allgatherBruckSchedule(Plan& p);
int allgathervRecursiveDoublingSchedule(Plan& p);
int allgathervBruckSchedule(Plan& p);
int alltoallBruckSchedule(Plan& p);
int alltoallPhasedSchedule(Plan& p);
int alltoallPhasedBarrierSchedule(Plan& p);
int alltoallPhasedRailsSchedule(Plan& p);    // a phase per rail at once
int alltoallvPhasedSchedule(Plan& p);        // Level 1 at every call
int alltoallvPhasedCachedSchedule(Plan& p);  // blocking only: agreement + pattern cache
// The CM-5 seed's random schedules (alltoallv_random.cc): the pattern gathered, then RS_N
// (whole messages) or RS_NH (large ones in pieces) phases; a persistent request gathers
// and schedules at its first start only and replays the phases after.
int alltoallvRsNSchedule(Plan& p);
int alltoallvRsNHSchedule(Plan& p);
// Bruck allgather of rows of s.size() int64 values: rows[0 .. n) holds this rank's row;
// afterwards row i (at rows + i * n) is the row of rank (rank + i) mod n. rows must hold
// n * n values and live until the rounds have run.
void addAllgatherRows(Schedule& s, int64_t* rows);
int allgatherPhasedSchedule(Plan& p);
int allgatherPhasedBarrierSchedule(Plan& p);

int ibarrierDissemination(Plan& p);
int ibcastBinomial(Plan& p);
int ibcastMcast(Plan& p);  // multicast (coll/mcast/mcast_sched.h)
int ireduceBinomial(Plan& p);
int ireduceOrderedBinomial(Plan& p);
int iallreduceRecursiveDoubling(Plan& p);
int iallreduceReduceBcast(Plan& p);
int igatherLinear(Plan& p);
int igathervLinear(Plan& p);
int iscatterLinear(Plan& p);
int iscattervLinear(Plan& p);
int iscattervMcastGroup(Plan& p);  // multicast to a group of the receivers
int iallgatherRing(Plan& p);
int iallgathervRing(Plan& p);
int ialltoallLinear(Plan& p);
int ialltoallPairwise(Plan& p);
int ialltoallvLinear(Plan& p);
int ialltoallvPairwise(Plan& p);
int ialltoallwLinear(Plan& p);
int ialltoallwPairwise(Plan& p);
int ireduceScatterReduceScatterv(Plan& p);
int ireduceScatterBlockReduceScatter(Plan& p);
int iscanRecursiveDoubling(Plan& p);
int iexscanRecursiveDoubling(Plan& p);

// bcast (building blocks)
// The pipelined broadcast down any tree (`parent` -1 at the root; `children` and `parent`
// are communicator ranks) in segments of CCMPI_BCAST_SEGMENT bytes of the packed buffer.
void addBcastPipelined(Schedule& s, void* buf, int64_t count, MPI_Datatype type, int parent,
                       const std::vector<int>& children);
// One tree of a pipelined broadcast as this rank sees it: its parent (-1 at the root) and
// its children with the rail each child's segments take (-1: any).
struct BcastLane {
  int parent = -1;
  int depth = 0;                              // hops from the root (0 at the root)
  std::vector<std::pair<int, int>> children;  // (communicator rank, rail)
};
// The pipelined broadcast down several trees at once (bcast_segments.cc): lane i carries
// the i-th of lanes.size() equal parts of the packed buffer (cut at elements), in segments
// of `segment` bytes (<= 0: one segment per lane).
void addBcastLanes(Schedule& s, void* buf, int64_t count, MPI_Datatype type,
                   const std::vector<BcastLane>& lanes, int64_t segment);
// Builds this rank's two lanes from the edges (relative ranks, `root` added back) and adds
// the pipelined broadcast, each edge on its rail when the job has two rails.
void addBcastTwoLanes(Schedule& s, const CollArgs& a, const std::vector<LaneEdge>& edges,
                      int depth);
// The segment of a two-lane pipeline of `depth` hops for `bytes` of buffer, from the cost
// model (bcast_two_tree.cc) unless CCMPI_BCAST_LANE_SEGMENT sets it.
int64_t laneSegment(int64_t bytes, int depth);
// CCMPI_RAIL_HOP_US: a two-lane pipeline round's cost beyond its bytes (coll/cost_model.h).
double railHopUs();
// CCMPI_BCAST_SEGMENT: the segment of the one-lane pipelines (chain, binary_tree).
int64_t pipelineSegment();
// The broadcast buffer as a stream of bytes for the scatter-allgather broadcasts: the buffer
// itself when its type is contiguous, else a temporary (packed at the root by a step added
// here; addBcastUnpackBytes adds the final unpack elsewhere). Then the binomial scatter of
// its bytes: block i (bytes [i*chunk, (i+1)*chunk) clipped to the buffer) ends up at the
// rank root+i.
unsigned char* addBcastPackBytes(Schedule& s, void* buf, int64_t count, MPI_Datatype type,
                                 int root);
void addBcastScatterBytes(Schedule& s, unsigned char* bytes, int64_t total, int64_t chunk,
                          int root);
// A send completes once its data is in the socket's buffer, so a parent's next send of
// the scatter would start while the last is still on the cable and share it. A child whose
// range is at least this large, and that has a later sibling with data, answers its data
// with an empty message, and the parent sends to the next child only then.
inline constexpr int64_t kScatterAckMin = 16 * 1024;
void addBcastUnpackBytes(Schedule& s, unsigned char* bytes, void* buf, int64_t count,
                         MPI_Datatype type, int root);
// gatherv, scatterv (building blocks)
// A phase whose steps depend on data earlier rounds received (message sizes a rank learns
// only at run time): when s reaches it, `build` fills a fresh schedule on the same
// communicator and tag, which runs to completion (its error becomes s's) before the next
// round of s starts. Peers must order their messages to this rank as the phases do.
// Deferred phases do not nest: `build` must not add one to `inner` (the completion
// signals, self-messages on the same tag, would cross); use two in a row instead.
void addDeferredPhase(Schedule& s, std::function<void(Schedule& inner)> build);

// reduce, allreduce, reduce_scatter, reduce_scatter_block, scan, exscan (algorithms)
int reduceLinearSchedule(Plan& p);
int reduceRabenseifnerSchedule(Plan& p);
int allreduceRingSchedule(Plan& p);
int allreduceRabenseifnerSchedule(Plan& p);
int reduceTwoTreeSchedule(Plan& p);
int allreduceTwoTreeSchedule(Plan& p);
// The two-tree reduction to `root` (coll/reduce/reduce_two_tree.cc): each half of the
// vector reduced up one of the two trees, pipelined, the edges over two rails.
// `resultHere`: every rank's recvbuf may serve as its accumulator (allreduce), else only
// the root's.
void addReduceTwoLanes(Schedule& s, const void* sendbuf, void* recvbuf, int64_t count,
                       MPI_Datatype type, MPI_Op op, int root, bool resultHere);
int reduceScatterRecursiveHalvingSchedule(Plan& p);
int reduceScatterPairwiseSchedule(Plan& p);
int reduceScatterBlockRecursiveHalvingSchedule(Plan& p);
int reduceScatterBlockPairwiseSchedule(Plan& p);
int scanLinearSchedule(Plan& p);
int exscanLinearSchedule(Plan& p);
// reduce, allreduce, reduce_scatter, reduce_scatter_block (building blocks)
// The ranks left after folding n ranks to p = floorPow2(n): among the first 2*(n-p) the
// even ones hand their vector to the odd one above and sit out. Virtual rank of a rank
// (-1 for one that sits out), and the rank of a virtual rank.
int foldedRank(int rank, int n);
int unfoldedRank(int vrank, int n);
// Fold step for commutative ops: a rank that sits out sends `mine`; its partner receives
// it into tmp and combines it into work (which already holds its own vector).
void addFold(Schedule& s, const void* mine, void* work, void* tmp, int64_t count, MPI_Datatype type,
             MPI_Op op);
// Recursive halving among the p virtual ranks (commutative ops): work holds this rank's
// (folded) vector, bounds[0..p] the element offsets of the p virtual blocks, tmp a
// temporary laid out like work. Afterwards virtual block v of work holds the reduction
// over all ranks. Only virtual ranks (foldedRank >= 0) call it.
void addRecursiveHalving(Schedule& s, void* work, void* tmp, const std::vector<int64_t>& bounds,
                         MPI_Datatype type, MPI_Op op);
// Reduce_scatter building blocks: `in` is the whole vector, block i has counts[i] elements
// (blocks back to back in rank order); `out` receives this rank's reduced block. `in` is
// read only in the first round and `out` written only in the last, so in == out works
// (MPI_IN_PLACE). Halving: commutative ops only. Pairwise: any op (rank order kept).
void addReduceScatterHalving(Schedule& s, const void* in, void* out,
                             const std::vector<int64_t>& counts, MPI_Datatype type, MPI_Op op);
void addReduceScatterPairwise(Schedule& s, const void* in, void* out,
                              const std::vector<int64_t>& counts, MPI_Datatype type, MPI_Op op);

// --- building blocks: append one collective's rounds to s (s.size() > 1) ---
void addBcastBinomial(Schedule& s, void* buf, int64_t count, MPI_Datatype type, int root);
// Commutative ops only: the tree combines ranks in rotated order.
void addReduceBinomial(Schedule& s, const void* sendbuf, void* recvbuf, int64_t count,
                       MPI_Datatype type, MPI_Op op, int root);
// Any op: combines in rank order on a tree rooted at rank 0, then passes the result on.
void addReduceOrderedBinomial(Schedule& s, const void* sendbuf, void* recvbuf, int64_t count,
                              MPI_Datatype type, MPI_Op op, int root);
// The reduction that fits the op: binomial for commutative ops, else rank-ordered.
void addReduce(Schedule& s, const void* sendbuf, void* recvbuf, int64_t count, MPI_Datatype type,
               MPI_Op op, int root);
// Linear scatterv (counts/displs significant at the root only; recvbuf may be
// MPI_IN_PLACE at the root).
void addScattervLinear(Schedule& s, const void* sendbuf, const int* sendcounts, const int* displs,
                       MPI_Datatype sendtype, void* recvbuf, int64_t recvcount,
                       MPI_Datatype recvtype, int root);
// All-to-all exchange of blocks: rank p's block is recvBlock(p) here and sendBlock(p)
// there (inPlace: recvBlock(p) both ways). Empty blocks move no message; the own block is
// copied. Linear: one round, every receive and send posted at once. Pairwise: round
// i = 1..n-1 sends to r+i and receives from r-i.
void addAlltoallLinear(Schedule& s, bool inPlace, const std::function<Block(int)>& sendBlock,
                       const std::function<Block(int)>& recvBlock);
void addAlltoallPairwise(Schedule& s, bool inPlace, const std::function<Block(int)>& sendBlock,
                         const std::function<Block(int)>& recvBlock);
// Block i of an alltoall's (equal blocks) or an alltoallv's (counts and displacements)
// send and receive buffers in a plan's arguments.
Block alltoallSendBlock(const CollArgs& a, int i);
Block alltoallRecvBlock(const CollArgs& a, int i);
Block alltoallvSendBlock(const CollArgs& a, int i);
Block alltoallvRecvBlock(const CollArgs& a, int i);
// The blocks to send to each peer (index = peer; the own entry unused). In place, adds the
// steps that pack every outgoing block into a temporary (to run before any receive is
// posted) and returns those.
std::vector<Block> outgoingBlocks(Schedule& s, bool inPlace,
                                  const std::function<Block(int)>& sendBlock,
                                  const std::function<Block(int)>& recvBlock);
// Linear scatter of equal blocks.
void addScatterLinear(Schedule& s, const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                      void* recvbuf, int64_t recvcount, MPI_Datatype recvtype, int root);

}  // namespace ccmpi::coll
