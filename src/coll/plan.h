#pragma once
// Plans: a collective known before it runs.
//
// Every nonblocking (MPI_I<coll>) and persistent (MPI_<Coll>_init) collective call makes
// a Plan: its arguments, its sequence number on the communicator (hence its tag), the
// algorithm chosen for it and the schedule that algorithm compiled. A nonblocking call
// runs the plan once. A persistent call keeps it behind a persistent request, and every
// MPI_Start replays the same schedule: selection, tag, temporaries and the step list
// are computed once, at init ("compiled communication"). Later work that knows more at
// init (multicast groups, phased all-to-all schedules) plugs in here as algorithms that
// fill the schedule differently.
//
// An algorithm is a ScheduleFn: it reads p.args, appends its rounds to *p.schedule, and
// names itself in p.algorithm. It may decline (kDecline) before adding any step.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "coll/schedule.h"
#include "comm/comm.h"
#include "p2p/request.h"

namespace ccmpi::coll {

// The arguments of a collective call; the fields a collective does not use stay empty.
// Bcast keeps its buffer in recvbuf. The count, displacement and type arrays of the v/w
// variants are copied.
struct CollArgs {
  const void* sendbuf = nullptr;
  void* recvbuf = nullptr;
  int64_t sendcount = 0;
  int64_t recvcount = 0;
  MPI_Datatype sendtype = MPI_DATATYPE_NULL;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
  std::vector<int> sendcounts, sdispls, recvcounts, rdispls;
  std::vector<MPI_Datatype> sendtypes, recvtypes;
  MPI_Op op = MPI_OP_NULL;
  int root = 0;
  // A collective's own description of its arguments, read by its algorithms while they
  // build the schedule and not after (the neighbourhood collectives:
  // coll/neighbor/neighbor.h).
  const void* call = nullptr;
};

struct Plan {
  // Takes the next collective sequence number of `c` and makes an empty schedule with
  // the tag derived from it.
  Plan(comm::Comm& c, const char* collective);

  comm::Comm& comm;
  const char* collective;  // "ibcast" (the algorithm table's name)
  uint64_t seq;            // collective sequence number on comm
  CollArgs args;
  const char* algorithm = "";  // what compiled the schedule ("" = trivial, no table)
  std::shared_ptr<Schedule> schedule;
};

using ScheduleFn = int (*)(Plan& p);

// How a collective call uses its plan.
enum class Mode : uint8_t {
  kNonblocking,  // start now; *out completes with the collective
  kPersistent,   // *out is an inactive persistent request; MPI_Start replays the plan
};

// Ends every nonblocking/persistent entry point: `built` is what compiling the plan
// returned (the selected algorithm's result; MPI_SUCCESS when no table was consulted).
// On success *out is the new request (holding a reference on the communicator); on error
// *out is nullptr and the plan is dropped.
int launch(std::shared_ptr<Plan> plan, int built, Mode mode, p2p::Request** out);

// Runs the plan `fn` compiles to completion before returning: how a blocking collective
// uses an algorithm written as a schedule (one implementation serves MPI_<Coll>,
// MPI_I<coll> and MPI_<Coll>_init). Returns kDecline if fn declines.
int runBlocking(std::shared_ptr<Plan> plan, ScheduleFn fn);

}  // namespace ccmpi::coll
