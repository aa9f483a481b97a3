// spx: stride-polynomial prediction + Huffman-coded residual lengths. Our own codec,
// tuned for ratio (spx-fast, codec_spx_fast.cc, trades some ratio for speed).
//
// Scientific messages are often arrays of records (a grid point's 5 conserved variables,
// for example): the value most like x[i] is x[i-s] for some stride s, and along one field
// the values are smooth. spx predicts x[i] by extrapolating a polynomial of order o
// through the previous values of the same field, in integer arithmetic on the bit
// patterns (exact and portable; neighbouring doubles of one sign and exponent are
// neighbouring integers):
//   o=0: x[i-s]                 o=1: 2x[i-s] - x[i-2s]
//   o=2: 3x[i-s] - 3x[i-2s] + x[i-3s]      o=3: 4x[i-s] - 6x[i-2s] + 4x[i-3s] - x[i-4s]
// with s in 1..16. The residual r = x - prediction (mod 2^64) is zigzag-mapped to
// z = (r << 1) ^ (r >> 63); its bit length k = bitlen(z) (0..64) is coded with a Huffman
// code, then the k-1 bits of z below its leading one. A run of at least kMinRun zero
// residuals (repeated values, exactly predicted values) is one token instead.
//
// Blocks: the message is cut into blocks of up to kBlock values. For each block the
// encoder picks (s, o) (stride_predictor.h: a search on samples of the block, repeated
// only when the current predictor's cost degrades), computes all residuals and their
// length histogram, and then emits whichever is smallest: ZERO (every residual is zero),
// CODED (with the previous Huffman table or a new one), or RAW.
//
// Payload = the blocks, each byte-aligned:
//   head byte: kind (bits 0-1: 0 ZERO, 1 CODED, 2 RAW), bit 2 new predictor, bit 3 new
//              table (CODED only); other bits zero
//   [predictor byte: stride-1 (bits 0-3), order (bits 4-5)]
//   CODED: [new table: first symbol, last symbol (bytes), then a 4-bit code length
//           (0 = unused) per symbol in between, two per byte, low nibble first]
//          LEB128 byte lengths of stream A and stream B, then A, then B:
//          A: the length codes, LSB-first, zero-padded; a zero run is the run code
//             (symbol wordBits + 1) and (run - kMinRun + 1) in Elias gamma code
//             (n-1 zero bits, a one, the n-1 bits below the leading one)
//          B: for each value the k-1 bits of z below its leading one, LSB-first,
//             zero-padded
//   RAW:   the words verbatim
// Splitting lengths (A) from residual bits (B) lets the decoder run the serial Huffman
// loop over A alone, then read B with positions that depend only on the lengths.
// 4-byte floats (DataType::kFloat32) use the same scheme on 32-bit words (k = 0..32).
//
// Channel state: the last 64 values (predictor history across messages and chunks), the
// current predictor and Huffman table (a later block or message may reuse them). After a
// message the history depends only on the data: RAW blocks and raw-stored messages
// update it the same way.
#include <algorithm>
#include <cstring>
#include <memory>
#include <type_traits>

#include "compress/bit_io.h"
#include "compress/codec_list.h"
#include "compress/huffman.h"
#include "compress/stride_predictor.h"

namespace ccmpi::compress {
namespace {

using namespace stride;  // NOLINT: the predictor's vocabulary

constexpr size_t kMinRun = 6;  // shortest zero run coded as a run token
enum BlockKind : unsigned { kZero = 0, kCoded = 1, kRaw = 2 };

class SpxState final : public CodecState {
 public:
  explicit SpxState(const Codec* c) : CodecState(c) { resetModel(); }
  void resetModel() override {
    std::memset(hist_, 0, sizeof(hist_));
    pred_ = Pred{};
    haveTable_ = false;
    std::memset(lens_, 0, sizeof(lens_));
    chooser_.reset();
  }
  // Oldest first; hist_[kHistory-1] is the most recent value (32-bit words zero-extended).
  uint64_t hist_[kHistory];
  Pred pred_;
  bool haveTable_;
  uint8_t lens_[kHuffMaxSymbols];
  uint16_t codes_[kHuffMaxSymbols];   // encoder side
  unsigned tableBits_ = 0;            // decoder side
  uint16_t dtab_[1u << kHuffMaxLen];  // decoder side; valid while haveTable_
  Chooser chooser_;                   // encoder side
  uint64_t z_[kBlock];                // scratch: zigzagged residuals (as W[])
  uint8_t k_[kBlock];                 // scratch: their bit lengths
};

inline unsigned gammaBits(uint64_t v) {
  return 2 * bitlen<uint64_t>(v + 1) - 1;
}

// Calls f(start, length) for each run of at least kMinRun zero lengths in k[0..m).
template <typename F>
inline void forEachRun(const uint8_t* k, size_t m, F&& f) {
  for (size_t i = 0; i < m;) {
    if (k[i] != 0) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    while (j < m && k[j] == 0) ++j;
    if (j - i >= kMinRun) f(i, j - i);
    i = j;
  }
}

// Stream A of a CODED block: the length codes, zero runs as run code + gamma length.
template <typename W>
void putLengths(uint8_t* dst, size_t cap, const uint8_t* k, size_t m, const uint8_t* len,
                const uint16_t* code, bool runs) {
  constexpr unsigned kRunSym = Words<W>::kBits + 1;
  LsbWriter w(dst, cap);
  for (size_t i = 0; i < m;) {
    const unsigned kk = k[i];
    if (kk == 0 && runs) {
      size_t j = i + 1;
      while (j < m && k[j] == 0) ++j;
      if (j - i >= kMinRun) {
        const uint64_t v = j - i - kMinRun + 1;
        const unsigned nb = bitlen<uint64_t>(v);  // gamma: nb-1 zeros, a one, nb-1 bits
        w.put(code[kRunSym], len[kRunSym]);
        w.flush();
        w.put(uint64_t{1} << (nb - 1), nb);
        w.put(v & ((uint64_t{1} << (nb - 1)) - 1), nb - 1);
        w.flush();
        i = j;
        continue;
      }
    }
    w.put(code[kk], len[kk]);
    w.flush();
    ++i;
  }
  w.finish();
}

// Stream B of a CODED block: the k-1 bits of each residual below its leading one, in two
// parts (up to 32 bits, then the rest) so there is no branch on the residual size.
template <typename W>
void putResiduals(uint8_t* dst, size_t cap, const W* z, const uint8_t* k, size_t m) {
  LsbWriter w(dst, cap);
  for (size_t i = 0; i < m; ++i) {
    const unsigned kk = k[i];
    const unsigned rest = kk - (kk != 0);
    const uint64_t low = uint64_t{z[i]} & ((uint64_t{1} << rest) - 1);
    const unsigned first = rest < 32 ? rest : 32;
    w.put(low & 0xffffffffu, first);
    w.flush();
    w.put(low >> first, rest - first);
    w.flush();
  }
  w.finish();
}

inline size_t varintBytes(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
inline size_t putVarint(uint8_t* p, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    p[n++] = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  p[n++] = static_cast<uint8_t>(v);
  return n;
}
inline bool getVarint(const uint8_t* p, size_t len, size_t* off, uint64_t* v) {
  uint64_t r = 0;
  for (unsigned i = 0; i < 5; ++i) {  // block streams are < 2^35 bytes
    if (*off >= len) return false;
    const uint8_t b = p[(*off)++];
    r |= uint64_t{b & 0x7fu} << (7 * i);
    if (!(b & 0x80)) {
      *v = r;
      return true;
    }
  }
  return false;
}

template <typename W>
size_t encodeWords(SpxState& st, const uint8_t* in, size_t n, uint8_t* out, size_t cap) {
  constexpr unsigned kBits = Words<W>::kBits;
  constexpr unsigned kRunSym = kBits + 1;
  constexpr unsigned kSyms = kBits + 2;
  W* const z = reinterpret_cast<W*>(st.z_);
  uint8_t* const k = st.k_;
  size_t off = 0;
  bool fits = true;
  // A message that does not fit is sent raw, and the decoder then only takes its words
  // into the history (train): the predictor and Huffman table of the blocks coded before
  // are put back, or the next message decodes with a model the decoder never saw.
  const Pred entryPred = st.pred_;
  const bool entryHaveTable = st.haveTable_;
  uint8_t entryLens[kHuffMaxSymbols];
  std::memcpy(entryLens, st.lens_, sizeof(entryLens));
  for (size_t b0 = 0; b0 < n; b0 += kBlock) {
    const size_t b1 = std::min(n, b0 + kBlock);
    const size_t m = b1 - b0;
    const Pred p = st.chooser_.choose<W>(in, st.hist_, b0, b1, st.pred_, z, k);
    const bool newPred = !(p == st.pred_);

    uint32_t counts[kHuffMaxSymbols] = {};
    {
      uint32_t c4[4][kHuffMaxSymbols] = {};  // four tables: no store-to-load stall on repeats
      size_t i = 0;
      for (; i + 4 <= m; i += 4) {
        c4[0][k[i]]++;
        c4[1][k[i + 1]]++;
        c4[2][k[i + 2]]++;
        c4[3][k[i + 3]]++;
      }
      for (; i < m; ++i) c4[0][k[i]]++;
      for (unsigned s = 0; s < kHuffMaxSymbols; ++s) {
        counts[s] = c4[0][s] + c4[1][s] + c4[2][s] + c4[3][s];
      }
    }
    const bool allZero = counts[0] == m;
    uint64_t bitsB = 0, gammaTotal = 0;
    for (unsigned s = 2; s <= kBits; ++s) bitsB += uint64_t{counts[s]} * (s - 1);
    if (counts[0] >= kMinRun) {
      forEachRun(k, m, [&](size_t, size_t len) {
        counts[0] -= static_cast<uint32_t>(len);
        counts[kRunSym]++;
        gammaTotal += gammaBits(len - kMinRun);
      });
    }
    // Choose the block kind by exact size.
    unsigned kind = kZero, lo = kSyms, hi = 0;
    bool newTable = false;
    uint8_t lens[kHuffMaxSymbols] = {};
    size_t lenA = 0, lenB = 0;
    size_t blockBytes = 1 + (newPred ? 1 : 0);
    if (!allZero) {
      for (unsigned s = 0; s < kSyms; ++s) {
        if (!counts[s]) continue;
        lo = std::min(lo, s);
        hi = s;
      }
      huffmanLengths(counts, kSyms, kHuffMaxLen, lens);
      uint64_t newBits = gammaTotal, oldBits = st.haveTable_ ? gammaTotal : ~uint64_t{0};
      for (unsigned s = lo; s <= hi; ++s) {
        newBits += uint64_t{counts[s]} * lens[s];
        if (counts[s] && !st.lens_[s]) oldBits = ~uint64_t{0};
        if (oldBits != ~uint64_t{0}) oldBits += uint64_t{counts[s]} * st.lens_[s];
      }
      const size_t tableBytes = 2 + (hi - lo + 2) / 2;
      const size_t newA = (newBits + 7) / 8, oldA = (oldBits + 7) / 8;
      newTable = oldBits == ~uint64_t{0} || newA + tableBytes < oldA;
      lenA = newTable ? newA : oldA;
      lenB = (bitsB + 7) / 8;
      const size_t coded =
          (newTable ? tableBytes : 0) + varintBytes(lenA) + varintBytes(lenB) + lenA + lenB;
      const size_t raw = m * sizeof(W);
      kind = coded < raw ? kCoded : kRaw;
      blockBytes += kind == kCoded ? coded : raw;
    }
    if (off + blockBytes > cap) {
      fits = false;
      break;
    }
    out[off++] =
        static_cast<uint8_t>(kind | (newPred ? 4u : 0u) | (kind == kCoded && newTable ? 8u : 0u));
    if (newPred) out[off++] = static_cast<uint8_t>((p.stride - 1u) | (unsigned{p.order} << 4));
    st.pred_ = p;
    if (kind == kCoded) {
      if (newTable) {
        out[off++] = static_cast<uint8_t>(lo);
        out[off++] = static_cast<uint8_t>(hi);
        for (unsigned s = lo; s <= hi; s += 2) {
          out[off++] = static_cast<uint8_t>(lens[s] | (s + 1 <= hi ? lens[s + 1] << 4 : 0));
        }
        std::memcpy(st.lens_, lens, sizeof(lens));
        huffmanCodes(st.lens_, kSyms, st.codes_);
        st.haveTable_ = true;
      }
      off += putVarint(out + off, lenA);
      off += putVarint(out + off, lenB);
      putLengths<W>(out + off, lenA, k, m, st.lens_, st.codes_, counts[kRunSym] != 0);
      off += lenA;
      putResiduals<W>(out + off, lenB, z, k, m);
      off += lenB;
    } else if (kind == kRaw) {
      std::memcpy(out + off, in + b0 * sizeof(W), m * sizeof(W));
      off += m * sizeof(W);
    }
  }
  if (!fits) {
    st.pred_ = entryPred;
    st.haveTable_ = entryHaveTable;
    std::memcpy(st.lens_, entryLens, sizeof(entryLens));
    if (entryHaveTable) huffmanCodes(st.lens_, kSyms, st.codes_);
  }
  pushHistory<W>(st.hist_, in, n);
  return fits ? off : 0;
}

template <typename W>
bool decodeLengths(const uint8_t* a, size_t lenA, const uint16_t* dtab, unsigned tableBits,
                   uint8_t* k, size_t m) {
  constexpr unsigned kBits = Words<W>::kBits;
  const uint64_t tmask = (uint64_t{1} << tableBits) - 1;
  const uint8_t* p = a;
  const uint8_t* const end = a + lenA;
  uint64_t buf = 0;
  unsigned cnt = 0;       // valid bits in buf
  uint64_t consumed = 0;  // bits taken, checked against the stream length at the end
  auto refill = [&]() {
    if (end - p >= 8) [[likely]] {
      buf |= load64le(p) << cnt;
      p += (63 - cnt) >> 3;
      cnt |= 56;
    } else {
      while (cnt <= 56) {
        const uint64_t b = p < end ? *p++ : 0;  // zeros past the end; caught by `consumed`
        buf |= b << cnt;
        cnt += 8;
      }
    }
  };
  size_t i = 0;
  while (i < m) {
    refill();
    for (int t = 0; t < 4 && i < m; ++t) {
      const unsigned e = dtab[buf & tmask];
      const unsigned clen = e & 15, kk = e >> 4;
      if (kk > kBits || clen == 0) [[unlikely]] {
        if (clen == 0) return false;
        buf >>= clen;
        cnt -= clen;
        consumed += clen;
        refill();
        const unsigned zeros = static_cast<unsigned>(__builtin_ctzll(buf | (uint64_t{1} << 20)));
        if (zeros >= 20) return false;
        const uint64_t v =
            ((buf >> (zeros + 1)) & ((uint64_t{1} << zeros) - 1)) | (uint64_t{1} << zeros);
        buf >>= 2 * zeros + 1;
        cnt -= 2 * zeros + 1;
        consumed += 2 * zeros + 1;
        const uint64_t run = v - 1 + kMinRun;
        if (run > m - i) return false;
        std::memset(k + i, 0, run);
        i += run;
        break;  // refill before the next code
      }
      k[i++] = static_cast<uint8_t>(kk);
      buf >>= clen;
      cnt -= clen;
      consumed += clen;
    }
  }
  // Exactly the stream's bytes, and zero padding after the last code.
  return (consumed + 7) / 8 == lenA && (consumed % 8 == 0 || (a[lenA - 1] >> (consumed % 8)) == 0);
}

// Reads stream B and rebuilds x[b0..b0+m) from the predictions. The position advances by
// each value's residual size alone, so successive values do not wait on one another.
template <typename W, typename Predict>
void decodeResiduals(const uint8_t* bsrc, size_t lenB, uint64_t* posPtr, const uint8_t* k, size_t m,
                     uint8_t* out, size_t b0, Predict predict) {
  const uint64_t fastBits = lenB >= 16 ? (uint64_t{lenB} - 16) * 8 : 0;
  auto peekChecked = [bsrc, lenB](uint64_t pos) { return peekLsb64(bsrc, lenB, pos); };
  uint64_t pos = *posPtr;
  for (size_t j = 0; j < m; ++j) {
    const unsigned kk = k[j];
    const unsigned rest = kk - (kk != 0);
    const unsigned first = rest < 32 ? rest : 32;
    uint64_t lo, hi;
    if (pos < fastBits) [[likely]] {
      lo = load64le(bsrc + (pos >> 3)) >> (pos & 7);
      hi = load64le(bsrc + ((pos + first) >> 3)) >> ((pos + first) & 7);
    } else {
      lo = peekChecked(pos);
      hi = peekChecked(pos + first);
    }
    const uint64_t low = (lo & ((uint64_t{1} << first) - 1)) |
                         ((hi & ((uint64_t{1} << (rest - first)) - 1)) << first);
    pos += rest;
    const W zz = static_cast<W>((uint64_t{kk != 0} << rest) | low);
    const size_t i = b0 + j;
    Words<W>::store(out, i, static_cast<W>(predict(i) + Words<W>::unzigzag(zz)));
  }
  *posPtr = pos;
}

template <typename W>
int decodeWords(SpxState& st, const uint8_t* in, size_t len, uint8_t* out, size_t n,
                const char** err) {
  constexpr unsigned kSyms = Words<W>::kBits + 2;
  size_t off = 0;
  for (size_t b0 = 0; b0 < n; b0 += kBlock) {
    const size_t b1 = std::min(n, b0 + kBlock);
    const size_t m = b1 - b0;
    if (off >= len) return *err = "spx: truncated payload", kErrCorrupt;
    const unsigned head = in[off++];
    const unsigned kind = head & 3;
    if (kind > kRaw || (head & ~15u) || ((head & 8) && kind != kCoded)) {
      return *err = "spx: bad block header", kErrCorrupt;
    }
    if (head & 4) {
      if (off >= len) return *err = "spx: truncated payload", kErrCorrupt;
      const unsigned v = in[off++];
      if (v >> 6) return *err = "spx: bad predictor", kErrCorrupt;
      st.pred_ = Pred{static_cast<uint8_t>((v & 15) + 1), static_cast<uint8_t>(v >> 4)};
    }
    const Pred p = st.pred_;
    if (kind == kZero) {
      fillPredictions<W>(out, st.hist_, b0, b1, p);
      continue;
    }
    if (kind == kRaw) {
      if (len - off < m * sizeof(W)) return *err = "spx: truncated raw block", kErrCorrupt;
      std::memcpy(out + b0 * sizeof(W), in + off, m * sizeof(W));
      off += m * sizeof(W);
      continue;
    }
    if (head & 8) {
      if (len - off < 2) return *err = "spx: truncated table", kErrCorrupt;
      const unsigned lo = in[off], hi = in[off + 1];
      off += 2;
      if (lo > hi || hi >= kSyms) return *err = "spx: bad table range", kErrCorrupt;
      const size_t tableBytes = (hi - lo + 2) / 2;
      if (len - off < tableBytes) return *err = "spx: truncated table", kErrCorrupt;
      std::memset(st.lens_, 0, sizeof(st.lens_));
      unsigned maxLen = 0;
      for (unsigned s = lo; s <= hi; ++s) {
        st.lens_[s] = static_cast<uint8_t>((in[off + (s - lo) / 2] >> (4 * ((s - lo) & 1))) & 15);
        maxLen = std::max<unsigned>(maxLen, st.lens_[s]);
      }
      if (((hi - lo) & 1) == 0 && (in[off + tableBytes - 1] >> 4) != 0) {
        return *err = "spx: bad table padding", kErrCorrupt;
      }
      off += tableBytes;
      st.haveTable_ = false;
      if (maxLen == 0 || maxLen > kHuffMaxLen ||
          !huffmanDecodeTable(st.lens_, kSyms, maxLen, st.dtab_)) {
        return *err = "spx: invalid Huffman code lengths", kErrCorrupt;
      }
      st.tableBits_ = maxLen;
      st.haveTable_ = true;
    } else if (!st.haveTable_) {
      return *err = "spx: block reuses a table that does not exist", kErrCorrupt;
    }
    uint64_t lenA = 0, lenB = 0;
    if (!getVarint(in, len, &off, &lenA) || !getVarint(in, len, &off, &lenB) || lenA > len - off ||
        lenB > len - off - lenA) {
      return *err = "spx: bad stream lengths", kErrCorrupt;
    }
    if (!decodeLengths<W>(in + off, lenA, st.dtab_, st.tableBits_, st.k_, m)) {
      return *err = "spx: invalid length codes", kErrCorrupt;
    }
    off += lenA;
    // Stream B: the first values of a message read the history, the rest the array.
    const uint8_t* bsrc = in + off;
    uint64_t pos = 0;
    const size_t fastFrom = std::min(b1, std::max<size_t>(b0, 4u * p.stride));
    if (b0 < fastFrom) {
      decodeResiduals<W>(bsrc, lenB, &pos, st.k_, fastFrom - b0, out, b0,
                         SlowPredictor<W>{out, st.hist_, p});
    }
    if (fastFrom < b1) {
      withOrder(p.order, [&](auto order) {
        decodeResiduals<W>(bsrc, lenB, &pos, st.k_ + (fastFrom - b0), b1 - fastFrom, out, fastFrom,
                           FastPredictor<W, decltype(order)::value>{out, p.stride});
      });
    }
    const bool ok = (pos + 7) / 8 == lenB && (pos % 8 == 0 || (bsrc[lenB - 1] >> (pos % 8)) == 0);
    if (!ok) return *err = "spx: residual stream length mismatch", kErrCorrupt;
    off += lenB;
  }
  if (off != len) return *err = "spx: payload longer than its blocks", kErrCorrupt;
  pushHistory<W>(st.hist_, out, n);
  return kOk;
}

class SpxCodec final : public Codec {
 public:
  uint8_t id() const override { return kIdSpx; }
  const char* name() const override { return "spx"; }
  const char* description() const override {
    return "stride-polynomial predictor, Huffman-coded residual lengths, zero runs";
  }
  std::unique_ptr<CodecState> newState() const override { return std::make_unique<SpxState>(this); }

 protected:
  bool supportsFloat32() const override { return true; }
  size_t encode(CodecState& st, const uint8_t* in, size_t n, DataType type, uint8_t* out,
                size_t cap) const override {
    auto& s = static_cast<SpxState&>(st);
    return type == DataType::kFloat32 ? encodeWords<uint32_t>(s, in, n, out, cap)
                                      : encodeWords<uint64_t>(s, in, n, out, cap);
  }
  int decode(CodecState& st, const uint8_t* in, size_t len, DataType type, uint8_t* out,
             size_t n) const override {
    auto& s = static_cast<SpxState&>(st);
    const char* err = "";
    const int rc = type == DataType::kFloat32 ? decodeWords<uint32_t>(s, in, len, out, n, &err)
                                              : decodeWords<uint64_t>(s, in, len, out, n, &err);
    return rc == kOk ? kOk : corrupt(st, err);
  }
  void train(CodecState& st, const uint8_t* in, size_t n, DataType type) const override {
    auto& s = static_cast<SpxState&>(st);
    if (type == DataType::kFloat32) {
      pushHistory<uint32_t>(s.hist_, in, n);
    } else {
      pushHistory<uint64_t>(s.hist_, in, n);
    }
  }
};

}  // namespace

const Codec& spxCodec() {
  static const SpxCodec codec;
  return codec;
}

}  // namespace ccmpi::compress
