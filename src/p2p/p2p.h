#pragma once
// Point-to-point messaging inside the library: the API layer (MPI_Send, ...) and the
// collective layer both use these. Ranks are ranks of `c`; tags are >= 0 (or
// MPI_ANY_TAG for receives); the context selects p2p or collective traffic of `c`.
#include <mpi.h>

#include <cstdint>

#include "comm/comm.h"

namespace ccmpi::datatype {
class Datatype;
}

namespace ccmpi::p2p {

// Largest tag (the MPI_TAG_UB attribute of MPI_COMM_WORLD).
constexpr int kTagUb = (1 << 30) - 1;
// Partitioned messages (MPI_Psend_init) of user tag t travel with tag kPartitionedTagBase + t,
// above every user tag, so only partitioned receives match them (MPI_ANY_TAG does not).
constexpr int kPartitionedTagBase = kTagUb + 1;

enum class Ctx : uint32_t { kPt2pt = 0, kColl = 1 };
enum class SendMode : uint8_t { kStandard, kSynchronous, kBuffered, kReady };

struct Request;  // defined in p2p/request.h

// Nonblocking operations. *out receives a request that must be completed with wait*/test*
// (or released with requestFree).
int isend(const void* buf, int64_t count, MPI_Datatype type, int dest, int tag, comm::Comm& c,
          Ctx ctx, SendMode mode, Request** out);
int irecv(void* buf, int64_t count, MPI_Datatype type, int source, int tag, comm::Comm& c, Ctx ctx,
          Request** out);

// The same with the datatype object given: a request that holds a reference on a type
// whose handle the user has freed since (persistent requests) starts with it.
int isendTyped(const void* buf, int64_t count, MPI_Datatype type, datatype::Datatype* dt, int dest,
               int tag, comm::Comm& c, Ctx ctx, SendMode mode, Request** out);

// A standard send whose bytes go over rail `rail` of the host (docs/multirail.md): its
// envelope travels on rail 0 as always (matching and order are unchanged) and its data,
// from CCMPI_RAIL_DIRECT_MIN bytes on, as one stripe on that rail. Rail-aware collectives
// put each tree or chain on its own NIC this way. Where the rail does not join the two
// ranks (same host, one rail, the rail failed, a non-contiguous buffer at either end) the
// message goes the ordinary way. rail 0 keeps the data whole on rail 0 (not striped);
// rail < 0 is isend.
int isendOnRail(const void* buf, int64_t count, MPI_Datatype type, int dest, int tag, comm::Comm& c,
                Ctx ctx, int rail, Request** out);
int irecvTyped(void* buf, int64_t count, MPI_Datatype type, datatype::Datatype* dt, int source,
               int tag, comm::Comm& c, Ctx ctx, Request** out);

// A standard-mode send complete at once: a small contiguous message to a rank of this
// host written straight into its shared-memory ring, with no request. False when that
// is not possible now (then nothing was sent; send it the ordinary way). `dt`: type's
// object when the caller has looked it up already.
bool sendNow(const void* buf, int64_t count, MPI_Datatype type, int dest, int tag, comm::Comm& c,
             Ctx ctx, datatype::Datatype* dt = nullptr);

// The smallest message striped over the rails (CCMPI_STRIPE_MIN; none with CCMPI_STRIPE
// off), and the smallest rail-directed message that leaves rail 0 (CCMPI_RAIL_DIRECT_MIN),
// for cost models. (eagerLimit(): p2p/engine.h.)
uint64_t stripeMin();
uint64_t railDirectMin();

// Blocking conveniences (collectives use these with Ctx::kColl).
int send(const void* buf, int64_t count, MPI_Datatype type, int dest, int tag, comm::Comm& c,
         Ctx ctx = Ctx::kColl);
int recv(void* buf, int64_t count, MPI_Datatype type, int source, int tag, comm::Comm& c,
         MPI_Status* status, Ctx ctx = Ctx::kColl);
int sendrecv(const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, int64_t recvcount, MPI_Datatype recvtype, int source, int recvtag,
             comm::Comm& c, MPI_Status* status, Ctx ctx = Ctx::kColl);

// Completion. wait/test fill *status (may be MPI_STATUS_IGNORE) and release the request.
int wait(Request* r, MPI_Status* status);
int waitAll(int n, Request** reqs, MPI_Status* statuses);  // statuses may be IGNORE
bool test(Request* r, MPI_Status* status);                 // true: completed and released
void requestFree(Request* r);  // release when complete (MPI_Request_free)

}  // namespace ccmpi::p2p
