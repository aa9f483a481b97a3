#pragma once
// The transport interface between p2p and the wire. p2p hands over OutFrames (a header
// and payload iovecs, or a producer of successive chunks) and receives validated frames
// through a Sink. The TCP transport is the first implementation; UDP multicast and
// several NICs per host plug in beside it.
#include <sys/uio.h>

#include <cstdint>
#include <string>

#include "transport/frame.h"

namespace ccmpi::transport {

// One outgoing frame (or a stream of frames). Owned by whoever created it; the transport
// calls written() once every byte of the last frame is in the kernel.
class OutFrame {
 public:
  virtual ~OutFrame() = default;
  // Called when the current frame is fully written: return true after setting up the
  // next frame of this stream (header + iov), false when the stream is finished.
  virtual bool refill() { return false; }
  // Whether refill() may produce more frames. The writer never gathers frames queued
  // behind such a stream into the same writev: the stream's next frame must go first.
  virtual bool isStream() const { return false; }
  // The stream is finished and the transport no longer references this object.
  virtual void written() = 0;
  // Frames that must be produced in the order they go on the wire (compressed ones: the
  // coding state is shared by every frame to the peer) set `unprepared` and build their
  // header and payload here; the transport calls it just before the frame's first byte is
  // written, in wire order, and clears the flag. refill() may set the flag again.
  virtual void prepare() {}
  bool unprepared = false;
  // A control frame that carries no envelope and concerns a transfer already agreed (a
  // rendezvous clear-to-send, a striped transfer's acknowledgement): it goes ahead of the
  // frames queued to the peer that have not started (after the other such frames), so it
  // never waits behind eager messages written before it. Nothing that matching orders
  // (an eager message, a request to send) may set it.
  bool urgent = false;

  unsigned char hdr[kHeaderBytes];
  iovec iov[4];
  int iovcnt = 0;  // iov[0] must be the header
  size_t bytesLeft = 0;

  // Sets iov[0] to the encoded header and the payload iovecs; computes bytesLeft.
  void setFrame(const FrameHeader& h, const void* p1 = nullptr, size_t n1 = 0,
                const void* p2 = nullptr, size_t n2 = 0);
};

// Where the payload of an incoming frame goes.
struct PayloadTarget {
  unsigned char* dest = nullptr;  // contiguous destination of `keep` bytes
  uint64_t keep = 0;              // bytes stored at dest; the rest of the payload is dropped
  void* cookie = nullptr;         // for the sink
  void* cookie2 = nullptr;        // for the sink
  int mode = 0;                   // for the sink
};

class Sink {
 public:
  virtual ~Sink() = default;
  // A validated frame from world rank `peer`. For frames with payload, fill *target.
  // Returning non-zero is a protocol violation: the connection is closed and logged.
  virtual int onFrame(int peer, const FrameHeader& h, PayloadTarget* target) = 0;
  // The payload announced by onFrame has been stored.
  virtual void onPayload(int peer, const FrameHeader& h, const PayloadTarget& target) = 0;
  // The connection to `peer` broke while the job was running.
  virtual void onPeerLost(int peer, const std::string& why) = 0;
  // The connection of one rail beyond rail 0 to `peer` broke (rails.h): frames written to
  // it may never arrive, and the rail is not used again.
  virtual void onRailLost(int /*peer*/, int /*rail*/) {}
};

}  // namespace ccmpi::transport
