#pragma once
// Shared-memory transport between the ranks of one host.
//
// Each rank owns one segment: an anonymous memfd (it has no name, so nothing of it can be
// left in /dev/shm however the job ends) holding its incoming rings, one per local sender.
// A ring is a single-producer single-consumer byte stream carrying the same frames as a
// TCP connection (transport/frame.h: 64-byte header, then the payload; an uncoded eager
// frame may take the 24-byte compact header instead), so the matching engine above sees
// one kind of stream whichever way a peer is reached, and the rendezvous, single-copy
// (cma.h), cancellation and probe protocols work unchanged. A frame longer than the ring
// streams through it (the sender writes what fits, the receiver copies out behind it):
// that is also the pipelined copy through shared buffers that large messages take where
// the kernel refuses single-copy reads.
//
// Records: the stream travels in records, each starting on a 64-byte line with one word,
// check << 16 | length, then `length` stream bytes (at most 8 KiB); the next record starts
// on the next line. The producer writes the bytes, then the word (release); the consumer
// sees a record when the word at its head carries the check of that position (acquire):
// the position's line number plus a random key of the segment, modulo 2^48, so a word
// from an earlier lap or payload bytes never pass for one. A small message and its
// compact header fill one line: the line the receiver polls is the message, and a message
// moves one cache line between the cores (no separate tail counter to move too). The
// consumer's head (bytes since the start, never wrapping, on its own line) tells the
// producer what room is left; the producer reads it only when its last look says the ring
// is short of room.
//
// Start-up (collective over the ranks of the host): every rank binds an abstract unix
// datagram socket and publishes its name through PMI with its host key (boot id, network
// namespace, host name: ranks of emulated hosts of one machine are not local to each
// other). After the PMI barrier each rank sends its segment's file descriptor to every
// local peer (SCM_RIGHTS), with a MAC of the job secret; the kernel adds the sender's pid
// (SCM_CREDENTIALS, translated into the receiver's pid namespace).
//
// Waiting: the same socket is the rank's doorbell. A rank about to sleep in epoll_wait
// sets the flag `sleeping` in its segment and looks at its rings once more; a sender that
// publishes bytes and finds the flag set sends one byte to the socket. A sender blocked on
// a full ring sets the ring's `writerWaiting` flag and is woken the same way by the
// consumer. Both sides store, fence (seq_cst), then load: no wake-up is lost.
//
// Failure: every local peer's process is watched with a pidfd; a peer that exits before
// the job shuts down takes the job down with a message naming it. A malformed frame, or
// a record of impossible length, fail the job naming the rank that wrote them.
#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "base/siphash.h"
#include "progress/engine.h"
#include "transport/transport.h"

namespace ccmpi::transport {

// CCMPI_SHM: ranks of one host talk through shared memory (default on).
bool shmEnabled();
// This host as the shared-memory transport sees it: "<boot id>.<network namespace>.<host
// name>" (no spaces).
std::string shmHostKey();
// The key rank `worldRank` of this process publishes: shmHostKey(), split by CCMPI_SHM_ISLAND.
std::string shmHostKeyOf(int worldRank);

class ShmTransport {
 public:
  ShmTransport();
  ~ShmTransport();
  ShmTransport(const ShmTransport&) = delete;
  ShmTransport& operator=(const ShmTransport&) = delete;

  // Before the PMI barrier: opens the doorbell socket and the segment. *publish gets the
  // text to publish (host key and socket name); false when shared memory is off or cannot
  // be set up here (the rank then reaches every peer over TCP, and says why in the log).
  bool open(int myRank, int worldSize, std::string* publish);
  // After the barrier: `published[r]` is rank r's text ("" when it has none; only the ranks
  // that may share this host need to be filled). Exchanges segments with the ranks whose
  // host key is ours. Returns 0, or an MPI error class with the cause set.
  int connect(const std::vector<std::string>& published, const SipKey& secret,
              const FrameLimits& limits, Sink* sink);

  // Whether `peer` (world rank) is reached through shared memory.
  bool has(int peer) const {
    return peer >= 0 && peer < static_cast<int>(slotOf_.size()) && slotOf_[peer] >= 0;
  }
  int localRanks() const { return static_cast<int>(local_.size()); }
  const std::vector<int>& local() const { return local_; }
  // Queues f for peer (has(peer) holds); writes it at once when the ring has room.
  void send(int peer, OutFrame* f);
  // Writes a frame (header + one payload piece) straight into peer's ring when nothing is
  // queued for it and the ring has room for all of it; false (nothing written) otherwise.
  bool trySendNow(int peer, const FrameHeader& h, const void* payload, size_t len);
  // An uncoded eager message of at most kSmallBytes, written as one line of the ring (a
  // record holding its compact header and bytes), under the same conditions.
  static constexpr size_t kSmallBytes = 32;
  bool trySendSmall(int peer, uint32_t context, int32_t tag, uint64_t wireId, const void* payload,
                    size_t len);
  // Reads the frames that arrived, writes queued output; returns the number of frames
  // handled (0 when there was nothing to do). Called by the progress engine on every poll.
  int poll();
  // The engine is about to sleep: false if there is something to do (do not sleep).
  bool prepareSleep();
  void endSleep();
  bool hasPendingOutput() const;
  // The local peers output still waits for, for a diagnostic: "rank 1 (3 frames)".
  std::string pendingOutput() const;
  // Peers exiting is no longer a failure (after the finalize barrier starts).
  void beginShutdown() { shuttingDown_ = true; }
  // Flushes queued frames (for at most drainSeconds), then unmaps everything and closes
  // the sockets.
  void shutdown(double drainSeconds = 10);

  // The process id of a local peer whose memory this rank may read (cma.h), or 0.
  int cmaPid(int peer) const;
  void disableCma(int peer);
  // Why single-copy reads from local peers are refused here ("" when they are not).
  const std::string& cmaRefusal() const { return cmaRefusal_; }
  uint64_t framesSent() const { return framesSent_; }
  // This rank's message path skips its memory fences (see lightFences_).
  bool lightFences() const { return lightFences_; }
  uint64_t wakeupsSent() const { return wakeups_; }

 private:
  struct Ring;
  struct SegCtl;
  struct Out {
    int peer = -1;
    SegCtl* ctl = nullptr;  // the receiver's segment
    Ring* ring = nullptr;   // our ring in it
    unsigned char* data = nullptr;
    uint64_t key = 0;       // the receiver's record key
    uint64_t tail = 0;      // where our next record goes (stream position)
    uint64_t headSeen = 0;  // the consumer's head when we last looked
    std::deque<OutFrame*> q;
    bool flushing = false;
    bool light = false;  // no fence between a record and the look at `sleeping` (lightFences)
  };
  struct In {
    int peer = -1;
    Ring* ring = nullptr;
    unsigned char* data = nullptr;
    uint64_t head = 0;
    bool inPayload = false;
    size_t hdrHave = 0;
    unsigned char hdr[64];
    FrameHeader cur;
    PayloadTarget tgt;
    uint64_t payloadLeft = 0, got = 0;
    bool light = false;  // no fence between head and the look at writerWaiting (lightFences)
  };
  struct Peer {
    int pid = 0;     // from SCM_CREDENTIALS
    int cmaPid = 0;  // pid proved readable
    int pidfd = -1;
    void* base = nullptr;  // the peer's segment, mapped
    size_t bytes = 0;
  };
  class Doorbell;
  class PeerWatch;

  void flush(Out& o);
  void putRecord(Out& o, const void* a, size_t na, const void* b, size_t nb);
  int readRing(In& in);
  int consume(In& in, uint64_t pos, uint64_t len);  // stream bytes of one record
  // A record holding one compact frame whole, at p: delivered; false (nothing done) when
  // the record holds more than the frame.
  bool oneFrame(In& in, const unsigned char* p, uint64_t len);
  // The word of the record at in's head, 0 when none is there yet.
  uint64_t recordWord(const In& in, int order) const;
  [[noreturn]] void badHeader(int peer, const char* why);
  void wake(int slot);          // rings slot's doorbell if it sleeps
  void ringDoorbell(int slot);  // one byte to slot's socket
  [[noreturn]] void corrupt(int peer, const char* what);
  int exchange(const SipKey& secret);
  int offerSegment(int slot, const SipKey& secret);
  int acceptSegment(const SipKey& secret, bool* empty);
  void drainDoorbell();
  void peerExited(int slot);
  // The sleeping side of an asymmetric fence, with lightFences_ (nothing otherwise):
  // membarrier makes every registered process that runs pass a full fence before it
  // returns; should it fail, the current sleep ends after a millisecond.
  void heavyFence();

  int me_ = 0;
  int worldSize_ = 1;
  int mySlot_ = -1;
  Sink* sink_ = nullptr;
  FrameLimits limits_;
  std::vector<int> local_;              // world ranks of this host, ascending
  std::vector<int> slotOf_;             // world rank -> index in local_, -1 if not local
  std::vector<std::string> sockNames_;  // per slot
  std::vector<Peer> peers_;             // per slot
  std::vector<Out> out_;                // per slot (ours unused)
  std::vector<In> in_;                  // per slot (ours unused)
  int sock_ = -1;
  std::string sockName_;
  int memfd_ = -1;
  void* seg_ = nullptr;
  size_t segBytes_ = 0;
  uint64_t ringBytes_ = 0;
  uint64_t recordKey_ = 0;  // of our segment's rings
  SegCtl* myCtl_ = nullptr;
  std::unique_ptr<Doorbell> doorbell_;
  std::vector<std::unique_ptr<PeerWatch>> watches_;
  bool polling_ = false;
  int outPending_ = 0;  // out queues holding frames
  bool shuttingDown_ = false;
  // A message's writer looks whether its reader sleeps right after publishing it, and a
  // reader looks whether its writer waits for room right after freeing it: each is a store
  // then a load of another word, which needs a full fence between them (mfence: the store
  // of the record must reach the reader's core first, on the path of every message). With
  // lightFences_ the frequent side only keeps the compiler from reordering, and the rare
  // side (about to sleep, or waiting for room) makes every running process of the job pass
  // a fence with membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) instead. On when this process
  // registered for it, the host's ranks do not outnumber its cores (there they sleep often,
  // and an interprocessor interrupt per sleep costs more) and CCMPI_SHM_LIGHT_FENCES
  // allows; a pair skips fences only when both sides have it on (SegCtl::lightFences).
  bool lightFences_ = false;
  std::string cmaRefusal_;
  uint64_t framesSent_ = 0, wakeups_ = 0;
};

}  // namespace ccmpi::transport
