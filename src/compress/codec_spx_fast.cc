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
// Both loops are free of data-dependent branches for ordinary values: the encoder
// stores 8 bytes and advances by the byte count, the decoder loads 8 and masks.
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
  uint64_t z_[kBlock];             // scratch: zigzagged residuals (as W[])
  uint8_t k_[kBlock];              // scratch: their bit lengths
  uint8_t tok_[kBlock];            // scratch: codes of the block
  uint8_t bytes_[kBlock * 8 + 8];  // scratch: residual bytes of the block
};

template <typename W>
size_t encodeWords(SpxFastState& st, const uint8_t* in, size_t n, uint8_t* out, size_t cap) {
  W* const z = reinterpret_cast<W*>(st.z_);
  uint8_t* const k = st.k_;
  uint8_t* const tok = st.tok_;
  size_t off = 0;
  bool fits = true;
  for (size_t b0 = 0; b0 < n; b0 += kBlock) {
    const size_t b1 = std::min(n, b0 + kBlock);
    const size_t m = b1 - b0;
    const Pred p = st.chooser_.choose<W>(in, st.hist_, b0, b1, st.pred_, z, k);
    const bool newPred = !(p == st.pred_);
    // Codes and residual bytes. Usually no residual is zero: then every value is one
    // code, the layout is known in advance and the bytes go straight to their place.
    const size_t hdr = 1 + (newPred ? 1 : 0);
    const size_t codeBytesMax = (m + 1) / 2;
    uint8_t* direct = off + hdr + 2 + codeBytesMax + 8 * m + 8 <= cap
                          ? out + off + hdr + 2 + codeBytesMax
                          : nullptr;
    size_t t = 0;
    size_t resBytes = 0;
    bool any = false;
    if (direct) {
      uint8_t* rb = direct;
      size_t i = 0;
      for (; i < m && k[i] != 0; ++i) {
        const unsigned nb = (k[i] + 7u) >> 3;
        tok[i] = static_cast<uint8_t>(nb);
        store64le(rb, uint64_t{z[i]});
        rb += nb;
      }
      if (i == m) {
        t = m;
        resBytes = static_cast<size_t>(rb - direct);
        any = m > 0;
      } else {
        direct = nullptr;  // a zero residual: take the general path
      }
    }
    if (!direct) {
      uint8_t* rb = st.bytes_;
      for (size_t i = 0; i < m;) {
        const unsigned kk = k[i];
        if (kk == 0) {
          size_t j = i + 1;
          while (j < m && k[j] == 0) ++j;
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
          continue;
        }
        any = true;
        const unsigned nb = (kk + 7) >> 3;
        tok[t++] = static_cast<uint8_t>(nb);
        store64le(rb, uint64_t{z[i]});
        rb += nb;
        ++i;
      }
      resBytes = static_cast<size_t>(rb - st.bytes_);
    }
    unsigned kind = kZero;
    size_t blockBytes = hdr;
    if (any) {
      const size_t coded = 2 + (t + 1) / 2 + resBytes;
      const size_t raw = m * sizeof(W);
      kind = coded < raw ? kCoded : kRaw;
      blockBytes += kind == kCoded ? coded : raw;
    }
    if (off + blockBytes > cap) {
      fits = false;
      break;
    }
    out[off++] = static_cast<uint8_t>(kind | (newPred ? 4u : 0u));
    if (newPred) out[off++] = static_cast<uint8_t>((p.stride - 1u) | (unsigned{p.order} << 4));
    st.pred_ = p;
    if (kind == kCoded) {
      out[off++] = static_cast<uint8_t>(t);
      out[off++] = static_cast<uint8_t>(t >> 8);
      size_t q = 0;
      for (; q + 2 <= t; q += 2) out[off++] = static_cast<uint8_t>(tok[q] | (tok[q + 1] << 4));
      if (q < t) out[off++] = tok[q];
      if (!direct) std::memcpy(out + off, st.bytes_, resBytes);
      off += resBytes;
    } else if (kind == kRaw) {
      std::memmove(out + off, in + b0 * sizeof(W), m * sizeof(W));
      off += m * sizeof(W);
    }
  }
  pushHistory<W>(st.hist_, in, n);
  return fits ? off : 0;
}

// Decodes the T codes of a CODED block (codes at c, residual bytes at r..end) into
// out[i..b1). Returns the end of the residual bytes, or null if the block is malformed.
template <typename W, typename Predict>
const uint8_t* decodeTokens(const uint8_t* c, size_t t, const uint8_t* r, const uint8_t* end,
                            uint8_t* out, size_t i, size_t b1, Predict predict) {
  constexpr unsigned kMaxBytes = sizeof(W);
  for (size_t q = 0; q < t; ++q) {
    const unsigned code = (c[q >> 1] >> ((q & 1) * 4)) & 15;
    if (code <= kMaxBytes) [[likely]] {
      if (i >= b1) return nullptr;
      uint64_t v;
      if (end - r >= 8) [[likely]] {
        v = load64le(r);
      } else {
        if (static_cast<size_t>(end - r) < code) return nullptr;
        v = 0;
        for (unsigned b = 0; b < code; ++b) v |= uint64_t{r[b]} << (8 * b);
      }
      r += code;
      const uint64_t mask = code == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * code)) - 1;
      const W zz = static_cast<W>(v & mask);
      Words<W>::store(out, i, static_cast<W>(predict(i) + Words<W>::unzigzag(zz)));
      ++i;
      continue;
    }
    if (code < kFirstRunCode) return nullptr;
    const size_t run = size_t{kMinRun} << (code - kFirstRunCode);
    if (run > b1 - i) return nullptr;
    for (const size_t e = i + run; i < e; ++i) Words<W>::store(out, i, predict(i));
  }
  return i == b1 ? r : nullptr;
}

template <typename W>
int decodeWords(SpxFastState& st, const uint8_t* in, size_t len, uint8_t* out, size_t n,
                const char** err) {
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
    if ((t & 1) && (in[off + codeBytes - 1] >> 4) != 0) {
      return *err = "spx-fast: bad code padding", kErrCorrupt;
    }
    const uint8_t* codes = in + off;
    const uint8_t* r = codes + codeBytes;
    const uint8_t* const end = in + len;
    // The first values of a message read the history; the rest use the fast predictor.
    // A token never straddles the switch: runs are confined to the slow part if needed.
    const uint8_t* rEnd;
    if (b0 < 4u * p.stride) {
      rEnd = decodeTokens<W>(codes, t, r, end, out, b0, b1, SlowPredictor<W>{out, st.hist_, p});
    } else {
      rEnd = nullptr;
      withOrder(p.order, [&](auto order) {
        rEnd = decodeTokens<W>(codes, t, r, end, out, b0, b1,
                               FastPredictor<W, decltype(order)::value>{out, p.stride});
      });
    }
    if (rEnd == nullptr) return *err = "spx-fast: malformed block", kErrCorrupt;
    off = static_cast<size_t>(rEnd - in);
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
