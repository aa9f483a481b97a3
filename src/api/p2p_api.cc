// Point-to-point entry points: argument checks, handles, and completion calls.
#include <vector>

#include "api/api.h"
#include "api/p2p_api.h"
#include "api/request_table.h"
#include "comm/comm.h"
#include "datatype/datatype.h"
#include "p2p/p2p.h"
#include "p2p/request.h"
#include "progress/engine.h"

namespace ccmpi::api {
namespace {

using p2p::Ctx;
using p2p::Request;
using p2p::SendMode;

std::vector<Request*> gRequests(1, nullptr);
std::vector<int> gFreeSlots;

// Message handles (MPI_Mprobe): index -> unexpected message.
std::vector<p2p::Unexpected*> gMessages(2, nullptr);
std::vector<comm::Comm*> gMessageComms(2, nullptr);

}  // namespace

int checkComm(const char* func, MPI_Comm comm, comm::Comm** out) {
  comm::Comm* c = comm::lookup(comm);
  if (!c) return raisef(func, MPI_ERR_COMM, "invalid communicator handle 0x%x", comm);
  *out = c;
  return MPI_SUCCESS;
}

// Checks shared by every send and receive; returns an error code (already raised) or 0.
int checkBuffer(const char* func, MPI_Comm comm, comm::Comm& c, const void* buf, int64_t count,
                MPI_Datatype type, int peer, int tag, bool isRecv, datatype::Datatype** dtOut) {
  if (count < 0)
    return raiseCommf(comm, func, MPI_ERR_COUNT, "count %lld is negative",
                      static_cast<long long>(count));
  datatype::Datatype* dt = datatype::lookup(type);
  // An empty message may name no type (MPI_DATATYPE_NULL, as MPICH accepts): p2p moves it
  // as zero bytes.
  if (!dt && type == MPI_DATATYPE_NULL && count == 0) dt = datatype::lookup(MPI_BYTE);
  if (!dt) return raiseCommf(comm, func, MPI_ERR_TYPE, "invalid datatype handle 0x%x", type);
  if (!dt->committed())
    return raiseCommf(comm, func, MPI_ERR_TYPE, "datatype %s is not committed",
                      dt->name().empty() ? "(unnamed)" : dt->name().c_str());
  if (buf == nullptr && count > 0 && dt->predefined() && dt->size() > 0)
    return raiseCommf(comm, func, MPI_ERR_BUFFER, "buffer is NULL but count is %lld",
                      static_cast<long long>(count));
  const bool rankOk = peer == MPI_PROC_NULL || (peer >= 0 && peer < c.peerSize()) ||
                      (isRecv && peer == MPI_ANY_SOURCE);
  if (!rankOk)
    return raiseCommf(comm, func, MPI_ERR_RANK, "rank %d is not valid in a%s of size %d", peer,
                      c.isInter() ? " remote group" : " communicator", c.peerSize());
  const bool tagOk = (tag >= 0 && tag <= p2p::kTagUb) || (isRecv && tag == MPI_ANY_TAG);
  if (!tagOk)
    return raiseCommf(comm, func, MPI_ERR_TAG, "tag %d is outside [0, %d]%s", tag, p2p::kTagUb,
                      isRecv ? " and is not MPI_ANY_TAG" : "");
  if (dtOut) *dtOut = dt;
  return MPI_SUCCESS;
}

int doIsend(const char* func, const void* buf, int64_t count, MPI_Datatype type, int dest, int tag,
            MPI_Comm comm, SendMode mode, MPI_Request* request) {
  comm::Comm* c = nullptr;
  if (int rc = checkComm(func, comm, &c)) return rc;
  if (int rc = checkBuffer(func, comm, *c, buf, count, type, dest, tag, false)) return rc;
  if (!request) return raiseCommf(comm, func, MPI_ERR_REQUEST, "request pointer is NULL");
  Request* r = nullptr;
  if (int rc = p2p::isend(buf, count, type, dest, tag, *c, Ctx::kPt2pt, mode, &r))
    return raiseComm(comm, func, rc);
  r->commHandle = comm;
  *request = requestHandle(r);
  return MPI_SUCCESS;
}

int doSend(const char* func, const void* buf, int64_t count, MPI_Datatype type, int dest, int tag,
           MPI_Comm comm, SendMode mode) {
  comm::Comm* c = nullptr;
  if (int rc = checkComm(func, comm, &c)) return rc;
  datatype::Datatype* dt = nullptr;
  if (int rc = checkBuffer(func, comm, *c, buf, count, type, dest, tag, false, &dt)) return rc;
  if (mode == SendMode::kStandard && p2p::sendNow(buf, count, type, dest, tag, *c, Ctx::kPt2pt, dt))
    return MPI_SUCCESS;
  Request* r = nullptr;
  if (int rc = p2p::isend(buf, count, type, dest, tag, *c, Ctx::kPt2pt, mode, &r))
    return raiseComm(comm, func, rc);
  if (int rc = p2p::wait(r, MPI_STATUS_IGNORE)) return raiseComm(comm, func, rc);
  return MPI_SUCCESS;
}

int doIrecv(const char* func, void* buf, int64_t count, MPI_Datatype type, int source, int tag,
            MPI_Comm comm, MPI_Request* request) {
  comm::Comm* c = nullptr;
  if (int rc = checkComm(func, comm, &c)) return rc;
  if (int rc = checkBuffer(func, comm, *c, buf, count, type, source, tag, true)) return rc;
  if (!request) return raiseCommf(comm, func, MPI_ERR_REQUEST, "request pointer is NULL");
  Request* r = nullptr;
  if (int rc = p2p::irecv(buf, count, type, source, tag, *c, Ctx::kPt2pt, &r))
    return raiseComm(comm, func, rc);
  r->commHandle = comm;
  *request = requestHandle(r);
  return MPI_SUCCESS;
}

int persistentInit(const char* func, const void* buf, int64_t count, MPI_Datatype type, int peer,
                   int tag, MPI_Comm comm, bool isRecv, SendMode mode, MPI_Request* request) {
  comm::Comm* c = nullptr;
  if (int rc = checkComm(func, comm, &c)) return rc;
  if (int rc = checkBuffer(func, comm, *c, buf, count, type, peer, tag, isRecv)) return rc;
  if (!request) return raiseCommf(comm, func, MPI_ERR_REQUEST, "request pointer is NULL");
  Request* p =
      p2p::newRequest(isRecv ? Request::Kind::kPersistentRecv : Request::Kind::kPersistentSend);
  p->buf = const_cast<void*>(buf);
  p->count = count;
  if (type == MPI_DATATYPE_NULL) type = MPI_BYTE;  // an empty message (see checkBuffer)
  p->type = type;
  p->dt = datatype::lookup(type);
  datatype::retain(type);  // the user may free the type before MPI_Start (released with p)
  p->peer = peer;          // a rank of comm (persistent requests keep comm ranks)
  p->tag = tag;
  p->comm = c;
  ++c->refs;
  p->commHandle = comm;
  p->mode = mode;
  p->phase = Request::Phase::kIdle;
  p->complete = true;  // inactive
  p2p::markIdle(p);
  *request = requestHandle(p);
  return MPI_SUCCESS;
}

namespace {

bool isPersistent(const Request* r) {
  return r->kind == Request::Kind::kPersistentSend || r->kind == Request::Kind::kPersistentRecv ||
         r->kind == Request::Kind::kPersistentColl;
}

// Completes the generalized request protocol: query then free.
int finishGeneralized(Request* r, MPI_Status* status) {
  MPI_Status tmp;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &tmp : status;
  p2p::setEmptyStatus(st);
  int rc = r->gQuery ? r->gQuery(r->gState, st) : MPI_SUCCESS;
  if (r->gFree) {
    const int frc = r->gFree(r->gState);
    if (!rc) rc = frc;
  }
  return rc;
}

}  // namespace

// ---------- handle table ----------

MPI_Request requestHandle(Request* r) {
  int idx;
  if (!gFreeSlots.empty()) {
    idx = gFreeSlots.back();
    gFreeSlots.pop_back();
    gRequests[idx] = r;
  } else {
    idx = static_cast<int>(gRequests.size());
    gRequests.push_back(r);
  }
  r->handle = makeHandle(HandleKind::kRequest, idx);
  return r->handle;
}

Request* requestFromHandle(MPI_Request h) {
  if (handleKind(h) != HandleKind::kRequest) return nullptr;
  const int idx = handleIndex(h);
  if (idx <= 0 || idx >= static_cast<int>(gRequests.size())) return nullptr;
  return gRequests[idx];
}

void dropRequestHandle(MPI_Request h) {
  const int idx = handleIndex(h);
  if (handleKind(h) != HandleKind::kRequest || idx <= 0 ||
      idx >= static_cast<int>(gRequests.size()) || !gRequests[idx])
    return;
  gRequests[idx] = nullptr;
  gFreeSlots.push_back(idx);
}

bool handleInactive(MPI_Request h) {
  Request* r = requestFromHandle(h);
  if (!r) return true;
  return isPersistent(r) && r->active == nullptr;
}

bool handleComplete(MPI_Request h) {
  Request* r = requestFromHandle(h);
  if (!r) return true;
  if (isPersistent(r)) {
    Request* op = r->active;
    if (op && !op->complete && op->poll) op->poll(op);  // runs driven by polling
    return op == nullptr || op->complete;
  }
  if (!r->complete && r->poll) r->poll(r);
  return r->complete;
}

// Finishes a complete request behind *h.
static int finishHandle(MPI_Request* h, MPI_Status* status) {
  Request* r = requestFromHandle(*h);
  if (!r) {
    p2p::setEmptyStatus(status);
    return MPI_SUCCESS;
  }
  if (isPersistent(r)) {
    Request* op = r->active;
    if (!op) {
      p2p::setEmptyStatus(status);
      return MPI_SUCCESS;
    }
    r->active = nullptr;
    p2p::fillStatus(op, status);
    const int err = op->error;
    p2p::releaseRequest(op);
    return err;
  }
  int err;
  if (r->kind == Request::Kind::kGeneralized) {
    err = finishGeneralized(r, status);
  } else {
    p2p::fillStatus(r, status);
    err = r->error;
  }
  dropRequestHandle(*h);
  p2p::releaseRequest(r);
  *h = MPI_REQUEST_NULL;
  return err;
}

int waitHandle(MPI_Request* h, MPI_Status* status) {
  Request* r = requestFromHandle(*h);
  if (r) {
    Request* target = isPersistent(r) ? r->active : r;
    if (target) p2p::waitFor(target);
  }
  return finishHandle(h, status);
}

bool testHandle(MPI_Request* h, MPI_Status* status, int* err) {
  if (!handleComplete(*h)) {
    p2p::pollOnce();
    if (!handleComplete(*h)) return false;
  }
  *err = finishHandle(h, status);
  return true;
}

}  // namespace ccmpi::api

using namespace ccmpi;
using namespace ccmpi::api;
using p2p::Request;
using p2p::SendMode;

// ---------- sends and receives ----------

extern "C" int PMPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Send");
  return doSend(kFunc, buf, count, type, dest, tag, comm, SendMode::kStandard);
}
CCMPI_MPI_ALIAS(MPI_Send)

extern "C" int PMPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Bsend");
  return doSend(kFunc, buf, count, type, dest, tag, comm, SendMode::kBuffered);
}
CCMPI_MPI_ALIAS(MPI_Bsend)

extern "C" int PMPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Ssend");
  return doSend(kFunc, buf, count, type, dest, tag, comm, SendMode::kSynchronous);
}
CCMPI_MPI_ALIAS(MPI_Ssend)

extern "C" int PMPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Rsend");
  return doSend(kFunc, buf, count, type, dest, tag, comm, SendMode::kReady);
}
CCMPI_MPI_ALIAS(MPI_Rsend)

extern "C" int PMPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Isend");
  return doIsend(kFunc, buf, count, type, dest, tag, comm, SendMode::kStandard, request);
}
CCMPI_MPI_ALIAS(MPI_Isend)

extern "C" int PMPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ibsend");
  return doIsend(kFunc, buf, count, type, dest, tag, comm, SendMode::kBuffered, request);
}
CCMPI_MPI_ALIAS(MPI_Ibsend)

extern "C" int PMPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Issend");
  return doIsend(kFunc, buf, count, type, dest, tag, comm, SendMode::kSynchronous, request);
}
CCMPI_MPI_ALIAS(MPI_Issend)

extern "C" int PMPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                           MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Irsend");
  return doIsend(kFunc, buf, count, type, dest, tag, comm, SendMode::kReady, request);
}
CCMPI_MPI_ALIAS(MPI_Irsend)

extern "C" int PMPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag,
                         MPI_Comm comm, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Recv");
  comm::Comm* c = nullptr;
  if (int rc = checkComm(kFunc, comm, &c)) return rc;
  datatype::Datatype* dt = nullptr;
  if (int rc = checkBuffer(kFunc, comm, *c, buf, count, type, source, tag, true, &dt)) return rc;
  Request* r = nullptr;
  if (int rc = p2p::irecvTyped(buf, count, type, dt, source, tag, *c, p2p::Ctx::kPt2pt, &r))
    return raiseComm(comm, kFunc, rc);
  if (int rc = p2p::wait(r, status)) return raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Recv)

extern "C" int PMPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag,
                          MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Irecv");
  return doIrecv(kFunc, buf, count, type, source, tag, comm, request);
}
CCMPI_MPI_ALIAS(MPI_Irecv)

extern "C" int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                             int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                             int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Sendrecv");
  comm::Comm* c = nullptr;
  if (int rc = checkComm(kFunc, comm, &c)) return rc;
  if (int rc = checkBuffer(kFunc, comm, *c, sendbuf, sendcount, sendtype, dest, sendtag, false))
    return rc;
  if (int rc = checkBuffer(kFunc, comm, *c, recvbuf, recvcount, recvtype, source, recvtag, true))
    return rc;
  if (int rc = p2p::sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, *c, status, p2p::Ctx::kPt2pt))
    return raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Sendrecv)

extern "C" int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                                     int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Sendrecv_replace");
  comm::Comm* c = nullptr;
  if (int rc = checkComm(kFunc, comm, &c)) return rc;
  if (int rc = checkBuffer(kFunc, comm, *c, buf, count, type, dest, sendtag, false)) return rc;
  if (int rc = checkBuffer(kFunc, comm, *c, buf, count, type, source, recvtag, true)) return rc;
  // Send a packed copy, receive into the buffer.
  datatype::Datatype* dt = datatype::lookup(type);
  std::vector<unsigned char> copy(static_cast<size_t>(count) * dt->size());
  if (!copy.empty()) dt->pack(buf, count, 0, copy.data(), copy.size());
  if (int rc =
          p2p::sendrecv(copy.data(), static_cast<int64_t>(copy.size()), MPI_BYTE, dest, sendtag,
                        buf, count, type, source, recvtag, *c, status, p2p::Ctx::kPt2pt))
    return raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Sendrecv_replace)

// ---------- persistent requests ----------

extern "C" int PMPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                              MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Send_init");
  return persistentInit(kFunc, buf, count, type, dest, tag, comm, false, SendMode::kStandard,
                        request);
}
CCMPI_MPI_ALIAS(MPI_Send_init)

extern "C" int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                               MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Bsend_init");
  return persistentInit(kFunc, buf, count, type, dest, tag, comm, false, SendMode::kBuffered,
                        request);
}
CCMPI_MPI_ALIAS(MPI_Bsend_init)

extern "C" int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                               MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Ssend_init");
  return persistentInit(kFunc, buf, count, type, dest, tag, comm, false, SendMode::kSynchronous,
                        request);
}
CCMPI_MPI_ALIAS(MPI_Ssend_init)

extern "C" int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                               MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Rsend_init");
  return persistentInit(kFunc, buf, count, type, dest, tag, comm, false, SendMode::kReady, request);
}
CCMPI_MPI_ALIAS(MPI_Rsend_init)

extern "C" int PMPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag,
                              MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Recv_init");
  return persistentInit(kFunc, buf, count, type, source, tag, comm, true, SendMode::kStandard,
                        request);
}
CCMPI_MPI_ALIAS(MPI_Recv_init)

extern "C" int PMPI_Start(MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Start");
  if (!request) return raisef(kFunc, MPI_ERR_REQUEST, "request pointer is NULL");
  Request* r = requestFromHandle(*request);
  if (!r) return raisef(kFunc, MPI_ERR_REQUEST, "invalid request handle 0x%x", *request);
  if (int rc = p2p::start(r)) return raiseComm(r->commHandle, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Start)

extern "C" int PMPI_Startall(int count, MPI_Request requests[]) {
  CCMPI_API_BEGIN("MPI_Startall");
  if (count < 0) return raisef(kFunc, MPI_ERR_COUNT, "count %d is negative", count);
  for (int i = 0; i < count; ++i) {
    Request* r = requestFromHandle(requests[i]);
    if (!r) return raisef(kFunc, MPI_ERR_REQUEST, "requests[%d] is not a valid request", i);
    if (int rc = p2p::start(r)) return raiseComm(r->commHandle, kFunc, rc);
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Startall)

// ---------- completion ----------

extern "C" int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Wait");
  if (!request) return raisef(kFunc, MPI_ERR_REQUEST, "request pointer is NULL");
  if (*request != MPI_REQUEST_NULL && !requestFromHandle(*request))
    return raisef(kFunc, MPI_ERR_REQUEST, "invalid request handle 0x%x", *request);
  Request* r = requestFromHandle(*request);
  const MPI_Comm comm = r ? r->commHandle : MPI_COMM_WORLD;
  if (int rc = waitHandle(request, status)) return raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Wait)

extern "C" int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Test");
  if (!request || !flag) return raisef(kFunc, MPI_ERR_ARG, "request or flag pointer is NULL");
  if (*request != MPI_REQUEST_NULL && !requestFromHandle(*request))
    return raisef(kFunc, MPI_ERR_REQUEST, "invalid request handle 0x%x", *request);
  Request* r = requestFromHandle(*request);
  const MPI_Comm comm = r ? r->commHandle : MPI_COMM_WORLD;
  int err = MPI_SUCCESS;
  *flag = testHandle(request, status, &err) ? 1 : 0;
  if (err) return raiseComm(comm, kFunc, err);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Test)

static int checkRequestArray(const char* kFunc, int count, const MPI_Request* reqs) {
  if (count < 0) return raisef(kFunc, MPI_ERR_COUNT, "count %d is negative", count);
  if (count > 0 && !reqs) return raisef(kFunc, MPI_ERR_REQUEST, "request array is NULL");
  for (int i = 0; i < count; ++i)
    if (reqs[i] != MPI_REQUEST_NULL && !requestFromHandle(reqs[i]))
      return raisef(kFunc, MPI_ERR_REQUEST, "requests[%d] = 0x%x is not a valid request", i,
                    reqs[i]);
  return MPI_SUCCESS;
}

static MPI_Status* statusAt(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

extern "C" int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  CCMPI_API_BEGIN("MPI_Waitall");
  if (int rc = checkRequestArray(kFunc, count, requests)) return rc;
  // Wait for all first, so errors do not leave others unprogressed.
  progress::engine().waitUntil([&] {
    for (int i = 0; i < count; ++i)
      if (!handleComplete(requests[i])) return false;
    return true;
  });
  bool anyErr = false;
  MPI_Comm errComm = MPI_COMM_WORLD;
  std::vector<int> codes(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    Request* r = requestFromHandle(requests[i]);
    const MPI_Comm comm = r ? r->commHandle : MPI_COMM_WORLD;
    codes[i] = waitHandle(&requests[i], statusAt(statuses, i));
    if (codes[i]) {
      anyErr = true;
      errComm = comm;
    }
  }
  if (anyErr && statuses != MPI_STATUSES_IGNORE)
    for (int i = 0; i < count; ++i) statuses[i].MPI_ERROR = codes[i];
  if (anyErr)
    return raiseCommf(errComm, kFunc, MPI_ERR_IN_STATUS,
                      "one or more requests failed; see the statuses");
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Waitall)

extern "C" int PMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  CCMPI_API_BEGIN("MPI_Testall");
  if (int rc = checkRequestArray(kFunc, count, requests)) return rc;
  if (!flag) return raisef(kFunc, MPI_ERR_ARG, "flag pointer is NULL");
  p2p::pollOnce();
  for (int i = 0; i < count; ++i)
    if (!handleComplete(requests[i])) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  *flag = 1;
  bool anyErr = false;
  std::vector<int> codes(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    codes[i] = waitHandle(&requests[i], statusAt(statuses, i));
    anyErr |= codes[i] != MPI_SUCCESS;
  }
  // The error fields are set if and only if the call returns MPI_ERR_IN_STATUS.
  if (anyErr && statuses != MPI_STATUSES_IGNORE)
    for (int i = 0; i < count; ++i) statuses[i].MPI_ERROR = codes[i];
  if (anyErr)
    return raisef(kFunc, MPI_ERR_IN_STATUS, "one or more requests failed; see the statuses");
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Testall)

static int firstComplete(int count, MPI_Request* requests, bool* allInactive) {
  *allInactive = true;
  for (int i = 0; i < count; ++i) {
    if (handleInactive(requests[i])) continue;
    *allInactive = false;
    if (handleComplete(requests[i])) return i;
  }
  return -1;
}

extern "C" int PMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Waitany");
  if (int rc = checkRequestArray(kFunc, count, requests)) return rc;
  if (!index) return raisef(kFunc, MPI_ERR_ARG, "index pointer is NULL");
  int found = -1;
  bool allInactive = true;
  progress::engine().waitUntil([&] {
    found = firstComplete(count, requests, &allInactive);
    return found >= 0 || allInactive;
  });
  if (found < 0) {
    *index = MPI_UNDEFINED;
    p2p::setEmptyStatus(status);
    return MPI_SUCCESS;
  }
  *index = found;
  Request* r = requestFromHandle(requests[found]);
  const MPI_Comm comm = r ? r->commHandle : MPI_COMM_WORLD;
  if (int rc = waitHandle(&requests[found], status)) return raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Waitany)

extern "C" int PMPI_Testany(int count, MPI_Request requests[], int* index, int* flag,
                            MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Testany");
  if (int rc = checkRequestArray(kFunc, count, requests)) return rc;
  if (!index || !flag) return raisef(kFunc, MPI_ERR_ARG, "index or flag pointer is NULL");
  p2p::pollOnce();
  bool allInactive;
  const int found = firstComplete(count, requests, &allInactive);
  if (found < 0) {
    *index = MPI_UNDEFINED;
    *flag = allInactive ? 1 : 0;
    if (allInactive) p2p::setEmptyStatus(status);
    return MPI_SUCCESS;
  }
  *flag = 1;
  *index = found;
  Request* r = requestFromHandle(requests[found]);
  const MPI_Comm comm = r ? r->commHandle : MPI_COMM_WORLD;
  if (int rc = waitHandle(&requests[found], status)) return raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Testany)

static int collectSome(const char* kFunc, int incount, MPI_Request* requests, int* outcount,
                       int* indices, MPI_Status* statuses) {
  int n = 0;
  bool anyErr = false;
  std::vector<int> codes;
  for (int i = 0; i < incount; ++i) {
    if (handleInactive(requests[i]) || !handleComplete(requests[i])) continue;
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n];
    codes.push_back(waitHandle(&requests[i], st));
    anyErr |= codes.back() != MPI_SUCCESS;
    indices[n++] = i;
  }
  *outcount = n;
  if (anyErr && statuses != MPI_STATUSES_IGNORE)
    for (int k = 0; k < n; ++k) statuses[k].MPI_ERROR = codes[k];
  if (anyErr)
    return raisef(kFunc, MPI_ERR_IN_STATUS, "one or more requests failed; see the statuses");
  return MPI_SUCCESS;
}

extern "C" int PMPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                             MPI_Status statuses[]) {
  CCMPI_API_BEGIN("MPI_Waitsome");
  if (int rc = checkRequestArray(kFunc, incount, requests)) return rc;
  if (!outcount || (incount > 0 && !indices))
    return raisef(kFunc, MPI_ERR_ARG, "outcount or indices is NULL");
  bool allInactive = true;
  progress::engine().waitUntil(
      [&] { return firstComplete(incount, requests, &allInactive) >= 0 || allInactive; });
  if (allInactive) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  return collectSome(kFunc, incount, requests, outcount, indices, statuses);
}
CCMPI_MPI_ALIAS(MPI_Waitsome)

extern "C" int PMPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                             MPI_Status statuses[]) {
  CCMPI_API_BEGIN("MPI_Testsome");
  if (int rc = checkRequestArray(kFunc, incount, requests)) return rc;
  if (!outcount || (incount > 0 && !indices))
    return raisef(kFunc, MPI_ERR_ARG, "outcount or indices is NULL");
  p2p::pollOnce();
  bool allInactive;
  firstComplete(incount, requests, &allInactive);
  if (allInactive) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  return collectSome(kFunc, incount, requests, outcount, indices, statuses);
}
CCMPI_MPI_ALIAS(MPI_Testsome)

extern "C" int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Request_get_status");
  if (!flag) return raisef(kFunc, MPI_ERR_ARG, "flag pointer is NULL");
  if (request != MPI_REQUEST_NULL && !requestFromHandle(request))
    return raisef(kFunc, MPI_ERR_REQUEST, "invalid request handle 0x%x", request);
  p2p::pollOnce();
  Request* r = requestFromHandle(request);
  if (!r || handleInactive(request)) {
    *flag = 1;
    p2p::setEmptyStatus(status);
    return MPI_SUCCESS;
  }
  if (!handleComplete(request)) {
    *flag = 0;
    return MPI_SUCCESS;
  }
  *flag = 1;
  const Request* op = isPersistent(r) ? r->active : r;
  if (r->kind == Request::Kind::kGeneralized) {
    MPI_Status tmp;
    MPI_Status* st = status == MPI_STATUS_IGNORE ? &tmp : status;
    if (r->gQuery) r->gQuery(r->gState, st);
  } else {
    p2p::fillStatus(op, status);
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Request_get_status)

extern "C" int PMPI_Request_free(MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Request_free");
  if (!request) return raisef(kFunc, MPI_ERR_REQUEST, "request pointer is NULL");
  Request* r = requestFromHandle(*request);
  if (!r) return raisef(kFunc, MPI_ERR_REQUEST, "invalid request handle 0x%x", *request);
  dropRequestHandle(*request);
  *request = MPI_REQUEST_NULL;
  r->handle = 0;
  if (isPersistent(r)) {
    if (r->active) p2p::requestFree(r->active);
    r->active = nullptr;
    p2p::releaseRequest(r);
    return MPI_SUCCESS;
  }
  if (r->kind == Request::Kind::kGeneralized && r->complete) {
    finishGeneralized(r, MPI_STATUS_IGNORE);
  }
  p2p::requestFree(r);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Request_free)

extern "C" int PMPI_Cancel(MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Cancel");
  if (!request) return raisef(kFunc, MPI_ERR_REQUEST, "request pointer is NULL");
  Request* r = requestFromHandle(*request);
  if (!r) return raisef(kFunc, MPI_ERR_REQUEST, "invalid request handle 0x%x", *request);
  if (isPersistent(r)) r = r->active;
  if (!r) return MPI_SUCCESS;
  if (r->kind == Request::Kind::kGeneralized) {
    if (r->gCancel) r->gCancel(r->gState, r->complete ? 1 : 0);
    return MPI_SUCCESS;
  }
  p2p::cancel(r);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Cancel)

// ---------- probe ----------

// The status of a probe of MPI_PROC_NULL: source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0;
// MPI_ERROR is left alone (single-completion calls never set it).
static void procNullStatus(MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  const int err = status->MPI_ERROR;
  p2p::setEmptyStatus(status);
  status->MPI_SOURCE = MPI_PROC_NULL;
  status->MPI_ERROR = err;
}

extern "C" int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Iprobe");
  comm::Comm* c = nullptr;
  if (int rc = checkComm(kFunc, comm, &c)) return rc;
  if (int rc = checkBuffer(kFunc, comm, *c, nullptr, 0, MPI_BYTE, source, tag, true)) return rc;
  if (!flag) return raiseCommf(comm, kFunc, MPI_ERR_ARG, "flag pointer is NULL");
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    procNullStatus(status);
    return MPI_SUCCESS;
  }
  p2p::pollOnce();
  *flag = p2p::iprobe(source, tag, *c, p2p::Ctx::kPt2pt, status, false, nullptr) ? 1 : 0;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Iprobe)

extern "C" int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Probe");
  comm::Comm* c = nullptr;
  if (int rc = checkComm(kFunc, comm, &c)) return rc;
  if (int rc = checkBuffer(kFunc, comm, *c, nullptr, 0, MPI_BYTE, source, tag, true)) return rc;
  if (source == MPI_PROC_NULL) {
    procNullStatus(status);
    return MPI_SUCCESS;
  }
  progress::engine().waitUntil(
      [&] { return p2p::iprobe(source, tag, *c, p2p::Ctx::kPt2pt, status, false, nullptr); });
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Probe)

static MPI_Message newMessage(p2p::Unexpected* u, comm::Comm* c) {
  for (size_t i = 2; i < gMessages.size(); ++i)
    if (!gMessages[i]) {
      gMessages[i] = u;
      gMessageComms[i] = c;
      return makeHandle(HandleKind::kMessage, static_cast<int>(i));
    }
  gMessages.push_back(u);
  gMessageComms.push_back(c);
  return makeHandle(HandleKind::kMessage, static_cast<int>(gMessages.size() - 1));
}

extern "C" int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                            MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Improbe");
  comm::Comm* c = nullptr;
  if (int rc = checkComm(kFunc, comm, &c)) return rc;
  if (int rc = checkBuffer(kFunc, comm, *c, nullptr, 0, MPI_BYTE, source, tag, true)) return rc;
  if (!flag || !message)
    return raiseCommf(comm, kFunc, MPI_ERR_ARG, "flag or message pointer is NULL");
  if (source == MPI_PROC_NULL) {
    *flag = 1;
    *message = MPI_MESSAGE_NO_PROC;
    procNullStatus(status);
    return MPI_SUCCESS;
  }
  p2p::pollOnce();
  p2p::Unexpected* u = nullptr;
  *flag = p2p::iprobe(source, tag, *c, p2p::Ctx::kPt2pt, status, true, &u) ? 1 : 0;
  if (*flag) *message = newMessage(u, c);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Improbe)

extern "C" int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message,
                           MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Mprobe");
  comm::Comm* c = nullptr;
  if (int rc = checkComm(kFunc, comm, &c)) return rc;
  if (int rc = checkBuffer(kFunc, comm, *c, nullptr, 0, MPI_BYTE, source, tag, true)) return rc;
  if (!message) return raiseCommf(comm, kFunc, MPI_ERR_ARG, "message pointer is NULL");
  if (source == MPI_PROC_NULL) {
    *message = MPI_MESSAGE_NO_PROC;
    procNullStatus(status);
    return MPI_SUCCESS;
  }
  p2p::Unexpected* u = nullptr;
  progress::engine().waitUntil(
      [&] { return p2p::iprobe(source, tag, *c, p2p::Ctx::kPt2pt, status, true, &u); });
  *message = newMessage(u, c);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Mprobe)

int ccmpi::api::takeMessage(const char* kFunc, MPI_Message* message, p2p::Unexpected** u,
                            comm::Comm** c) {
  if (!message) return raisef(kFunc, MPI_ERR_ARG, "message pointer is NULL");
  const int idx = handleIndex(*message);
  if (handleKind(*message) != HandleKind::kMessage || idx < 2 ||
      idx >= static_cast<int>(gMessages.size()) || !gMessages[idx])
    return raisef(kFunc, MPI_ERR_REQUEST, "invalid message handle 0x%x", *message);
  *u = gMessages[idx];
  *c = gMessageComms[idx];
  gMessages[idx] = nullptr;
  gMessageComms[idx] = nullptr;
  *message = MPI_MESSAGE_NULL;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message,
                           MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Imrecv");
  if (!request) return raisef(kFunc, MPI_ERR_REQUEST, "request pointer is NULL");
  if (message && *message == MPI_MESSAGE_NO_PROC) {
    Request* r = nullptr;
    comm::Comm* self = comm::lookup(MPI_COMM_SELF);
    p2p::irecv(buf, 0, MPI_BYTE, MPI_PROC_NULL, 0, *self, p2p::Ctx::kPt2pt, &r);
    *message = MPI_MESSAGE_NULL;
    *request = requestHandle(r);
    return MPI_SUCCESS;
  }
  p2p::Unexpected* u = nullptr;
  comm::Comm* c = nullptr;
  if (int rc = takeMessage(kFunc, message, &u, &c)) return rc;
  Request* r = nullptr;
  if (int rc = p2p::mrecv(buf, count, type, u, *c, &r)) return raisef(kFunc, rc, nullptr);
  *request = requestHandle(r);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Imrecv)

extern "C" int PMPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message,
                          MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Mrecv");
  MPI_Request req;
  if (int rc = PMPI_Imrecv(buf, count, type, message, &req)) return rc;
  if (int rc = waitHandle(&req, status)) return raisef(kFunc, rc, nullptr);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Mrecv)

// ---------- buffered-send buffer ----------

extern "C" int PMPI_Buffer_attach(void* buffer, int size) {
  CCMPI_API_BEGIN("MPI_Buffer_attach");
  if (int rc = p2p::bufferAttach(buffer, size)) return raise(kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Buffer_attach)

extern "C" int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  CCMPI_API_BEGIN("MPI_Buffer_detach");
  if (!buffer_addr || !size) return raisef(kFunc, MPI_ERR_ARG, "NULL argument");
  if (int rc = p2p::bufferDetach(buffer_addr, size)) return raise(kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Buffer_detach)

// ---------- generalized requests ----------

extern "C" int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn,
                                   MPI_Grequest_free_function* free_fn,
                                   MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                                   MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Grequest_start");
  if (!request) return raisef(kFunc, MPI_ERR_ARG, "request pointer is NULL");
  Request* r = p2p::newRequest(Request::Kind::kGeneralized);
  r->gQuery = query_fn;
  r->gFree = free_fn;
  r->gCancel = cancel_fn;
  r->gState = extra_state;
  r->commHandle = MPI_COMM_WORLD;
  *request = requestHandle(r);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Grequest_start)

extern "C" int PMPI_Grequest_complete(MPI_Request request) {
  CCMPI_API_BEGIN("MPI_Grequest_complete");
  Request* r = requestFromHandle(request);
  if (!r || r->kind != Request::Kind::kGeneralized)
    return raisef(kFunc, MPI_ERR_REQUEST, "0x%x is not a generalized request", request);
  if (r->freeOnComplete) finishGeneralized(r, MPI_STATUS_IGNORE);  // freed by the user already
  p2p::completeRequest(r);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Grequest_complete)
