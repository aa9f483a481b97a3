// The predefined datatypes: one leaf per basic C/Fortran type (size and alignment taken
// from the compiler), the value-index pair types with their real C struct layouts
// (padding included: MPI_DOUBLE_INT has size 12 and extent 16), and the MPI_LB/MPI_UB
// markers (size 0, sticky bounds).
#include <cfloat>
#include <complex>
#include <cstddef>
#include <cstdint>

#include "datatype/internal.h"

namespace ccmpi::datatype {
namespace {

struct LeafSpec {
  MPI_Datatype handle;
  const char* name;
  int64_t size;
  int64_t align;
  BasicKind kind;
  int extUnit;  // byte-swap unit in external32
  bool x87;     // memory holds an x87 80-bit long double
};

template <typename T>
constexpr LeafSpec leaf(MPI_Datatype h, const char* name, BasicKind kind) {
  return {h,
          name,
          static_cast<int64_t>(sizeof(T)),
          static_cast<int64_t>(alignof(T)),
          kind,
          static_cast<int>(sizeof(T)),
          false};
}

template <typename T>
constexpr LeafSpec complexLeaf(MPI_Datatype h, const char* name) {
  return {h,
          name,
          static_cast<int64_t>(sizeof(std::complex<T>)),
          static_cast<int64_t>(alignof(std::complex<T>)),
          BasicKind::kComplex,
          static_cast<int>(sizeof(T)),
          false};
}

constexpr bool kLongDoubleIsX87 = LDBL_MANT_DIG == 64;

// A Fortran type with a fixed size and no C counterpart of its own.
constexpr LeafSpec fixedLeaf(MPI_Datatype h, const char* name, int64_t size, int64_t align,
                             BasicKind kind, int unit) {
  return {h, name, size, align, kind, unit, false};
}

template <typename A, typename B>
struct PairOf {
  A a;
  B b;
};
using FloatInt = PairOf<float, int>;
using DoubleInt = PairOf<double, int>;
using LongInt = PairOf<long, int>;
using IntInt = PairOf<int, int>;
using ShortInt = PairOf<short, int>;
using LongDoubleInt = PairOf<long double, int>;

}  // namespace

std::vector<PredefinedType> buildPredefinedTypes() {
  using K = BasicKind;
  LeafSpec leaves[] = {
      leaf<char>(MPI_CHAR, "MPI_CHAR", K::kInt),
      leaf<signed char>(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", K::kInt),
      leaf<unsigned char>(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", K::kUnsigned),
      leaf<unsigned char>(MPI_BYTE, "MPI_BYTE", K::kByte),
      leaf<wchar_t>(MPI_WCHAR, "MPI_WCHAR", K::kInt),
      leaf<short>(MPI_SHORT, "MPI_SHORT", K::kInt),
      leaf<unsigned short>(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", K::kUnsigned),
      leaf<int>(MPI_INT, "MPI_INT", K::kInt),
      leaf<unsigned>(MPI_UNSIGNED, "MPI_UNSIGNED", K::kUnsigned),
      leaf<long>(MPI_LONG, "MPI_LONG", K::kInt),
      leaf<unsigned long>(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", K::kUnsigned),
      leaf<long long>(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", K::kInt),
      leaf<unsigned long long>(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", K::kUnsigned),
      leaf<float>(MPI_FLOAT, "MPI_FLOAT", K::kFloat),
      leaf<double>(MPI_DOUBLE, "MPI_DOUBLE", K::kFloat),
      {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double), alignof(long double), K::kFloat,
       sizeof(long double), kLongDoubleIsX87},
      leaf<bool>(MPI_C_BOOL, "MPI_C_BOOL", K::kBool),
      leaf<int8_t>(MPI_INT8_T, "MPI_INT8_T", K::kInt),
      leaf<int16_t>(MPI_INT16_T, "MPI_INT16_T", K::kInt),
      leaf<int32_t>(MPI_INT32_T, "MPI_INT32_T", K::kInt),
      leaf<int64_t>(MPI_INT64_T, "MPI_INT64_T", K::kInt),
      leaf<uint8_t>(MPI_UINT8_T, "MPI_UINT8_T", K::kUnsigned),
      leaf<uint16_t>(MPI_UINT16_T, "MPI_UINT16_T", K::kUnsigned),
      leaf<uint32_t>(MPI_UINT32_T, "MPI_UINT32_T", K::kUnsigned),
      leaf<uint64_t>(MPI_UINT64_T, "MPI_UINT64_T", K::kUnsigned),
      leaf<MPI_Aint>(MPI_AINT, "MPI_AINT", K::kInt),
      leaf<MPI_Offset>(MPI_OFFSET, "MPI_OFFSET", K::kInt),
      leaf<MPI_Count>(MPI_COUNT, "MPI_COUNT", K::kInt),
      complexLeaf<float>(MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX"),
      complexLeaf<double>(MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX"),
      {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", sizeof(std::complex<long double>),
       alignof(std::complex<long double>), K::kComplex, sizeof(long double), kLongDoubleIsX87},
      fixedLeaf(MPI_PACKED, "MPI_PACKED", 1, 1, K::kByte, 1),
      // Fortran (gfortran's default kinds).
      fixedLeaf(MPI_CHARACTER, "MPI_CHARACTER", 1, 1, K::kByte, 1),
      fixedLeaf(MPI_LOGICAL, "MPI_LOGICAL", 4, 4, K::kBool, 4),
      fixedLeaf(MPI_INTEGER, "MPI_INTEGER", 4, 4, K::kInt, 4),
      fixedLeaf(MPI_REAL, "MPI_REAL", 4, 4, K::kFloat, 4),
      fixedLeaf(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 8, K::kFloat, 8),
      fixedLeaf(MPI_COMPLEX, "MPI_COMPLEX", 8, 4, K::kComplex, 4),
      fixedLeaf(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 8, K::kComplex, 8),
      fixedLeaf(MPI_INTEGER1, "MPI_INTEGER1", 1, 1, K::kInt, 1),
      fixedLeaf(MPI_INTEGER2, "MPI_INTEGER2", 2, 2, K::kInt, 2),
      fixedLeaf(MPI_INTEGER4, "MPI_INTEGER4", 4, 4, K::kInt, 4),
      fixedLeaf(MPI_INTEGER8, "MPI_INTEGER8", 8, 8, K::kInt, 8),
      fixedLeaf(MPI_REAL4, "MPI_REAL4", 4, 4, K::kFloat, 4),
      fixedLeaf(MPI_REAL8, "MPI_REAL8", 8, 8, K::kFloat, 8),
      // REAL*16 is IEEE binary128 in memory (gfortran), the external32 format as is.
      fixedLeaf(MPI_REAL16, "MPI_REAL16", 16, 16, K::kFloat, 16),
      fixedLeaf(MPI_COMPLEX8, "MPI_COMPLEX8", 8, 4, K::kComplex, 4),
      fixedLeaf(MPI_COMPLEX16, "MPI_COMPLEX16", 16, 8, K::kComplex, 8),
      fixedLeaf(MPI_COMPLEX32, "MPI_COMPLEX32", 32, 16, K::kComplex, 16),
      // C++.
      leaf<bool>(MPI_CXX_BOOL, "MPI_CXX_BOOL", K::kBool),
      complexLeaf<float>(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX"),
      complexLeaf<double>(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX"),
      {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX",
       sizeof(std::complex<long double>), alignof(std::complex<long double>), K::kComplex,
       sizeof(long double), kLongDoubleIsX87},
  };

  std::vector<PredefinedType> out;
  auto descOf = [&out](MPI_Datatype h) -> DescPtr {
    for (const PredefinedType& p : out)
      if (p.handle == h) return p.desc;
    return nullptr;
  };
  for (const LeafSpec& s : leaves) {
    auto d = makeLeaf(s.handle, s.size, s.align, s.kind);
    d->extUnit = s.extUnit;
    d->extX87 = s.x87;
    // external32 (MPI-3.1 Table 13.2) has 4-byte long and unsigned long.
    if (s.handle == MPI_LONG || s.handle == MPI_UNSIGNED_LONG) d->extSize = d->extUnit = 4;
    out.push_back({s.handle, s.name, d});
  }
  auto lbMarker = makeLeaf(MPI_LB, 0, 1, BasicKind::kNone, Marker::kLb);
  auto ubMarker = makeLeaf(MPI_UB, 0, 1, BasicKind::kNone, Marker::kUb);
  out.push_back({MPI_LB, "MPI_LB", lbMarker});
  out.push_back({MPI_UB, "MPI_UB", ubMarker});

  // Pair types: struct {A a; B b;} with the compiler's offsets; the struct rule pads the
  // extent to the larger alignment, which is the C sizeof.
  auto pair = [&](MPI_Datatype h, const char* name, MPI_Datatype a, MPI_Datatype b, int64_t offB) {
    auto d = makeStruct({1, 1}, {0, offB}, {descOf(a), descOf(b)});
    d->named = h;
    d->basicType = h;
    d->basicCount = 1;
    d->basicKind = BasicKind::kPair;
    out.push_back({h, name, d});
  };
  pair(MPI_FLOAT_INT, "MPI_FLOAT_INT", MPI_FLOAT, MPI_INT, offsetof(FloatInt, b));
  pair(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", MPI_DOUBLE, MPI_INT, offsetof(DoubleInt, b));
  pair(MPI_LONG_INT, "MPI_LONG_INT", MPI_LONG, MPI_INT, offsetof(LongInt, b));
  pair(MPI_2INT, "MPI_2INT", MPI_INT, MPI_INT, offsetof(IntInt, b));
  pair(MPI_SHORT_INT, "MPI_SHORT_INT", MPI_SHORT, MPI_INT, offsetof(ShortInt, b));
  pair(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE, MPI_INT,
       offsetof(LongDoubleInt, b));
  pair(MPI_2REAL, "MPI_2REAL", MPI_REAL, MPI_REAL, 4);
  pair(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION,
       8);
  pair(MPI_2INTEGER, "MPI_2INTEGER", MPI_INTEGER, MPI_INTEGER, 4);
  return out;
}

}  // namespace ccmpi::datatype
