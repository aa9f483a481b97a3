// The table of predefined datatypes and the reduction kernels that apply to each: which
// C type carries a datatype and which of the standard's groups it belongs to. The kernel
// sets are generated from the group (kernelsFor<T>(group)), so the table below is the
// only place that names datatypes.
#include "op/type_table.h"

#include <cstddef>
#include <vector>

#include "base/handles.h"
#include "base/log.h"
#include "datatype/datatype.h"

namespace ccmpi::op {
namespace {

using namespace kernels;

template <typename T>
TypeEntry scalarEntry(MPI_Datatype type, const char* name, TypeGroup g) {
  TypeEntry e;
  e.type = type;
  e.name = name;
  e.group = g;
  e.naturalSize = e.packedSize = sizeof(T);
  Kernel* k = e.natural;
  const bool integer = g == TypeGroup::kCInteger || g == TypeGroup::kFortranInteger;
  if (integer || g == TypeGroup::kFloating) {
    k[kMax] = max<T>;
    k[kMin] = min<T>;
    k[kSum] = sum<T>;
    k[kProd] = prod<T>;
  }
  if (g == TypeGroup::kCInteger || g == TypeGroup::kLogical) {
    k[kLand] = land<T>;
    k[kLor] = lor<T>;
    k[kLxor] = lxor<T>;
  }
  if constexpr (kHasBitwise<T>) {
    if (integer || g == TypeGroup::kByte) {
      k[kBand] = band<T>;
      k[kBor] = bor<T>;
      k[kBxor] = bxor<T>;
    }
  }
  k[kReplace] = replace<T>;
  k[kNoOp] = noOp;
  for (int i = 0; i < kNumOpCodes; ++i) e.packed[i] = e.natural[i];
  return e;
}

template <typename R>
TypeEntry complexEntry(MPI_Datatype type, const char* name) {
  TypeEntry e;
  e.type = type;
  e.name = name;
  e.group = TypeGroup::kComplex;
  e.naturalSize = e.packedSize = sizeof(Complex<R>);
  e.natural[kSum] = complexSum<R>;
  e.natural[kProd] = complexProd<R>;
  e.natural[kReplace] = replace<Complex<R>>;
  e.natural[kNoOp] = noOp;
  for (int i = 0; i < kNumOpCodes; ++i) e.packed[i] = e.natural[i];
  return e;
}

template <typename V, typename I>
TypeEntry pairEntry(MPI_Datatype type, const char* name) {
  using L = PairLayout<V, I>;
  TypeEntry e;
  e.type = type;
  e.name = name;
  e.group = TypeGroup::kPair;
  e.naturalSize = L::kNaturalStride;
  e.packedSize = L::kPackedStride;
  e.natural[kMinloc] = loc<V, I, false, L::kNaturalStride, L::kNaturalIndexOffset>;
  e.natural[kMaxloc] = loc<V, I, true, L::kNaturalStride, L::kNaturalIndexOffset>;
  e.natural[kReplace] = pairReplace<V, I, L::kNaturalStride>;
  e.natural[kNoOp] = noOp;
  e.packed[kMinloc] = loc<V, I, false, L::kPackedStride, L::kPackedIndexOffset>;
  e.packed[kMaxloc] = loc<V, I, true, L::kPackedStride, L::kPackedIndexOffset>;
  e.packed[kReplace] = pairReplace<V, I, L::kPackedStride>;
  e.packed[kNoOp] = noOp;
  return e;
}

// Fortran LOGICAL is a default INTEGER-sized word; C bool is one byte. Both are read as
// "non-zero is true" and written as 1/0.
using FortranLogical = int32_t;
using CBool = unsigned char;

std::vector<TypeEntry> buildEntries() {
  const TypeGroup kC = TypeGroup::kCInteger, kF = TypeGroup::kFortranInteger,
                  kR = TypeGroup::kFloating, kL = TypeGroup::kLogical, kB = TypeGroup::kByte;
  std::vector<TypeEntry> t;
#define CCMPI_SCALAR(h, T, g) t.push_back(scalarEntry<T>(h, #h, g))
#define CCMPI_COMPLEX(h, R) t.push_back(complexEntry<R>(h, #h))
#define CCMPI_PAIR(h, V, I) t.push_back(pairEntry<V, I>(h, #h))
  // C integer. MPI_CHAR is not in the standard's list, but every implementation users
  // try accepts it as a small integer, so we do too.
  CCMPI_SCALAR(MPI_CHAR, char, kC);
  CCMPI_SCALAR(MPI_SIGNED_CHAR, signed char, kC);
  CCMPI_SCALAR(MPI_UNSIGNED_CHAR, unsigned char, kC);
  CCMPI_SCALAR(MPI_SHORT, short, kC);
  CCMPI_SCALAR(MPI_UNSIGNED_SHORT, unsigned short, kC);
  CCMPI_SCALAR(MPI_INT, int, kC);
  CCMPI_SCALAR(MPI_UNSIGNED, unsigned, kC);
  CCMPI_SCALAR(MPI_LONG, long, kC);
  CCMPI_SCALAR(MPI_UNSIGNED_LONG, unsigned long, kC);
  CCMPI_SCALAR(MPI_LONG_LONG_INT, long long, kC);
  CCMPI_SCALAR(MPI_LONG_LONG, long long, kC);
  CCMPI_SCALAR(MPI_UNSIGNED_LONG_LONG, unsigned long long, kC);
  CCMPI_SCALAR(MPI_INT8_T, int8_t, kC);
  CCMPI_SCALAR(MPI_INT16_T, int16_t, kC);
  CCMPI_SCALAR(MPI_INT32_T, int32_t, kC);
  CCMPI_SCALAR(MPI_INT64_T, int64_t, kC);
  CCMPI_SCALAR(MPI_UINT8_T, uint8_t, kC);
  CCMPI_SCALAR(MPI_UINT16_T, uint16_t, kC);
  CCMPI_SCALAR(MPI_UINT32_T, uint32_t, kC);
  CCMPI_SCALAR(MPI_UINT64_T, uint64_t, kC);
  // Fortran integer (and the multi-language address/offset/count types).
  CCMPI_SCALAR(MPI_INTEGER, int32_t, kF);
  CCMPI_SCALAR(MPI_INTEGER1, int8_t, kF);
  CCMPI_SCALAR(MPI_INTEGER2, int16_t, kF);
  CCMPI_SCALAR(MPI_INTEGER4, int32_t, kF);
  CCMPI_SCALAR(MPI_INTEGER8, int64_t, kF);
#if defined(MPI_INTEGER16) && defined(__SIZEOF_INT128__)
  CCMPI_SCALAR(MPI_INTEGER16, __int128, kF);
#endif
  CCMPI_SCALAR(MPI_AINT, MPI_Aint, kC);
  CCMPI_SCALAR(MPI_OFFSET, MPI_Offset, kC);
  CCMPI_SCALAR(MPI_COUNT, MPI_Count, kC);
  // Floating point. REAL*16 is IEEE quad precision in gfortran, not x87 long double.
  CCMPI_SCALAR(MPI_FLOAT, float, kR);
  CCMPI_SCALAR(MPI_DOUBLE, double, kR);
  CCMPI_SCALAR(MPI_LONG_DOUBLE, long double, kR);
  CCMPI_SCALAR(MPI_REAL, float, kR);
  CCMPI_SCALAR(MPI_DOUBLE_PRECISION, double, kR);
  CCMPI_SCALAR(MPI_REAL4, float, kR);
  CCMPI_SCALAR(MPI_REAL8, double, kR);
  CCMPI_SCALAR(MPI_REAL16, __float128, kR);
#if defined(MPI_REAL2)
  CCMPI_SCALAR(MPI_REAL2, _Float16, kR);
#endif
#if defined(MPIX_C_FLOAT16)
  CCMPI_SCALAR(MPIX_C_FLOAT16, _Float16, kR);
#endif
  // Logical.
  CCMPI_SCALAR(MPI_LOGICAL, FortranLogical, kL);
  CCMPI_SCALAR(MPI_C_BOOL, CBool, kL);
  CCMPI_SCALAR(MPI_CXX_BOOL, CBool, kL);
  // Complex.
  CCMPI_COMPLEX(MPI_C_COMPLEX, float);
  CCMPI_COMPLEX(MPI_C_FLOAT_COMPLEX, float);
  CCMPI_COMPLEX(MPI_C_DOUBLE_COMPLEX, double);
  CCMPI_COMPLEX(MPI_C_LONG_DOUBLE_COMPLEX, long double);
  CCMPI_COMPLEX(MPI_CXX_FLOAT_COMPLEX, float);
  CCMPI_COMPLEX(MPI_CXX_DOUBLE_COMPLEX, double);
  CCMPI_COMPLEX(MPI_CXX_LONG_DOUBLE_COMPLEX, long double);
  CCMPI_COMPLEX(MPI_COMPLEX, float);
  CCMPI_COMPLEX(MPI_DOUBLE_COMPLEX, double);
  CCMPI_COMPLEX(MPI_COMPLEX8, float);
  CCMPI_COMPLEX(MPI_COMPLEX16, double);
  CCMPI_COMPLEX(MPI_COMPLEX32, __float128);
  // Byte.
  CCMPI_SCALAR(MPI_BYTE, unsigned char, kB);
  // Value-index pairs.
  CCMPI_PAIR(MPI_FLOAT_INT, float, int);
  CCMPI_PAIR(MPI_DOUBLE_INT, double, int);
  CCMPI_PAIR(MPI_LONG_INT, long, int);
  CCMPI_PAIR(MPI_2INT, int, int);
  CCMPI_PAIR(MPI_SHORT_INT, short, int);
  CCMPI_PAIR(MPI_LONG_DOUBLE_INT, long double, int);
  CCMPI_PAIR(MPI_2REAL, float, float);
  CCMPI_PAIR(MPI_2DOUBLE_PRECISION, double, double);
  CCMPI_PAIR(MPI_2INTEGER, int32_t, int32_t);
#undef CCMPI_SCALAR
#undef CCMPI_COMPLEX
#undef CCMPI_PAIR
  return t;
}

struct Table {
  std::vector<TypeEntry> entries;
  std::vector<const TypeEntry*> byIndex;  // handle index -> entry
  bool built = false;
};

Table& table() {
  static Table t;
  return t;
}

}  // namespace

const char* typeGroupName(TypeGroup g) {
  switch (g) {
    case TypeGroup::kCInteger:
      return "C integer";
    case TypeGroup::kFortranInteger:
      return "Fortran integer";
    case TypeGroup::kFloating:
      return "floating point";
    case TypeGroup::kLogical:
      return "logical";
    case TypeGroup::kComplex:
      return "complex";
    case TypeGroup::kByte:
      return "byte";
    case TypeGroup::kPair:
      return "value-index pair";
  }
  return "?";
}

void initTypeTable() {
  Table& t = table();
  if (t.built) return;
  t.entries = buildEntries();
  t.byIndex.clear();
  for (const TypeEntry& e : t.entries) {
    if (handleKind(e.type) != HandleKind::kDatatype) continue;
    // The datatype engine may give a type a different size than our C type (a platform
    // without a native type for it); never reduce through a mismatched kernel.
    if (const datatype::Datatype* dt = datatype::lookup(e.type)) {
      if (dt->size() != e.packedSize) {
        log::debug("op: %s has size %lld, kernels expect %lld; reductions disabled for it", e.name,
                   static_cast<long long>(dt->size()), static_cast<long long>(e.packedSize));
        continue;
      }
    }
    const size_t i = static_cast<size_t>(handleIndex(e.type));
    if (i >= t.byIndex.size()) t.byIndex.resize(i + 1, nullptr);
    t.byIndex[i] = &e;
  }
  t.built = true;
}

const TypeEntry* typeEntry(MPI_Datatype basicType) {
  const Table& t = table();
  if (handleKind(basicType) != HandleKind::kDatatype) return nullptr;
  const size_t i = static_cast<size_t>(handleIndex(basicType));
  return i < t.byIndex.size() ? t.byIndex[i] : nullptr;
}

}  // namespace ccmpi::op
