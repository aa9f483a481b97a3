// spx-fast: the stride-polynomial predictor of spx with a byte-granular residual code in
// the manner of FPC, for speed. Our own codec.
//
// The predictor and its per-block choice are spx's (stride_predictor.h). Each zigzagged
// residual z is stored as its significant low-order bytes, with a 4-bit code per value;
// a run of zero residuals (repeated or exactly predicted values) takes one code per
// power-of-two chunk:
//   code 0..8    z has that many significant bytes (0: z == 0), stored little-endian
//                (32-bit words: 0..4)
//   code 9..15   a run of 4 << (code - 9) zero residuals (4, 8, ..., 256 values)
//
// Speed (docs/results/codec): the encoder makes one pass per block, computing predictions
// and zigzag two values at a time (SSE2) and writing each residual's 8 bytes straight to
// the output, advancing by its byte count; zero runs are merged into run codes afterwards
// in the code array only. The predictor search is redone only when the current
// predictor does clearly worse on the search's sample windows. The decoder works in two
// passes per block: residuals (a pre-scan validates the codes 16 bytes at a time, then
// one 16-byte load and one pshufb per code byte where SSSE3 exists), then predictions
// added in place, as vectors over each group of `stride` values (every group is stored
// in the same split, so the loads of earlier groups are forwarded from the stores), or
// in registers for stride 1.
//
// Payload: blocks of up to kBlock values, each byte-aligned:
//   head byte: kind (bits 0-1: 0 ZERO, 1 CODED, 2 RAW), bit 2 new predictor; others 0
//   [predictor byte: stride-1 (bits 0-3), order (bits 4-5)]
//   CODED: token count T (u16 LE), ceil(T/2) code bytes (first code in the low nibble,
//          a padding nibble is 0), then the residual bytes
//   RAW:   the words verbatim
// State across messages: the predictor history and choice, as for spx.
#include <algorithm>
#include <cstring>
#include <memory>
#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "compress/bit_io.h"
#include "compress/codec_list.h"
#include "compress/stride_predictor.h"

namespace ccmpi::compress {
namespace {

using namespace stride;  // NOLINT: the predictor's vocabulary

enum BlockKind : unsigned { kZero = 0, kCoded = 1, kRaw = 2 };
constexpr unsigned kFirstRunCode = 9;
constexpr size_t kMinRun = 4;

class SpxFastState final : public CodecState {
 public:
  explicit SpxFastState(const Codec* c) : CodecState(c) { resetModel(); }
  void resetModel() override {
    std::memset(hist_, 0, sizeof(hist_));
    pred_ = Pred{};
    chooser_.reset();
  }
  uint64_t hist_[kHistory];
  Pred pred_;
  Chooser chooser_;
  uint8_t tok_[kBlock];            // scratch: codes of the block
  uint8_t bytes_[kBlock * 8 + 8];  // scratch: residual bytes of the block
};

// Significant bytes of z (0 for z == 0).
template <typename W>
inline unsigned bytesOf(W z) {
  if constexpr (sizeof(W) == 8) {
    return ((71u - static_cast<unsigned>(__builtin_clzll(z | 1))) >> 3) - (z == 0);
  } else {
    return ((39u - static_cast<unsigned>(__builtin_clz(z | 1))) >> 3) - (z == 0);
  }
}

struct FastCode {
  size_t bytes = 0;  // residual bytes written
  size_t zeros = 0;  // zero residuals (code 0) among the codes
};

// 16-byte vectors of words (two 64-bit or four 32-bit lanes; SSE2 on x86-64).
template <typename W>
struct Vec16;
template <>
struct Vec16<uint64_t> {
  typedef uint64_t type __attribute__((vector_size(16)));
};
template <>
struct Vec16<uint32_t> {
  typedef uint32_t type __attribute__((vector_size(16)));
};
template <typename W>
using VecOf = typename Vec16<W>::type;

template <typename W>
inline VecOf<W> loadVec(const uint8_t* x, size_t i) {
  VecOf<W> v;
  std::memcpy(&v, x + i * sizeof(W), sizeof(v));
  return v;
}

// extrapolate() for the lanes x[i..i+lanes), from x[i-s..], x[i-2s..], ...
template <typename W, unsigned kOrder>
inline VecOf<W> extrapolateVec(const uint8_t* x, size_t i, size_t s) {
  const VecOf<W> a = loadVec<W>(x, i - s);
  if constexpr (kOrder == 0) {
    return a;
  } else {
    const VecOf<W> b = loadVec<W>(x, i - 2 * s);
    if constexpr (kOrder == 1) {
      return (a << 1) - b;
    } else {
      const VecOf<W> c = loadVec<W>(x, i - 3 * s);
      if constexpr (kOrder == 2) {
        return ((a - b) << 1) + (a - b) + c;  // 3a - 3b + c
      } else {
        const VecOf<W> d = loadVec<W>(x, i - 4 * s);
        return ((a - b + c) << 2) - (b << 1) - d;  // 4a - 6b + 4c - d
      }
    }
  }
}

// One pass over x[b0..b1) under p: each residual's byte count into tok (its code, if
// zeros are not merged into runs) and its bytes at rb (room for 8 * (b1 - b0) + 8).
template <typename W>
FastCode codeFast(const uint8_t* x, const uint64_t* hist, size_t b0, size_t b1, Pred p,
                  uint8_t* __restrict tok, uint8_t* rb) {
  FastCode fc;
  uint8_t* const rb0 = rb;
  size_t zeros = 0;
  auto one = [&](size_t i, W pred) {
    const W z = Words<W>::zigzag(static_cast<W>(Words<W>::load(x, i) - pred));
    const unsigned nb = bytesOf<W>(z);
    tok[i - b0] = static_cast<uint8_t>(nb);
    store64le(rb, uint64_t{z});
    rb += nb;
    zeros += z == 0;
  };
  size_t i = b0;
  for (const size_t e = std::min<size_t>(b1, 4u * p.stride); i < e; ++i) {
    one(i, predictSlow<W>(x, hist, i, p));
  }
  withOrder(p.order, [&](auto order) {
    constexpr unsigned kOrder = decltype(order)::value;
#if defined(__SSE2__)
    if constexpr (sizeof(W) == 8) {
      // Two residuals at a time: predictions, differences and zigzag in a vector (the
      // input is read-only, so any stride), byte counts and stores per lane.
      for (; i + 2 <= b1; i += 2) {
        const VecOf<W> pred = extrapolateVec<W, kOrder>(x, i, p.stride);
        const __m128i r =
            _mm_sub_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i * 8)),
                          reinterpret_cast<const __m128i&>(pred));
        const __m128i sign = _mm_shuffle_epi32(_mm_srai_epi32(r, 31), _MM_SHUFFLE(3, 3, 1, 1));
        const __m128i z = _mm_xor_si128(_mm_slli_epi64(r, 1), sign);
        const uint64_t z0 = static_cast<uint64_t>(_mm_cvtsi128_si64(z));
        const uint64_t z1 = static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(z, z)));
        const unsigned n0 = bytesOf<W>(z0), n1 = bytesOf<W>(z1);
        tok[i - b0] = static_cast<uint8_t>(n0);
        tok[i + 1 - b0] = static_cast<uint8_t>(n1);
        store64le(rb, z0);
        rb += n0;
        store64le(rb, z1);
        rb += n1;
        zeros += (z0 == 0) + (z1 == 0);
      }
    }
#endif
    for (; i < b1; ++i) one(i, predictFast<W, kOrder>(x, i, p.stride));
  });
  fc.bytes = static_cast<size_t>(rb - rb0);
  fc.zeros = zeros;
  return fc;
}

// Merges the runs of 4 or more zero codes among tok[0..m) into run codes, in place (a
// run's codes are fewer than its values). Returns the number of codes.
inline size_t mergeZeroRuns(uint8_t* tok, size_t m) {
  size_t t = 0;
  for (size_t i = 0; i < m;) {
    if (tok[i] != 0) {
      tok[t++] = tok[i++];
      continue;
    }
    size_t j = i + 1;
    while (j < m && tok[j] == 0) ++j;
    size_t run = j - i;
    for (unsigned c = 15; run >= kMinRun;) {
      const size_t chunk = size_t{kMinRun} << (c - kFirstRunCode);
      if (run >= chunk) {
        tok[t++] = static_cast<uint8_t>(c);
        run -= chunk;
      } else {
        --c;
      }
    }
    for (; run > 0; --run) tok[t++] = 0;
    i = j;
  }
  return t;
}

// Packs codes two to a byte (first in the low nibble); a last odd code gets a 0 nibble.
inline uint8_t* packCodes(const uint8_t* tok, size_t t, uint8_t* out) {
  size_t q = 0;
#if defined(__SSE2__)
  const __m128i low = _mm_set1_epi16(0xFF);
  for (; q + 32 <= t; q += 32) {
    __m128i v[2];
    for (int h = 0; h < 2; ++h) {
      const __m128i w = _mm_loadu_si128(reinterpret_cast<const __m128i*>(tok + q + 16 * h));
      v[h] = _mm_and_si128(_mm_or_si128(w, _mm_srli_epi16(w, 4)), low);
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_packus_epi16(v[0], v[1]));
    out += 16;
  }
#endif
  for (; q + 2 <= t; q += 2) *out++ = static_cast<uint8_t>(tok[q] | (tok[q + 1] << 4));
  if (q < t) *out++ = tok[q];
  return out;
}

template <typename W>
size_t encodeWords(SpxFastState& st, const uint8_t* in, size_t n, uint8_t* out, size_t cap) {
  uint8_t* const tok = st.tok_;
  Chooser& ch = st.chooser_;
  // A message that does not fit is sent raw, and the decoder then only takes its words
  // into the history (train): the predictor chosen for the blocks coded before must not
  // stay in the state, or the next message's blocks decode with the wrong one.
  const Pred entryPred = st.pred_;
  size_t off = 0;
  for (size_t b0 = 0; b0 < n; b0 += kBlock) {
    const size_t b1 = std::min(n, b0 + kBlock);
    const size_t m = b1 - b0;
    const size_t codeBytesMax = (m + 1) / 2;
    // Residual bytes go straight to their place in the output when there is room for the
    // largest block (header <= 2, count, codes, 8 bytes a value + 8 of slack).
    const bool roomy = off + 4 + codeBytesMax + 8 * m + 8 <= cap;
    auto place = [&](Pred q) {
      const size_t hdr = 1 + (q == st.pred_ ? 0 : 1);
      return roomy ? out + off + hdr + 2 + codeBytesMax : st.bytes_;
    };
    Pred p = st.pred_;
    bool searched = false;
    // Search when due, or when the current predictor does clearly worse on the search's
    // sample windows than it did when chosen (cheaper than coding the block to find out).
    bool search = !ch.searched || ch.blocksSinceSearch >= kResearchBlocks;
    if (!search && m >= kWindows * kWindow) {
      const uint64_t c = sampleCost<W>(in, st.hist_, b0, b1, p, kWindows);
      search = c * 16 > ch.refSample * 17 + 16 * kWindows * kWindow;
    }
    uint64_t sample = 0;
    if (search) {
      p = searchPredictor<W>(in, st.hist_, b0, b1, &sample);
      searched = true;
    }
    uint8_t* rb = place(p);
    FastCode fc = codeFast<W>(in, st.hist_, b0, b1, p, tok, rb);
    // The chooser's test: more than 1/16 worse (plus a bit a value) than when chosen.
    if (!searched && fc.bytes * 8 * 16 > (ch.refCost * m / kRefScale) * 17 + 16 * m) {
      const Pred q = searchPredictor<W>(in, st.hist_, b0, b1, &sample);
      searched = true;
      if (!(q == p)) {
        p = q;
        rb = place(p);
        fc = codeFast<W>(in, st.hist_, b0, b1, p, tok, rb);
      }
    }
    if (searched) {
      ch.refCost = fc.bytes * 8 * kRefScale / m;
      ch.refSample = m >= kWindows * kWindow ? sample : ~uint64_t{0} / 32;
      ch.searched = true;
      ch.blocksSinceSearch = 0;
    } else {
      ch.blocksSinceSearch++;
    }
    const bool newPred = !(p == st.pred_);
    const size_t hdr = 1 + (newPred ? 1 : 0);
    const size_t resBytes = fc.bytes;
    const bool any = fc.zeros < m;
    const size_t t = fc.zeros >= kMinRun ? mergeZeroRuns(tok, m) : m;
    unsigned kind = kZero;
    size_t blockBytes = hdr;
    if (any) {
      const size_t coded = 2 + (t + 1) / 2 + resBytes;
      const size_t raw = m * sizeof(W);
      kind = coded < raw ? kCoded : kRaw;
      blockBytes += kind == kCoded ? coded : raw;
    }
    if (off + blockBytes > cap) {
      st.pred_ = entryPred;
      pushHistory<W>(st.hist_, in, n);
      return 0;
    }
    out[off++] = static_cast<uint8_t>(kind | (newPred ? 4u : 0u));
    if (newPred) out[off++] = static_cast<uint8_t>((p.stride - 1u) | (unsigned{p.order} << 4));
    st.pred_ = p;
    if (kind == kCoded) {
      out[off++] = static_cast<uint8_t>(t);
      out[off++] = static_cast<uint8_t>(t >> 8);
      off = static_cast<size_t>(packCodes(tok, t, out + off) - out);
      if (rb != out + off) std::memmove(out + off, rb, resBytes);
      off += resBytes;
    } else if (kind == kRaw) {
      std::memmove(out + off, in + b0 * sizeof(W), m * sizeof(W));
      off += m * sizeof(W);
    }
  }
  pushHistory<W>(st.hist_, in, n);
  return off;
}

// What one code byte (two codes) stands for, for the decoder's pre-scan: the values it
// produces, the residual bytes it consumes, whether it holds a run code, and whether it
// holds a code that is invalid for the word size.
struct PairInfo {
  uint16_t values = 0;
  uint8_t bytes = 0;
  uint8_t flags = 0;
};
enum : uint8_t { kPairRun = 1, kPairBad = 2 };

constexpr PairInfo codeInfo(unsigned code, unsigned maxBytes) {
  PairInfo p;
  if (code <= maxBytes) {
    p.values = 1;
    p.bytes = static_cast<uint8_t>(code);
  } else if (code >= kFirstRunCode) {
    p.values = static_cast<uint16_t>(kMinRun << (code - kFirstRunCode));
    p.flags = kPairRun;
  } else {
    p.flags = kPairBad;
  }
  return p;
}

struct PairTable {
  PairInfo e[256];
  constexpr explicit PairTable(unsigned maxBytes) {
    for (unsigned b = 0; b < 256; ++b) {
      const PairInfo lo = codeInfo(b & 15, maxBytes), hi = codeInfo(b >> 4, maxBytes);
      e[b].values = static_cast<uint16_t>(lo.values + hi.values);
      e[b].bytes = static_cast<uint8_t>(lo.bytes + hi.bytes);
      e[b].flags = static_cast<uint8_t>(lo.flags | hi.flags);
    }
  }
};
constexpr PairTable kPairs64(8), kPairs32(4);

constexpr uint64_t kByteMask[9] = {0,
                                   0xFF,
                                   0xFFFF,
                                   0xFFFFFF,
                                   0xFFFFFFFF,
                                   0xFFFFFFFFFFull,
                                   0xFFFFFFFFFFFFull,
                                   0xFFFFFFFFFFFFFFull,
                                   ~uint64_t{0}};

// Residual of `code` bytes at r (the caller guarantees 8 readable bytes).
template <typename W>
inline W residualAt(const uint8_t* r, unsigned code) {
  return Words<W>::unzigzag(static_cast<W>(load64le(r) & kByteMask[code]));
}

// Residual of `code` bytes at r when fewer than 8 bytes may be readable.
template <typename W>
inline W residualTail(const uint8_t* r, unsigned code) {
  uint64_t v = 0;
  for (unsigned b = 0; b < code; ++b) v |= uint64_t{r[b]} << (8 * b);
  return Words<W>::unzigzag(static_cast<W>(v));
}

#if defined(__x86_64__)
// pshufb masks that spread the residual bytes of a code byte (two byte counts lo, hi)
// over two 64-bit lanes, zero-filled.
struct PairShuffles {
  alignas(16) uint8_t m[256][16];
  constexpr PairShuffles() : m{} {
    for (unsigned b = 0; b < 256; ++b) {
      const unsigned lo = b & 15, hi = b >> 4;
      for (unsigned j = 0; j < 8; ++j) {
        m[b][j] = static_cast<uint8_t>(j < lo && lo <= 8 ? j : 0x80);
        m[b][8 + j] = static_cast<uint8_t>(j < hi && lo <= 8 && hi <= 8 ? lo + j : 0x80);
      }
    }
  }
};
constexpr PairShuffles kShuffles;

// Pass 1 for 64-bit words with SSSE3, from code byte q: one 16-byte load and one shuffle
// give both residuals of a byte. Stops at a byte with a run code; returns the next byte
// and advances r and i.
__attribute__((target("ssse3"))) size_t pairsSsse3(const uint8_t* c, size_t q, size_t pairs,
                                                   const uint8_t*& r, const uint8_t* inEnd,
                                                   uint8_t* x, size_t& i) {
  const __m128i one = _mm_set1_epi64x(1);
  const __m128i zero = _mm_setzero_si128();
  uint8_t* dst = x + i * 8;
  const uint8_t* src = r;
  const size_t q0 = q;
  for (; q < pairs && inEnd - src >= 16; ++q) {
    const unsigned b = c[q], lo = b & 15, hi = b >> 4;
    if (lo >= kFirstRunCode || hi >= kFirstRunCode) break;
    const __m128i raw = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src));
    const __m128i z =
        _mm_shuffle_epi8(raw, _mm_load_si128(reinterpret_cast<const __m128i*>(kShuffles.m[b])));
    const __m128i v =
        _mm_xor_si128(_mm_srli_epi64(z, 1), _mm_sub_epi64(zero, _mm_and_si128(z, one)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), v);
    src += lo + hi;
    dst += 16;
  }
  r = src;
  i += 2 * (q - q0);
  return q;
}

bool haveSsse3() {
  static const bool have = __builtin_cpu_supports("ssse3");
  return have;
}
#endif

// Pass 1 of a CODED block: the residuals of its T codes (at c; residual bytes at r,
// exactly `resBytes` of them, validated by the caller, who also checked that the codes
// produce exactly b1 - b0 values) into x[b0..b1). inEnd bounds what may be read.
template <typename W>
void decodeResiduals(const uint8_t* c, size_t t, const uint8_t* r, const uint8_t* inEnd, uint8_t* x,
                     size_t i) {
  // One code (byte count or run) with bounds-safe loads.
  auto one = [&](unsigned code) {
    if (code < kFirstRunCode) {
      Words<W>::store(x, i++, inEnd - r >= 8 ? residualAt<W>(r, code) : residualTail<W>(r, code));
      r += code;
    } else {
      const size_t run = size_t{kMinRun} << (code - kFirstRunCode);
      std::memset(x + i * sizeof(W), 0, run * sizeof(W));
      i += run;
    }
  };
  const size_t pairs = t / 2;
  size_t q = 0;
  while (q < pairs) {
    // Code bytes holding two byte counts, while 16 bytes are readable for both loads;
    // a byte with a run code (or the last bytes of the payload) takes the general way.
#if defined(__x86_64__)
    if (sizeof(W) == 8 && haveSsse3()) q = pairsSsse3(c, q, pairs, r, inEnd, x, i);
#endif
    for (; q < pairs && inEnd - r >= 16; ++q) {
      const unsigned b = c[q], lo = b & 15, hi = b >> 4;
      if (lo >= kFirstRunCode || hi >= kFirstRunCode) break;
      Words<W>::store(x, i, residualAt<W>(r, lo));
      Words<W>::store(x, i + 1, residualAt<W>(r + lo, hi));
      r += lo + hi;
      i += 2;
    }
    if (q < pairs) {
      one(c[q] & 15u);
      one(c[q] >> 4);
      ++q;
    }
  }
  if (t & 1) one(c[pairs] & 15u);
}

// Pass 2: x[b0..b1) holds residuals; adds the predictions in place.
template <typename W>
void addPredictions(uint8_t* x, const uint64_t* hist, size_t b0, size_t b1, Pred p) {
  size_t i = b0;
  for (const size_t e = std::min<size_t>(b1, 4u * p.stride); i < e; ++i) {
    Words<W>::store(x, i, static_cast<W>(Words<W>::load(x, i) + predictSlow<W>(x, hist, i, p)));
  }
  withOrder(p.order, [&](auto order) {
    constexpr unsigned kOrder = decltype(order)::value;
    const size_t s = p.stride;
    if (s == 1) {  // a recurrence on the previous values: keep them in registers
      if (i >= b1) return;
      W a = Words<W>::load(x, i - 1);
      W b = kOrder >= 1 ? Words<W>::load(x, i - 2) : W{0};
      W c = kOrder >= 2 ? Words<W>::load(x, i - 3) : W{0};
      W d = kOrder >= 3 ? Words<W>::load(x, i - 4) : W{0};
      for (; i < b1; ++i) {
        const W v = static_cast<W>(Words<W>::load(x, i) + extrapolate<W>(kOrder, a, b, c, d));
        Words<W>::store(x, i, v);
        d = c;
        c = b;
        b = a;
        a = v;
      }
      return;
    }
    // Stride s >= lanes: the s values x[i0..i0+s) depend only on earlier groups of s, so
    // they are computed as vectors. Every group is stored in the same split into vectors,
    // so each vector load of x[i-s..] meets a store of exactly its address and size and is
    // forwarded from the store buffer.
    constexpr size_t kLanes = sizeof(VecOf<W>) / sizeof(W);
    if (s >= kLanes) {
      for (; i + s <= b1; i += s) {
        size_t j = 0;
        for (; j + kLanes <= s; j += kLanes) {
          const size_t k = i + j;
          const VecOf<W> v = loadVec<W>(x, k) + extrapolateVec<W, kOrder>(x, k, s);
          std::memcpy(x + k * sizeof(W), &v, sizeof(v));
        }
        for (; j < s; ++j) {
          Words<W>::store(
              x, i + j,
              static_cast<W>(Words<W>::load(x, i + j) + predictFast<W, kOrder>(x, i + j, s)));
        }
      }
    }
    for (; i < b1; ++i) {
      Words<W>::store(x, i, static_cast<W>(Words<W>::load(x, i) + predictFast<W, kOrder>(x, i, s)));
    }
  });
}

template <typename W>
int decodeWords(SpxFastState& st, const uint8_t* in, size_t len, uint8_t* out, size_t n,
                const char** err) {
  const PairInfo* const pairs = sizeof(W) == 8 ? kPairs64.e : kPairs32.e;
  const uint8_t* const inEnd = in + len;
  size_t off = 0;
  for (size_t b0 = 0; b0 < n; b0 += kBlock) {
    const size_t b1 = std::min(n, b0 + kBlock);
    const size_t m = b1 - b0;
    if (off >= len) return *err = "spx-fast: truncated payload", kErrCorrupt;
    const unsigned head = in[off++];
    const unsigned kind = head & 3;
    if (kind > kRaw || (head & ~7u)) return *err = "spx-fast: bad block header", kErrCorrupt;
    if (head & 4) {
      if (off >= len) return *err = "spx-fast: truncated payload", kErrCorrupt;
      const unsigned v = in[off++];
      if (v >> 6) return *err = "spx-fast: bad predictor", kErrCorrupt;
      st.pred_ = Pred{static_cast<uint8_t>((v & 15) + 1), static_cast<uint8_t>(v >> 4)};
    }
    const Pred p = st.pred_;
    if (kind == kZero) {
      fillPredictions<W>(out, st.hist_, b0, b1, p);
      continue;
    }
    if (kind == kRaw) {
      if (len - off < m * sizeof(W)) return *err = "spx-fast: truncated raw block", kErrCorrupt;
      std::memcpy(out + b0 * sizeof(W), in + off, m * sizeof(W));
      off += m * sizeof(W);
      continue;
    }
    if (len - off < 2) return *err = "spx-fast: truncated block", kErrCorrupt;
    const size_t t = in[off] | (size_t{in[off + 1]} << 8);
    off += 2;
    const size_t codeBytes = (t + 1) / 2;
    if (t == 0 || t > m || len - off < codeBytes) {
      return *err = "spx-fast: bad code count", kErrCorrupt;
    }
    const uint8_t* codes = in + off;
    // Pre-scan: the codes must produce exactly m values from bytes that are there.
    size_t values = 0, bytes = 0;
    unsigned flags = 0;
    size_t q = 0;
#if defined(__SSE2__)
    // 16 code bytes at a time: the sum of the counts when all 32 codes are byte counts,
    // else the table for those 16 bytes.
    {
      const __m128i nib = _mm_set1_epi8(15);
      const __m128i maxCount = _mm_set1_epi8(static_cast<char>(sizeof(W)));
      __m128i sum = _mm_setzero_si128();
      for (; q + 16 <= t / 2; q += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + q));
        const __m128i lo = _mm_and_si128(v, nib), hi = _mm_and_si128(_mm_srli_epi16(v, 4), nib);
        if (_mm_movemask_epi8(_mm_cmpgt_epi8(_mm_max_epu8(lo, hi), maxCount)) == 0) {
          sum = _mm_add_epi64(sum, _mm_sad_epu8(_mm_add_epi8(lo, hi), _mm_setzero_si128()));
          values += 32;
          continue;
        }
        for (size_t k = q; k < q + 16; ++k) {
          const PairInfo& e = pairs[codes[k]];
          values += e.values;
          bytes += e.bytes;
          flags |= e.flags;
        }
      }
      bytes += static_cast<size_t>(_mm_cvtsi128_si64(sum)) +
               static_cast<size_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sum, sum)));
    }
#endif
    for (; q < t / 2; ++q) {
      const PairInfo& e = pairs[codes[q]];
      values += e.values;
      bytes += e.bytes;
      flags |= e.flags;
    }
    if (t & 1) {
      const unsigned last = codes[codeBytes - 1];
      if (last >> 4) return *err = "spx-fast: bad code padding", kErrCorrupt;
      const PairInfo& e = pairs[last];  // the high nibble is 0: one code
      values += e.values - 1;
      bytes += e.bytes;
      flags |= e.flags;
    }
    if ((flags & kPairBad) || values != m) return *err = "spx-fast: malformed block", kErrCorrupt;
    off += codeBytes;
    if (len - off < bytes) return *err = "spx-fast: truncated residuals", kErrCorrupt;
    decodeResiduals<W>(codes, t, in + off, inEnd, out, b0);
    off += bytes;
    addPredictions<W>(out, st.hist_, b0, b1, p);
  }
  if (off != len) return *err = "spx-fast: payload longer than its blocks", kErrCorrupt;
  pushHistory<W>(st.hist_, out, n);
  return kOk;
}

class SpxFastCodec final : public Codec {
 public:
  uint8_t id() const override { return kIdSpxFast; }
  const char* name() const override { return "spx-fast"; }
  const char* description() const override {
    return "stride-polynomial predictor, 4-bit byte counts + residual bytes, zero runs";
  }
  std::unique_ptr<CodecState> newState() const override {
    return std::make_unique<SpxFastState>(this);
  }

 protected:
  bool supportsFloat32() const override { return true; }
  size_t encode(CodecState& st, const uint8_t* in, size_t n, DataType type, uint8_t* out,
                size_t cap) const override {
    auto& s = static_cast<SpxFastState&>(st);
    return type == DataType::kFloat32 ? encodeWords<uint32_t>(s, in, n, out, cap)
                                      : encodeWords<uint64_t>(s, in, n, out, cap);
  }
  int decode(CodecState& st, const uint8_t* in, size_t len, DataType type, uint8_t* out,
             size_t n) const override {
    auto& s = static_cast<SpxFastState&>(st);
    const char* err = "";
    const int rc = type == DataType::kFloat32 ? decodeWords<uint32_t>(s, in, len, out, n, &err)
                                              : decodeWords<uint64_t>(s, in, len, out, n, &err);
    return rc == kOk ? kOk : corrupt(st, err);
  }
  void train(CodecState& st, const uint8_t* in, size_t n, DataType type) const override {
    auto& s = static_cast<SpxFastState&>(st);
    if (type == DataType::kFloat32) {
      pushHistory<uint32_t>(s.hist_, in, n);
    } else {
      pushHistory<uint64_t>(s.hist_, in, n);
    }
  }
};

}  // namespace

const Codec& spxFastCodec() {
  static const SpxFastCodec codec;
  return codec;
}

}  // namespace ccmpi::compress
