#pragma once
// Internals of the communicator layer shared by its files and the API entry points
// (src/api/comm_api.cc, topo_api.cc): context-id agreement and communicator creation.
// Every function here is collective over the communicator it is given and returns an MPI
// error class with the cause recorded by setErrorCause.
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "comm/comm.h"
#include "comm/context_ids.h"

namespace ccmpi::p2p {
struct Request;
}

namespace ccmpi::comm {

ContextIdPool& contextPool();

// Agrees on a context id over all members of `over` (allreduce of the free bitmaps with
// MPI_BAND). When `reserve` is true the id is taken from this process's pool.
// MPI_ERR_INTERN when no id is free on every member.
int agreeContextId(Comm& over, bool reserve, uint32_t* ctx);

// Builds and registers a communicator with members `worldRanks` (comm rank order) and the
// agreed context; inherits the error handler of `parent`. Returns MPI_COMM_NULL if this
// process is not a member (then the id must not have been reserved).
MPI_Comm buildComm(const Comm& parent, const std::vector<int>& worldRanks, uint32_t ctx);

// MPI_Comm_dup without attributes/info (the API layer copies those).
int dupComm(Comm& parent, MPI_Comm* out);
// MPI_Comm_idup: registers the duplicate now (*out, *created; topology and error handler
// copied; lookup() does not resolve it until the agreement is over) and starts a
// nonblocking context-id agreement over parent. `finished(rc)` is called once, from
// progress, when it ends: on success the communicator is usable, on error it is freed.
int idupComm(Comm& parent, MPI_Comm* out, Comm** created, std::function<void(int rc)> finished);
// MPI_Comm_split over parent.
int splitComm(Comm& parent, int color, int key, MPI_Comm* out);
// MPI_Comm_split_type by host: color = lowest parent rank on my host (MPI_UNDEFINED if
// `undefined`: that process gets MPI_COMM_NULL but still takes part).
int splitShared(Comm& parent, bool undefined, int key, MPI_Comm* out);
// Copies the topology of `from` into `to` (MPI_Comm_dup).
void copyTopology(const Comm& from, Comm& to);
// MPI_Comm_create: every parent member calls with the same group (subset of parent).
int createComm(Comm& parent, const std::vector<int>& groupWorld, MPI_Comm* out);
// MPI_Comm_create_group: only the members of the group call.
int createCommGroup(Comm& parent, const std::vector<int>& groupWorld, MPI_Comm* out);
// MPI_Comm_create_from_group (MPI-4 sessions): only the members of the group call, with
// the same string tag (MPI_ERR_ARG on every member if the tags differ); needs no parent
// communicator. The new communicator gets `errhandler` (the caller checked its kind).
int createFromGroup(const std::vector<int>& groupWorld, const std::string& stringTag,
                    MPI_Errhandler errhandler, MPI_Comm* out);

// Intercommunicators (intercomm.cc). MPI_Intercomm_create: every member of `local` calls;
// peerComm and remoteLeader are significant at the local leader only.
int createIntercomm(Comm& local, int localLeader, MPI_Comm peerComm, int remoteLeader, int tag,
                    MPI_Comm* out);
// MPI_Intercomm_create_from_groups (sessions): the members of the local group call.
int createIntercommFromGroups(const std::vector<int>& localWorld, int localLeader,
                              const std::vector<int>& remoteWorld, int remoteLeader,
                              const std::string& stringTag, MPI_Errhandler errhandler,
                              MPI_Comm* out);
// MPI_Intercomm_merge: the intracommunicator of both groups, the low group first.
int mergeIntercomm(Comm& inter, bool high, MPI_Comm* out);
// MPI_Comm_dup / split / create on an intercommunicator (both groups call).
int dupIntercomm(Comm& inter, MPI_Comm* out);
int splitIntercomm(Comm& inter, int color, int key, MPI_Comm* out);
int createIntercommSub(Comm& inter, const std::vector<int>& groupWorld, MPI_Comm* out);
// MPI_Comm_idup on an intercommunicator: *request completes once *out holds the duplicate
// (onDone, if any, runs on it first: the API layer copies attributes and hints).
int idupIntercomm(Comm& inter, MPI_Comm* out, std::function<void(MPI_Comm)> onDone,
                  p2p::Request** request);

// Dynamic processes (dynamic.cc, docs/dynamic.md): the intercommunicator between the group
// of `local` (every member calls) and another group, of this job or another, whose root
// this process's root reaches through `swap` (significant at root). `rootStatus`
// (significant at root) is an error the root found before (the whole group returns it).
using WordSwap =
    std::function<int(const std::vector<uint64_t>& mine, std::vector<uint64_t>* theirs)>;
int connectGroups(Comm& local, int root, int rootStatus, const WordSwap& swap, MPI_Comm* out);

}  // namespace ccmpi::comm
