#pragma once
// A shared-memory segment mapped by every rank of a one-host communicator, and the
// synchronisation the shm algorithms use on it.
//
// Creation (collective over the communicator): local rank 0 creates a POSIX shared-memory
// object under a random name (O_CREAT | O_EXCL, mode 0600), sizes and maps it, and
// broadcasts the name; the others open and map it; an allreduce of "failed" flags tells
// everyone whether all mapped it, and rank 0 then unlinks the name at once
// (unlink-after-map: nothing is left in /dev/shm whatever way the job ends later). When
// anything fails every rank gets no segment, with a note at CCMPI_VERBOSE=2, and the shm
// algorithms decline (the same decision on every rank). The mapping goes with the
// communicator. The mechanism (shm_open + unlink) is behind create(): a memfd passed over
// a unix socket would fit the same interface.
//
// Layout: one page of control words (each counter on its own cache line), then the data
// area, two halves of `slots` x `slotBytes`. The shm algorithms run in phases, each
// using the half of its parity: writers fill it, a barrier, readers read it before they
// arrive at the next phase's first barrier; a phase writes a half only after the phase
// that read it before has passed a barrier, so one barrier per phase suffices.
//
// A barrier is a counter per rank (barriers arrived at, on the rank's own cache line):
// every rank has arrived at barrier k once every counter reached k. barrier() has rank 0
// see that and publish it in a release word the others watch.
//
// Waiting: the progress engine's spin (pausing with a core per rank, yielding the core on
// every look where ranks outnumber cores), then drive the progress engine and sleep on a
// futex word in the segment (1 ms at most, so network progress goes on). The state change
// a waiter waits for wakes the sleepers once: the last arrival at a barrier, the last rank
// to end a phase, the publisher.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "comm/comm.h"

namespace ccmpi::coll::node {

class Segment {
 public:
  // Collective over c (one host): *out is the segment, or nullptr where shared memory is
  // not available (on every rank alike). Returns an error only when communication fails.
  static int create(comm::Comm& c, size_t slotBytes, std::unique_ptr<Segment>* out);
  ~Segment();
  Segment(const Segment&) = delete;
  Segment& operator=(const Segment&) = delete;

  size_t slotBytes() const { return slotBytes_; }
  int slots() const { return slots_; }
  // The data half of phase `phase` (parity), and slot `i` in it.
  unsigned char* half(uint64_t phase) const {
    return data_ + (phase & 1) * static_cast<size_t>(slots_) * slotBytes_;
  }
  unsigned char* slot(uint64_t phase, int i) const {
    return half(phase) + static_cast<size_t>(i) * slotBytes_;
  }
  size_t halfBytes() const { return static_cast<size_t>(slots_) * slotBytes_; }

  // Phases (the same sequence on every rank). beginPhase starts the next one; a rank that
  // will write its half first waits until every rank has ended the phase that used the
  // half before (two phases back). endPhase says this rank is done reading it.
  uint64_t beginPhase(bool writes);
  void endPhase(uint64_t phase);
  // One rank publishes the phase's data; the others wait for it.
  void publish(uint64_t phase);
  void awaitPublished(uint64_t phase);
  // Barrier in two parts: arrive returns the barrier's ticket at once; awaitRelease waits
  // until every rank has arrived at it (ranks that need not wait may skip it).
  uint64_t arrive();
  void awaitRelease(uint64_t ticket);
  // A whole barrier: rank 0 waits for every arrival and releases the others, so it
  // leaves first.
  void barrier();

 private:
  Segment() = default;
  template <typename Pred>
  void waitUntil(Pred ready);
  // Every rank's counter at control offset `off` is at least v.
  bool allReached(size_t off, uint64_t v) const;
  bool anySleeper() const;
  void post();
  void* base_ = nullptr;
  size_t bytes_ = 0;
  unsigned char* data_ = nullptr;
  size_t slotBytes_ = 0;
  int slots_ = 0;
  int rank_ = 0;
  uint64_t barriers_ = 0;  // barriers this rank arrived at (the same on every rank)
  uint64_t phases_ = 0;    // phases this rank started (the same on every rank)
};

}  // namespace ccmpi::coll::node
