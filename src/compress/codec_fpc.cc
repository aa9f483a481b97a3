// fpc: an anchor codec after Burtscher & Ratanaworabhan's FPC ("High Throughput
// Compression of Double-Precision Floating-Point Data", DCC 2007; "FPC: A High-Speed
// Compressor for Double-Precision Floating-Point Data", IEEE TC 58(1), 2009), written
// from the published description.
//
// Two predictors work on the 64-bit patterns with integer arithmetic:
//   FCM:  fcm[fh] is the value that followed the last occurrence of the context hash fh;
//         after coding v: fcm[fh] = v, fh = ((fh << 6) ^ (v >> 48)) & mask.
//   DFCM: dfcm[dh] is the difference that followed context dh; the prediction is
//         last + dfcm[dh]; after coding v: dfcm[dh] = v - last,
//         dh = ((dh << 2) ^ ((v - last) >> 40)) & mask, last = v.
// Each value is xored with both predictions; the smaller residual (more leading zero
// bytes) is kept with a selector bit. Its leading-zero-byte count (0..8) is coded in
// 3 bits: 4 is not representable and is coded as 3 (one zero byte stored), counts 5..8
// map to 4..7. Selector + count form a 4-bit code; two codes share a byte. The message
// payload is all code bytes (ceil(n/2), first value in the low nibble) followed by the
// residuals' non-zero low-order bytes, little-endian.
// Tables: 2^15 entries each (2 x 256 KiB, the memory of one cMPI predictor). State
// persists across messages on a channel like cmpi's; a fresh state is all zeros.
#include <cstring>
#include <memory>

#include "compress/bit_io.h"
#include "compress/codec_list.h"

namespace ccmpi::compress {
namespace {

constexpr unsigned kTableBits = 15;
constexpr uint64_t kMask = (uint64_t{1} << kTableBits) - 1;

class FpcState final : public CodecState {
 public:
  explicit FpcState(const Codec* c)
      : CodecState(c),
        fcm_(new uint64_t[size_t{1} << kTableBits]),
        dfcm_(new uint64_t[size_t{1} << kTableBits]) {
    resetModel();
  }
  void resetModel() override {
    std::memset(fcm_.get(), 0, sizeof(uint64_t) << kTableBits);
    std::memset(dfcm_.get(), 0, sizeof(uint64_t) << kTableBits);
    fh_ = dh_ = last_ = 0;
  }
  std::unique_ptr<uint64_t[]> fcm_, dfcm_;
  uint64_t fh_, dh_, last_;
};

struct Predictors {
  uint64_t* fcm;
  uint64_t* dfcm;
  uint64_t fh, dh, last;
  explicit Predictors(FpcState& s)
      : fcm(s.fcm_.get()), dfcm(s.dfcm_.get()), fh(s.fh_), dh(s.dh_), last(s.last_) {}
  void save(FpcState& s) const {
    s.fh_ = fh;
    s.dh_ = dh;
    s.last_ = last;
  }
  uint64_t fcmPred() const { return fcm[fh]; }
  uint64_t dfcmPred() const { return dfcm[dh] + last; }
  void update(uint64_t v) {
    fcm[fh] = v;
    fh = ((fh << 6) ^ (v >> 48)) & kMask;
    const uint64_t d = v - last;
    dfcm[dh] = d;
    dh = ((dh << 2) ^ (d >> 40)) & kMask;
    last = v;
  }
};

// Leading-zero-byte count -> 3-bit code, and code -> bytes of residual stored.
inline unsigned lzbCode(uint64_t r) {
  const unsigned lzb = r ? static_cast<unsigned>(__builtin_clzll(r)) >> 3 : 8;
  return lzb > 4 ? lzb - 1 : (lzb == 4 ? 3 : lzb);
}
constexpr unsigned kStoredBytes[8] = {8, 7, 6, 5, 3, 2, 1, 0};

class FpcCodec final : public Codec {
 public:
  uint8_t id() const override { return kIdFpc; }
  const char* name() const override { return "fpc"; }
  const char* description() const override {
    return "FPC (Burtscher & Ratanaworabhan): FCM + DFCM, selector, 3-bit zero-byte count";
  }
  std::unique_ptr<CodecState> newState() const override { return std::make_unique<FpcState>(this); }

 protected:
  size_t encode(CodecState& st, const uint8_t* in, size_t n, DataType, uint8_t* out,
                size_t cap) const override {
    auto& s = static_cast<FpcState&>(st);
    Predictors pr(s);
    const size_t codeBytes = (n + 1) / 2;
    size_t i = 0;
    if (codeBytes < cap) {
      uint8_t* codes = out;
      uint8_t* rp = out + codeBytes;
      uint8_t* const end = out + cap;
      while (i < n) {
        // At most 8 residual bytes per value (+8 for the unaligned store): check per chunk.
        const size_t m = n - i < 64 ? n - i : 64;
        if (static_cast<size_t>(end - rp) < m * 8 + 8) break;
        for (const size_t e = i + m; i < e; ++i) {
          const uint64_t v = load64le(in + 8 * i);
          const uint64_t r1 = v ^ pr.fcmPred();
          const uint64_t r2 = v ^ pr.dfcmPred();
          const unsigned sel = r2 < r1;
          const uint64_t r = sel ? r2 : r1;
          const unsigned code = lzbCode(r);
          const uint8_t nib = static_cast<uint8_t>((sel << 3) | code);
          if (i & 1) {
            codes[i >> 1] = static_cast<uint8_t>(codes[i >> 1] | (nib << 4));
          } else {
            codes[i >> 1] = nib;
          }
          store64le(rp, r);
          rp += kStoredBytes[code];
          pr.update(v);
        }
      }
      if (i == n) {
        pr.save(s);
        return static_cast<size_t>(rp - out);
      }
    }
    for (; i < n; ++i) pr.update(load64le(in + 8 * i));
    pr.save(s);
    return 0;
  }

  int decode(CodecState& st, const uint8_t* in, size_t len, DataType, uint8_t* out,
             size_t n) const override {
    auto& s = static_cast<FpcState&>(st);
    Predictors pr(s);
    const size_t codeBytes = (n + 1) / 2;
    if (codeBytes > len) return corrupt(st, "fpc: payload shorter than its code bytes");
    if ((n & 1) && (in[codeBytes - 1] >> 4) != 0) {
      return corrupt(st, "fpc: non-zero padding nibble");
    }
    const uint8_t* rp = in + codeBytes;
    const uint8_t* const end = in + len;
    for (size_t i = 0; i < n; ++i) {
      const unsigned nib = (in[i >> 1] >> ((i & 1) * 4)) & 0xf;
      const unsigned nb = kStoredBytes[nib & 7];
      if (static_cast<size_t>(end - rp) < nb) return corrupt(st, "fpc: truncated residuals");
      uint64_t r;
      if (end - rp >= 8) {
        r = load64le(rp);
      } else {
        r = 0;
        for (unsigned k = 0; k < nb; ++k) r |= uint64_t{rp[k]} << (8 * k);
      }
      r = nb == 8 ? r : r & ((uint64_t{1} << (8 * nb)) - 1);
      rp += nb;
      const uint64_t v = r ^ ((nib & 8) ? pr.dfcmPred() : pr.fcmPred());
      store64le(out + 8 * i, v);
      pr.update(v);
    }
    pr.save(s);
    if (rp != end) return corrupt(st, "fpc: payload longer than its residuals");
    return kOk;
  }

  void train(CodecState& st, const uint8_t* in, size_t n, DataType) const override {
    auto& s = static_cast<FpcState&>(st);
    Predictors pr(s);
    for (size_t i = 0; i < n; ++i) pr.update(load64le(in + 8 * i));
    pr.save(s);
  }
};

}  // namespace

const Codec& fpcCodec() {
  static const FpcCodec codec;
  return codec;
}

}  // namespace ccmpi::compress
