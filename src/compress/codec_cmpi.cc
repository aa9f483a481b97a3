// cmpi: the message codec of cMPI (Ke, Burtscher, Speight, "Runtime Compression of MPI
// Messages to Improve the Performance and Scalability of Parallel Applications", SC 2004),
// reproduced as the reference codec. Paper sections in brackets.
//
// Per double D_i of the message [§2.2, Figure 1]:
//   1. A third-order DFCM predictor [§2.3] guesses D'_i. Its state: the previous value
//      D_{i-1}; the 14 most significant bits (sign, 11 exponent bits, 2 mantissa bits) of
//      the last three differences Δ0, Δ1, Δ2 (Δ2 the newest), each difference being the
//      floating-point difference D_k - D_{k-1}; and a table of 2^15 lines [§3.3], each
//      holding the two most recent full 64-bit differences Δ" (newest) and Δ' that
//      followed the same hash. The line index is
//          hash = lsb_{0..14}(Δ2 xor (Δ1 << 5) xor (Δ0 << 10)).
//      Predicted difference Δp = Δ" if Δ" and Δ' differ in their first 14 bits, otherwise
//      Δ" + (Δ" - Δ') (the drift rule). D'_i = D_{i-1} + Δp.
//   2. Diff_i = D_i xor D'_i (bit patterns).
//   3. LZC = number of leading zero bits of Diff_i in units of four, capped at 15, written
//      in 4 bits; then the remaining 64 - 4*LZC bits of Diff_i ("EBits"), uncompressed.
//   4. Update: the line just used gets Δ' <- Δ", Δ" <- D_i - D_{i-1}; the history shifts
//      (Δ0 <- Δ1, Δ1 <- Δ2, Δ2 <- top 14 bits of the new difference); D_{i-1} <- D_i.
// The predictor state persists across the messages of one channel [§2.2: "the predictor
// at the receiving end is kept consistent with the sender's predictor"; §4.3: one
// compression and one decompression predictor per channel]. A fresh state is all zeros.
//
// Choices the paper leaves open, fixed here:
//   - Bit order: fields are packed most significant bit first into bytes (LZC field, then
//     EBits from the most significant down), the stream zero-padded to a whole byte.
//   - Arithmetic: differences and predictions are IEEE double operations, as §2.3 describes
//     them (the hash reads sign/exponent/mantissa bits of the difference). To make the two
//     ends agree bit for bit on any host, a NaN result is replaced by one canonical quiet NaN,
//     and the SSE control register is set to round-to-nearest without flush-to-zero for
//     the duration of a call (an application built with -ffast-math turns on FTZ/DAZ).
//   - The 1 KiB threshold and MTU chunking [§2.4] are channel policy, not codec matters.
// Note: with a 4-bit LZC a value costs at least 8 bits, so the ratio is at most 8.
#include <cstring>
#include <memory>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "compress/bit_io.h"
#include "compress/codec_list.h"

namespace ccmpi::compress {
namespace {

constexpr unsigned kTableBits = 15;
constexpr uint32_t kTableMask = (1u << kTableBits) - 1;
constexpr uint64_t kCanonicalNan = 0x7FF8000000000000ull;

struct Line {
  uint64_t newest;  // Δ"
  uint64_t older;   // Δ'
};

class CmpiState final : public CodecState {
 public:
  explicit CmpiState(const Codec* c) : CodecState(c), table_(new Line[size_t{1} << kTableBits]) {
    resetModel();
  }
  void resetModel() override {
    std::memset(table_.get(), 0, sizeof(Line) << kTableBits);
    last_ = 0;
    d0_ = d1_ = d2_ = 0;
  }
  std::unique_ptr<Line[]> table_;
  uint64_t last_;          // bits of D_{i-1}
  uint32_t d0_, d1_, d2_;  // top 14 bits of the last three differences, d2_ newest
};

inline double asDouble(uint64_t b) {
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}
inline uint64_t asBits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
inline uint64_t canon(double d) {
  const uint64_t b = asBits(d);
  return (b & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull ? kCanonicalNan : b;
}

// Sets IEEE default floating-point behaviour for the scope (x86: MXCSR).
class FpEnvGuard {
 public:
#if defined(__SSE2__)
  FpEnvGuard() : saved_(_mm_getcsr()) {
    if ((saved_ & kControlBits) != kDefault) _mm_setcsr((saved_ & ~kControlBits) | kDefault);
  }
  ~FpEnvGuard() {
    if ((saved_ & kControlBits) != kDefault) _mm_setcsr(saved_);
  }

 private:
  // FTZ (bit 15), rounding control (bits 13-14), DAZ (bit 6); default: all clear.
  static constexpr unsigned kControlBits = 0xE040;
  static constexpr unsigned kDefault = 0;
  unsigned saved_;
#endif
};

// The DFCM predictor of §2.3, split into predict() and update() so that encoder, decoder
// and trainer share one definition.
struct Predictor {
  Line* table;
  uint64_t last;
  uint32_t d0, d1, d2, hash;

  explicit Predictor(CmpiState& s)
      : table(s.table_.get()), last(s.last_), d0(s.d0_), d1(s.d1_), d2(s.d2_) {
    hash = (d2 ^ (d1 << 5) ^ (d0 << 10)) & kTableMask;
  }
  void save(CmpiState& s) const {
    s.last_ = last;
    s.d0_ = d0;
    s.d1_ = d1;
    s.d2_ = d2;
  }
  uint64_t predict() const {
    const Line& l = table[hash];
    const double dn = asDouble(l.newest);
    double dp = dn;
    if ((l.newest >> 50) == (l.older >> 50)) dp = dn + (dn - asDouble(l.older));
    return canon(asDouble(last) + dp);
  }
  void update(uint64_t value) {
    const uint64_t delta = canon(asDouble(value) - asDouble(last));
    Line& l = table[hash];
    l.older = l.newest;
    l.newest = delta;
    d0 = d1;
    d1 = d2;
    d2 = static_cast<uint32_t>(delta >> 50);
    hash = (d2 ^ (d1 << 5) ^ (d0 << 10)) & kTableMask;
    last = value;
  }
};

inline uint64_t word(const uint8_t* p, size_t i) {
  return load64le(p + 8 * i);
}

class CmpiCodec final : public Codec {
 public:
  uint8_t id() const override { return kIdCmpi; }
  const char* name() const override { return "cmpi"; }
  const char* description() const override {
    return "cMPI (SC'04): 3rd-order DFCM predictor, xor, 4-bit leading-zero count";
  }
  std::unique_ptr<CodecState> newState() const override {
    return std::make_unique<CmpiState>(this);
  }

 protected:
  size_t encode(CodecState& st, const uint8_t* in, size_t n, DataType, uint8_t* out,
                size_t cap) const override {
    FpEnvGuard fp;
    auto& s = static_cast<CmpiState&>(st);
    Predictor pr(s);
    MsbWriter w(out, cap);
    constexpr size_t kChunk = 256;
    size_t i = 0;
    while (i < n && !w.overflow()) {
      const size_t m = n - i < kChunk ? n - i : kChunk;
      for (size_t e = i + m; i < e; ++i) {
        const uint64_t v = word(in, i);
        const uint64_t diff = v ^ pr.predict();
        unsigned lzc = diff ? static_cast<unsigned>(__builtin_clzll(diff)) / 4 : 15;
        if (lzc > 15) lzc = 15;
        const unsigned eb = 64 - 4 * lzc;
        if (lzc == 0) {
          w.put(0, 4);
          w.put(diff, 64);
        } else {
          w.put((uint64_t{lzc} << eb) | diff, eb + 4);
        }
        pr.update(v);
      }
    }
    for (; i < n; ++i) pr.update(word(in, i));  // only after an overflow: train the rest
    pr.save(s);
    const size_t len = w.finish();
    return w.overflow() ? 0 : len;
  }

  int decode(CodecState& st, const uint8_t* in, size_t len, DataType, uint8_t* out,
             size_t n) const override {
    FpEnvGuard fp;
    auto& s = static_cast<CmpiState&>(st);
    Predictor pr(s);
    MsbReader r(in, len);
    // Every value takes at least 8 bits.
    if (n > len) return corrupt(st, "cmpi: payload too short for the value count");
    for (size_t i = 0; i < n; ++i) {
      const uint64_t bits = r.peek64();
      const unsigned lzc = static_cast<unsigned>(bits >> 60);
      const unsigned eb = 64 - 4 * lzc;
      uint64_t diff;
      if (lzc == 0) {
        r.skip(4);
        diff = r.peek64();
        r.skip(64);
      } else {
        diff = (bits << 4) >> (64 - eb);
        r.skip(4 + eb);
      }
      const uint64_t v = diff ^ pr.predict();
      store64le(out + 8 * i, v);
      pr.update(v);
    }
    pr.save(s);
    if (!r.atPaddedEnd()) return corrupt(st, "cmpi: payload length does not match its bits");
    return kOk;
  }

  void train(CodecState& st, const uint8_t* in, size_t n, DataType) const override {
    FpEnvGuard fp;
    auto& s = static_cast<CmpiState&>(st);
    Predictor pr(s);
    for (size_t i = 0; i < n; ++i) pr.update(word(in, i));
    pr.save(s);
  }
};

}  // namespace

const Codec& cmpiCodec() {
  static const CmpiCodec codec;
  return codec;
}

}  // namespace ccmpi::compress
