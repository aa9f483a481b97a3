#pragma once
// Transparent compression of floating-point messages (cMPI, seed paper 001).
//
// Messages whose datatype consists only of MPI_DOUBLE / MPI_FLOAT (or their Fortran and
// complex relatives) and that are at least CCMPI_COMPRESS_MIN bytes long are coded with
// one of the compress/ codecs on the way out and restored on the way in; the frame
// header's kFlagCompressed marks them. Eager messages are one coded message; rendezvous
// transfers are cut into chunks of CCMPI_COMPRESS_CHUNK bytes, each coded on its own,
// so that the receiver decodes while the rest arrives.
//
// Channels: coding state lives per peer and direction (one sending and one receiving
// predictor per peer), so the predictors learn across messages. The sender codes a frame
// when the transport is about to write it (OutFrame::prepare), i.e. in wire order, and
// the receiver decodes each frame as it arrives, i.e. in the same order, whatever order
// the receives are matched in. Only coded frames advance the states.
//
// Modes (CCMPI_COMPRESS, or mpirun --compress): off; on (every eligible message); auto:
// per sending channel, compression stays on while it pays by the estimate
//     1/Cc + 1/(r*L) + 1/Cd  <  (1 - margin) / L      (seconds per original byte)
// with r the measured compression ratio, Cc and Cd the measured coding speeds and L the
// throughput the transport measured to that peer while its socket was backlogged (or
// CCMPI_COMPRESS_LINK_MBITS). While it does not pay, an eligible message is coded now
// and then to re-measure (exponential back-off from every 8th to every 1024th).
//
// Counters: CCMPI_COMPRESS_STATS=1 prints one line per rank at MPI_Finalize.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "compress/codec.h"

namespace ccmpi::datatype {
class Datatype;
}
namespace ccmpi::transport {
class TcpTransport;
}

namespace ccmpi::p2p::compress_channel {

enum class Mode { kOff, kOn, kAuto };

// Reads the tunables (MPI_Init). Returns an MPI error class with the cause set when a
// value is invalid.
// The transport tells the throughput it measured to each peer.
int init(transport::TcpTransport* tcp, int worldSize);
// Channel state for `count` peers (processes of other jobs joined later).
void growPeers(int count);
void finalize(int myRank);  // prints the counters when asked to, releases the states
Mode mode();

// Minimum size and codec word type for a message of `bytes` bytes of type dt; false when
// the message is not eligible (mode off, too small, not floating point).
bool eligible(const datatype::Datatype* dt, uint64_t bytes, compress::DataType* type);
// Whether the chunks of an eligible rendezvous transfer of `bytes` to `peer` may be coded
// (decide() then rules per chunk). In auto mode, while compression is on but the
// throughput to the peer is still unknown (the coded traffic never backlogged the socket:
// the link may be faster than the codec), now and then a large transfer goes plain to
// measure it.
bool codeStream(int peer, uint64_t bytes);
// Whether the next eligible message (or rendezvous chunk) to `peer` should be coded.
// Call once per message/chunk that could be coded.
bool decide(int peer);
// Bytes of original data per coded DATA frame.
uint64_t chunkBytes();

// Codes in[0..n) for peer into out (resized as needed); returns the coded length.
// Updates the channel's measurements.
size_t encode(int peer, const void* in, size_t n, compress::DataType type,
              std::vector<unsigned char>* out);
// Decodes one coded frame from peer into out[0..cap). On success *outBytes is the
// original length. On failure returns an MPI error class with the cause set.
int decode(int peer, const void* in, size_t len, void* out, size_t cap, size_t* outBytes);

// This process's counters since MPI_Init.
struct Stats {
  uint64_t sentFrames = 0, sentBytes = 0, sentWire = 0, recvFrames = 0, recvBytes = 0, recvWire = 0;
  int64_t encodeNs = 0, decodeNs = 0;
};
const Stats& stats();

// Largest coded payload for `bytes` of original data.
inline uint64_t maxCoded(uint64_t bytes) {
  return compress::Codec::maxCompressedSize(bytes);
}

}  // namespace ccmpi::p2p::compress_channel
