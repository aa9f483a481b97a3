#pragma once
// The stride-polynomial predictor shared by the spx and spx-fast codecs (see
// codec_spx.cc for the model): x[i] is extrapolated from x[i-s], x[i-2s], ... by a
// polynomial of order 0..3, in integer arithmetic on the bit patterns; the residual is
// zigzag-mapped. Also the encoder's choice of (stride, order) per block: a search on
// samples of the block, redone only when the chosen predictor's cost degrades.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace ccmpi::compress::stride {

constexpr size_t kBlock = 2048;    // values per block
constexpr unsigned kHistory = 64;  // 4 * max stride
constexpr unsigned kMaxStride = 16;
constexpr size_t kWindows = 4;  // sample windows per block for the predictor search
constexpr size_t kWindow = 32;  // values per window
constexpr unsigned kResearchBlocks = 16;
constexpr uint64_t kRefScale = 256;

struct Pred {
  uint8_t stride = 1;
  uint8_t order = 0;
  bool operator==(const Pred&) const = default;
};

template <typename W>
struct Words {
  static constexpr unsigned kBits = sizeof(W) * 8;
  static W load(const uint8_t* p, size_t i) {
    W v;
    std::memcpy(&v, p + sizeof(W) * i, sizeof(W));
    return v;
  }
  static void store(uint8_t* p, size_t i, W v) { std::memcpy(p + sizeof(W) * i, &v, sizeof(W)); }
  static W zigzag(W r) {
    using S = std::make_signed_t<W>;
    return static_cast<W>((r << 1) ^ static_cast<W>(static_cast<S>(r) >> (kBits - 1)));
  }
  static W unzigzag(W z) { return static_cast<W>((z >> 1) ^ (W{0} - (z & 1))); }
};

template <typename W>
inline unsigned bitlen(W z) {
  if constexpr (sizeof(W) == 8) {
    return static_cast<unsigned>(64 - __builtin_clzll(z | 1)) - (z == 0);
  } else {
    return static_cast<unsigned>(32 - __builtin_clz(z | 1)) - (z == 0);
  }
}

template <typename W>
inline W extrapolate(unsigned order, W a, W b, W c, W d) {  // a = x[i-s], b = x[i-2s], ...
  switch (order) {
    case 0:
      return a;
    case 1:
      return static_cast<W>(2 * a - b);
    case 2:
      return static_cast<W>(3 * a - 3 * b + c);
    default:
      return static_cast<W>(4 * a - 6 * b + 4 * c - d);
  }
}

// Prediction for x[i] from the array itself (requires i >= 4 * s).
template <typename W, unsigned kOrder>
inline W predictFast(const uint8_t* x, size_t i, size_t s) {
  const W a = Words<W>::load(x, i - s);
  const W b = kOrder >= 1 ? Words<W>::load(x, i - 2 * s) : W{0};
  const W c = kOrder >= 2 ? Words<W>::load(x, i - 3 * s) : W{0};
  const W d = kOrder >= 3 ? Words<W>::load(x, i - 4 * s) : W{0};
  return extrapolate<W>(kOrder, a, b, c, d);
}

// Prediction for any x[i]; indices before the message read the channel history.
template <typename W>
inline W predictSlow(const uint8_t* x, const uint64_t* hist, size_t i, Pred p) {
  auto at = [&](std::ptrdiff_t j) {
    return j >= 0 ? Words<W>::load(x, static_cast<size_t>(j)) : static_cast<W>(hist[kHistory + j]);
  };
  const std::ptrdiff_t k = static_cast<std::ptrdiff_t>(i), s = p.stride;
  return extrapolate<W>(p.order, at(k - s), at(k - 2 * s), at(k - 3 * s), at(k - 4 * s));
}

// Calls f(std::integral_constant<unsigned, order>{}) for a runtime order.
template <typename F>
inline void withOrder(unsigned order, F&& f) {
  switch (order) {
    case 0:
      f(std::integral_constant<unsigned, 0>{});
      break;
    case 1:
      f(std::integral_constant<unsigned, 1>{});
      break;
    case 2:
      f(std::integral_constant<unsigned, 2>{});
      break;
    default:
      f(std::integral_constant<unsigned, 3>{});
      break;
  }
}

// Residuals of x[i0..i1) under p: zigzagged values into z, their bit lengths into k.
// Returns the sum of the bit lengths.
template <typename W>
uint64_t residuals(const uint8_t* x, const uint64_t* hist, size_t i0, size_t i1, Pred p, W* z,
                   uint8_t* k) {
  size_t i = i0;
  uint64_t cost = 0;
  for (const size_t e = std::min<size_t>(i1, 4u * p.stride); i < e; ++i, ++z, ++k) {
    *z = Words<W>::zigzag(static_cast<W>(Words<W>::load(x, i) - predictSlow<W>(x, hist, i, p)));
    *k = static_cast<uint8_t>(bitlen<W>(*z));
    cost += *k;
  }
  withOrder(p.order, [&](auto order) {
    const size_t s = p.stride;
    for (; i < i1; ++i, ++z, ++k) {
      const W pred = predictFast<W, decltype(order)::value>(x, i, s);
      *z = Words<W>::zigzag(static_cast<W>(Words<W>::load(x, i) - pred));
      *k = static_cast<uint8_t>(bitlen<W>(*z));
      cost += *k;
    }
  });
  return cost;
}

// Sum of the residual bit lengths of x[i0..i1) under p (residuals() without storing).
template <typename W>
uint64_t residualCost(const uint8_t* x, const uint64_t* hist, size_t i0, size_t i1, Pred p) {
  size_t i = i0;
  uint64_t cost = 0;
  for (const size_t e = std::min<size_t>(i1, 4u * p.stride); i < e; ++i) {
    cost += bitlen<W>(
        Words<W>::zigzag(static_cast<W>(Words<W>::load(x, i) - predictSlow<W>(x, hist, i, p))));
  }
  withOrder(p.order, [&](auto order) {
    constexpr unsigned kOrder = decltype(order)::value;
    const size_t s = p.stride;
#if defined(__SSE2__)
    if constexpr (sizeof(W) == 8) {  // two at a time, as in spx-fast's encoder
      using V = uint64_t __attribute__((vector_size(16)));
      auto at = [&](size_t j) {
        V v;
        std::memcpy(&v, x + 8 * j, sizeof(v));
        return v;
      };
      for (; i + 2 <= i1; i += 2) {
        const V a = at(i - s);
        V pred = a;
        if constexpr (kOrder == 1) pred = (a << 1) - at(i - 2 * s);
        if constexpr (kOrder == 2) {
          const V d = a - at(i - 2 * s);
          pred = (d << 1) + d + at(i - 3 * s);
        }
        if constexpr (kOrder == 3) {
          const V b = at(i - 2 * s);
          pred = ((a - b + at(i - 3 * s)) << 2) - (b << 1) - at(i - 4 * s);
        }
        const V r = at(i) - pred;
        const V z = (r << 1) ^ (V)((__attribute__((vector_size(16))) int64_t)r >> 63);
        cost += bitlen<W>(z[0]) + bitlen<W>(z[1]);
      }
    }
#endif
    for (; i < i1; ++i) {
      const W pred = predictFast<W, kOrder>(x, i, s);
      cost += bitlen<W>(Words<W>::zigzag(static_cast<W>(Words<W>::load(x, i) - pred)));
    }
  });
  return cost;
}

// Estimated cost of p (sum of residual bit lengths) on `windows` windows of the block.
template <typename W>
uint64_t sampleCost(const uint8_t* x, const uint64_t* hist, size_t b0, size_t b1, Pred p,
                    size_t windows) {
  uint64_t cost = 0;
  const size_t len = b1 - b0;
  if (len < windows * kWindow) windows = 1;
  for (size_t w = 0; w < windows; ++w) {
    const size_t s0 = b0 + (len * w) / windows;
    const size_t s1 = std::min(b1, s0 + kWindow);
    cost += residualCost<W>(x, hist, s0, s1, p);
  }
  return cost;
}

// Full predictor search on samples of the block: strides ranked by the linear
// predictor on two windows, then every order for the two best strides on kWindows. If
// sample is given, it receives the choice's cost on the kWindows windows.
template <typename W>
Pred searchPredictor(const uint8_t* x, const uint64_t* hist, size_t b0, size_t b1,
                     uint64_t* sample = nullptr) {
  uint64_t best[3] = {~uint64_t{0}, ~uint64_t{0}, ~uint64_t{0}};
  unsigned bestStride[3] = {1, 1, 1};
  for (unsigned s = 1; s <= kMaxStride; ++s) {
    uint64_t c = sampleCost<W>(x, hist, b0, b1, Pred{static_cast<uint8_t>(s), 1}, 2);
    unsigned st = s;
    for (unsigned j = 0; j < 3; ++j) {
      if (c < best[j]) {
        std::swap(c, best[j]);
        std::swap(st, bestStride[j]);
      }
    }
  }
  Pred choice{1, 0};
  uint64_t choiceCost = ~uint64_t{0};
  for (unsigned j = 0; j < 2; ++j) {
    if (j > 0 && bestStride[j] == bestStride[0]) continue;
    for (uint8_t o = 0; o <= 3; ++o) {
      const Pred p{static_cast<uint8_t>(bestStride[j]), o};
      const uint64_t c = sampleCost<W>(x, hist, b0, b1, p, kWindows);
      if (c < choiceCost) {
        choiceCost = c;
        choice = p;
      }
    }
  }
  if (sample) *sample = choiceCost;
  return choice;
}

// Shifts the last values of data[0..n) into the history.
template <typename W>
void pushHistory(uint64_t* hist, const uint8_t* data, size_t n) {
  if (n >= kHistory) {
    for (unsigned k = 0; k < kHistory; ++k) hist[k] = Words<W>::load(data, n - kHistory + k);
    return;
  }
  std::memmove(hist, hist + n, (kHistory - n) * sizeof(uint64_t));
  for (size_t k = 0; k < n; ++k) hist[kHistory - n + k] = Words<W>::load(data, k);
}

template <typename W, unsigned kOrder>
struct FastPredictor {
  const uint8_t* x;
  size_t s;
  W operator()(size_t i) const { return predictFast<W, kOrder>(x, i, s); }
};
template <typename W>
struct SlowPredictor {
  const uint8_t* x;
  const uint64_t* hist;
  Pred p;
  W operator()(size_t i) const { return predictSlow<W>(x, hist, i, p); }
};

// Decodes stream A (lengths of m values) into k. False if a code is not in the table, a
// run passes the block end, or the codes need more than the stream's bytes.
//
// The bit buffer holds >= 56 bits after a refill; a length code takes <= 12, so four codes
// go between refills. Zero runs (rare) refill before their gamma-coded length.

// x[b0..b1) = their predictions (a block whose residuals are all zero).
template <typename W>
void fillPredictions(uint8_t* x, const uint64_t* hist, size_t b0, size_t b1, Pred p) {
  size_t i = b0;
  for (const size_t e = std::min<size_t>(b1, 4u * p.stride); i < e; ++i) {
    Words<W>::store(x, i, predictSlow<W>(x, hist, i, p));
  }
  withOrder(p.order, [&](auto order) {
    for (; i < b1; ++i)
      Words<W>::store(x, i, predictFast<W, decltype(order)::value>(x, i, p.stride));
  });
}

// The encoder's predictor choice for a channel (not needed by the decoder).
struct Chooser {
  bool searched = false;           // current predictor was chosen by a search ...
  unsigned blocksSinceSearch = 0;  // ... this many blocks ago
  uint64_t refCost = 0;            // ... when it cost refCost / kRefScale bits per value
  uint64_t refSample = 0;          // ... and its sampleCost on kWindows windows was this
  void reset() { *this = Chooser{}; }

  // Picks the predictor for x[b0..b1) (starting from `current`) and leaves the block's
  // residuals and their bit lengths in z and k.
  template <typename W>
  Pred choose(const uint8_t* x, const uint64_t* hist, size_t b0, size_t b1, Pred current, W* z,
              uint8_t* k) {
    const size_t m = b1 - b0;
    Pred p = current;
    bool search = !searched || blocksSinceSearch >= kResearchBlocks;
    bool have = false;
    if (!search) {
      const uint64_t cost = residuals<W>(x, hist, b0, b1, p, z, k);
      have = true;
      if (cost * 16 > (refCost * m / kRefScale) * 17 + 16 * m) {
        search = true;
      } else {
        blocksSinceSearch++;
      }
    }
    if (search) {
      const Pred q = searchPredictor<W>(x, hist, b0, b1);
      uint64_t cost = 0;
      if (!have || !(q == p)) {
        cost = residuals<W>(x, hist, b0, b1, q, z, k);
      } else {
        for (size_t i = 0; i < m; ++i) cost += k[i];
      }
      p = q;
      refCost = cost * kRefScale / m;
      searched = true;
      blocksSinceSearch = 0;
    }
    return p;
  }
};

}  // namespace ccmpi::compress::stride
