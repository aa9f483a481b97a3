// Partitioned point-to-point communication (MPI-4.0 chapter 4): MPI_Psend_init,
// MPI_Precv_init, MPI_Pready(_range/_list), MPI_Parrived.
//
// A partitioned request is a persistent request (Kind::kPersistentColl, run by its start
// hook) whose state (PartState, in Request::gState) outlives each run. Each MPI_Start of
// the send side clears the ready flags; when the last partition is marked ready, the
// whole buffer goes as one message over the p2p layer. The receive side posts one
// receive of the whole buffer at each start. Sender and receiver may cut the buffer into
// different numbers of partitions: one message carries them all, so MPI_Parrived reports
// a partition when that message has arrived.
//
// Matching: the n-th MPI_Psend_init to a rank with tag t on a communicator matches the
// n-th MPI_Precv_init from that rank with tag t there (initialization order, whatever the
// order of the starts). Each request gets that n at initialization, and its messages a
// tag made of t and n above p2p::kPartitionedTagBase: ordinary receives (even MPI_ANY_TAG
// ones) never match them. n is folded into the tag's high bits (t ^ n << 20, 30 bits), so
// two pairs could only be confused if both were outstanding with user tags of 2^20 or
// more that happen to fold to the same value.
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "api/api.h"
#include "api/coll_checks.h"
#include "api/p2p_api.h"
#include "api/request_table.h"
#include "comm/comm.h"
#include "comm/info.h"
#include "p2p/p2p.h"
#include "p2p/request.h"

namespace ccmpi::api {
namespace {

using p2p::Request;

struct PartState {
  bool send = false;
  void* buf = nullptr;
  int partitions = 0;
  int64_t count = 0;  // elements per partition
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int peer = MPI_PROC_NULL;
  int tag = 0;
  int wireTag = 0;  // tag and initialization sequence (see the top of this file)
  MPI_Comm comm = MPI_COMM_NULL;
  std::vector<char> ready;
  int nready = 0;
  Request* inner = nullptr;  // the message of the current run (nullptr until posted)
};

// The request of one run: completes with `inner`, showing the user's tag in the status.
Request* runRequest(const std::shared_ptr<PartState>& st, comm::Comm& c) {
  Request* r = p2p::newRequest(st->send ? Request::Kind::kOther : Request::Kind::kRecv);
  r->comm = &c;
  ++c.refs;
  r->poll = [st](Request* self) {
    if (self->complete || !st->inner || !st->inner->complete) return;
    Request* in = st->inner;
    st->inner = nullptr;
    self->srcWorld = in->srcWorld;
    self->srcTag = st->tag;
    self->received = in->received;
    self->msgSize = in->msgSize;
    self->error = in->error;
    p2p::releaseRequest(in);
    p2p::completeRequest(self);
  };
  return r;
}

// Partitioned initializations so far per (send?, context, peer world rank, tag).
std::map<std::tuple<bool, uint32_t, int, int>, uint32_t> gInitCount;

int wireTag(bool send, const comm::Comm& c, int peer, int tag) {
  if (peer == MPI_PROC_NULL) return p2p::kPartitionedTagBase + tag;
  const uint32_t n = gInitCount[{send, c.contextId, c.worldRankOf(peer), tag}]++;
  return p2p::kPartitionedTagBase +
         static_cast<int>((static_cast<uint32_t>(tag) ^ (n << 20)) & p2p::kTagUb);
}

int post(PartState& st, comm::Comm& c) {
  const int64_t total = st.count * st.partitions;
  const int tag = st.wireTag;
  if (st.send)
    return p2p::isend(st.buf, total, st.type, st.peer, tag, c, p2p::Ctx::kPt2pt,
                      p2p::SendMode::kStandard, &st.inner);
  return p2p::irecv(st.buf, total, st.type, st.peer, tag, c, p2p::Ctx::kPt2pt, &st.inner);
}

int partInit(const char* func, const void* buf, int partitions, MPI_Count count, MPI_Datatype type,
             int peer, int tag, MPI_Comm comm, MPI_Info info, bool send, MPI_Request* request) {
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkComm(func, comm, &c));
  if (partitions < 1)
    return raiseCommf(comm, func, MPI_ERR_ARG, "partitions %d is not positive", partitions);
  if (count >= 0 && partitions > 1 && count > INT64_MAX / partitions)
    return raiseCommf(comm, func, MPI_ERR_COUNT, "%d partitions of %lld elements overflow",
                      partitions, static_cast<long long>(count));
  if (peer == MPI_ANY_SOURCE)
    return raiseCommf(comm, func, MPI_ERR_RANK, "MPI_ANY_SOURCE is not allowed");
  if (tag == MPI_ANY_TAG) return raiseCommf(comm, func, MPI_ERR_TAG, "MPI_ANY_TAG is not allowed");
  CCMPI_TRY(checkBuffer(func, comm, *c, buf, count, type, peer, tag, !send));
  if (info != MPI_INFO_NULL && !comm::lookupInfo(info))
    return raiseCommf(comm, func, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  if (!request) return raiseCommf(comm, func, MPI_ERR_REQUEST, "request pointer is NULL");
  auto st = std::make_shared<PartState>();
  st->send = send;
  st->buf = const_cast<void*>(buf);
  st->partitions = partitions;
  st->count = count;
  st->type = type;
  st->peer = peer;
  st->tag = tag;
  st->wireTag = wireTag(send, *c, peer, tag);
  st->comm = comm;
  st->ready.assign(static_cast<size_t>(partitions), 0);
  Request* p = p2p::newRequest(Request::Kind::kPersistentColl);
  p->phase = Request::Phase::kIdle;
  p->complete = true;  // inactive
  p->gState = st.get();
  p->startHook = [st](Request* self) {
    comm::Comm* cc = comm::lookup(st->comm);
    if (!cc) return setErrorCause(MPI_ERR_COMM, "the communicator was freed");
    std::fill(st->ready.begin(), st->ready.end(), 0);
    st->nready = 0;
    st->inner = nullptr;
    if (!st->send)
      if (int rc = post(*st, *cc)) return rc;
    self->active = runRequest(st, *cc);
    self->complete = false;
    return MPI_SUCCESS;
  };
  p->commHandle = comm;
  *request = requestHandle(p);
  return MPI_SUCCESS;
}

// The state of a partitioned request handle, or raises.
int partState(const char* func, MPI_Request request, Request** out, PartState** st) {
  Request* r = requestFromHandle(request);
  if (!r || r->kind != Request::Kind::kPersistentColl || !r->gState)
    return raisef(func, MPI_ERR_REQUEST, "0x%x is not a partitioned request", request);
  *out = r;
  *st = static_cast<PartState*>(r->gState);
  return MPI_SUCCESS;
}

int markReady(const char* func, Request* r, PartState& st, int partition) {
  if (!st.send) return raiseCommf(r->commHandle, func, MPI_ERR_REQUEST, "the request is a receive");
  if (!r->active)
    return raiseCommf(r->commHandle, func, MPI_ERR_REQUEST, "the request is not active");
  if (partition < 0 || partition >= st.partitions)
    return raiseCommf(r->commHandle, func, MPI_ERR_ARG, "partition %d is outside [0, %d)",
                      partition, st.partitions);
  if (st.ready[partition])
    return raiseCommf(r->commHandle, func, MPI_ERR_ARG, "partition %d is already ready", partition);
  st.ready[partition] = 1;
  if (++st.nready < st.partitions) return MPI_SUCCESS;
  comm::Comm* c = comm::lookup(st.comm);
  if (!c) return raisef(func, MPI_ERR_COMM, "the communicator of the request was freed");
  if (int rc = post(st, *c)) return raiseComm(st.comm, func, rc);
  r->active->poll(r->active);
  return MPI_SUCCESS;
}

}  // namespace
}  // namespace ccmpi::api

using namespace ccmpi;
using namespace ccmpi::api;

extern "C" int PMPI_Psend_init(const void* buf, int partitions, MPI_Count count,
                               MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                               MPI_Info info, MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Psend_init");
  return partInit(kFunc, buf, partitions, count, datatype, dest, tag, comm, info, true, request);
}
CCMPI_MPI_ALIAS(MPI_Psend_init)

extern "C" int PMPI_Precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                               int source, int tag, MPI_Comm comm, MPI_Info info,
                               MPI_Request* request) {
  CCMPI_API_BEGIN("MPI_Precv_init");
  return partInit(kFunc, buf, partitions, count, datatype, source, tag, comm, info, false, request);
}
CCMPI_MPI_ALIAS(MPI_Precv_init)

extern "C" int PMPI_Pready(int partition, MPI_Request request) {
  CCMPI_API_BEGIN("MPI_Pready");
  p2p::Request* r = nullptr;
  PartState* st = nullptr;
  CCMPI_TRY(partState(kFunc, request, &r, &st));
  return markReady(kFunc, r, *st, partition);
}
CCMPI_MPI_ALIAS(MPI_Pready)

extern "C" int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request) {
  CCMPI_API_BEGIN("MPI_Pready_range");
  p2p::Request* r = nullptr;
  PartState* st = nullptr;
  CCMPI_TRY(partState(kFunc, request, &r, &st));
  if (partition_low > partition_high)
    return raiseCommf(r->commHandle, kFunc, MPI_ERR_ARG, "partition_low %d > partition_high %d",
                      partition_low, partition_high);
  for (int i = partition_low; i <= partition_high; ++i) CCMPI_TRY(markReady(kFunc, r, *st, i));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Pready_range)

extern "C" int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request) {
  CCMPI_API_BEGIN("MPI_Pready_list");
  p2p::Request* r = nullptr;
  PartState* st = nullptr;
  CCMPI_TRY(partState(kFunc, request, &r, &st));
  if (length < 0)
    return raiseCommf(r->commHandle, kFunc, MPI_ERR_ARG, "length %d is negative", length);
  if (length > 0 && !array_of_partitions)
    return raiseCommf(r->commHandle, kFunc, MPI_ERR_ARG, "array_of_partitions is NULL");
  for (int i = 0; i < length; ++i) CCMPI_TRY(markReady(kFunc, r, *st, array_of_partitions[i]));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Pready_list)

extern "C" int PMPI_Parrived(MPI_Request request, int partition, int* flag) {
  CCMPI_API_BEGIN("MPI_Parrived");
  p2p::Request* r = nullptr;
  PartState* st = nullptr;
  CCMPI_TRY(partState(kFunc, request, &r, &st));
  if (!flag) return raiseCommf(r->commHandle, kFunc, MPI_ERR_ARG, "flag pointer is NULL");
  if (st->send) return raiseCommf(r->commHandle, kFunc, MPI_ERR_REQUEST, "the request is a send");
  if (partition < 0 || partition >= st->partitions)
    return raiseCommf(r->commHandle, kFunc, MPI_ERR_ARG, "partition %d is outside [0, %d)",
                      partition, st->partitions);
  if (!r->active) {  // inactive: nothing to wait for
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (!r->active->complete) {
    p2p::pollOnce();
    r->active->poll(r->active);
  }
  *flag = r->active->complete ? 1 : 0;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Parrived)
