#pragma once
// Lossless codecs for MPI message payloads (floating-point arrays first of all).
//
// A Codec is a stateless, immutable singleton (findCodec/allCodecs); everything that
// changes while coding lives in a CodecState that the caller owns. A state belongs to
// one channel and direction (cMPI §2.2/§4.3: one compression predictor per peer for
// sending, one decompression predictor per peer for receiving): the sender and the
// receiver each keep one, and as long as both process the same messages in the same
// order their predictors stay identical. Different states may be used from different
// threads at once; one state must not be used by two threads at once. There are no
// globals besides the constant codec table.
//
// Message format (every codec, see frame.h): a header of 8..16 bytes (magic, codec id,
// flags, original length, checksum of the original bytes), then the codec's payload. A
// message that does not shrink is stored raw, so the output never exceeds the input by
// more than kMaxOverhead bytes. The state after a message depends only on the message
// contents, never on how it was encoded: a raw-stored message still trains the
// predictors on both sides (the receiver replays it through the predictor).
//
// Codecs (allCodecs(), ids in codec_list.h): raw (no compression), cmpi (the cMPI
// paper's codec, the reference), fpc (FPC, an anchor), spx (ours: stride-polynomial
// predictor, Huffman-coded residual lengths; best ratio), spx-fast (ours: same predictor,
// byte-granular residuals; fastest), zstd / shuffle-zstd / lz4 (Debian's libzstd level 1,
// with or without a byte shuffle, and liblz4; present when found at build time), adapt
// (ours: per 256 KiB chunk the best of a predictor, a decimal and the LZ paths, chosen
// from a sample). docs/results/codec/README.md has the measurements.
//
// Element types: the codecs are designed for doubles. Any byte length is accepted; the
// trailing inBytes % 8 bytes are carried raw. DataType::kFloat32 tells a codec the words
// are 4-byte floats: codecs with a 32-bit path use it (spx, spx-fast), the others code the
// bytes with their 64-bit model, which is lossless but compresses floats poorly.
//
// Interface shape: compress()/decompress() are not virtual; they do the framing shared
// by all codecs (header, checksum, raw fallback, tail, state checks) and call the
// codec's encode/decode/train.
//
// Pipelining (cMPI §2.4): a large message can be cut into chunks (e.g. one or two MTUs
// of output) and each chunk coded as its own message with the same state; the receiver
// decodes the chunks in order. The state carries the predictor across chunk boundaries.
//
// Errors: functions return a Status (0 == kOk). Decoding checks every length and every
// field against its bounds and the checksum of the result; corrupt or truncated input
// returns kErrCorrupt and never reads or writes outside the given buffers. After a
// decode error the state is marked broken (its predictor may be half-updated): every
// later call on it fails with kErrBrokenState until reset(). A human-readable cause is
// kept in the state (lastError()); the p2p layer maps Status to an MPI error class and
// records the cause with ccmpi::setErrorCause.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace ccmpi::compress {

enum Status : int {
  kOk = 0,
  kErrCorrupt = 1,      // input to decompress is malformed, truncated or fails its checksum
  kErrOutputSpace = 2,  // outCap too small (compress: < maxCompressedSize; decompress: < length)
  kErrWrongCodec = 3,   // message or state belongs to another codec
  kErrBrokenState = 4,  // state was left inconsistent by an earlier decode error
  kErrInvalidArgument = 5,
};
const char* statusName(int status);

enum class DataType : uint8_t { kFloat64 = 0, kFloat32 = 1 };

// Worst-case growth of one message: header (<= 16 bytes) on top of the raw bytes.
constexpr size_t kMaxOverhead = 16;

class Codec;

// Per-channel, per-direction coding state. Created by Codec::newState().
class CodecState {
 public:
  virtual ~CodecState() = default;
  CodecState(const CodecState&) = delete;
  CodecState& operator=(const CodecState&) = delete;

  const Codec& codec() const { return *codec_; }
  // Forget all history (as freshly created). Sender and receiver must reset together.
  void reset() {
    broken_ = false;
    lastError_ = "";
    resetModel();
  }
  bool broken() const { return broken_; }
  // Smallest ratio worth coding a part of a message at (the channel's auto mode sets it
  // from the link and coding speeds); codecs that decide per chunk (adapt, adapt-fast)
  // store a chunk raw when their estimate falls below it. 0 = code whatever shrinks.
  void setMinRatio(double r) { minRatio_ = r; }
  double minRatio() const { return minRatio_; }
  // Cause of the last failure on this state (static text, never null).
  const char* lastError() const { return lastError_; }

 protected:
  explicit CodecState(const Codec* codec) : codec_(codec) {}
  virtual void resetModel() = 0;

 private:
  friend class Codec;
  const Codec* codec_;
  bool broken_ = false;
  const char* lastError_ = "";
  double minRatio_ = 0;
};

class Codec {
 public:
  virtual ~Codec() = default;
  // Wire id of the codec (frame.h), stable across versions.
  virtual uint8_t id() const = 0;
  virtual const char* name() const = 0;
  virtual const char* description() const = 0;

  static constexpr size_t maxCompressedSize(size_t inputBytes) { return inputBytes + kMaxOverhead; }

  virtual std::unique_ptr<CodecState> newState() const = 0;
  // Whether the codec chooses per chunk, from a sample, between coding and storing raw
  // (so an incompressible message costs only the sample): the auto mode then codes every
  // eligible message while coding can pay at all (see docs/compression.md).
  virtual bool decidesPerChunk() const { return false; }

  // Codes `in` into `out`. outCap must be >= maxCompressedSize(inBytes), otherwise
  // kErrOutputSpace is returned and nothing (the state included) is touched.
  int compress(CodecState& st, const void* in, size_t inBytes, void* out, size_t outCap,
               size_t* outBytes, DataType type = DataType::kFloat64) const;
  // Decodes one message produced by compress() with a state in the same position.
  // *outBytes receives the original length, which must fit in outCap.
  int decompress(CodecState& st, const void* in, size_t inBytes, void* out, size_t outCap,
                 size_t* outBytes) const;

 protected:
  // The codec-specific part. `words` is inBytes / wordBytes (wordBytes 8, or 4 for
  // kFloat32 when supportsFloat32()); the framing handles the header and the raw tail.
  //
  // encode: code words[0..n) into out[0..cap). Returns the payload length, or 0 when it
  // did not fit (or did not pay); in that case it must still have trained the state on all
  // n words exactly as a successful encode would, since the caller then stores the words raw.
  virtual size_t encode(CodecState& st, const uint8_t* in, size_t n, DataType type, uint8_t* out,
                        size_t cap) const = 0;
  // decode: exactly `len` payload bytes into n words. Returns kOk or kErrCorrupt (and then
  // sets the cause through fail()).
  virtual int decode(CodecState& st, const uint8_t* in, size_t len, DataType type, uint8_t* out,
                     size_t n) const = 0;
  // Updates the state with n words as if they had been coded (raw-stored messages).
  virtual void train(CodecState& st, const uint8_t* in, size_t n, DataType type) const = 0;
  virtual bool supportsFloat32() const { return false; }

  // For a codec that codes parts of a message with another codec's payload format
  // (adapt): the other codec's encode/decode/train on a state it made.
  static size_t encodeWith(const Codec& c, CodecState& st, const uint8_t* in, size_t n,
                           DataType type, uint8_t* out, size_t cap) {
    return c.encode(st, in, n, type, out, cap);
  }
  static int decodeWith(const Codec& c, CodecState& st, const uint8_t* in, size_t len,
                        DataType type, uint8_t* out, size_t n) {
    return c.decode(st, in, len, type, out, n);
  }
  static void trainWith(const Codec& c, CodecState& st, const uint8_t* in, size_t n,
                        DataType type) {
    c.train(st, in, n, type);
  }

  static int fail(CodecState& st, int status, const char* cause) {
    st.lastError_ = cause;
    return status;
  }
  // A message was lost: the sender's state moved on, so this one is out of step.
  static int corrupt(CodecState& st, const char* cause) {
    st.broken_ = true;
    return fail(st, kErrCorrupt, cause);
  }
};

// All codecs, in a fixed order ("raw" first, then "cmpi", "fpc", our own).
const std::vector<const Codec*>& allCodecs();
const Codec* findCodec(std::string_view name);
const Codec* findCodecById(uint8_t id);

}  // namespace ccmpi::compress
