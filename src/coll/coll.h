#pragma once
// Internal entry points of the collective layer (blocking). They take the same
// arguments as the MPI functions (MPI_IN_PLACE where the standard allows it), use the
// communicator's collective context, and are built on p2p only. The API layer checks
// arguments before calling them; they return an MPI error class.
//
// Each entry point picks an algorithm from its collective's table (coll/<coll>/<coll>.cc)
// as coll/algorithm.h describes: forced (info hint or tunable), else the rule table, else
// the first applicable one in table order.
#include <mpi.h>

#include <string>
#include <vector>

#include "comm/comm.h"

namespace ccmpi::coll {

int barrier(comm::Comm& c);
int bcast(void* buf, int count, MPI_Datatype type, int root, comm::Comm& c);
int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
           comm::Comm& c);
int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              comm::Comm& c);
int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, comm::Comm& c);
int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, comm::Comm& c);

int gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            comm::Comm& c);
int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, comm::Comm& c);
int scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, comm::Comm& c);
int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, comm::Comm& c);
int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, comm::Comm& c);
int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, comm::Comm& c);
// Displacements in bytes, a datatype per peer.
int alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], comm::Comm& c);
int reduceScatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type,
                  MPI_Op op, comm::Comm& c);
int reduceScatterBlock(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                       MPI_Op op, comm::Comm& c);
int scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
         comm::Comm& c);
int exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
           comm::Comm& c);

// The algorithm tables, for `ccmpi_info` and tests that force every algorithm.
struct AlgorithmDescription {
  std::string name;
  std::string description;
  std::string restrictions;  // human-readable, "" when none
  std::string tunables;      // tunables it reads, "" when none
};
struct CollectiveDescription {
  std::string collective;  // "allreduce"
  std::string tunable;     // "CCMPI_ALLREDUCE_ALGORITHM"
  std::vector<AlgorithmDescription> algorithms;
};
// Every collective's table, registered during static initialization (not changed after).
const std::vector<CollectiveDescription>& algorithmTables();

// The rule table in force (coll/rules.h), as text lines for one collective, in order.
std::vector<std::string> ruleLines(const std::string& collective);
// Where the rules come from ("built-in" or the rules file), and its error if it is broken.
std::string rulesSource(std::string* error);

}  // namespace ccmpi::coll
