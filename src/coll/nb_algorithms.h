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
#include <vector>

#include "coll/plan.h"
#include "coll/schedule.h"

namespace ccmpi::coll {

// --- plans: a Plan holding one call's arguments (coll/plan.h), for the entry points and
// for the blocking tables' viaSchedule adapters; `collective` names the calling table ---
std::shared_ptr<Plan> makeBcastPlan(void* buf, int64_t count, MPI_Datatype type, int root,
                                    comm::Comm& c, const char* collective);

// --- algorithms (ScheduleFn) ---
int ibarrierDissemination(Plan& p);
int ibcastBinomial(Plan& p);
int ireduceBinomial(Plan& p);
int ireduceOrderedBinomial(Plan& p);
int iallreduceRecursiveDoubling(Plan& p);
int iallreduceReduceBcast(Plan& p);
int igatherLinear(Plan& p);
int igathervLinear(Plan& p);
int iscatterLinear(Plan& p);
int iscattervLinear(Plan& p);
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
