#pragma once
// Requests: one per send or receive in flight (and persistent/generalized ones).
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "comm/comm.h"
#include "p2p/p2p.h"

namespace ccmpi::datatype {
class Datatype;
}

namespace ccmpi::p2p {

struct Unexpected;

struct Request {
  // kPersistentColl: an MPI_<Coll>_init request; each MPI_Start runs startHook, which
  // sets `active` to the request of that run (like the persistent sends and receives).
  enum class Kind : uint8_t {
    kSend,
    kRecv,
    kPersistentSend,
    kPersistentRecv,
    kGeneralized,
    kOther,
    kPersistentColl,
  };
  enum class Phase : uint8_t {
    kIdle,       // persistent and not started
    kPosted,     // receive in the posted queue / send not yet handed over
    kAwaitCts,   // rendezvous send: RTS sent
    kStreaming,  // rendezvous data moving
    kDone,
  };

  Kind kind = Kind::kSend;
  Phase phase = Phase::kPosted;
  bool complete = false;
  bool freeOnComplete = false;  // MPI_Request_free was called while active
  bool cancelled = false;
  bool idleRef = false;                 // its reference on comm is counted in comm->idleRefs
  int handle = 0;                       // the MPI_Request handle, 0 for internal requests
  MPI_Comm commHandle = MPI_COMM_NULL;  // for the error handler (set by the API layer)
  int error = MPI_SUCCESS;

  // Buffer.
  void* buf = nullptr;
  int64_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  datatype::Datatype* dt = nullptr;
  uint64_t bytes = 0;  // count * size (send: message size; recv: capacity)

  // Envelope (world rank of the peer; MPI_ANY_SOURCE for wildcard receives).
  int peer = MPI_PROC_NULL;
  int tag = 0;
  uint32_t context = 0;
  comm::Comm* comm = nullptr;
  SendMode mode = SendMode::kStandard;
  int8_t rail = -1;  // send: the rail its data should take (isendOnRail, 0: rail 0 alone); -1 = any

  // Result (receives).
  int srcWorld = MPI_PROC_NULL;
  int srcTag = 0;
  uint64_t received = 0;  // bytes stored
  uint64_t msgSize = 0;   // bytes the sender sent

  // Rendezvous.
  uint64_t id = 0;             // our wire id (0 = none)
  uint64_t wireId = 0;         // send: the message's id on the wire (eager a / RTS a)
  bool cancelPending = false;  // send: a cancel request awaits its answer
  uint64_t remoteId = 0;       // the peer's id for this message
  uint64_t accepted = 0;       // bytes the receiver accepted (send side)
  uint64_t arrived = 0;        // payload bytes arrived (receive side)
  uint64_t splitAddr = 0;      // split single-copy send: where the receiver wants our second part
  uint8_t splitWait = 0;  // split single-copy send: parts not yet copied (ours, the receiver's)
  // Striped over rails (docs/multirail.md). Send: the byte ranges and the rail each went
  // on, the parts not yet written, and whether the receiver said it has every byte (the
  // send completes on both: a rail that fails has its ranges sent again until then).
  struct Stripe {
    uint64_t lo = 0, hi = 0;
    int rail = 0;
  };
  std::vector<Stripe> stripes;
  uint16_t stripeParts = 0;
  bool stripeAcked = false;
  // Receive: the transfer may be striped; the sender's id (for the acknowledgement) and
  // the ranges arrived so far, sorted and merged (a range sent again arrives twice).
  bool stripeOk = false;
  uint64_t stripeSender = 0;
  std::vector<std::pair<uint64_t, uint64_t>> stripeGot;
  std::vector<unsigned char> staging;  // non-contiguous chunks / owned eager copies
  Request* selfPeer = nullptr;         // self rendezvous: the sender waiting for the match
  // Receive: links in its context's posted queue while it waits there (p2p.cc).
  Request* qPrev = nullptr;
  Request* qNext = nullptr;

  // Persistent: the arguments, and the operation of the current start.
  Request* active = nullptr;

  // Generalized requests.
  MPI_Grequest_query_function* gQuery = nullptr;
  MPI_Grequest_free_function* gFree = nullptr;
  MPI_Grequest_cancel_function* gCancel = nullptr;
  void* gState = nullptr;

  // Called once when the request completes (buffered sends, collectives).
  std::function<void(Request*)> onComplete;
  // Extra progress hook polled while waiting (nonblocking collectives).
  std::function<void(Request*)> poll;
  // Persistent collectives: starts one run (MPI_Start), setting `active`.
  std::function<int(Request*)> startHook;
};

// Creates a request (owned by the p2p layer). Release with releaseRequest.
Request* newRequest(Request::Kind kind);
void releaseRequest(Request* r);

// Fills *status from a completed request (status may be MPI_STATUS_IGNORE).
void fillStatus(const Request* r, MPI_Status* status);
void setEmptyStatus(MPI_Status* status);

// Marks r complete and runs its completion hook.
void completeRequest(Request* r);
// Counts r's reference on its communicator as one with no communication pending (done by
// completeRequest; persistent requests are idle themselves, their runs are not).
void markIdle(Request* r);

// Starts a persistent request (MPI_Start).
int start(Request* r);

// Drives progress once (no sleeping) / until r completes.
void pollOnce();
void waitFor(Request* r);
// Waits until any of the requests completes (or returns at once if one is complete).
template <typename Done>
void waitUntil(Done&& done);

// Probe support. On a match fills status; with `remove` the message is taken out of the
// unexpected queue and returned (MPI_Mprobe), to be received with mrecv.
bool iprobe(int source, int tag, comm::Comm& c, Ctx ctx, MPI_Status* status, bool remove,
            Unexpected** msg);
int mrecv(void* buf, int64_t count, MPI_Datatype type, Unexpected* msg, comm::Comm& c,
          Request** out);
// MPI_MESSAGE_NO_PROC receive: completes at once with a PROC_NULL status.

int cancel(Request* r);

// Buffered-send buffer (MPI_Buffer_attach/detach).
int bufferAttach(void* buf, int size);
int bufferDetach(void* bufOut, int* sizeOut);
// MPI-4.1: buffers of the process, of a communicator (key: its context id) or of a
// session (key: its handle); buf may be MPI_BUFFER_AUTOMATIC (no limit). Detach waits for
// the buffered messages; bufferIdle tells whether none is in flight (MPI_Buffer_flush).
enum class BufferScope { kProcess, kComm, kSession };
int bufferAttach(BufferScope scope, uint64_t key, void* buf, int64_t size);
int bufferDetach(BufferScope scope, uint64_t key, void* bufOut, int64_t* sizeOut);
bool bufferIdle(BufferScope scope, uint64_t key);

// Number of live requests (leak checks).
size_t liveRequests();

}  // namespace ccmpi::p2p

#include "progress/engine.h"

namespace ccmpi::p2p {
template <typename Done>
void waitUntil(Done&& done) {
  progress::engine().waitUntil(done);
}
}  // namespace ccmpi::p2p
