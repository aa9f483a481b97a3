#pragma once
// Reduction kernels: `inout[i] = in[i] (op) inout[i]` for `n` elements of one C++ type.
//
// One template per family of the standard's type groups (integer, floating point,
// complex, logical, byte, value-index pair). A kernel that the standard does not define
// for a group is simply absent (nullptr in the table built by type_table.cc), which is
// how `validFor` answers MPI_ERR_OP.
//
// Buffers may be unaligned (derived types with odd displacements, packed pair records),
// so elements are loaded and stored with memcpy, which the compiler turns into plain
// (vectorizable) loads when the loop allows. Signed integer arithmetic wraps (it is done
// in the unsigned type), so overflow in MPI_SUM is defined, as users expect.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace ccmpi::op {

// Predefined operations, in a fixed order used to index kernel tables.
enum OpCode : int {
  kMax,
  kMin,
  kSum,
  kProd,
  kLand,
  kBand,
  kLor,
  kBor,
  kLxor,
  kBxor,
  kMinloc,
  kMaxloc,
  kReplace,
  kNoOp,
  kNumOpCodes,
  kUserOp = -1,
};

using Kernel = void (*)(const void* in, void* inout, int64_t n);

namespace kernels {

template <typename T>
inline T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T>
inline void store(unsigned char* p, const T& v) {
  std::memcpy(p, &v, sizeof(T));
}

// Applies f(a, b) -> T over both arrays.
template <typename T, typename F>
inline void zip(const void* in, void* inout, int64_t n, F f) {
  const auto* a = static_cast<const unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t off = i * static_cast<int64_t>(sizeof(T));
    store<T>(b + off, f(load<T>(a + off), load<T>(b + off)));
  }
}

// Types with bitwise operators (__int128 is not std::is_integral in strict ISO mode).
template <typename T>
inline constexpr bool kHasBitwise =
    std::is_integral_v<T>
#if defined(__SIZEOF_INT128__)
    || std::is_same_v<T, __int128> || std::is_same_v<T, unsigned __int128>
#endif
    ;

// Integer arithmetic done in the unsigned type so that overflow wraps.
template <typename T>
inline T wrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}
template <typename T>
inline T wrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    // Promote through unsigned long long so that short*short does not overflow int.
    return static_cast<T>(static_cast<U>(static_cast<unsigned long long>(static_cast<U>(a)) *
                                         static_cast<unsigned long long>(static_cast<U>(b))));
  } else {
    return a * b;
  }
}
#if defined(__SIZEOF_INT128__)
template <>
inline __int128 wrapAdd<__int128>(__int128 a, __int128 b) {
  return static_cast<__int128>(static_cast<unsigned __int128>(a) +
                               static_cast<unsigned __int128>(b));
}
template <>
inline __int128 wrapMul<__int128>(__int128 a, __int128 b) {
  return static_cast<__int128>(static_cast<unsigned __int128>(a) *
                               static_cast<unsigned __int128>(b));
}
#endif

template <typename T>
void max(const void* in, void* inout, int64_t n) {
  zip<T>(in, inout, n, [](T a, T b) { return a > b ? a : b; });
}
template <typename T>
void min(const void* in, void* inout, int64_t n) {
  zip<T>(in, inout, n, [](T a, T b) { return a < b ? a : b; });
}
template <typename T>
void sum(const void* in, void* inout, int64_t n) {
  zip<T>(in, inout, n, [](T a, T b) { return wrapAdd<T>(a, b); });
}
template <typename T>
void prod(const void* in, void* inout, int64_t n) {
  zip<T>(in, inout, n, [](T a, T b) { return wrapMul<T>(a, b); });
}
// Logical ops: any non-zero value is true; the result is 1 or 0 of the element type.
template <typename T>
void land(const void* in, void* inout, int64_t n) {
  zip<T>(in, inout, n, [](T a, T b) { return static_cast<T>((a != T(0)) && (b != T(0))); });
}
template <typename T>
void lor(const void* in, void* inout, int64_t n) {
  zip<T>(in, inout, n, [](T a, T b) { return static_cast<T>((a != T(0)) || (b != T(0))); });
}
template <typename T>
void lxor(const void* in, void* inout, int64_t n) {
  zip<T>(in, inout, n, [](T a, T b) { return static_cast<T>((a != T(0)) != (b != T(0))); });
}
template <typename T>
void band(const void* in, void* inout, int64_t n) {
  zip<T>(in, inout, n, [](T a, T b) { return static_cast<T>(a & b); });
}
template <typename T>
void bor(const void* in, void* inout, int64_t n) {
  zip<T>(in, inout, n, [](T a, T b) { return static_cast<T>(a | b); });
}
template <typename T>
void bxor(const void* in, void* inout, int64_t n) {
  zip<T>(in, inout, n, [](T a, T b) { return static_cast<T>(a ^ b); });
}
template <typename T>
void replace(const void* in, void* inout, int64_t n) {
  if (n > 0) std::memmove(inout, in, static_cast<size_t>(n) * sizeof(T));
}
inline void noOp(const void*, void*, int64_t) {}

// Complex numbers as (re, im) pairs of a real type. The product is the textbook formula
// (as the reference implementations use), without C99 Annex G infinity recovery.
template <typename R>
struct Complex {
  R re, im;
};
template <typename R>
void complexSum(const void* in, void* inout, int64_t n) {
  zip<Complex<R>>(in, inout, n, [](Complex<R> a, Complex<R> b) {
    return Complex<R>{a.re + b.re, a.im + b.im};
  });
}
template <typename R>
void complexProd(const void* in, void* inout, int64_t n) {
  zip<Complex<R>>(in, inout, n, [](Complex<R> a, Complex<R> b) {
    return Complex<R>{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  });
}

// Value-index pairs for MINLOC/MAXLOC. `Stride` is the distance between records: the C
// struct size for a predefined pair type in memory (MPI_DOUBLE_INT is 16 bytes), or the
// packed size (value bytes + index bytes, 12) when records come from the datatype engine's
// packed stream. The index is at offsetof(struct, index) in memory and right after the
// value when packed; both equal sizeof(V) rounded up to alignof(I), or sizeof(V) packed.
template <typename V, typename I>
struct PairLayout {
  struct Natural {
    V v;
    I i;
  };
  static constexpr int64_t kNaturalStride = sizeof(Natural);
  static constexpr int64_t kNaturalIndexOffset = offsetof(Natural, i);
  static constexpr int64_t kPackedStride = sizeof(V) + sizeof(I);
  static constexpr int64_t kPackedIndexOffset = sizeof(V);
};

// The standard's rule: the value is the min (max); on equal values the index is the
// smaller of the two.
template <typename V, typename I, bool kIsMax, int64_t kStride, int64_t kIndexOffset>
void loc(const void* in, void* inout, int64_t n) {
  const auto* a = static_cast<const unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  for (int64_t k = 0; k < n; ++k, a += kStride, b += kStride) {
    const V av = load<V>(a), bv = load<V>(b);
    const bool better = kIsMax ? (av > bv) : (av < bv);
    if (better) {
      store<V>(b, av);
      std::memcpy(b + kIndexOffset, a + kIndexOffset, sizeof(I));
    } else if (av == bv) {
      const I ai = load<I>(a + kIndexOffset), bi = load<I>(b + kIndexOffset);
      if (ai < bi) store<I>(b + kIndexOffset, ai);
    }
  }
}

template <typename V, typename I, int64_t kStride>
void pairReplace(const void* in, void* inout, int64_t n) {
  if (n > 0) std::memmove(inout, in, static_cast<size_t>(n * kStride));
}

}  // namespace kernels
}  // namespace ccmpi::op
