// adapt: per chunk of 64 KiB, the best of several coders, chosen from a sample. Our own
// codec (issue 27: hold up on data the predictors were not tuned on).
//
// Coders (method byte of a chunk):
//   0 raw          the words verbatim
//   1 spx-fast     spx-fast's payload for the chunk (fresh predictor per chunk)
//   2 spx          spx's payload for the chunk (fresh predictor per chunk)
//   3 decimal      doubles that are short decimals, v == k / 10^e exactly (k an integer,
//                  one exponent e per chunk; the ALP idea): the integers k frame-of-reference
//                  or delta coded and bit-packed, the other values (exceptions, e.g. -0.0,
//                  NaN, inf, long fractions) stored verbatim with their positions
//   4 shuffle-zstd byte shuffle of the words, then libzstd level 1
//   5 zstd         libzstd level 1 on the bytes
//   6 lz4          liblz4 on the bytes
// Choice: a chunk of up to kSmall words is coded by every coder and the smallest result
// kept; a larger chunk is decided on a sample (kSample words from its middle): every
// coder codes the sample, the LZ coders' sizes are scaled by kLzBias (on the whole chunk
// they find more repeats than in the sample), and the chunk is coded by the coder with
// the smallest estimate (stored raw if that does not shrink it).
//
// Payload: the chunks in order, each
//   method byte, then for raw the words, else the coded length (u32 LE) and the bytes.
// The chunk of words c covers words [c * W, min(n, (c + 1) * W)), W = 64 KiB / word size.
// No state across chunks or messages (each chunk starts a fresh predictor), so the codec
// state holds only scratch memory and library contexts.
//
// Decimal chunk layout (doubles only):
//   e (byte, 0..kMaxExp), mode (byte: 0 frame of reference, 1 delta), bits b (byte, 0..56),
//   base (i64 LE), exception count x (u32 LE), x positions (u16 LE, increasing),
//   x values (u64 LE), then ceil(n * b / 8) bytes: n fields of b bits, little-endian bit
//   order. FOR: k_i = base + f_i. Delta: base = k_0, k_i = k_{i-1} +
//   unzigzag(f_i). An exception's k is the previous k (0 before the first), so it costs no
//   extra bits; its value is overwritten by the stored one.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#include "compress/codec_list.h"
#include "compress/lz_backend.h"

namespace ccmpi::compress {
namespace {

enum Method : uint8_t {
  kRawM = 0,
  kSpxFastM = 1,
  kSpxM = 2,
  kDecimalM = 3,
  kShuffleZstdM = 4,
  kZstdM = 5,
  kLz4M = 6,
  kMethods = 7
};

constexpr size_t kChunkBytes = 64 * 1024;
constexpr size_t kSmall = 1024;    // words: chunks up to this size try every coder
constexpr size_t kSample = 512;    // words sampled from a larger chunk
constexpr double kLzBias = 0.90;   // LZ sizes on the sample, scaled (they gain on a chunk)
constexpr double kSpxBias = 1.03;  // spx must beat spx-fast by this factor (it is slower)
constexpr int kMaxExp = 18;
constexpr unsigned kMaxBits = 56;
constexpr size_t kDecHead = 3 + 8 + 4;

double pow10(int e) {
  static const double t[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
                             1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
  return t[e];
}

inline uint64_t load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline void store64(uint8_t* p, uint64_t v) {
  std::memcpy(p, &v, 8);
}
inline double asDouble(uint64_t u) {
  double d;
  std::memcpy(&d, &u, 8);
  return d;
}
inline uint64_t asBits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

// k with k / 10^e == v bit for bit, if there is one (|k| < 2^51).
inline bool toDecimal(uint64_t bits, double p, int64_t* k) {
  const double v = asDouble(bits);
  const double s = v * p;
  if (!(std::fabs(s) < 2251799813685248.0)) return false;  // 2^51; also NaN, inf
  // Round to nearest integer (the magic-number trick; exact below 2^51).
  const double r = (s + 6755399441055744.0) - 6755399441055744.0;
  const auto ki = static_cast<int64_t>(r);
  if (asBits(static_cast<double>(ki) / p) != bits) return false;
  *k = ki;
  return true;
}

// The exponent that makes the most of the words exact decimals (on up to 32 of them),
// -1 if under three quarters are.
int findExponent(const uint8_t* in, size_t n) {
  const size_t m = std::min<size_t>(n, 32);
  if (m == 0) return -1;
  const size_t step = n / m;
  int best = -1;
  size_t bestHits = 0;
  for (int e = 0; e <= kMaxExp; ++e) {
    const double p = pow10(e);
    size_t hits = 0;
    for (size_t i = 0; i < m; ++i) {
      int64_t k;
      hits += toDecimal(load64(in + i * step * 8), p, &k);
    }
    if (hits > bestHits) bestHits = hits, best = e;
    if (hits == m) break;
  }
  return bestHits * 4 >= m * 3 ? best : -1;
}

inline uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t unzigzag(uint64_t z) {
  return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
}
inline unsigned bitsOf(uint64_t v) {
  return v ? 64u - static_cast<unsigned>(__builtin_clzll(v)) : 0;
}

// Decimal coder for n doubles (n <= 65536 / 8); scratch holds n int64.
size_t decimalEncode(const uint8_t* in, size_t n, int e, uint8_t* out, size_t cap, int64_t* k) {
  const double p = pow10(e);
  size_t x = 0;
  int64_t prev = 0;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  uint64_t dmax = 0;
  // First pass: integers and exceptions (their positions kept in a second scratch half).
  auto* xpos = reinterpret_cast<uint16_t*>(k + n);
  for (size_t i = 0; i < n; ++i) {
    int64_t v;
    if (!toDecimal(load64(in + i * 8), p, &v)) {
      v = prev;
      xpos[x++] = static_cast<uint16_t>(i);
    }
    k[i] = v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    if (i > 0)
      dmax |= zigzag(static_cast<int64_t>(static_cast<uint64_t>(v) - static_cast<uint64_t>(prev)));
    prev = v;
  }
  // Differences of integers below 2^51 stay below 2^52: no overflow in uint64.
  const unsigned bFor = bitsOf(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo));
  const unsigned bDelta = bitsOf(dmax | zigzag(0));
  const bool delta = bDelta < bFor;
  const unsigned b = delta ? bDelta : bFor;
  if (b > kMaxBits) return 0;
  const size_t packed = (n * b + 7) / 8;
  const size_t total = kDecHead + x * 10 + packed;
  if (total > cap) return 0;
  uint8_t* o = out;
  *o++ = static_cast<uint8_t>(e);
  *o++ = delta ? 1 : 0;
  *o++ = static_cast<uint8_t>(b);
  const int64_t base = delta ? k[0] : lo;
  store64(o, static_cast<uint64_t>(base));
  o += 8;
  const auto x32 = static_cast<uint32_t>(x);
  std::memcpy(o, &x32, 4);
  o += 4;
  for (size_t j = 0; j < x; ++j) {
    std::memcpy(o, &xpos[j], 2);
    o += 2;
  }
  for (size_t j = 0; j < x; ++j) {
    std::memcpy(o, in + size_t{xpos[j]} * 8, 8);
    o += 8;
  }
  // Bit packing: a 64-bit accumulator, flushed a byte at a time.
  uint64_t acc = 0;
  unsigned fill = 0;
  int64_t last = base;
  for (size_t i = 0; i < n; ++i) {
    uint64_t f;
    if (delta) {
      f = zigzag(static_cast<int64_t>(static_cast<uint64_t>(k[i]) - static_cast<uint64_t>(last)));
      last = k[i];
    } else {
      f = static_cast<uint64_t>(k[i]) - static_cast<uint64_t>(base);
    }
    acc |= f << fill;
    fill += b;
    while (fill >= 8) {
      *o++ = static_cast<uint8_t>(acc);
      acc >>= 8;
      fill -= 8;
    }
  }
  if (fill > 0) *o++ = static_cast<uint8_t>(acc);
  return static_cast<size_t>(o - out);
}

bool decimalDecode(const uint8_t* in, size_t len, uint8_t* out, size_t n, const char** err) {
  if (len < kDecHead) return *err = "adapt: truncated decimal chunk", false;
  const int e = in[0];
  const unsigned mode = in[1], b = in[2];
  if (e > kMaxExp || mode > 1 || b > kMaxBits) return *err = "adapt: bad decimal chunk head", false;
  const auto base = static_cast<int64_t>(load64(in + 3));
  uint32_t x;
  std::memcpy(&x, in + 11, 4);
  const size_t packed = (n * b + 7) / 8;
  if (x > n || len != kDecHead + size_t{x} * 10 + packed) {
    return *err = "adapt: decimal chunk length mismatch", false;
  }
  const uint8_t* pos = in + kDecHead;
  const uint8_t* vals = pos + size_t{x} * 2;
  const uint8_t* bits = vals + size_t{x} * 8;
  const double p = pow10(e);
  const uint64_t mask = b == 0 ? 0 : (~uint64_t{0} >> (64 - b));
  // Fields whose 8-byte load stays inside the packed bytes are read directly; the last
  // few through a padded copy.
  uint8_t tailBuf[16] = {};
  const size_t safe = packed >= 8 ? ((packed - 8) * 8) / (b ? b : 1) : 0;
  int64_t k = base;
  for (size_t i = 0; i < n; ++i) {
    const size_t bit = i * b;
    uint64_t w;
    if (i < safe || b == 0) {
      w = b == 0 ? 0 : load64(bits + (bit >> 3));
    } else {
      const size_t at = bit >> 3;
      const size_t have = std::min<size_t>(8, packed - at);
      std::memset(tailBuf, 0, sizeof(tailBuf));
      std::memcpy(tailBuf, bits + at, have);
      w = load64(tailBuf);
    }
    const uint64_t f = (w >> (bit & 7)) & mask;
    if (mode == 1) {
      k = static_cast<int64_t>(static_cast<uint64_t>(k) + static_cast<uint64_t>(unzigzag(f)));
    } else {
      k = static_cast<int64_t>(static_cast<uint64_t>(base) + f);
    }
    store64(out + i * 8, asBits(static_cast<double>(k) / p));
  }
  size_t prevPos = 0;
  for (size_t j = 0; j < x; ++j) {
    uint16_t q;
    std::memcpy(&q, pos + j * 2, 2);
    if (q >= n || (j > 0 && q <= prevPos)) return *err = "adapt: bad exception position", false;
    prevPos = q;
    std::memcpy(out + size_t{q} * 8, vals + j * 8, 8);
  }
  return true;
}

class AdaptState final : public CodecState {
 public:
  explicit AdaptState(const Codec* c)
      : CodecState(c), spxFast(spxFastCodec().newState()), spx(spxCodec().newState()) {}
  void resetModel() override {}
  std::unique_ptr<CodecState> spxFast, spx;
  LzBackend lz;
  std::vector<int64_t> ints = std::vector<int64_t>(kChunkBytes / 8 * 2);
  std::vector<uint8_t> trial = std::vector<uint8_t>(kChunkBytes + 64);
};

class AdaptCodec final : public Codec {
 public:
  uint8_t id() const override { return kIdAdapt; }
  const char* name() const override { return "adapt"; }
  const char* description() const override {
    return "per 64 KiB chunk the best of spx-fast, spx, decimal, shuffle-zstd, zstd, lz4, raw "
           "(chosen on a sample)";
  }
  std::unique_ptr<CodecState> newState() const override {
    return std::make_unique<AdaptState>(this);
  }

 protected:
  bool supportsFloat32() const override { return true; }

  // One coder on words [0, n) into out[0, cap); 0 when it does not apply or fit.
  size_t codeWith(AdaptState& s, unsigned m, const uint8_t* in, size_t n, DataType type,
                  uint8_t* out, size_t cap, int exp) const {
    const unsigned w = type == DataType::kFloat32 ? 4 : 8;
    switch (m) {
      case kSpxFastM:
        s.spxFast->reset();
        return encodeWith(spxFastCodec(), *s.spxFast, in, n, type, out, cap);
      case kSpxM:
        s.spx->reset();
        return encodeWith(spxCodec(), *s.spx, in, n, type, out, cap);
      case kDecimalM:
        if (w != 8 || exp < 0) return 0;
        return decimalEncode(in, n, exp, out, cap, s.ints.data());
      case kShuffleZstdM: {
        if (!haveZstd()) return 0;
        uint8_t* tmp = s.lz.scratch(n * w);
        LzBackend::shuffle(in, n, w, tmp);
        return s.lz.zstd(tmp, n * w, out, cap);
      }
      case kZstdM:
        return s.lz.zstd(in, n * w, out, cap);
      case kLz4M:
        return s.lz.lz4(in, n * w, out, cap);
      default:
        return 0;
    }
  }

  unsigned choose(AdaptState& s, const uint8_t* in, size_t n, DataType type, int exp, uint8_t* out,
                  size_t cap, size_t* coded) const {
    const unsigned w = type == DataType::kFloat32 ? 4 : 8;
    *coded = 0;
    if (n <= kSmall) {
      // Every coder on the whole chunk; the best result is left in out.
      unsigned best = kRawM;
      size_t bestSize = n * w;
      for (unsigned m = kSpxFastM; m < kMethods; ++m) {
        const size_t limit = std::min(cap, bestSize - 1);
        const size_t got = codeWith(s, m, in, n, type, s.trial.data(), limit, exp);
        if (got > 0 && got < bestSize) {
          best = m;
          bestSize = got;
          std::memcpy(out, s.trial.data(), got);
        }
      }
      *coded = best == kRawM ? 0 : bestSize;
      return best;
    }
    const size_t at = (n / 2 - kSample / 2);
    const uint8_t* sample = in + at * w;
    const size_t sampleBytes = kSample * w;
    unsigned best = kRawM;
    double bestEst = static_cast<double>(sampleBytes) * 0.98;
    for (unsigned m = kSpxFastM; m < kMethods; ++m) {
      const size_t got =
          codeWith(s, m, sample, kSample, type, s.trial.data(), sampleBytes - 1, exp);
      if (got == 0) continue;
      double est = static_cast<double>(got);
      if (m >= kShuffleZstdM) est *= kLzBias;
      if (m == kSpxM) est *= kSpxBias;
      if (est < bestEst) bestEst = est, best = m;
    }
    return best;
  }

  size_t encode(CodecState& st, const uint8_t* in, size_t n, DataType type, uint8_t* out,
                size_t cap) const override {
    auto& s = static_cast<AdaptState&>(st);
    const unsigned w = type == DataType::kFloat32 ? 4 : 8;
    const size_t chunkWords = kChunkBytes / w;
    size_t o = 0;
    for (size_t c0 = 0; c0 < n; c0 += chunkWords) {
      const size_t cn = std::min(chunkWords, n - c0);
      const uint8_t* cin = in + c0 * w;
      const size_t rawBytes = cn * w;
      if (cap - o < 1 + 4) return 0;
      const size_t room = std::min(cap - o - 5, rawBytes - 1);
      const int exp = w == 8 ? findExponent(cin, cn) : -1;
      size_t coded = 0;
      unsigned m = choose(s, cin, cn, type, exp, out + o + 5, room, &coded);
      if (m != kRawM && coded == 0) coded = codeWith(s, m, cin, cn, type, out + o + 5, room, exp);
      if (m == kRawM || coded == 0 || coded >= rawBytes) {
        if (cap - o < 1 + rawBytes) return 0;
        out[o] = kRawM;
        std::memcpy(out + o + 1, cin, rawBytes);
        o += 1 + rawBytes;
        continue;
      }
      out[o] = static_cast<uint8_t>(m);
      const auto len32 = static_cast<uint32_t>(coded);
      std::memcpy(out + o + 1, &len32, 4);
      o += 5 + coded;
    }
    return o;
  }

  int decode(CodecState& st, const uint8_t* in, size_t len, DataType type, uint8_t* out,
             size_t n) const override {
    auto& s = static_cast<AdaptState&>(st);
    const unsigned w = type == DataType::kFloat32 ? 4 : 8;
    const size_t chunkWords = kChunkBytes / w;
    size_t i = 0;
    for (size_t c0 = 0; c0 < n; c0 += chunkWords) {
      const size_t cn = std::min(chunkWords, n - c0);
      uint8_t* cout = out + c0 * w;
      const size_t rawBytes = cn * w;
      if (i >= len) return corrupt(st, "adapt: truncated payload");
      const unsigned m = in[i++];
      if (m == kRawM) {
        if (len - i < rawBytes) return corrupt(st, "adapt: truncated raw chunk");
        std::memcpy(cout, in + i, rawBytes);
        i += rawBytes;
        continue;
      }
      if (m >= kMethods) return corrupt(st, "adapt: unknown chunk method");
      if (len - i < 4) return corrupt(st, "adapt: truncated chunk length");
      uint32_t cl;
      std::memcpy(&cl, in + i, 4);
      i += 4;
      if (cl == 0 || cl > len - i || cl >= rawBytes) return corrupt(st, "adapt: bad chunk length");
      const uint8_t* cin = in + i;
      i += cl;
      const char* err = "";
      bool ok = true;
      switch (m) {
        case kSpxFastM:
          s.spxFast->reset();
          ok = decodeWith(spxFastCodec(), *s.spxFast, cin, cl, type, cout, cn) == kOk;
          if (!ok) err = s.spxFast->lastError();
          break;
        case kSpxM:
          s.spx->reset();
          ok = decodeWith(spxCodec(), *s.spx, cin, cl, type, cout, cn) == kOk;
          if (!ok) err = s.spx->lastError();
          break;
        case kDecimalM:
          ok = w == 8 && decimalDecode(cin, cl, cout, cn, &err);
          if (w != 8) err = "adapt: decimal chunk of 4-byte words";
          break;
        case kShuffleZstdM: {
          uint8_t* tmp = s.lz.scratch(rawBytes);
          ok = s.lz.unzstd(cin, cl, tmp, rawBytes);
          if (ok) LzBackend::unshuffle(tmp, cn, w, cout);
          err = "adapt: corrupt zstd chunk";
          break;
        }
        case kZstdM:
          ok = s.lz.unzstd(cin, cl, cout, rawBytes);
          err = "adapt: corrupt zstd chunk";
          break;
        case kLz4M:
          ok = s.lz.unlz4(cin, cl, cout, rawBytes);
          err = "adapt: corrupt lz4 chunk";
          break;
        default:
          break;
      }
      if (!ok) return corrupt(st, err);
    }
    if (i != len) return corrupt(st, "adapt: payload longer than its chunks");
    return kOk;
  }

  void train(CodecState&, const uint8_t*, size_t, DataType) const override {}
};

}  // namespace

const Codec& adaptCodec() {
  static const AdaptCodec codec;
  return codec;
}

}  // namespace ccmpi::compress
