// MPI-4.0/4.1 point-to-point additions: MPI_Isendrecv(_replace), the 64-bit receive and
// send-receive paths of the large-count functions, the buffered-send buffers of
// communicators and sessions (MPI_BUFFER_AUTOMATIC, flush/iflush), MPI_Status_set_* and
// MPI_Request_get_status_any/all/some.
//
// A send-receive is one request made of a receive and a send posted together (the
// receive first): it completes when both have, with the receive's status. The replace
// form sends a packed copy of the buffer, freed when the request completes.
#include <cstring>
#include <memory>
#include <vector>

#include "api/api.h"
#include "api/coll_checks.h"
#include "api/large_count.h"
#include "api/p2p_api.h"
#include "api/request_table.h"
#include "base/handles.h"
#include "comm/comm.h"
#include "datatype/datatype.h"
#include "p2p/p2p.h"
#include "p2p/request.h"
#include "progress/engine.h"

namespace ccmpi::api::large {
namespace {

using p2p::Request;

// The combined request of a send-receive: complete when `recv` and `send` are, carrying
// the receive's result (its kind is kRecv so that the status shows it).
Request* combine(comm::Comm& c, Request* recv, Request* send,
                 std::shared_ptr<std::vector<unsigned char>> copy) {
  Request* r = p2p::newRequest(Request::Kind::kRecv);
  r->comm = &c;
  ++c.refs;
  r->poll = [recv, send, copy](Request* self) mutable {
    if (self->complete || !recv->complete || !send->complete) return;
    self->srcWorld = recv->srcWorld;
    self->srcTag = recv->srcTag;
    self->received = recv->received;
    self->msgSize = recv->msgSize;
    self->cancelled = recv->cancelled;
    self->error = recv->error ? recv->error : send->error;
    p2p::releaseRequest(recv);
    p2p::releaseRequest(send);
    copy.reset();
    p2p::completeRequest(self);
  };
  r->poll(r);
  return r;
}

// Checks and posts a send-receive; *out is the combined request.
int startSendrecv(const char* func, const void* sendbuf, int64_t sendcount, MPI_Datatype sendtype,
                  int dest, int sendtag, void* recvbuf, int64_t recvcount, MPI_Datatype recvtype,
                  int source, int recvtag, MPI_Comm comm, bool replace, Request** out) {
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(func, comm, &c));
  CCMPI_TRY(checkBuffer(func, comm, *c, sendbuf, sendcount, sendtype, dest, sendtag, false));
  CCMPI_TRY(checkBuffer(func, comm, *c, recvbuf, recvcount, recvtype, source, recvtag, true));
  std::shared_ptr<std::vector<unsigned char>> copy;
  if (replace) {
    datatype::Datatype* dt = datatype::lookup(sendtype);
    copy = std::make_shared<std::vector<unsigned char>>(static_cast<size_t>(sendcount) *
                                                        static_cast<size_t>(dt->size()));
    if (!copy->empty()) dt->pack(sendbuf, sendcount, 0, copy->data(), copy->size());
    sendbuf = copy->data();
    sendcount = static_cast<int64_t>(copy->size());
    sendtype = MPI_BYTE;
  }
  Request* recv = nullptr;
  Request* send = nullptr;
  // The send first, as p2p::sendrecv explains.
  if (int rc = p2p::isend(sendbuf, sendcount, sendtype, dest, sendtag, *c, p2p::Ctx::kPt2pt,
                          p2p::SendMode::kStandard, &send))
    return raiseComm(comm, func, rc);
  if (int rc =
          p2p::irecv(recvbuf, recvcount, recvtype, source, recvtag, *c, p2p::Ctx::kPt2pt, &recv)) {
    p2p::cancel(send);
    p2p::wait(send, MPI_STATUS_IGNORE);
    return raiseComm(comm, func, rc);
  }
  *out = combine(*c, recv, send, std::move(copy));
  (*out)->commHandle = comm;
  return MPI_SUCCESS;
}

int finishBlocking(const char* func, MPI_Comm comm, Request* r, MPI_Status* status) {
  if (int rc = p2p::wait(r, status)) return raiseComm(comm, func, rc);
  return MPI_SUCCESS;
}

int handOut(const char* func, MPI_Comm comm, Request* r, MPI_Request* request) {
  (void)func;
  (void)comm;
  *request = requestHandle(r);
  return MPI_SUCCESS;
}

}  // namespace

int recv(const char* func, void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
         MPI_Comm comm, MPI_Status* status) {
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(func, comm, &c));
  CCMPI_TRY(checkBuffer(func, comm, *c, buf, count, datatype, source, tag, true));
  Request* r = nullptr;
  if (int rc = p2p::irecv(buf, count, datatype, source, tag, *c, p2p::Ctx::kPt2pt, &r))
    return raiseComm(comm, func, rc);
  return finishBlocking(func, comm, r, status);
}

int imrecv(const char* func, void* buf, MPI_Count count, MPI_Datatype datatype,
           MPI_Message* message, MPI_Request* request) {
  if (!request) return raisef(func, MPI_ERR_REQUEST, "request pointer is NULL");
  if (count < 0)
    return raisef(func, MPI_ERR_COUNT, "count %lld is negative", static_cast<long long>(count));
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
  CCMPI_TRY(takeMessage(func, message, &u, &c));
  Request* r = nullptr;
  if (int rc = p2p::mrecv(buf, count, datatype, u, *c, &r)) return raisef(func, rc, nullptr);
  *request = requestHandle(r);
  return MPI_SUCCESS;
}

int mrecv(const char* func, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
          MPI_Status* status) {
  MPI_Request req;
  CCMPI_TRY(imrecv(func, buf, count, datatype, message, &req));
  if (int rc = waitHandle(&req, status)) return raisef(func, rc, nullptr);
  return MPI_SUCCESS;
}

int sendrecv(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
             int dest, int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  Request* r = nullptr;
  CCMPI_TRY(startSendrecv(func, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                          recvtype, source, recvtag, comm, false, &r));
  return finishBlocking(func, comm, r, status);
}

int sendrecvReplace(const char* func, void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                    int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  Request* r = nullptr;
  CCMPI_TRY(startSendrecv(func, buf, count, datatype, dest, sendtag, buf, count, datatype, source,
                          recvtag, comm, true, &r));
  return finishBlocking(func, comm, r, status);
}

int isendrecv(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
              int dest, int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
              int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  if (!request) return raiseCommf(comm, func, MPI_ERR_REQUEST, "request pointer is NULL");
  Request* r = nullptr;
  CCMPI_TRY(startSendrecv(func, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                          recvtype, source, recvtag, comm, false, &r));
  return handOut(func, comm, r, request);
}

int isendrecvReplace(const char* func, void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                     int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  if (!request) return raiseCommf(comm, func, MPI_ERR_REQUEST, "request pointer is NULL");
  Request* r = nullptr;
  CCMPI_TRY(startSendrecv(func, buf, count, datatype, dest, sendtag, buf, count, datatype, source,
                          recvtag, comm, true, &r));
  return handOut(func, comm, r, request);
}

int bufferAttach(const char* func, void* buffer, MPI_Count size) {
  if (int rc = p2p::bufferAttach(p2p::BufferScope::kProcess, 0, buffer, size))
    return raise(func, rc);
  return MPI_SUCCESS;
}

int bufferDetach(const char* func, void* buffer_addr, MPI_Count* size) {
  if (!buffer_addr || !size) return raisef(func, MPI_ERR_ARG, "NULL argument");
  int64_t n = 0;
  if (int rc = p2p::bufferDetach(p2p::BufferScope::kProcess, 0, buffer_addr, &n))
    return raise(func, rc);
  *size = n;
  return MPI_SUCCESS;
}

}  // namespace ccmpi::api::large

using namespace ccmpi;
using namespace ccmpi::api;
using p2p::BufferScope;
using p2p::Request;

// ---------- nonblocking send-receive ----------

extern "C" int PMPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                              int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                              int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Isendrecv");
  return large::isendrecv(kFunc, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                          recvtype, source, recvtag, comm, request);
}
CCMPI_MPI_ALIAS(MPI_Isendrecv)

extern "C" int PMPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest,
                                      int sendtag, int source, int recvtag, MPI_Comm comm,
                                      MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Isendrecv_replace");
  return large::isendrecvReplace(kFunc, buf, count, datatype, dest, sendtag, source, recvtag, comm,
                                 request);
}
CCMPI_MPI_ALIAS(MPI_Isendrecv_replace)

// ---------- buffered-send buffers (MPI-4.1) ----------

namespace {

// Where a communicator's or session's buffer is kept; raises on a bad handle.
int commKey(const char* func, MPI_Comm comm, uint64_t* key) {
  comm::Comm* c = comm::lookup(comm);
  if (!c) return raisef(func, MPI_ERR_COMM, "invalid communicator handle 0x%x", comm);
  *key = c->contextId;
  return MPI_SUCCESS;
}

int sessionKey(const char* func, MPI_Session session, uint64_t* key) {
  if (handleKind(session) != HandleKind::kSession || handleIndex(session) <= 0)
    return raisef(func, MPI_ERR_SESSION, "invalid session handle 0x%x", session);
  *key = static_cast<uint32_t>(session);
  return MPI_SUCCESS;
}

int attach(const char* func, MPI_Comm comm, BufferScope scope, uint64_t key, void* buffer,
           int64_t size) {
  if (int rc = p2p::bufferAttach(scope, key, buffer, size)) return raiseComm(comm, func, rc);
  return MPI_SUCCESS;
}

int detach(const char* func, MPI_Comm comm, BufferScope scope, uint64_t key, void* bufferAddr,
           int64_t* size) {
  if (!bufferAddr || !size) return raiseCommf(comm, func, MPI_ERR_ARG, "NULL argument");
  if (int rc = p2p::bufferDetach(scope, key, bufferAddr, size)) return raiseComm(comm, func, rc);
  return MPI_SUCCESS;
}

int detachInt(const char* func, MPI_Comm comm, BufferScope scope, uint64_t key, void* bufferAddr,
              int* size) {
  if (!size) return raiseCommf(comm, func, MPI_ERR_ARG, "NULL argument");
  int64_t n = 0;
  CCMPI_TRY(detach(func, comm, scope, key, bufferAddr, &n));
  *size = n > INT_MAX ? INT_MAX : static_cast<int>(n);
  return MPI_SUCCESS;
}

void flush(BufferScope scope, uint64_t key) {
  progress::engine().waitUntil([&] { return p2p::bufferIdle(scope, key); });
}

// A request completing when the buffer's messages have all left.
int iflush(const char* func, MPI_Comm comm, BufferScope scope, uint64_t key, MPI_Request* request) {
  if (!request) return raiseCommf(comm, func, MPI_ERR_REQUEST, "request pointer is NULL");
  Request* r = p2p::newRequest(Request::Kind::kOther);
  r->poll = [scope, key](Request* self) {
    if (p2p::bufferIdle(scope, key)) p2p::completeRequest(self);
  };
  r->poll(r);
  r->commHandle = comm;
  *request = requestHandle(r);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Buffer_flush(void) {
  CCMPI_API_BEGIN("MPI_Buffer_flush");
  flush(BufferScope::kProcess, 0);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Buffer_flush)

extern "C" int PMPI_Buffer_iflush(MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Buffer_iflush");
  return iflush(kFunc, MPI_COMM_WORLD, BufferScope::kProcess, 0, request);
}
CCMPI_MPI_ALIAS(MPI_Buffer_iflush)

extern "C" int PMPI_Comm_attach_buffer(MPI_Comm comm, void* buffer, int size) {
  CCMPI_API_BEGIN("MPI_Comm_attach_buffer");
  uint64_t key = 0;
  CCMPI_TRY(commKey(kFunc, comm, &key));
  return attach(kFunc, comm, BufferScope::kComm, key, buffer, size);
}
CCMPI_MPI_ALIAS(MPI_Comm_attach_buffer)

extern "C" int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void* buffer, MPI_Count size) {
  CCMPI_API_BEGIN("MPI_Comm_attach_buffer_c");
  uint64_t key = 0;
  CCMPI_TRY(commKey(kFunc, comm, &key));
  return attach(kFunc, comm, BufferScope::kComm, key, buffer, size);
}
CCMPI_MPI_ALIAS(MPI_Comm_attach_buffer_c)

extern "C" int PMPI_Comm_detach_buffer(MPI_Comm comm, void* buffer_addr, int* size) {
  CCMPI_API_BEGIN("MPI_Comm_detach_buffer");
  uint64_t key = 0;
  CCMPI_TRY(commKey(kFunc, comm, &key));
  return detachInt(kFunc, comm, BufferScope::kComm, key, buffer_addr, size);
}
CCMPI_MPI_ALIAS(MPI_Comm_detach_buffer)

extern "C" int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void* buffer_addr, MPI_Count* size) {
  CCMPI_API_BEGIN("MPI_Comm_detach_buffer_c");
  uint64_t key = 0;
  CCMPI_TRY(commKey(kFunc, comm, &key));
  int64_t n = 0;
  CCMPI_TRY(detach(kFunc, comm, BufferScope::kComm, key, buffer_addr, &n));
  *size = n;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_detach_buffer_c)

extern "C" int PMPI_Comm_flush_buffer(MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Comm_flush_buffer");
  uint64_t key = 0;
  CCMPI_TRY(commKey(kFunc, comm, &key));
  flush(BufferScope::kComm, key);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_flush_buffer)

extern "C" int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Comm_iflush_buffer");
  uint64_t key = 0;
  CCMPI_TRY(commKey(kFunc, comm, &key));
  return iflush(kFunc, comm, BufferScope::kComm, key, request);
}
CCMPI_MPI_ALIAS(MPI_Comm_iflush_buffer)

extern "C" int PMPI_Session_attach_buffer(MPI_Session session, void* buffer, int size) {
  CCMPI_API_BEGIN("MPI_Session_attach_buffer");
  uint64_t key = 0;
  CCMPI_TRY(sessionKey(kFunc, session, &key));
  return attach(kFunc, MPI_COMM_WORLD, BufferScope::kSession, key, buffer, size);
}
CCMPI_MPI_ALIAS(MPI_Session_attach_buffer)

extern "C" int PMPI_Session_attach_buffer_c(MPI_Session session, void* buffer, MPI_Count size) {
  CCMPI_API_BEGIN("MPI_Session_attach_buffer_c");
  uint64_t key = 0;
  CCMPI_TRY(sessionKey(kFunc, session, &key));
  return attach(kFunc, MPI_COMM_WORLD, BufferScope::kSession, key, buffer, size);
}
CCMPI_MPI_ALIAS(MPI_Session_attach_buffer_c)

extern "C" int PMPI_Session_detach_buffer(MPI_Session session, void* buffer_addr, int* size) {
  CCMPI_API_BEGIN("MPI_Session_detach_buffer");
  uint64_t key = 0;
  CCMPI_TRY(sessionKey(kFunc, session, &key));
  return detachInt(kFunc, MPI_COMM_WORLD, BufferScope::kSession, key, buffer_addr, size);
}
CCMPI_MPI_ALIAS(MPI_Session_detach_buffer)

extern "C" int PMPI_Session_detach_buffer_c(MPI_Session session, void* buffer_addr,
                                            MPI_Count* size) {
  CCMPI_API_BEGIN("MPI_Session_detach_buffer_c");
  uint64_t key = 0;
  CCMPI_TRY(sessionKey(kFunc, session, &key));
  int64_t n = 0;
  CCMPI_TRY(detach(kFunc, MPI_COMM_WORLD, BufferScope::kSession, key, buffer_addr, &n));
  *size = n;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Session_detach_buffer_c)

extern "C" int PMPI_Session_flush_buffer(MPI_Session session) {
  CCMPI_API_BEGIN("MPI_Session_flush_buffer");
  uint64_t key = 0;
  CCMPI_TRY(sessionKey(kFunc, session, &key));
  flush(BufferScope::kSession, key);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Session_flush_buffer)

extern "C" int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Session_iflush_buffer");
  uint64_t key = 0;
  CCMPI_TRY(sessionKey(kFunc, session, &key));
  return iflush(kFunc, MPI_COMM_WORLD, BufferScope::kSession, key, request);
}
CCMPI_MPI_ALIAS(MPI_Session_iflush_buffer)

// ---------- status and request queries (MPI-4.0 / 4.1) ----------

extern "C" int PMPI_Status_set_source(MPI_Status* status, int source) {
  CCMPI_API_BEGIN("MPI_Status_set_source");
  if (!status) return raisef(kFunc, MPI_ERR_ARG, "status is NULL");
  status->MPI_SOURCE = source;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Status_set_source)

extern "C" int PMPI_Status_set_tag(MPI_Status* status, int tag) {
  CCMPI_API_BEGIN("MPI_Status_set_tag");
  if (!status) return raisef(kFunc, MPI_ERR_ARG, "status is NULL");
  status->MPI_TAG = tag;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Status_set_tag)

extern "C" int PMPI_Status_set_error(MPI_Status* status, int err) {
  CCMPI_API_BEGIN("MPI_Status_set_error");
  if (!status) return raisef(kFunc, MPI_ERR_ARG, "status is NULL");
  status->MPI_ERROR = err;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Status_set_error)

static int checkRequests(const char* kFunc, int count, const MPI_Request* reqs) {
  if (count < 0) return raisef(kFunc, MPI_ERR_COUNT, "count %d is negative", count);
  if (count > 0 && !reqs) return raisef(kFunc, MPI_ERR_REQUEST, "request array is NULL");
  for (int i = 0; i < count; ++i)
    if (reqs[i] != MPI_REQUEST_NULL && !requestFromHandle(reqs[i]))
      return raisef(kFunc, MPI_ERR_REQUEST, "requests[%d] = 0x%x is not a valid request", i,
                    reqs[i]);
  return MPI_SUCCESS;
}

// MPI_Request_get_status on request i (which never frees it).
static int peek(MPI_Request r, int* flag, MPI_Status* status) {
  return PMPI_Request_get_status(r, flag, status);
}

extern "C" int PMPI_Request_get_status_any(int count, MPI_Request requests[], int* index, int* flag,
                                           MPI_Status* status) {
  CCMPI_API_BEGIN("MPI_Request_get_status_any");
  CCMPI_TRY(checkRequests(kFunc, count, requests));
  if (!index || !flag) return raisef(kFunc, MPI_ERR_ARG, "index or flag pointer is NULL");
  bool anyActive = false;
  for (int i = 0; i < count; ++i) {
    if (handleInactive(requests[i])) continue;
    anyActive = true;
    int f = 0;
    CCMPI_TRY(peek(requests[i], &f, status));
    if (f) {
      *flag = 1;
      *index = i;
      return MPI_SUCCESS;
    }
  }
  *index = MPI_UNDEFINED;
  *flag = anyActive ? 0 : 1;
  if (!anyActive) p2p::setEmptyStatus(status);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Request_get_status_any)

extern "C" int PMPI_Request_get_status_all(int count, MPI_Request requests[], int* flag,
                                           MPI_Status statuses[]) {
  CCMPI_API_BEGIN("MPI_Request_get_status_all");
  CCMPI_TRY(checkRequests(kFunc, count, requests));
  if (!flag) return raisef(kFunc, MPI_ERR_ARG, "flag pointer is NULL");
  p2p::pollOnce();
  for (int i = 0; i < count; ++i)
    if (!handleComplete(requests[i])) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  *flag = 1;
  for (int i = 0; i < count; ++i) {
    int f = 0;
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    CCMPI_TRY(peek(requests[i], &f, st));
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Request_get_status_all)

extern "C" int PMPI_Request_get_status_some(int incount, MPI_Request requests[], int* outcount,
                                            int indices[], MPI_Status statuses[]) {
  CCMPI_API_BEGIN("MPI_Request_get_status_some");
  CCMPI_TRY(checkRequests(kFunc, incount, requests));
  if (!outcount || (incount > 0 && !indices))
    return raisef(kFunc, MPI_ERR_ARG, "outcount or indices is NULL");
  p2p::pollOnce();
  bool anyActive = false;
  int n = 0;
  for (int i = 0; i < incount; ++i) {
    if (handleInactive(requests[i])) continue;
    anyActive = true;
    if (!handleComplete(requests[i])) continue;
    int f = 0;
    MPI_Status* st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n];
    CCMPI_TRY(peek(requests[i], &f, st));
    indices[n++] = i;
  }
  *outcount = anyActive ? n : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Request_get_status_some)
