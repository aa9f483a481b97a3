#pragma once
// Communicators and groups. A communicator is a group (comm rank -> world rank), a
// context id agreed by its members (p2p traffic uses contextId, collective traffic
// contextId + 1, so the two never match each other), an error handler, a name,
// cached attributes and an optional topology.
//
// Intercommunicators (src/comm/intercomm.cc): `worldRanks`/`fromWorld`, `rank` and `size`
// always describe the LOCAL group (MPI_Comm_rank/size/group, the collectives), and
// point-to-point addresses peers through peerWorldRank/peerRankOfWorld/peerSize: the local
// group itself for an intracommunicator, the `remote` group for an intercommunicator. Both
// groups use the same contextId (agreed over both), and each intercommunicator owns a
// hidden intracommunicator over its local group (`localComm`, its own context id) for the
// collectives and agreements inside one group.
#include <mpi.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ccmpi::comm {

struct Group {
  std::vector<int> worldRanks;  // group rank -> world rank
  int refs = 1;
  int size() const { return static_cast<int>(worldRanks.size()); }
  // Group rank of a world rank, or MPI_UNDEFINED.
  int rankOfWorld(int worldRank) const;
};

struct Attribute {
  void* value = nullptr;
  uint64_t seq = 0;  // set order: attributes are deleted newest first
};

struct CartTopology {
  std::vector<int> dims;
  std::vector<int> periods;
};

// MPI_Graph_create: index[i] = number of edges of nodes 0..i; edges flattened.
struct GraphTopology {
  std::vector<int> index;
  std::vector<int> edges;
};

// MPI_Dist_graph_create(_adjacent): this process's in/out neighbours (comm ranks).
struct DistGraphTopology {
  std::vector<int> sources, sourceWeights;
  std::vector<int> destinations, destWeights;
  bool weighted = false;
};

// Info hints: ordered (key, value) pairs.
using InfoEntries = std::vector<std::pair<std::string, std::string>>;

// The remote group of an intercommunicator.
struct RemoteGroup {
  std::vector<int> worldRanks;  // remote rank -> world rank
  std::vector<int> fromWorld;   // world rank -> remote rank or MPI_UNDEFINED (world size)
  int size() const { return static_cast<int>(worldRanks.size()); }
};

struct Comm {
  uint32_t contextId = 0;    // p2p context; collectives use contextId + 1
  int rank = MPI_UNDEFINED;  // my rank in this communicator
  int size = 0;
  std::vector<int> worldRanks;  // comm rank -> world rank
  // world rank -> comm rank (MPI_UNDEFINED if not a member); sized world size when built.
  std::vector<int> fromWorld;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;
  std::map<int, Attribute> attributes;  // keyval -> value
  std::unique_ptr<CartTopology> cart;
  std::unique_ptr<GraphTopology> graph;
  std::unique_ptr<DistGraphTopology> distGraph;
  InfoEntries hints;  // MPI_Comm_set_info / MPI_Comm_dup_with_info
  MPI_Comm handle = MPI_COMM_NULL;
  // MPI_Comm_free was called while in-flight users still held references: the handle no
  // longer resolves and the object is destroyed once refs drops to 0.
  bool freed = false;
  int topoKind = MPI_UNDEFINED;  // MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH or MPI_UNDEFINED
  bool predefined = false;
  // MPI_Comm_idup has registered it but its context id is not agreed yet: the handle
  // does not resolve (lookup) until the request completes.
  bool pending = false;
  int refs = 1;  // handle + in-flight users (nonblocking collectives)
  // The part of refs held by users with no communication pending: completed requests not
  // yet freed, inactive persistent requests, schedules not running. MPI_Comm_disconnect
  // waits until refs - idleRefs is the handle's own reference.
  int idleRefs = 0;
  // Sequence numbers for collective operations started on this communicator (later
  // issues key schedules and multicast groups by it).
  uint64_t collSeq = 0;
  // State the collective layer keeps per communicator across calls (the pattern cache
  // of the phased Alltoallv); opaque here.
  std::shared_ptr<void> collState;
  // The communicator's multicast group (coll/mcast/mcast_coll.h), left when it goes.
  std::shared_ptr<void> mcastState;
  // Hosts the communicator spans (coll::ruleHosts), 0 until counted.
  mutable int hostCount = 0;
  // The node topology of the collective layer (coll/node/topology.h: which ranks share a
  // host, the shared-memory segment), built on first use; opaque here. Its destructor
  // only unmaps memory.
  std::shared_ptr<void> nodeState;
  // Hidden intracommunicators the collective layer made over parts of this one (the
  // ranks of a host, the host leaders): freed with this communicator, like localComm.
  std::vector<MPI_Comm> hiddenComms;
  // Intercommunicators only: the remote group, and the hidden intracommunicator over the
  // local group (freed with this communicator).
  std::unique_ptr<RemoteGroup> remote;
  MPI_Comm localComm = MPI_COMM_NULL;

  bool isInter() const { return remote != nullptr; }
  // Point-to-point addressing: ranks of the remote group on an intercommunicator.
  int peerSize() const { return remote ? remote->size() : size; }
  int peerWorldRank(int peerRank) const {
    return remote ? remote->worldRanks[peerRank] : worldRanks[peerRank];
  }
  int peerRankOfWorld(int worldRank) const {
    const std::vector<int>& t = remote ? remote->fromWorld : fromWorld;
    return (worldRank >= 0 && worldRank < static_cast<int>(t.size())) ? t[worldRank]
                                                                      : MPI_UNDEFINED;
  }
  // Local group.
  int worldRankOf(int commRank) const { return worldRanks[commRank]; }
  int commRankOfWorld(int worldRank) const {
    return (worldRank >= 0 && worldRank < static_cast<int>(fromWorld.size())) ? fromWorld[worldRank]
                                                                              : MPI_UNDEFINED;
  }
};

// Handle lookup: nullptr for MPI_COMM_NULL, a non-communicator or a freed handle.
Comm* lookup(MPI_Comm h);
Group* lookupGroup(MPI_Group h);

// Called by MPI_Init after the runtime knows world rank/size: creates MPI_COMM_WORLD
// (context 0), MPI_COMM_SELF (context 2), MPI_GROUP_EMPTY and predefined attributes.
void initPredefined(int worldRank, int worldSize);
void finalizeComms();

// Builds a communicator object from a group with an agreed context id and registers it.
// Fills handle (and fromWorld if empty); reserves nothing (the caller agreed the id).
MPI_Comm registerComm(std::unique_ptr<Comm> c);

// Releases the handle's reference (MPI_Comm_free after attribute deletion): the object and
// its context id go when no in-flight user holds a reference (refs is decremented
// directly by p2p/coll; zombies are swept on later creations and frees).
void freeComm(MPI_Comm h);
// Destroys freed communicators whose in-flight users have finished.
void sweepFreed();

// Group handles: a new handle for a list of world ranks (MPI_GROUP_EMPTY for an empty
// list), and releasing one (predefined handles are kept).
MPI_Group newGroup(std::vector<int> worldRanks);
void freeGroup(MPI_Group h);

// Deletes the attributes cached on MPI_COMM_SELF (MPI_Finalize must call this first,
// while communication still works: delete callbacks may communicate). Idempotent.
void deleteSelfAttributes();

// Number of live user communicators and groups (leak checks).
size_t liveComms();
size_t liveGroups();

}  // namespace ccmpi::comm
