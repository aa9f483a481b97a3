// Per-channel compression state, the auto-mode estimate and the counters (see
// compress_channel.h).
#include "p2p/compress_channel.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "base/error.h"
#include "base/link.h"
#include "base/log.h"
#include "base/tunables.h"
#include "compress/frame.h"
#include "datatype/datatype.h"
#include "progress/engine.h"
#include "transport/tcp.h"

namespace ccmpi::p2p::compress_channel {
namespace {

Tunable<std::string> kMode("CCMPI_COMPRESS", "off",
                           "compression of floating-point messages: off, on (every "
                           "MPI_DOUBLE/MPI_FLOAT/complex message of at least CCMPI_COMPRESS_MIN "
                           "bytes), auto (per channel, only while it pays), or a codec name "
                           "(on, with that codec)");
Tunable<std::string> kCodec("CCMPI_COMPRESS_CODEC", "spx-fast",
                            "codec for compressed messages (see `ccmpi-codec list`); only the "
                            "sender's setting matters; unset, auto uses adapt-fast");
Tunable<uint64_t> kMin("CCMPI_COMPRESS_MIN", 1024, "smallest message (bytes) that is compressed");
Tunable<uint64_t> kChunk("CCMPI_COMPRESS_CHUNK", 16 * 1024,
                         "bytes of original data per compressed DATA frame of a large message "
                         "(the receiver decodes a chunk while the next ones arrive)");
Tunable<double> kLinkMbits("CCMPI_COMPRESS_LINK_MBITS", 0,
                           "link throughput (Mbit/s) the auto mode assumes; 0 = use the "
                           "throughput measured to each peer (CCMPI_LINK_MBITS until measured)");
Tunable<bool> kStats("CCMPI_COMPRESS_STATS", false,
                     "print each rank's compression counters to stderr at MPI_Finalize");

static_assert(transport::kCodedOverhead == compress::kMaxOverhead,
              "the frame check must allow the codec's growth");

constexpr double kMargin = 0.02;  // auto: compression must save at least this fraction
constexpr uint32_t kProbeFirst = 8;
constexpr uint32_t kProbeMax = 1024;
constexpr uint64_t kLinkProbeMin = 1 << 20;  // a plain transfer this large measures the link
constexpr uint32_t kLinkProbeEvery = 8;

// Exponentially weighted mean of a positive quantity (0 = no sample yet).
struct Ewma {
  double v = 0;
  void add(double x, double w = 0.25) { v = v == 0 ? x : (1 - w) * v + w * x; }
};

struct Tx {
  std::unique_ptr<compress::CodecState> st;
  // auto mode
  bool on = false;
  uint32_t skipped = 0;  // eligible messages sent plain since the last probe
  uint32_t probeEvery = 1;
  uint32_t streams = 0;  // large transfers since the last plain one (link probe)
  Ewma in, out;          // original and coded bytes per coded frame
  Ewma speed;            // original bytes per second of coding
};

struct Rx {
  std::unique_ptr<compress::CodecState> st;
};

struct State {
  Mode mode = Mode::kOff;
  const compress::Codec* codec = nullptr;
  uint64_t min = 1024;
  uint64_t chunk = 16 * 1024;
  double linkBytes = 0;  // from CCMPI_COMPRESS_LINK_MBITS, 0 = measure
  transport::TcpTransport* tcp = nullptr;
  std::vector<Tx> tx;
  std::vector<Rx> rx;
  Ewma decodeSpeed;  // our own decoding speed, the estimate for the peers' one
  Stats stats;
};

State g;

// CPU time of this thread: coding speed must not depend on how many processes share the
// cores (with 16 ranks on 2 cores, wall time would make every codec look slow).
int64_t cpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

double linkRate(int peer) {
  if (g.linkBytes > 0) return g.linkBytes;
  const double measured = g.tcp ? g.tcp->drainRate(peer) : 0;
  // Before anything is measured: the cluster's declared link rate.
  return measured > 0 ? measured : linkMbits() * 1e6 / 8;
}

// Smallest ratio at which coding pays for the channel (the header comment's estimate solved
// for r); 0 when it cannot pay at any ratio (coding alone takes longer than sending).
double minPayingRatio(int peer, const Tx& t) {
  const double link = linkRate(peer);
  const double cc = t.speed.v > 0 ? t.speed.v : 1e9;
  const double cd = g.decodeSpeed.v > 0 ? g.decodeSpeed.v : cc;
  const double room = (1 - kMargin) / link - 1 / cc - 1 / cd;  // seconds per byte left
  return room > 0 ? 1 / (room * link) : 0;
}

// Whether coding at ratio r pays for the channel by the estimate in the header comment.
bool pays(int peer, const Tx& t, double r) {
  const double least = minPayingRatio(peer, t);
  return r > 1.0 && least > 0 && r > least;
}

}  // namespace

int init(transport::TcpTransport* tcp, int worldSize) {
  g = State{};
  g.tcp = tcp;
  const std::string& m = kMode.get();
  if (m == "off" || m == "0" || m.empty())
    g.mode = Mode::kOff;
  else if (m == "on" || m == "1")
    g.mode = Mode::kOn;
  else if (m == "auto")
    g.mode = Mode::kAuto;
  else if (compress::findCodec(m))
    g.mode = Mode::kOn;  // CCMPI_COMPRESS=<codec>: on, with that codec
  else
    return setErrorCause(MPI_ERR_OTHER, "CCMPI_COMPRESS=%s: expected off, on, auto or a codec name",
                         m.c_str());
  // auto without a codec named: adapt-fast, which decides per chunk from a sample whether
  // and how to code it (an incompressible chunk costs only the sample).
  const std::string& named = kCodec.get();  // (read before asking fromEnv())
  if (compress::findCodec(m))
    g.codec = compress::findCodec(m);
  else
    g.codec =
        compress::findCodec(g.mode == Mode::kAuto && !kCodec.fromEnv() ? "adapt-fast" : named);
  if (!g.codec) {
    std::string names;
    for (const compress::Codec* c : compress::allCodecs()) names += std::string(" ") + c->name();
    return setErrorCause(MPI_ERR_OTHER, "CCMPI_COMPRESS_CODEC=%s is not a codec; valid:%s",
                         kCodec.get().c_str(), names.c_str());
  }
  g.min = std::max<uint64_t>(kMin.get(), 1);
  g.chunk = std::max<uint64_t>(kChunk.get(), 1024);
  if (kLinkMbits.get() < 0)
    return setErrorCause(MPI_ERR_OTHER, "CCMPI_COMPRESS_LINK_MBITS=%g must not be negative",
                         kLinkMbits.get());
  g.linkBytes = kLinkMbits.get() * 1e6 / 8;
  g.tx.resize(static_cast<size_t>(worldSize));
  g.rx.resize(static_cast<size_t>(worldSize));
  return MPI_SUCCESS;
}

void growPeers(int count) {
  if (g.tx.size() < static_cast<size_t>(count)) g.tx.resize(static_cast<size_t>(count));
  if (g.rx.size() < static_cast<size_t>(count)) g.rx.resize(static_cast<size_t>(count));
}

void finalize(int myRank) {
  if (kStats.get()) {
    const Stats& s = g.stats;
    const char* m = g.mode == Mode::kOff ? "off" : g.mode == Mode::kOn ? "on" : "auto";
    std::fprintf(
        stderr,
        "ccmpi-compress: rank=%d mode=%s codec=%s sent_msgs=%llu sent_bytes=%llu "
        "sent_wire=%llu compress_s=%.6f recv_msgs=%llu recv_bytes=%llu recv_wire=%llu "
        "decompress_s=%.6f\n",
        myRank, m, g.codec ? g.codec->name() : "-", static_cast<unsigned long long>(s.sentFrames),
        static_cast<unsigned long long>(s.sentBytes), static_cast<unsigned long long>(s.sentWire),
        s.encodeNs * 1e-9, static_cast<unsigned long long>(s.recvFrames),
        static_cast<unsigned long long>(s.recvBytes), static_cast<unsigned long long>(s.recvWire),
        s.decodeNs * 1e-9);
  }
  g.tx.clear();
  g.rx.clear();
  g.tcp = nullptr;
}

Mode mode() {
  return g.mode;
}

const Stats& stats() {
  return g.stats;
}

uint64_t chunkBytes() {
  return g.chunk;
}

bool eligible(const datatype::Datatype* dt, uint64_t bytes, compress::DataType* type) {
  if (g.mode == Mode::kOff || bytes < g.min) return false;
  const MPI_Datatype b = dt->basicType();
  if (b == MPI_DOUBLE || b == MPI_DOUBLE_PRECISION || b == MPI_REAL8 || b == MPI_C_DOUBLE_COMPLEX ||
      b == MPI_DOUBLE_COMPLEX || b == MPI_COMPLEX16 || b == MPI_CXX_DOUBLE_COMPLEX) {
    *type = compress::DataType::kFloat64;
    return true;
  }
  if (b == MPI_FLOAT || b == MPI_REAL || b == MPI_REAL4 || b == MPI_C_FLOAT_COMPLEX ||
      b == MPI_COMPLEX || b == MPI_COMPLEX8 || b == MPI_CXX_FLOAT_COMPLEX) {
    *type = compress::DataType::kFloat32;
    return true;
  }
  return false;
}

bool codeStream(int peer, uint64_t bytes) {
  if (g.mode != Mode::kAuto) return g.mode == Mode::kOn;
  Tx& t = g.tx[static_cast<size_t>(peer)];
  if (!t.on || g.linkBytes > 0 || bytes < kLinkProbeMin || (g.tcp && g.tcp->drainRate(peer) > 0))
    return true;
  if (++t.streams < kLinkProbeEvery) return true;
  t.streams = 0;
  return false;
}

bool decide(int peer) {
  if (g.mode == Mode::kOn) return true;
  if (g.mode == Mode::kOff) return false;
  Tx& t = g.tx[static_cast<size_t>(peer)];
  if (g.codec->decidesPerChunk()) {
    // The codec stores a chunk raw unless its sample promises at least the paying ratio,
    // so every chunk is offered to it while coding can pay at all: a message that
    // compresses is never sent raw, one that does not costs only the sample.
    t.on = minPayingRatio(peer, t) > 0;
    if (t.on) return true;
    // Coding cannot pay at the measured speeds; code a probe now and then to remeasure.
    if (++t.skipped >= kProbeFirst) {
      t.skipped = 0;
      return true;
    }
    return false;
  }
  if (t.on) return true;
  if (++t.skipped >= t.probeEvery) {
    t.skipped = 0;
    return true;  // a probe
  }
  return false;
}

size_t encode(int peer, const void* in, size_t n, compress::DataType type,
              std::vector<unsigned char>* out) {
  Tx& t = g.tx[static_cast<size_t>(peer)];
  if (!t.st) t.st = g.codec->newState();
  const size_t cap = compress::Codec::maxCompressedSize(n);
  if (out->size() < cap) out->resize(cap);
  size_t len = 0;
  if (g.mode == Mode::kAuto && g.codec->decidesPerChunk()) {
    const double r = minPayingRatio(peer, t);
    t.st->setMinRatio(r > 0 ? r : 1);
  }
  const int64_t t0 = cpuNs();
  const int rc = g.codec->compress(*t.st, in, n, out->data(), cap, &len, type);
  const int64_t ns = std::max<int64_t>(cpuNs() - t0, 1);
  // compress() cannot fail with a state we own and an output of maxCompressedSize bytes.
  if (rc != compress::kOk) {
    log::fatal("compressing a message for rank %d failed: %s (%s)", peer, compress::statusName(rc),
               t.st->lastError());
  }
  g.stats.sentFrames++;
  g.stats.sentBytes += n;
  g.stats.sentWire += len;
  g.stats.encodeNs += ns;
  if (g.mode == Mode::kAuto && n > 0 && len > 0) {
    t.speed.add(static_cast<double>(n) * 1e9 / static_cast<double>(ns));
    // A per-chunk codec judges each chunk itself (setMinRatio above): only the speed is
    // kept for it.
    if (g.codec->decidesPerChunk()) return len;
    const double r = static_cast<double>(n) / static_cast<double>(len);
    if (!t.on) {
      // A probe: judged on its own. If this chunk pays, coding resumes with the recent
      // ratio restarted from it; if not, probes thin out (data that does not compress).
      if (pays(peer, t, r)) {
        t.on = true;
        t.in.v = static_cast<double>(n);
        t.out.v = static_cast<double>(len);
        t.probeEvery = kProbeFirst;
      } else {
        t.probeEvery = std::min(kProbeMax, std::max(kProbeFirst, t.probeEvery * 2));
      }
    } else {
      // While on: the ratio of byte sums over recent frames, slowly moving, so that a
      // stretch of poorly compressing data must last before coding stops (real
      // messages mix constant runs and noisy fields).
      t.in.add(static_cast<double>(n), 0.05);
      t.out.add(static_cast<double>(len), 0.05);
      if (!pays(peer, t, t.in.v / t.out.v)) {
        t.on = false;
        t.probeEvery = kProbeFirst;
      }
    }
    t.skipped = 0;
  }
  return len;
}

int decode(int peer, const void* in, size_t len, void* out, size_t cap, size_t* outBytes) {
  Rx& r = g.rx[static_cast<size_t>(peer)];
  compress::FrameHeader fh;
  if (!compress::parseFrameHeader(static_cast<const uint8_t*>(in), len, &fh))
    return setErrorCause(MPI_ERR_OTHER,
                         "compressed message from rank %d is corrupt (bad codec header)", peer);
  if (!r.st || r.st->codec().id() != fh.codecId) {
    // The sender's codec is whatever the message says; a channel never changes codec.
    const compress::Codec* c = compress::findCodecById(fh.codecId);
    if (!c)
      return setErrorCause(MPI_ERR_OTHER, "compressed message from rank %d uses unknown codec %u",
                           peer, static_cast<unsigned>(fh.codecId));
    if (r.st)
      return setErrorCause(MPI_ERR_OTHER,
                           "compressed message from rank %d switched codec on its channel", peer);
    r.st = c->newState();
  }
  const int64_t t0 = cpuNs();
  const int rc = r.st->codec().decompress(*r.st, in, len, out, cap, outBytes);
  const int64_t ns = std::max<int64_t>(cpuNs() - t0, 1);
  if (rc != compress::kOk)
    return setErrorCause(MPI_ERR_OTHER, "decompressing a message from rank %d failed: %s (%s)",
                         peer, compress::statusName(rc), r.st->lastError());
  g.stats.recvFrames++;
  g.stats.recvBytes += *outBytes;
  g.stats.recvWire += len;
  g.stats.decodeNs += ns;
  if (*outBytes > 0)
    g.decodeSpeed.add(static_cast<double>(*outBytes) * 1e9 / static_cast<double>(ns));
  return MPI_SUCCESS;
}

}  // namespace ccmpi::p2p::compress_channel
