// The general paths of the MPI-4.0 large-count functions (see api/large_count.h for the
// design): derived types for the non-v collectives, chunks for the reductions, a linear
// p2p algorithm with 64-bit counts and MPI_Aint displacements for the v/w ones, and the
// 64-bit point-to-point calls.
#include "api/large_count.h"

#include <cstring>
#include <memory>
#include <vector>

#include "api/api.h"
#include "api/coll_checks.h"
#include "api/p2p_api.h"
#include "api/request_table.h"
#include "base/tunables.h"
#include "coll/schedule.h"
#include "comm/comm.h"
#include "datatype/datatype.h"
#include "p2p/p2p.h"
#include "p2p/request.h"

namespace ccmpi::api::large {
namespace {

Tunable<uint64_t> kLimit("CCMPI_LARGE_COUNT_LIMIT", INT_MAX,
                         "largest count the large-count (MPI_X_c) collectives hand to the int "
                         "algorithms; larger ones take the general paths (at most INT_MAX)");

using p2p::Request;

// p + bytes, leaving NULL and MPI_IN_PLACE alone.
template <typename T>
T* at(T* p, int64_t bytes) {
  if (p == nullptr || p == MPI_IN_PLACE) return p;
  using Byte = std::conditional_t<std::is_const_v<T>, const char, char>;
  return reinterpret_cast<T*>(reinterpret_cast<Byte*>(p) + bytes);
}

int64_t extentOf(MPI_Datatype t) {
  datatype::Datatype* dt = datatype::lookup(t);
  return dt ? dt->extent() : 0;
}

// One element of a type covering `count` elements of `type`: contiguous chunks of at most
// limit() elements, then the remainder, resized to count extents.
int bigType(MPI_Count count, MPI_Datatype type, MPI_Datatype* out) {
  const int64_t chunk = limit();
  const int64_t q = count / chunk, r = count % chunk;
  const int64_t ext = extentOf(type);
  MPI_Datatype piece, whole;
  if (int rc = PMPI_Type_contiguous(static_cast<int>(chunk), type, &piece)) return rc;
  if (r == 0) {
    if (int rc = PMPI_Type_contiguous(static_cast<int>(q), piece, &whole)) return rc;
  } else {
    int lens[2] = {static_cast<int>(q), static_cast<int>(r)};
    MPI_Aint disps[2] = {0, static_cast<MPI_Aint>(q * chunk * ext)};
    MPI_Datatype types[2] = {piece, type};
    if (int rc = PMPI_Type_create_struct(2, lens, disps, types, &whole)) return rc;
  }
  PMPI_Type_free(&piece);
  if (int rc = PMPI_Type_create_resized(whole, 0, static_cast<MPI_Aint>(count * ext), out))
    return rc;
  PMPI_Type_free(&whole);
  return PMPI_Type_commit(out);
}

// (count, type) as an int count: itself, or 1 of a bigType. Frees the type it made at
// destruction when the call was blocking (nonblocking and persistent calls keep it).
class IntCount {
 public:
  IntCount(MPI_Count count, MPI_Datatype type, bool blocking) : blocking_(blocking) {
    if (fits(count) || type == MPI_DATATYPE_NULL || !datatype::lookup(type)) {
      count_ = toInt(count);
      type_ = type;
    } else {
      rc_ = bigType(count, type, &made_);
      count_ = 1;
      type_ = made_;
    }
  }
  ~IntCount() {
    if (made_ != MPI_DATATYPE_NULL && blocking_) PMPI_Type_free(&made_);
  }
  IntCount(const IntCount&) = delete;
  IntCount& operator=(const IntCount&) = delete;
  int rc() const { return rc_; }
  int count() const { return count_; }
  MPI_Datatype type() const { return type_; }

 private:
  bool blocking_;
  int rc_ = MPI_SUCCESS;
  int count_ = 0;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Datatype made_ = MPI_DATATYPE_NULL;
};

// ---------- the linear algorithm of the v/w collectives ----------

struct Op {
  bool send;
  void* buf;
  int64_t count;
  MPI_Datatype type;
  int peer;
};

// One call's sends and receives; `keep` holds copies the sends read (MPI_IN_PLACE).
struct Linear {
  std::vector<Op> ops;
  std::shared_ptr<std::vector<unsigned char>> keep;
};

// Posts every operation of `l` and returns a request completing with all of them.
int post(comm::Comm& c, Linear l, Request** out) {
  const int tag = coll::scheduleTag(++c.collSeq);
  auto subs = std::make_shared<std::vector<Request*>>();
  int err = MPI_SUCCESS;
  // Receives first, so self messages find them.
  for (int pass = 0; pass < 2 && !err; ++pass)
    for (const Op& op : l.ops) {
      if (op.send != (pass == 1)) continue;
      Request* r = nullptr;
      err = op.send ? p2p::isend(op.buf, op.count, op.type, op.peer, tag, c, p2p::Ctx::kColl,
                                 p2p::SendMode::kStandard, &r)
                    : p2p::irecv(op.buf, op.count, op.type, op.peer, tag, c, p2p::Ctx::kColl, &r);
      if (err) break;
      subs->push_back(r);
    }
  Request* all = p2p::newRequest(Request::Kind::kOther);
  all->comm = &c;
  ++c.refs;
  auto keep = l.keep;
  all->error = err;
  all->poll = [subs, keep](Request* self) {
    for (Request*& r : *subs) {
      if (!r || !r->complete) continue;
      if (r->error && !self->error) self->error = r->error;
      p2p::releaseRequest(r);
      r = nullptr;
    }
    for (Request* r : *subs)
      if (r) return;
    p2p::completeRequest(self);
  };
  all->poll(all);
  *out = all;
  return MPI_SUCCESS;
}

// Runs a v/w collective: build() checks the arguments and lists the operations of one
// run (called again at each MPI_Start of a persistent one).
int runLinear(const char* func, MPI_Comm comm, Form form,
              std::function<int(comm::Comm&, Linear*)> build) {
  comm::Comm* c = nullptr;
  if (comm::Comm* ic = comm::lookup(comm); ic && ic->isInter())
    return raiseCommf(comm, func, MPI_ERR_UNSUPPORTED_OPERATION,
                      "%s is not implemented on intercommunicators yet (the int form is)", func);
  CCMPI_TRY(checkCollComm(func, comm, &c));
  if (form.kind == Form::kPersistent) CCMPI_TRY(checkInfo(func, comm, form.info));
  if (form.kind != Form::kBlocking) CCMPI_TRY(checkRequestOut(func, comm, form.request));
  Linear l;
  CCMPI_TRY(build(*c, &l));
  if (form.kind == Form::kPersistent) {
    Request* p = p2p::newRequest(Request::Kind::kPersistentColl);
    p->comm = c;
    ++c->refs;
    p->phase = Request::Phase::kIdle;
    p->complete = true;  // inactive
    p->startHook = [build, func, comm](Request* self) {
      comm::Comm* cc = comm::lookup(comm);
      if (!cc) return setErrorCause(MPI_ERR_COMM, "the communicator of %s was freed", func);
      Linear run;
      if (int rc = build(*cc, &run)) return rc;
      Request* r = nullptr;
      if (int rc = post(*cc, std::move(run), &r)) return rc;
      self->active = r;
      self->complete = false;
      return MPI_SUCCESS;
    };
    p->commHandle = comm;
    *form.request = requestHandle(p);
    return MPI_SUCCESS;
  }
  Request* r = nullptr;
  CCMPI_TRY(finish(func, comm, post(*c, std::move(l), &r)));
  if (form.kind == Form::kNonblocking) {
    r->commHandle = comm;
    *form.request = requestHandle(r);
    return MPI_SUCCESS;
  }
  return finish(func, comm, p2p::wait(r, MPI_STATUS_IGNORE));
}

// Argument checks of the general paths: the int checks, given counts clamped to int.
std::vector<int> clamped(const MPI_Count* a, int n) {
  std::vector<int> v(static_cast<size_t>(n > 0 ? n : 1), 0);
  if (a)
    for (int i = 0; i < n; ++i) v[i] = toInt(a[i]);
  return v;
}
std::vector<int> zeros(int n) {
  return std::vector<int>(static_cast<size_t>(n > 0 ? n : 1), 0);
}

// A packed copy of count elements at buf (the data an in-place block sends).
void* packedCopy(Linear* l, const void* buf, int64_t count, MPI_Datatype type) {
  datatype::Datatype* dt = datatype::lookup(type);
  if (!l->keep) l->keep = std::make_shared<std::vector<unsigned char>>();
  auto& v = *l->keep;
  const size_t bytes = static_cast<size_t>(count * dt->size());
  const size_t start = v.size();
  v.resize(start + bytes + 1);
  if (bytes) dt->pack(buf, count, 0, v.data() + start, bytes);
  return reinterpret_cast<void*>(start);  // an offset, fixed up by fixCopies
}
// packedCopy returns offsets (the vector may still grow); turn them into pointers.
void fixCopies(Linear* l, const std::vector<size_t>& idx) {
  for (size_t i : idx) l->ops[i].buf = l->keep->data() + reinterpret_cast<uintptr_t>(l->ops[i].buf);
}

// Chunked blocking run of an element-wise collective; nonblocking/persistent forms run it
// to completion inside the call (nonblocking) or at each MPI_Start (persistent).
int chunked(const char* func, MPI_Comm comm, Form form, std::function<int()> run) {
  if (form.kind == Form::kBlocking) return run();
  if (form.kind == Form::kNonblocking) return nonblocking(func, comm, form.request, run);
  return persistent(func, comm, form.info, form.request, run);
}

}  // namespace

int64_t limit() {
  const uint64_t v = kLimit.get();
  return v < 1 ? 1 : v > INT_MAX ? INT_MAX : static_cast<int64_t>(v);
}

int commSize(MPI_Comm comm) {
  comm::Comm* c = comm::lookup(comm);
  return c ? c->size : 0;
}

int rootSize(MPI_Comm comm, int root) {
  comm::Comm* c = comm::lookup(comm);
  return c && c->rank == root ? c->size : 0;
}

int nonblocking(const char* func, MPI_Comm comm, MPI_Request* request, std::function<int()> run) {
  CCMPI_TRY(checkRequestOut(func, comm, request));
  CCMPI_TRY(run());
  Request* r = p2p::newRequest(Request::Kind::kOther);
  p2p::completeRequest(r);
  r->commHandle = comm;
  *request = requestHandle(r);
  return MPI_SUCCESS;
}

int persistent(const char* func, MPI_Comm comm, MPI_Info info, MPI_Request* request,
               std::function<int()> run) {
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(func, comm, &c));
  CCMPI_TRY(checkInfo(func, comm, info));
  CCMPI_TRY(checkRequestOut(func, comm, request));
  Request* p = p2p::newRequest(Request::Kind::kPersistentColl);
  p->phase = Request::Phase::kIdle;
  p->complete = true;  // inactive
  p->startHook = [run, func](Request* self) {
    FuncNameScope scope(func);
    Request* r = p2p::newRequest(Request::Kind::kOther);
    r->error = run();
    p2p::completeRequest(r);
    self->active = r;
    self->complete = false;
    return MPI_SUCCESS;
  };
  p->commHandle = comm;
  *request = requestHandle(p);
  return MPI_SUCCESS;
}

// ---------- non-v collectives: derived types ----------

int bcast(const char* func, void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
          MPI_Comm comm, Form form) {
  const IntCount n(count, datatype, form.kind == Form::kBlocking);
  CCMPI_TRY(finish(func, comm, n.rc()));
  switch (form.kind) {
    case Form::kBlocking:
      return PMPI_Bcast(buffer, n.count(), n.type(), root, comm);
    case Form::kNonblocking:
      return PMPI_Ibcast(buffer, n.count(), n.type(), root, comm, form.request);
    default:
      return PMPI_Bcast_init(buffer, n.count(), n.type(), root, comm, form.info, form.request);
  }
}

#define CCMPI_LARGE_TWO_SIDED(Name, IName, ...)                                                    \
  const bool blocking = form.kind == Form::kBlocking;                                              \
  const IntCount s(sendcount, sendtype, blocking);                                                 \
  const IntCount r(recvcount, recvtype, blocking);                                                 \
  CCMPI_TRY(finish(func, comm, s.rc()));                                                           \
  CCMPI_TRY(finish(func, comm, r.rc()));                                                           \
  switch (form.kind) {                                                                             \
    case Form::kBlocking:                                                                          \
      return PMPI_##Name(sendbuf, s.count(), s.type(), recvbuf, r.count(), r.type(), __VA_ARGS__); \
    case Form::kNonblocking:                                                                       \
      return PMPI_##IName(sendbuf, s.count(), s.type(), recvbuf, r.count(), r.type(), __VA_ARGS__, \
                          form.request);                                                           \
    default:                                                                                       \
      return PMPI_##Name##_init(sendbuf, s.count(), s.type(), recvbuf, r.count(), r.type(),        \
                                __VA_ARGS__, form.info, form.request);                             \
  }

int gather(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
           void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
           Form form) {
  CCMPI_LARGE_TWO_SIDED(Gather, Igather, root, comm)
}

int scatter(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
            void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
            Form form) {
  CCMPI_LARGE_TWO_SIDED(Scatter, Iscatter, root, comm)
}

int allgather(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, Form form) {
  CCMPI_LARGE_TWO_SIDED(Allgather, Iallgather, comm)
}

int alltoall(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, Form form) {
  CCMPI_LARGE_TWO_SIDED(Alltoall, Ialltoall, comm)
}

#undef CCMPI_LARGE_TWO_SIDED

// ---------- reductions: chunks ----------

int reduce(const char* func, const void* sendbuf, void* recvbuf, MPI_Count count,
           MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, Form form) {
  const int64_t ext = extentOf(datatype);
  return chunked(func, comm, form, [=] {
    return forEachChunk(count, limit(), [&](int64_t off, int n) {
      return PMPI_Reduce(at(sendbuf, off * ext), at(recvbuf, off * ext), n, datatype, op, root,
                         comm);
    });
  });
}

int allreduce(const char* func, const void* sendbuf, void* recvbuf, MPI_Count count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Form form) {
  const int64_t ext = extentOf(datatype);
  return chunked(func, comm, form, [=] {
    return forEachChunk(count, limit(), [&](int64_t off, int n) {
      return PMPI_Allreduce(at(sendbuf, off * ext), at(recvbuf, off * ext), n, datatype, op, comm);
    });
  });
}

int scan(const char* func, const void* sendbuf, void* recvbuf, MPI_Count count,
         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Form form) {
  const int64_t ext = extentOf(datatype);
  return chunked(func, comm, form, [=] {
    return forEachChunk(count, limit(), [&](int64_t off, int n) {
      return PMPI_Scan(at(sendbuf, off * ext), at(recvbuf, off * ext), n, datatype, op, comm);
    });
  });
}

int exscan(const char* func, const void* sendbuf, void* recvbuf, MPI_Count count,
           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Form form) {
  const int64_t ext = extentOf(datatype);
  return chunked(func, comm, form, [=] {
    return forEachChunk(count, limit(), [&](int64_t off, int n) {
      return PMPI_Exscan(at(sendbuf, off * ext), at(recvbuf, off * ext), n, datatype, op, comm);
    });
  });
}

int reduceLocal(const char*, const void* inbuf, void* inoutbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op, Form) {
  const int64_t ext = extentOf(datatype);
  return forEachChunk(count, limit(), [&](int64_t off, int n) {
    return PMPI_Reduce_local(at(inbuf, off * ext), at(inoutbuf, off * ext), n, datatype, op);
  });
}

// Reduce_scatter(_block): block i (counts[i] elements at offset sum counts[<i]) reduced to
// rank i; in place, the blocks are read from a copy of recvbuf.
static int reduceBlocks(const char* func, const void* sendbuf, void* recvbuf,
                        std::vector<int64_t> counts, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, Form form) {
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(func, comm, &c));
  for (size_t i = 0; i < counts.size(); ++i)
    if (counts[i] < 0)
      return raiseCommf(comm, func, MPI_ERR_COUNT, "recvcounts[%zu] = %lld is negative", i,
                        static_cast<long long>(counts[i]));
  const int64_t ext = extentOf(datatype);
  const int me = c->rank;
  return chunked(func, comm, form, [=] {
    int64_t total = 0;
    for (int64_t n : counts) total += n;
    std::vector<char> copy;
    const void* src = sendbuf;
    if (sendbuf == MPI_IN_PLACE) {
      copy.assign(static_cast<const char*>(recvbuf),
                  static_cast<const char*>(recvbuf) + total * ext);
      src = copy.data();
    }
    int64_t off = 0;
    for (size_t i = 0; i < counts.size(); ++i) {
      const int root = static_cast<int>(i);
      const int64_t n = counts[i];
      const int rc = forEachChunk(n, limit(), [&](int64_t o, int m) {
        return PMPI_Reduce(at(src, (off + o) * ext), root == me ? at(recvbuf, o * ext) : nullptr, m,
                           datatype, op, root, comm);
      });
      if (rc) return rc;
      off += n;
    }
    return MPI_SUCCESS;
  });
}

int reduceScatter(const char* func, const void* sendbuf, void* recvbuf,
                  const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                  Form form) {
  const int n = commSize(comm);
  if (n > 0 && !recvcounts) return raiseCommf(comm, func, MPI_ERR_ARG, "recvcounts is NULL");
  std::vector<int64_t> counts(recvcounts, recvcounts + n);
  return reduceBlocks(func, sendbuf, recvbuf, std::move(counts), datatype, op, comm, form);
}

int reduceScatterBlock(const char* func, const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Form form) {
  std::vector<int64_t> counts(static_cast<size_t>(commSize(comm)), recvcount);
  return reduceBlocks(func, sendbuf, recvbuf, std::move(counts), datatype, op, comm, form);
}

// ---------- v/w collectives: linear ----------

int gatherv(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
            void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
            MPI_Datatype recvtype, int root, MPI_Comm comm, Form form) {
  return runLinear(func, comm, form, [=](comm::Comm& c, Linear* l) {
    const bool isRoot = c.rank == root;
    const int n = isRoot ? c.size : 0;
    if (isRoot && (!recvcounts || !displs))
      return raiseCommf(comm, func, MPI_ERR_ARG, "recvcounts or displs is NULL at the root");
    const std::vector<int> rc = isRoot ? clamped(recvcounts, n) : zeros(c.size);
    CCMPI_TRY(checkGatherv(func, comm, c, sendbuf, toInt(sendcount), sendtype, rc.data(),
                           zeros(c.size).data(), recvbuf, recvtype, root));
    const int64_t ext = extentOf(recvtype);
    if (!(isRoot && sendbuf == MPI_IN_PLACE))
      l->ops.push_back({true, const_cast<void*>(sendbuf), sendcount, sendtype, root});
    for (int i = 0; i < n; ++i)
      if (!(i == c.rank && sendbuf == MPI_IN_PLACE))
        l->ops.push_back({false, at(recvbuf, displs[i] * ext), recvcounts[i], recvtype, i});
    return MPI_SUCCESS;
  });
}

int scatterv(const char* func, const void* sendbuf, const MPI_Count sendcounts[],
             const MPI_Aint displs[], MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
             MPI_Datatype recvtype, int root, MPI_Comm comm, Form form) {
  return runLinear(func, comm, form, [=](comm::Comm& c, Linear* l) {
    const bool isRoot = c.rank == root;
    const int n = isRoot ? c.size : 0;
    if (isRoot && (!sendcounts || !displs))
      return raiseCommf(comm, func, MPI_ERR_ARG, "sendcounts or displs is NULL at the root");
    const std::vector<int> sc = isRoot ? clamped(sendcounts, n) : zeros(c.size);
    CCMPI_TRY(checkScatterv(func, comm, c, sendbuf, sc.data(), zeros(c.size).data(), sendtype,
                            recvbuf, toInt(recvcount), recvtype, root));
    const int64_t ext = extentOf(sendtype);
    const bool inPlace = isRoot && recvbuf == MPI_IN_PLACE;
    if (!inPlace) l->ops.push_back({false, recvbuf, recvcount, recvtype, root});
    for (int i = 0; i < n; ++i)
      if (!(i == c.rank && inPlace))
        l->ops.push_back(
            {true, const_cast<void*>(at(sendbuf, displs[i] * ext)), sendcounts[i], sendtype, i});
    return MPI_SUCCESS;
  });
}

int allgatherv(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
               void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
               MPI_Datatype recvtype, MPI_Comm comm, Form form) {
  return runLinear(func, comm, form, [=](comm::Comm& c, Linear* l) {
    if (!recvcounts || !displs)
      return raiseCommf(comm, func, MPI_ERR_ARG, "recvcounts or displs is NULL");
    const std::vector<int> rc = clamped(recvcounts, c.size);
    CCMPI_TRY(checkAllgatherv(func, comm, c, sendbuf, toInt(sendcount), sendtype, recvbuf,
                              rc.data(), zeros(c.size).data(), recvtype));
    const int64_t ext = extentOf(recvtype);
    const bool inPlace = sendbuf == MPI_IN_PLACE;
    const void* mine = inPlace ? at(recvbuf, displs[c.rank] * ext) : sendbuf;
    const int64_t myCount = inPlace ? recvcounts[c.rank] : sendcount;
    const MPI_Datatype myType = inPlace ? recvtype : sendtype;
    for (int i = 0; i < c.size; ++i) {
      if (inPlace && i == c.rank) continue;
      l->ops.push_back({true, const_cast<void*>(mine), myCount, myType, i});
      l->ops.push_back({false, at(recvbuf, displs[i] * ext), recvcounts[i], recvtype, i});
    }
    return MPI_SUCCESS;
  });
}

// Alltoallv and Alltoallw: block i of the send side goes to rank i. `sbyte`/`rbyte` give
// the byte offset of block i; in place, the blocks are sent from packed copies.
static int alltoallLinear(const char* func, MPI_Comm comm, Form form, const void* sendbuf,
                          const MPI_Count sendcounts[], std::function<int64_t(int)> sbyte,
                          std::function<MPI_Datatype(int)> stype, void* recvbuf,
                          const MPI_Count recvcounts[], std::function<int64_t(int)> rbyte,
                          std::function<MPI_Datatype(int)> rtype,
                          std::function<int(comm::Comm&)> check) {
  return runLinear(func, comm, form, [=](comm::Comm& c, Linear* l) {
    CCMPI_TRY(check(c));
    const bool inPlace = sendbuf == MPI_IN_PLACE;
    std::vector<size_t> copies;
    for (int i = 0; i < c.size; ++i) {
      l->ops.push_back({false, at(recvbuf, rbyte(i)), recvcounts[i], rtype(i), i});
      if (inPlace) {
        copies.push_back(l->ops.size());
        l->ops.push_back({true, packedCopy(l, at(recvbuf, rbyte(i)), recvcounts[i], rtype(i)),
                          static_cast<int64_t>(recvcounts[i] * datatype::lookup(rtype(i))->size()),
                          MPI_BYTE, i});
      } else {
        l->ops.push_back(
            {true, const_cast<void*>(at(sendbuf, sbyte(i))), sendcounts[i], stype(i), i});
      }
    }
    fixCopies(l, copies);
    return MPI_SUCCESS;
  });
}

int alltoallv(const char* func, const void* sendbuf, const MPI_Count sendcounts[],
              const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
              MPI_Comm comm, Form form) {
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  if (!recvcounts || !rdispls || (!inPlace && (!sendcounts || !sdispls)))
    return raiseCommf(comm, func, MPI_ERR_ARG, "a count or displacement array is NULL");
  const int64_t sext = inPlace ? 0 : extentOf(sendtype), rext = extentOf(recvtype);
  return alltoallLinear(
      func, comm, form, sendbuf, sendcounts, [=](int i) { return sdispls[i] * sext; },
      [=](int) { return sendtype; }, recvbuf, recvcounts, [=](int i) { return rdispls[i] * rext; },
      [=](int) { return recvtype; },
      [=](comm::Comm& c) {
        const std::vector<int> sc = inPlace ? zeros(c.size) : clamped(sendcounts, c.size);
        const std::vector<int> rc = clamped(recvcounts, c.size);
        const std::vector<int> z = zeros(c.size);
        return checkAlltoallv(func, comm, c, sendbuf, sc.data(), z.data(), sendtype, recvbuf,
                              rc.data(), z.data(), recvtype);
      });
}

int alltoallw(const char* func, const void* sendbuf, const MPI_Count sendcounts[],
              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
              const MPI_Datatype recvtypes[], MPI_Comm comm, Form form) {
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  if (!recvcounts || !rdispls || !recvtypes ||
      (!inPlace && (!sendcounts || !sdispls || !sendtypes)))
    return raiseCommf(comm, func, MPI_ERR_ARG, "a count, displacement or type array is NULL");
  return alltoallLinear(
      func, comm, form, sendbuf, sendcounts, [=](int i) { return int64_t{sdispls[i]}; },
      [=](int i) { return sendtypes[i]; }, recvbuf, recvcounts,
      [=](int i) { return int64_t{rdispls[i]}; }, [=](int i) { return recvtypes[i]; },
      [=](comm::Comm& c) {
        const std::vector<int> sc = inPlace ? zeros(c.size) : clamped(sendcounts, c.size);
        const std::vector<int> rc = clamped(recvcounts, c.size);
        const std::vector<int> z = zeros(c.size);
        std::vector<MPI_Datatype> sCopy, rCopy;
        const MPI_Datatype *st, *rt;
        return checkAlltoallw(func, comm, c, sendbuf, sc.data(), z.data(), sendtypes, recvbuf,
                              rc.data(), z.data(), recvtypes, &sCopy, &rCopy, &st, &rt);
      });
}

}  // namespace ccmpi::api::large
