#pragma once
// The general paths of the MPI-4.0 large-count collectives (MPI_X_c, generated into
// api/large_count.cc by tools/gen_large_count.py), and the int conversions the generated
// code uses to forward to MPI_X.
//
// A collective's "does it fit" decision must come out the same on every rank, so each
// path decides only from arguments all ranks agree on, or converts only its own ones:
//  - Bcast, Gather, Scatter, Allgather, Alltoall: a count above the limit becomes one
//    element of a derived type covering the whole block (contiguous chunks of the element
//    type plus a remainder, resized to the block's extent). The type signature does not
//    change, so each rank converts only its own counts and the int algorithms still match.
//  - Reduce, Allreduce, Scan, Exscan, Reduce_local: the count is the same everywhere; the
//    buffers are cut into chunks that fit, one int collective per chunk (element-wise).
//  - Reduce_scatter(_block): one chunked Reduce per block, rooted at its owner.
//  - Gatherv, Scatterv, Allgatherv, Alltoallv, Alltoallw: arguments differ from rank to
//    rank (some significant only at the root), so their _c forms always run a linear
//    algorithm over the p2p layer with 64-bit counts and MPI_Aint displacements: every
//    rank posts its sends and receives for the call at once (collective context, a tag of
//    the communicator's collective sequence) and the request completes with all of them.
//
// The limit is INT_MAX elements; CCMPI_LARGE_COUNT_LIMIT lowers it (tests use it to
// exercise the chunked and derived-type paths with small buffers; every rank must use the
// same value).
#include <mpi.h>

#include <climits>
#include <cstdint>
#include <functional>
#include <vector>

namespace ccmpi::api::large {

// Largest count the int paths are given (INT_MAX unless lowered for tests).
int64_t limit();

inline bool fits(MPI_Count v) {
  return v <= limit() && v >= INT_MIN;
}
// The int to pass on: v itself when it fits, else -1 (a negative count: MPI_ERR_COUNT) or
// INT_MAX (for argument checks of the general paths).
inline int toInt(MPI_Count v) {
  return v < INT_MIN ? -1 : v > INT_MAX ? INT_MAX : static_cast<int>(v);
}

// Cuts [0, count) into pieces of at most `chunk` elements, calling fn(offset, n) for each
// (once with n = toInt(count) when count <= 0, so negative counts still reach the checks);
// stops at the first error.
template <typename Fn>
int forEachChunk(int64_t count, int64_t chunk, Fn&& fn) {
  if (count <= 0) return fn(int64_t{0}, toInt(count));
  for (int64_t off = 0; off < count; off += chunk) {
    const int64_t n = count - off < chunk ? count - off : chunk;
    if (int rc = fn(off, static_cast<int>(n))) return rc;
  }
  return MPI_SUCCESS;
}

// Size of comm (0 if invalid); the same at the root and 0 elsewhere.
int commSize(MPI_Comm comm);
int rootSize(MPI_Comm comm, int root);

// The run of a nonblocking (`request`) or persistent (`info`, `request`) large-count
// collective whose general path is `run`, a blocking call: nonblocking ones complete
// within the call (their request is complete), persistent ones run it at each MPI_Start.
int nonblocking(const char* func, MPI_Comm comm, MPI_Request* request, std::function<int()> run);
int persistent(const char* func, MPI_Comm comm, MPI_Info info, MPI_Request* request,
               std::function<int()> run);

// Form of a v/w collective call.
struct Form {
  enum Kind { kBlocking, kNonblocking, kPersistent } kind;
  MPI_Info info;
  MPI_Request* request;
};

// General paths, one per collective (the _c signature after the function name).
int bcast(const char* func, void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
          MPI_Comm comm, Form form);
int gather(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
           void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
           Form form);
int scatter(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
            void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
            Form form);
int allgather(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, Form form);
int alltoall(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, Form form);
int gatherv(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
            void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
            MPI_Datatype recvtype, int root, MPI_Comm comm, Form form);
int scatterv(const char* func, const void* sendbuf, const MPI_Count sendcounts[],
             const MPI_Aint displs[], MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
             MPI_Datatype recvtype, int root, MPI_Comm comm, Form form);
int allgatherv(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
               void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
               MPI_Datatype recvtype, MPI_Comm comm, Form form);
int alltoallv(const char* func, const void* sendbuf, const MPI_Count sendcounts[],
              const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
              MPI_Comm comm, Form form);
int alltoallw(const char* func, const void* sendbuf, const MPI_Count sendcounts[],
              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
              const MPI_Datatype recvtypes[], MPI_Comm comm, Form form);
// The neighbourhood collectives (api/neighbor_api.cc): one path for every count.
int neighborAllgather(const char* func, const void* sendbuf, MPI_Count sendcount,
                      MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, Form form);
int neighborAllgatherv(const char* func, const void* sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                       const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, Form form);
int neighborAlltoall(const char* func, const void* sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm, Form form);
int neighborAlltoallv(const char* func, const void* sendbuf, const MPI_Count sendcounts[],
                      const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype,
                      MPI_Comm comm, Form form);
int neighborAlltoallw(const char* func, const void* sendbuf, const MPI_Count sendcounts[],
                      const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                      const MPI_Datatype recvtypes[], MPI_Comm comm, Form form);
int reduce(const char* func, const void* sendbuf, void* recvbuf, MPI_Count count,
           MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, Form form);
int allreduce(const char* func, const void* sendbuf, void* recvbuf, MPI_Count count,
              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Form form);
int scan(const char* func, const void* sendbuf, void* recvbuf, MPI_Count count,
         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Form form);
int exscan(const char* func, const void* sendbuf, void* recvbuf, MPI_Count count,
           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Form form);
int reduceScatter(const char* func, const void* sendbuf, void* recvbuf,
                  const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                  Form form);
int reduceScatterBlock(const char* func, const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, Form form);
int reduceLocal(const char* func, const void* inbuf, void* inoutbuf, MPI_Count count,
                MPI_Datatype datatype, MPI_Op op, Form form);

// Point-to-point with 64-bit counts (the p2p _c functions, and MPI_Isendrecv*).
int recv(const char* func, void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
         MPI_Comm comm, MPI_Status* status);
int mrecv(const char* func, void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
          MPI_Status* status);
int imrecv(const char* func, void* buf, MPI_Count count, MPI_Datatype datatype,
           MPI_Message* message, MPI_Request* request);
int sendrecv(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
             int dest, int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
             int source, int recvtag, MPI_Comm comm, MPI_Status* status);
int sendrecvReplace(const char* func, void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                    int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status* status);
int isendrecv(const char* func, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
              int dest, int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
              int source, int recvtag, MPI_Comm comm, MPI_Request* request);
int isendrecvReplace(const char* func, void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                     int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request* request);
int bufferAttach(const char* func, void* buffer, MPI_Count size);
int bufferDetach(const char* func, void* buffer_addr, MPI_Count* size);

}  // namespace ccmpi::api::large
