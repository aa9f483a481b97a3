// adapt: per chunk of 256 KiB, the best of several coders, chosen from a sample. Our own
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
// adapt-fast uses only the coders that run at GB/s: spx-fast, decimal, lz4 (and raw).
//
// A chunk whose estimated ratio is below the state's minRatio() (the channel's auto mode
// sets it from the link speed) is stored raw.
//
// Choice: a chunk of up to kSmall words is coded by every coder and the smallest result
// kept; a larger chunk is decided on a sample (two windows of kSample words, kSampleFast for
// adapt-fast): every coder codes the sample, the sizes of all but the decimal coder are scaled by
// kLearnBias (on the whole chunk they do better than on the sample), and the chunk is coded by the
// coder with the smallest estimate (stored raw if that does not shrink it).
//
// A message of several chunks whose samples all pick the same LZ coder is coded as one LZ
// frame instead (a longer window finds more repeats).
//
// Payload: either 0x80 | method (4..6) and one LZ frame of all the words, or the chunks
// in order, each method byte (< 0x80), then for raw the words, else the coded length
// (u32 LE) and the bytes.
// The chunk of words c covers words [c * W, min(n, (c + 1) * W)), W = 256 KiB / word size.
// No state across chunks or messages (each chunk starts a fresh predictor), so the codec
// state holds only scratch memory and library contexts.
//
// Decimal chunk layout (doubles only):
//   e (byte, 0..kMaxExp), mode (byte: 0 frame of reference, s = 1..4 delta at stride s, for
//   interleaved columns), bits b (byte, 0..56), base (i64 LE, 0 for delta), exception count
//   x (u32 LE), for delta the first s integers (i64 LE), x positions (u32 LE, increasing),
//   x values (u64 LE), then ceil(n * b / 8) bytes: n fields of b bits, little-endian bit
//   order. FOR: k_i = base + f_i. Delta: k_i = k_{i-s} + unzigzag(f_i)
//   for i >= s (f_i = 0 for i < s). An exception's k is the previous k (0 before the
//   first), so it costs no extra bits; its value is overwritten by the stored one.
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
  kMethods = 7,
  kWholeMessage = 0x80,  // first payload byte: the whole message is one LZ frame
};

constexpr size_t kChunkBytes = 256 * 1024;
constexpr size_t kSmall = 1024;      // words: chunks up to this size try every coder
constexpr size_t kSample = 512;      // words per sample window of a larger chunk
constexpr size_t kSampleFast = 128;  // the same for adapt-fast
// Sizes on the sample of the coders that learn as they go (predictors, LZ), scaled: on
// the whole chunk they do better than on two short windows; the decimal coder does not.
constexpr double kLearnBias = 0.93;
constexpr double kNear = 1.06;  // a runner-up this close to the best counts for whole-LZ
constexpr int kMaxExp = 18;
constexpr unsigned kMaxBits = 56;
constexpr size_t kDecHead = 3 + 8 + 4;
constexpr unsigned kMaxStride = 4;

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
  if (asBits(r / p) != bits) return false;  // r is an integer: (double)k == r
  *k = static_cast<int64_t>(r);
  return true;
}

// The exponent with the smallest estimated decimal size on up to 32 of the words
// (exceptions 80 bits, the others the bits of their integers' range), -1 if under three
// quarters of them are exact decimals at every exponent.
int findExponent(const uint8_t* in, size_t n) {
  const size_t m = std::min<size_t>(n, 32);
  if (m == 0) return -1;
  const size_t step = n / m;
  int best = -1;
  double bestCost = 0;
  for (int e = 0; e <= kMaxExp; ++e) {
    const double p = pow10(e);
    size_t hits = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < m; ++i) {
      int64_t k;
      if (toDecimal(load64(in + i * step * 8), p, &k)) {
        ++hits;
        lo = std::min(lo, k);
        hi = std::max(hi, k);
      }
    }
    if (hits * 4 < m * 3) continue;
    const unsigned bits = 64u - static_cast<unsigned>(__builtin_clzll(
                                    (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo)) | 1));
    const double cost = static_cast<double>(hits) * bits + static_cast<double>(m - hits) * 80;
    if (best < 0 || cost < bestCost) bestCost = cost, best = e;
    if (hits == m) break;  // larger exponents only widen the integers
  }
  return best;
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

// Decimal coder for n doubles (n <= kChunkBytes / 8); k is scratch for 2n int64.
size_t decimalEncode(const uint8_t* in, size_t n, int e, uint8_t* out, size_t cap, int64_t* k) {
  const double p = pow10(e);
  size_t x = 0;
  int64_t prev = 0;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  // First pass: integers and exceptions (positions kept in the second half of k).
  auto* xpos = reinterpret_cast<uint32_t*>(k + n);
  for (size_t i = 0; i < n; ++i) {
    int64_t v;
    if (!toDecimal(load64(in + i * 8), p, &v)) {
      v = prev;
      xpos[x++] = static_cast<uint32_t>(i);
    }
    k[i] = v;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    prev = v;
  }
  // Integers below 2^51 in magnitude: their differences fit in uint64 without overflow.
  auto diff = [](int64_t a, int64_t b) {
    return zigzag(static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)));
  };
  uint64_t dmax[kMaxStride + 1] = {};
  for (size_t i = kMaxStride; i < n; ++i) {
    for (unsigned st = 1; st <= kMaxStride; ++st) dmax[st] |= diff(k[i], k[i - st]);
  }
  for (size_t i = 1; i < std::min<size_t>(kMaxStride, n); ++i) {
    for (unsigned st = 1; st <= i; ++st) dmax[st] |= diff(k[i], k[i - st]);
  }
  unsigned mode = 0;
  unsigned b = bitsOf(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo));
  for (unsigned st = 1; st <= kMaxStride; ++st) {
    if (bitsOf(dmax[st]) < b) b = bitsOf(dmax[st]), mode = st;
  }
  if (b > kMaxBits) return 0;
  const size_t packed = (n * b + 7) / 8;
  const size_t total = kDecHead + mode * 8 + x * 12 + packed;
  if (total > cap) return 0;
  uint8_t* o = out;
  *o++ = static_cast<uint8_t>(e);
  *o++ = static_cast<uint8_t>(mode);
  *o++ = static_cast<uint8_t>(b);
  const int64_t base = mode ? 0 : lo;
  store64(o, static_cast<uint64_t>(base));
  o += 8;
  const auto x32 = static_cast<uint32_t>(x);
  std::memcpy(o, &x32, 4);
  o += 4;
  for (unsigned j = 0; j < mode; ++j) {  // the first `mode` integers (0 past n)
    store64(o, static_cast<uint64_t>(j < n ? k[j] : 0));
    o += 8;
  }
  std::memcpy(o, xpos, x * 4);
  o += x * 4;
  for (size_t j = 0; j < x; ++j) {
    std::memcpy(o, in + size_t{xpos[j]} * 8, 8);
    o += 8;
  }
  // Bit packing: a 64-bit accumulator, stored whenever it is full (b <= 56 < 64).
  uint64_t acc = 0;
  unsigned fill = 0;
  auto put = [&](uint64_t f) {
    acc |= f << fill;
    fill += b;
    if (fill >= 64) {
      store64(o, acc);
      o += 8;
      fill -= 64;
      acc = fill ? f >> (b - fill) : 0;
    }
  };
  if (b > 0) {
    if (mode) {
      for (size_t i = 0; i < n; ++i) put(i >= mode ? diff(k[i], k[i - mode]) : 0);
    } else {
      for (size_t i = 0; i < n; ++i) put(static_cast<uint64_t>(k[i]) - static_cast<uint64_t>(base));
    }
  }
  for (; fill > 0; fill = fill > 8 ? fill - 8 : 0) {
    *o++ = static_cast<uint8_t>(acc);
    acc >>= 8;
  }
  return static_cast<size_t>(o - out);
}

// k is scratch for n int64.
bool decimalDecode(const uint8_t* in, size_t len, uint8_t* out, size_t n, int64_t* kOut,
                   const char** err) {
  if (len < kDecHead) return *err = "adapt: truncated decimal chunk", false;
  const int e = in[0];
  const unsigned mode = in[1], b = in[2];
  if (e > kMaxExp || mode > kMaxStride || b > kMaxBits) {
    return *err = "adapt: bad decimal chunk head", false;
  }
  const auto base = static_cast<int64_t>(load64(in + 3));
  uint32_t x;
  std::memcpy(&x, in + 11, 4);
  const size_t packed = (n * b + 7) / 8;
  if (x > n || len != kDecHead + size_t{mode} * 8 + size_t{x} * 12 + packed) {
    return *err = "adapt: decimal chunk length mismatch", false;
  }
  const uint8_t* firsts = in + kDecHead;
  const uint8_t* pos = firsts + size_t{mode} * 8;
  const uint8_t* vals = pos + size_t{x} * 4;
  const uint8_t* bits = vals + size_t{x} * 8;
  const double p = pow10(e);
  const uint64_t mask = b == 0 ? 0 : (~uint64_t{0} >> (64 - b));
  // Three passes: the fields (those whose 8-byte load stays inside the packed bytes read
  // directly, the last few through a padded copy), the integers, the doubles.
  auto* f = reinterpret_cast<uint64_t*>(kOut);
  if (b == 0) {
    std::memset(f, 0, n * 8);
  } else {
    const size_t safe = std::min(n, packed >= 8 ? ((packed - 8) * 8) / b : 0);
    for (size_t i = 0; i < safe; ++i) {
      const size_t bit = i * b;
      f[i] = (load64(bits + (bit >> 3)) >> (bit & 7)) & mask;
    }
    for (size_t i = safe; i < n; ++i) {
      const size_t bit = i * b, at = bit >> 3;
      uint8_t tailBuf[8] = {};
      std::memcpy(tailBuf, bits + at, std::min<size_t>(8, packed - at));
      f[i] = (load64(tailBuf) >> (bit & 7)) & mask;
    }
  }
  if (mode) {
    for (size_t i = 0; i < std::min<size_t>(mode, n); ++i) {
      f[i] = load64(firsts + i * 8) + static_cast<uint64_t>(unzigzag(f[i]));
    }
    for (size_t i = mode; i < n; ++i) f[i] = f[i - mode] + static_cast<uint64_t>(unzigzag(f[i]));
  } else {
    for (size_t i = 0; i < n; ++i) f[i] += static_cast<uint64_t>(base);
  }
  for (size_t i = 0; i < n; ++i) {
    store64(out + i * 8, asBits(static_cast<double>(static_cast<int64_t>(f[i])) / p));
  }
  size_t prevPos = 0;
  for (size_t j = 0; j < x; ++j) {
    uint32_t q;
    std::memcpy(&q, pos + j * 4, 4);
    if (q >= n || (j > 0 && q <= prevPos)) return *err = "adapt: bad exception position", false;
    prevPos = q;
    std::memcpy(out + size_t{q} * 8, vals + j * 8, 8);
  }
  return true;
}

// Decision for one chunk of more than kSmall words, from its sample.
struct Plan {
  int exp = -1;
  unsigned best = kRawM, second = kRawM;
  double expected = 0;   // bytes the best coder should reach on the whole chunk
  double secondRel = 0;  // the runner-up's estimate / the best one's
};

class AdaptState final : public CodecState {
 public:
  explicit AdaptState(const Codec* c)
      : CodecState(c), spxFast(spxFastCodec().newState()), spx(spxCodec().newState()) {}
  void resetModel() override {}
  std::unique_ptr<CodecState> spxFast, spx;
  LzBackend lz;
  // Scratch, grown to the largest chunk seen (a channel with 16 KiB messages never needs
  // the 256 KiB of a full chunk).
  void fit(size_t chunkBytes) {
    if (ints.size() < chunkBytes / 8 * 2) ints.resize(chunkBytes / 8 * 2);
    if (trial.size() < chunkBytes + 64) trial.resize(chunkBytes + 64);
  }
  std::vector<int64_t> ints;   // decimal integers (and exception positions)
  std::vector<uint8_t> whole;  // the runner-up LZ frame of a whole message
  std::vector<Plan> plans;     // per chunk of the message being coded
  // Trial output (the small-chunk search, the runner-up) of one chunk.
  std::vector<uint8_t> trial;
};

class AdaptCodec final : public Codec {
 public:
  // fast: only the coders that run at GB/s (spx-fast, decimal, lz4) and a smaller sample.
  explicit AdaptCodec(bool fast)
      : fast_(fast),
        mask_(fast ? (1u << kSpxFastM) | (1u << kDecimalM) | (1u << kLz4M) : ~0u),
        sample_(fast ? kSampleFast : kSample) {}
  uint8_t id() const override { return fast_ ? kIdAdaptFast : kIdAdapt; }
  const char* name() const override { return fast_ ? "adapt-fast" : "adapt"; }
  const char* description() const override {
    return fast_ ? "per 256 KiB chunk the best of spx-fast, decimal, lz4, raw (chosen on a sample)"
                 : "per 256 KiB chunk the best of spx-fast, spx, decimal, shuffle-zstd, zstd, lz4, "
                   "raw (chosen on a sample)";
  }
  std::unique_ptr<CodecState> newState() const override {
    return std::make_unique<AdaptState>(this);
  }
  bool decidesPerChunk() const override { return true; }

 private:
  const bool fast_;
  const unsigned mask_;  // coders used (bit per method)
  const size_t sample_;  // words per sample window
  bool uses(unsigned m) const { return (mask_ >> m) & 1u; }

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

  Plan plan(AdaptState& s, const uint8_t* in, size_t n, DataType type) const {
    const unsigned w = type == DataType::kFloat32 ? 4 : 8;
    Plan p;
    p.exp = w == 8 ? findExponent(in, n) : -1;
    // Two windows, around 1/4 and 3/4 of the chunk.
    const size_t sampleBytes = sample_ * w;
    double est[kMethods] = {};
    for (unsigned m = kSpxFastM; m < kMethods; ++m) {
      if (!uses(m)) continue;
      size_t sum = 0;
      for (size_t q = 1; q <= 3; q += 2) {
        const size_t at = n * q / 4 - sample_ / 2;
        const size_t got =
            codeWith(s, m, in + at * w, sample_, type, s.trial.data(), sampleBytes - 1, p.exp);
        sum += got ? got : sampleBytes;
      }
      est[m] = static_cast<double>(sum);
      if (m != kDecimalM) est[m] *= kLearnBias;
    }
    double bestEst = static_cast<double>(2 * sampleBytes) * 0.98, secondEst = bestEst;
    for (unsigned m = kSpxFastM; m < kMethods; ++m) {
      if (!uses(m)) continue;
      if (est[m] < bestEst) {
        p.second = p.best, secondEst = bestEst;
        p.best = m, bestEst = est[m];
      } else if (est[m] < secondEst) {
        p.second = m, secondEst = est[m];
      }
    }
    p.expected = bestEst / static_cast<double>(2 * sampleBytes) * static_cast<double>(n * w);
    p.secondRel = secondEst / bestEst;
    return p;
  }

  // Codes one chunk into out[0..cap); returns the method and sets *coded (0: store raw).
  unsigned codeChunk(AdaptState& s, const Plan& p, const uint8_t* in, size_t n, DataType type,
                     uint8_t* out, size_t cap, size_t* coded) const {
    const unsigned w = type == DataType::kFloat32 ? 4 : 8;
    *coded = 0;
    if (n <= kSmall) {
      // Every coder on the whole chunk; the best result is left in out.
      const int exp = w == 8 ? findExponent(in, n) : -1;
      unsigned best = kRawM;
      size_t bestSize = n * w;
      for (unsigned m = kSpxFastM; m < kMethods; ++m) {
        if (!uses(m)) continue;
        const size_t limit = std::min(cap, bestSize - 1);
        const size_t got = codeWith(s, m, in, n, type, s.trial.data(), limit, exp);
        if (got > 0 && got < bestSize) {
          best = m;
          bestSize = got;
          std::memcpy(out, s.trial.data(), got);
        }
      }
      if (best != kRawM &&
          static_cast<double>(n * w) < s.minRatio() * static_cast<double>(bestSize)) {
        best = kRawM;  // shrinks, but not enough to pay on this channel
      }
      *coded = best == kRawM ? 0 : bestSize;
      return best;
    }
    if (p.best == kRawM || static_cast<double>(n * w) < s.minRatio() * p.expected) return kRawM;
    // When the chunk comes out clearly worse than the sample promised, or (adapt) the
    // sample could not tell the two best apart, the runner-up too, and keep the smaller.
    const size_t got = codeWith(s, p.best, in, n, type, out, cap, p.exp);
    if (p.second != kRawM && (got == 0 || static_cast<double>(got) > 1.25 * p.expected ||
                              (!fast_ && p.secondRel < kNear))) {
      const size_t limit = std::min(cap, got ? got - 1 : cap);
      const size_t alt = codeWith(s, p.second, in, n, type, s.trial.data(), limit, p.exp);
      if (alt > 0 && (got == 0 || alt < got)) {
        std::memcpy(out, s.trial.data(), alt);
        *coded = alt;
        return p.second;
      }
    }
    *coded = got;
    return got ? p.best : static_cast<unsigned>(kRawM);
  }

  size_t encode(CodecState& st, const uint8_t* in, size_t n, DataType type, uint8_t* out,
                size_t cap) const override {
    auto& s = static_cast<AdaptState&>(st);
    const unsigned w = type == DataType::kFloat32 ? 4 : 8;
    const size_t chunkWords = kChunkBytes / w;
    s.fit(std::min(n, chunkWords) * w);
    const size_t chunks = (n + chunkWords - 1) / chunkWords;
    s.plans.assign(chunks, Plan{});
    for (size_t c = 0; c < chunks; ++c) {
      const size_t cn = std::min(chunkWords, n - c * chunkWords);
      if (cn > kSmall) s.plans[c] = plan(s, in + c * chunkWords * w, cn, type);
    }
    if (chunks > 1 && cap > 1) {
      // Several chunks that all want an LZ coder (as their best, or as a runner-up within
      // kNear of it): one LZ frame for the message (a longer window finds more repeats,
      // and one frame costs less). Each such coder is tried, the smallest result kept if it
      // beats what the chunks' samples promise.
      unsigned mask = ~0u;
      double expected = 0;  // what the chunks promise coded one by one
      for (const Plan& p : s.plans) {
        expected += p.best == kRawM ? static_cast<double>(chunkWords * w) : p.expected;
        unsigned ok = 0;
        if (p.best >= kShuffleZstdM && p.best < kMethods) ok |= 1u << p.best;
        if (p.second >= kShuffleZstdM && p.second < kMethods && p.secondRel < kNear) {
          ok |= 1u << p.second;
        }
        mask &= ok;
      }
      size_t got = 0;
      unsigned lz = kRawM;
      for (unsigned m = kShuffleZstdM; m < kMethods && mask; ++m) {
        if (!(mask & (1u << m))) continue;
        if (s.whole.size() < cap) s.whole.resize(cap);
        const size_t limit = got ? got - 1 : cap - 1;
        const size_t g = codeWith(s, m, in, n, type, s.whole.data(), limit, -1);
        if (g > 0 && (got == 0 || g < got)) {
          std::memcpy(out + 1, s.whole.data(), g);
          got = g, lz = m;
        }
      }
      if (got > 0 && static_cast<double>(got) <= kNear * expected &&
          static_cast<double>(n * w) >= s.minRatio() * static_cast<double>(got)) {
        out[0] = static_cast<uint8_t>(kWholeMessage | lz);
        return 1 + got;
      }
    }
    size_t o = 0;
    for (size_t c0 = 0; c0 < n; c0 += chunkWords) {
      const size_t cn = std::min(chunkWords, n - c0);
      const uint8_t* cin = in + c0 * w;
      const size_t rawBytes = cn * w;
      if (cap - o < 1 + 4) return 0;
      const size_t room = std::min(cap - o - 5, rawBytes - 1);
      size_t coded = 0;
      const unsigned m =
          codeChunk(s, s.plans[c0 / chunkWords], cin, cn, type, out + o + 5, room, &coded);
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

  // One LZ frame for the whole message (first byte kWholeMessage | method).
  int decodeWhole(AdaptState& s, unsigned m, const uint8_t* in, size_t len, DataType type,
                  uint8_t* out, size_t n) const {
    const unsigned w = type == DataType::kFloat32 ? 4 : 8;
    bool ok = false;
    if (m == kShuffleZstdM) {
      uint8_t* tmp = s.lz.scratch(n * w);
      ok = s.lz.unzstd(in, len, tmp, n * w);
      if (ok) LzBackend::unshuffle(tmp, n, w, out);
    } else if (m == kZstdM) {
      ok = s.lz.unzstd(in, len, out, n * w);
    } else if (m == kLz4M) {
      ok = s.lz.unlz4(in, len, out, n * w);
    } else {
      return corrupt(s, "adapt: bad whole-message method");
    }
    return ok ? kOk : corrupt(s, "adapt: corrupt whole-message LZ frame");
  }

  int decode(CodecState& st, const uint8_t* in, size_t len, DataType type, uint8_t* out,
             size_t n) const override {
    auto& s = static_cast<AdaptState&>(st);
    const unsigned w = type == DataType::kFloat32 ? 4 : 8;
    const size_t chunkWords = kChunkBytes / w;
    s.fit(std::min(n, chunkWords) * w);
    if (len > 0 && (in[0] & kWholeMessage)) {
      return decodeWhole(s, in[0] & ~kWholeMessage, in + 1, len - 1, type, out, n);
    }
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
          ok = w == 8 && decimalDecode(cin, cl, cout, cn, s.ints.data(), &err);
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
  static const AdaptCodec codec(false);
  return codec;
}

const Codec& adaptFastCodec() {
  static const AdaptCodec codec(true);
  return codec;
}

}  // namespace ccmpi::compress
