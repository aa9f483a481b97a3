#pragma once
// Set-up of the p2p layer by the runtime.
#include <cstdint>

namespace ccmpi::transport {
class TcpTransport;
class ShmTransport;
class Sink;
}  // namespace ccmpi::transport

namespace ccmpi::p2p {

// The sink the transport delivers frames to.
transport::Sink* sink();
// Returns an MPI error class (cause set) when a tunable of the layer is invalid.
int init(transport::TcpTransport* tcp, transport::ShmTransport* shm, int worldRank, int worldSize);
void finalize();
// Per-peer state for `count` peers (processes of other jobs joined: runtime::addProcess).
void growPeers(int count);
// Largest eager message (the transport's frame limit uses it).
uint64_t eagerLimit();

struct Counters {
  uint64_t eagerSent = 0, rndvSent = 0, selfSent = 0, unexpected = 0;
  uint64_t cmaPulled = 0;      // rendezvous messages received by a single-copy read
  uint64_t cmaSplit = 0;       // of those, split with the sender (each copied half)
  uint64_t striped = 0;        // rendezvous sends striped over several rails (docs/multirail.md)
  uint64_t restriped = 0;      // stripes sent again after their rail failed
  uint64_t railDirected = 0;   // rendezvous sends whose data went on a chosen rail (isendOnRail)
  uint64_t exchangeHeld = 0;   // streams held for the peer's request (CCMPI_EXCHANGE_WAIT_US)
  uint64_t exchangeFreed = 0;  // of those, started by the peer's request rather than the wait
  uint64_t eagerParted = 0;    // eager messages sent in parts (CCMPI_EAGER_FRAME)
};
const Counters& counters();

}  // namespace ccmpi::p2p
