// Multicast broadcast (CC-MPI §4.1, static group management): the root sends the buffer
// once to the communicator's multicast group; the switch copies it to every port, so
// the root's link carries it once whatever the number of ranks. Reliability and
// acknowledgement as in coll/mcast/mcast_coll.h. Declines (on every rank alike) when
// multicast does not work on the communicator.
//
// Where ranks share hosts (coll/phased/phased.h, commHosts) one rank per host takes the
// message from the group: the root on its host, the lowest rank on every other. Only
// those acknowledge to the root and ask it for repairs (a lost datagram costs one repair
// per host, not one per rank of the host), and each hands the message to the other ranks
// of its host (p2p: shared memory once the transport has it). The other ranks' sockets
// still belong to the group (the agreement joined every rank); their transport drops the
// datagrams nobody waits for when the operation retires. On a single host every rank
// takes the multicast, as with one rank per host; so does every rank for messages below
// kByHostMin, where the extra hop within the host costs more than the acknowledgements
// it saves. 4 emulated hosts x 4 ranks at 25 Mbit/s, 2026-11-26 (drafts, load average
// 6-10), ms, by host / every rank: 1 KiB 0.8-1.2 / 0.5-0.9; 64 KiB 23.9 / 23.7; 1 MiB
// 373-386 / 372-398 (no loss: the cable carries one copy per host either way); with
// CCMPI_MCAST_TEST_DROP=0.02, 1 MiB 560-571 / 656-671 (fewer repairs from the root).
#include <vector>

#include "coll/algorithm.h"
#include "coll/algorithms.h"
#include "coll/mcast/mcast_coll.h"
#include "coll/phased/phased.h"
#include "coll/util.h"
#include "datatype/datatype.h"

namespace ccmpi::coll {
namespace {

constexpr uint64_t kByHostMin = 16 * 1024;

// The message from the root to one rank per host by multicast, then within each host.
int mcastByHost(McastGroup& g, comm::Comm& c, int root, void* data, uint64_t bytes,
                const std::vector<int>& hostOf) {
  int hosts = 0;
  for (int h : hostOf) hosts = std::max(hosts, h + 1);
  std::vector<int> leader(hosts, -1);
  leader[hostOf[root]] = root;
  for (int r = 0; r < c.size; ++r)
    if (leader[hostOf[r]] < 0) leader[hostOf[r]] = r;
  const int me = c.rank, mine = leader[hostOf[me]];
  if (me != mine)
    return p2p::recv(data, static_cast<int64_t>(bytes), MPI_BYTE, mine, kTagBcast, c,
                     MPI_STATUS_IGNORE, kCtx);
  auto& m = transport::mcast();
  const transport::McastKey key = mcastKey(g, c, root, 1);
  int rc;
  if (me == root) {
    rc = m.sendComplete(g.group, key, data, bytes, hosts - 1, nullptr, g.laneSet());
  } else {
    rc = m.receive(key, data, bytes);
    if (rc == MPI_SUCCESS) m.ack(key, bytes);
  }
  for (int r = 0; rc == MPI_SUCCESS && r < c.size; ++r)
    if (r != me && hostOf[r] == hostOf[me])
      rc = p2p::send(data, static_cast<int64_t>(bytes), MPI_BYTE, r, kTagBcast, c, kCtx);
  return rc;
}

}  // namespace

int bcastMcast(void* buf, int64_t count, MPI_Datatype type, int root, comm::Comm& c) {
  McastGroup* g = mcastGroup(c);
  if (!g) return kDecline;
  const datatype::Datatype& dt = typeOf(type);
  const uint64_t bytes = static_cast<uint64_t>(count) * static_cast<uint64_t>(dt.size());
  // On one host every rank takes the multicast (no cable to spare; a forced multicast
  // stays one, which is how it is tested on one machine). Every rank knows bytes.
  const std::vector<int> hostOf = bytes >= kByHostMin ? commHosts(c) : std::vector<int>();
  const bool byHost = !hostOf.empty() && sharesHosts(hostOf);
  int rc;
  if (dt.contiguous()) {
    unsigned char* p = static_cast<unsigned char*>(buf) + dt.trueLb();
    rc = byHost ? mcastByHost(*g, c, root, p, bytes, hostOf)
                : mcastMessage(*g, c, root, p, p, bytes, 1);
  } else {
    std::vector<unsigned char> packed(bytes);
    if (c.rank == root) dt.pack(buf, count, 0, packed.data(), bytes);
    rc = byHost ? mcastByHost(*g, c, root, packed.data(), bytes, hostOf)
                : mcastMessage(*g, c, root, packed.data(), packed.data(), bytes, 1);
    if (rc == MPI_SUCCESS && c.rank != root) dt.unpack(buf, count, 0, packed.data(), bytes);
  }
  mcastRetire(*g);
  return rc;
}

}  // namespace ccmpi::coll
