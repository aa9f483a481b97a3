// Reduction operations: every predefined op on representative types of each group, the
// standard's op/type validity matrix, MINLOC/MAXLOC ties, derived datatypes (contiguous
// and strided, small and chunked), user ops (argument order, datatype handle, length),
// and the error classes.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "base/error.h"
#include "datatype/datatype.h"
#include "op/op.h"

namespace ccmpi::op {
namespace {

class OpTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    datatype::initPredefined();
    initPredefined();
  }
};

template <typename T>
std::vector<T> reduce(MPI_Op op, MPI_Datatype type, std::vector<T> in, std::vector<T> inout) {
  EXPECT_EQ(apply(op, in.data(), inout.data(), static_cast<int64_t>(in.size()), type), MPI_SUCCESS)
      << "op " << name(op) << " type " << datatype::predefinedName(type);
  return inout;
}

// Checks all arithmetic and bitwise ops on an integer type against the C++ operators.
template <typename T>
void checkInteger(MPI_Datatype type, bool bitwise, bool logical) {
  const std::vector<T> a = {T(0), T(1), T(5), T(100), T(7), T(3)};
  const std::vector<T> b = {T(3), T(1), T(9), T(27), T(0), T(12)};
  const char* tn = datatype::predefinedName(type);
  auto each = [&](MPI_Op op, auto f) {
    const std::vector<T> got = reduce<T>(op, type, a, b);
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_EQ(got[i], static_cast<T>(f(a[i], b[i]))) << name(op) << " " << tn << " i=" << i;
  };
  each(MPI_MAX, [](T x, T y) { return x > y ? x : y; });
  each(MPI_MIN, [](T x, T y) { return x < y ? x : y; });
  each(MPI_SUM, [](T x, T y) { return x + y; });
  each(MPI_PROD, [](T x, T y) { return x * y; });
  EXPECT_EQ(validFor(MPI_BAND, type), bitwise) << tn;
  EXPECT_EQ(validFor(MPI_LAND, type), logical) << tn;
  if (bitwise) {
    each(MPI_BAND, [](T x, T y) { return x & y; });
    each(MPI_BOR, [](T x, T y) { return x | y; });
    each(MPI_BXOR, [](T x, T y) { return x ^ y; });
  }
  if (logical) {
    each(MPI_LAND, [](T x, T y) { return (x != 0) && (y != 0); });
    each(MPI_LOR, [](T x, T y) { return (x != 0) || (y != 0); });
    each(MPI_LXOR, [](T x, T y) { return (x != 0) != (y != 0); });
  }
  EXPECT_FALSE(validFor(MPI_MINLOC, type)) << tn;
}

TEST_F(OpTest, CIntegerTypes) {
  checkInteger<int>(MPI_INT, true, true);
  checkInteger<unsigned>(MPI_UNSIGNED, true, true);
  checkInteger<short>(MPI_SHORT, true, true);
  checkInteger<unsigned short>(MPI_UNSIGNED_SHORT, true, true);
  checkInteger<long>(MPI_LONG, true, true);
  checkInteger<unsigned long>(MPI_UNSIGNED_LONG, true, true);
  checkInteger<long long>(MPI_LONG_LONG, true, true);
  checkInteger<unsigned long long>(MPI_UNSIGNED_LONG_LONG, true, true);
  checkInteger<signed char>(MPI_SIGNED_CHAR, true, true);
  checkInteger<unsigned char>(MPI_UNSIGNED_CHAR, true, true);
  checkInteger<int8_t>(MPI_INT8_T, true, true);
  checkInteger<int16_t>(MPI_INT16_T, true, true);
  checkInteger<int32_t>(MPI_INT32_T, true, true);
  checkInteger<int64_t>(MPI_INT64_T, true, true);
  checkInteger<uint8_t>(MPI_UINT8_T, true, true);
  checkInteger<uint16_t>(MPI_UINT16_T, true, true);
  checkInteger<uint32_t>(MPI_UINT32_T, true, true);
  checkInteger<uint64_t>(MPI_UINT64_T, true, true);
}

TEST_F(OpTest, FortranIntegerTypes) {
  // Fortran integers: arithmetic and bitwise, but no logical ops.
  checkInteger<int32_t>(MPI_INTEGER, true, false);
  checkInteger<int8_t>(MPI_INTEGER1, true, false);
  checkInteger<int16_t>(MPI_INTEGER2, true, false);
  checkInteger<int32_t>(MPI_INTEGER4, true, false);
  checkInteger<int64_t>(MPI_INTEGER8, true, false);
}

TEST_F(OpTest, MultiLanguageTypes) {
  // MPI_AINT, MPI_OFFSET and MPI_COUNT are C integers in C: every integer operation,
  // the logical ones included (as MPICH and Open MPI allow; MPICH's tests use them).
  checkInteger<MPI_Aint>(MPI_AINT, true, true);
  checkInteger<MPI_Offset>(MPI_OFFSET, true, true);
  checkInteger<MPI_Count>(MPI_COUNT, true, true);
}

TEST_F(OpTest, SignedOverflowWraps) {
  const std::vector<int> got =
      reduce<int>(MPI_SUM, MPI_INT, {std::numeric_limits<int>::max()}, {1});
  EXPECT_EQ(got[0], std::numeric_limits<int>::min());
  const std::vector<short> p = reduce<short>(MPI_PROD, MPI_SHORT, {300}, {300});
  EXPECT_EQ(p[0], static_cast<short>(90000 & 0xffff));
}

template <typename T>
void checkFloating(MPI_Datatype type) {
  const std::vector<T> a = {T(1.5), T(-2), T(0.25), T(1e10)};
  const std::vector<T> b = {T(2.5), T(-3), T(0.25), T(-1e10)};
  const char* tn = datatype::predefinedName(type);
  auto each = [&](MPI_Op op, auto f) {
    const std::vector<T> got = reduce<T>(op, type, a, b);
    for (size_t i = 0; i < a.size(); ++i)
      EXPECT_TRUE(got[i] == static_cast<T>(f(a[i], b[i]))) << name(op) << " " << tn << " i=" << i;
  };
  each(MPI_MAX, [](T x, T y) { return x > y ? x : y; });
  each(MPI_MIN, [](T x, T y) { return x < y ? x : y; });
  each(MPI_SUM, [](T x, T y) { return x + y; });
  each(MPI_PROD, [](T x, T y) { return x * y; });
  for (MPI_Op op :
       {MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC})
    EXPECT_FALSE(validFor(op, type)) << name(op) << " " << tn;
  EXPECT_TRUE(validFor(MPI_REPLACE, type));
}

TEST_F(OpTest, FloatingTypes) {
  checkFloating<float>(MPI_FLOAT);
  checkFloating<double>(MPI_DOUBLE);
  checkFloating<long double>(MPI_LONG_DOUBLE);
  checkFloating<float>(MPI_REAL);
  checkFloating<double>(MPI_DOUBLE_PRECISION);
  checkFloating<float>(MPI_REAL4);
  checkFloating<double>(MPI_REAL8);
  checkFloating<__float128>(MPI_REAL16);
}

template <typename R>
void checkComplex(MPI_Datatype type) {
  using C = std::complex<R>;
  const std::vector<C> a = {C(1, 2), C(-3, 0.5), C(0, 1)};
  const std::vector<C> b = {C(4, -1), C(2, 2), C(0, 1)};
  const char* tn = datatype::predefinedName(type);
  const std::vector<C> s = reduce<C>(MPI_SUM, type, a, b);
  const std::vector<C> p = reduce<C>(MPI_PROD, type, a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(s[i], a[i] + b[i]) << tn << " sum i=" << i;
    EXPECT_EQ(p[i], a[i] * b[i]) << tn << " prod i=" << i;
  }
  for (MPI_Op op : {MPI_MAX, MPI_MIN, MPI_LAND, MPI_BAND, MPI_MINLOC})
    EXPECT_FALSE(validFor(op, type)) << name(op) << " " << tn;
}

TEST_F(OpTest, ComplexTypes) {
  checkComplex<float>(MPI_C_FLOAT_COMPLEX);
  checkComplex<float>(MPI_C_COMPLEX);
  checkComplex<double>(MPI_C_DOUBLE_COMPLEX);
  checkComplex<long double>(MPI_C_LONG_DOUBLE_COMPLEX);
  checkComplex<float>(MPI_COMPLEX);
  checkComplex<double>(MPI_DOUBLE_COMPLEX);
  checkComplex<float>(MPI_CXX_FLOAT_COMPLEX);
  checkComplex<double>(MPI_CXX_DOUBLE_COMPLEX);
  checkComplex<long double>(MPI_CXX_LONG_DOUBLE_COMPLEX);
  checkComplex<float>(MPI_COMPLEX8);
  checkComplex<double>(MPI_COMPLEX16);
}

TEST_F(OpTest, LogicalTypes) {
  // C bool: only logical ops; results are 0/1.
  const std::vector<bool> a = {false, false, true, true};
  const std::vector<bool> b = {false, true, false, true};
  auto run = [&](MPI_Datatype type, MPI_Op op) {
    unsigned char x[4], y[4];
    for (int i = 0; i < 4; ++i) {
      x[i] = a[i];
      y[i] = b[i];
    }
    EXPECT_EQ(apply(op, x, y, 4, type), MPI_SUCCESS);
    return std::vector<int>(y, y + 4);
  };
  for (MPI_Datatype t : {MPI_C_BOOL, MPI_CXX_BOOL}) {
    EXPECT_EQ(run(t, MPI_LAND), (std::vector<int>{0, 0, 0, 1}));
    EXPECT_EQ(run(t, MPI_LOR), (std::vector<int>{0, 1, 1, 1}));
    EXPECT_EQ(run(t, MPI_LXOR), (std::vector<int>{0, 1, 1, 0}));
    for (MPI_Op op : {MPI_SUM, MPI_MAX, MPI_BAND, MPI_MINLOC}) EXPECT_FALSE(validFor(op, t));
  }
  // Fortran LOGICAL: a 4-byte word, any non-zero value is true.
  int32_t x[3] = {0, 7, -1}, y[3] = {5, 0, 2};
  ASSERT_EQ(apply(MPI_LAND, x, y, 3, MPI_LOGICAL), MPI_SUCCESS);
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 0);
  EXPECT_EQ(y[2], 1);
  EXPECT_FALSE(validFor(MPI_SUM, MPI_LOGICAL));
}

TEST_F(OpTest, ByteIsBitwiseOnly) {
  unsigned char x[2] = {0xf0, 0x3c}, y[2] = {0x3c, 0x0f};
  ASSERT_EQ(apply(MPI_BXOR, x, y, 2, MPI_BYTE), MPI_SUCCESS);
  EXPECT_EQ(y[0], 0xcc);
  EXPECT_EQ(y[1], 0x33);
  for (MPI_Op op : {MPI_SUM, MPI_MAX, MPI_LAND, MPI_MINLOC}) EXPECT_FALSE(validFor(op, MPI_BYTE));
  EXPECT_TRUE(validFor(MPI_BAND, MPI_BYTE));
}

TEST_F(OpTest, ValidityMatrixExamples) {
  EXPECT_FALSE(validFor(MPI_SUM, MPI_2INT));
  EXPECT_FALSE(validFor(MPI_MAX, MPI_DOUBLE_INT));
  EXPECT_TRUE(validFor(MPI_MINLOC, MPI_2INT));
  EXPECT_TRUE(validFor(MPI_MAXLOC, MPI_LONG_DOUBLE_INT));
  EXPECT_FALSE(validFor(MPI_SUM, MPI_PACKED));
  EXPECT_FALSE(validFor(MPI_SUM, MPI_CHARACTER));
  EXPECT_FALSE(validFor(MPI_SUM, MPI_WCHAR));
  EXPECT_TRUE(validFor(MPI_REPLACE, MPI_PACKED));
  EXPECT_TRUE(validFor(MPI_NO_OP, MPI_2INT));
  EXPECT_FALSE(validFor(MPI_OP_NULL, MPI_INT));
  EXPECT_FALSE(validFor(MPI_SUM, MPI_DATATYPE_NULL));
  EXPECT_FALSE(validFor(MPI_COMM_WORLD, MPI_INT));  // not an op handle
  int x = 1, y = 2;
  clearErrorCause();
  EXPECT_EQ(apply(MPI_SUM, &x, &y, 1, MPI_2INT), MPI_ERR_OP);
  EXPECT_NE(lastErrorCause().find("MPI_SUM"), std::string::npos) << lastErrorCause();
  EXPECT_NE(lastErrorCause().find("MPI_2INT"), std::string::npos) << lastErrorCause();
  EXPECT_EQ(apply(MPI_OP_NULL, &x, &y, 1, MPI_INT), MPI_ERR_OP);
  EXPECT_EQ(y, 2);
}

// MINLOC/MAXLOC: value min/max; on a tie the smaller index, whichever side it is on.
template <typename V, typename I>
void checkLoc(MPI_Datatype type) {
  struct P {
    V v;
    I i;
  };
  const char* tn = datatype::predefinedName(type);
  std::vector<P> in = {{V(1), I(5)}, {V(3), I(2)}, {V(2), I(7)}, {V(2), I(1)}, {V(4), I(0)}};
  std::vector<P> io = {{V(2), I(0)}, {V(1), I(9)}, {V(2), I(3)}, {V(2), I(4)}, {V(4), I(0)}};
  std::vector<P> mn = io, mx = io;
  ASSERT_EQ(apply(MPI_MINLOC, in.data(), mn.data(), 5, type), MPI_SUCCESS) << tn;
  ASSERT_EQ(apply(MPI_MAXLOC, in.data(), mx.data(), 5, type), MPI_SUCCESS) << tn;
  const V minV[] = {1, 1, 2, 2, 4}, maxV[] = {2, 3, 2, 2, 4};
  const I minI[] = {5, 9, 3, 1, 0}, maxI[] = {0, 2, 3, 1, 0};
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(mn[k].v, minV[k]) << tn << " minloc k=" << k;
    EXPECT_EQ(mn[k].i, minI[k]) << tn << " minloc k=" << k;
    EXPECT_EQ(mx[k].v, maxV[k]) << tn << " maxloc k=" << k;
    EXPECT_EQ(mx[k].i, maxI[k]) << tn << " maxloc k=" << k;
  }
}

TEST_F(OpTest, MinlocMaxlocTies) {
  checkLoc<float, int>(MPI_FLOAT_INT);
  checkLoc<double, int>(MPI_DOUBLE_INT);
  checkLoc<long, int>(MPI_LONG_INT);
  checkLoc<int, int>(MPI_2INT);
  checkLoc<short, int>(MPI_SHORT_INT);
  checkLoc<long double, int>(MPI_LONG_DOUBLE_INT);
  checkLoc<float, float>(MPI_2REAL);
  checkLoc<double, double>(MPI_2DOUBLE_PRECISION);
  checkLoc<int32_t, int32_t>(MPI_2INTEGER);
}

TEST_F(OpTest, MinlocThroughDerivedPairType) {
  // A contiguous type of 3 MPI_DOUBLE_INT: records have padding, so the engine's packed
  // layout (12 bytes) differs from memory (16 bytes) and the packed kernel is used.
  MPI_Datatype t3;
  ASSERT_EQ(datatype::createContiguous(3, MPI_DOUBLE_INT, &t3), MPI_SUCCESS);
  ASSERT_EQ(datatype::commit(t3), MPI_SUCCESS);
  struct P {
    double v;
    int i;
  };
  P in[6] = {{1, 4}, {5, 1}, {2, 2}, {0, 0}, {7, 7}, {3, 3}};
  P io[6] = {{1, 2}, {4, 0}, {2, 9}, {1, 1}, {7, 3}, {3, 8}};
  ASSERT_EQ(apply(MPI_MINLOC, in, io, 2, t3), MPI_SUCCESS);
  const double v[] = {1, 4, 2, 0, 7, 3};
  const int i[] = {2, 0, 2, 0, 3, 3};
  for (int k = 0; k < 6; ++k) {
    EXPECT_EQ(io[k].v, v[k]) << k;
    EXPECT_EQ(io[k].i, i[k]) << k;
  }
  EXPECT_TRUE(validFor(MPI_MAXLOC, t3));
  EXPECT_FALSE(validFor(MPI_SUM, t3));
  datatype::free(&t3);
}

TEST_F(OpTest, DerivedContiguousAndStrided) {
  // vector(count 3, blocklen 2, stride 3) of int: elements 0,1,3,4,6,7 of each 9... with
  // extent 8 ints, so consecutive elements start 8 ints apart.
  MPI_Datatype vec, cont;
  ASSERT_EQ(datatype::createVector(3, 2, 3, MPI_INT, &vec), MPI_SUCCESS);
  ASSERT_EQ(datatype::commit(vec), MPI_SUCCESS);
  ASSERT_EQ(datatype::createContiguous(4, MPI_DOUBLE, &cont), MPI_SUCCESS);
  ASSERT_EQ(datatype::commit(cont), MPI_SUCCESS);
  const datatype::Datatype* dv = datatype::lookup(vec);
  ASSERT_EQ(dv->extent(), 8 * static_cast<int64_t>(sizeof(int)));
  const int count = 2;
  std::vector<int> in(16), io(16);
  for (int k = 0; k < 16; ++k) {
    in[k] = 100 + k;
    io[k] = k;
  }
  ASSERT_EQ(apply(MPI_SUM, in.data(), io.data(), count, vec), MPI_SUCCESS);
  for (int e = 0; e < count; ++e)
    for (int k = 0; k < 8; ++k) {
      const int idx = e * 8 + k;
      const bool selected = (k % 3) < 2 && k < 8 && (k / 3) < 3;
      EXPECT_EQ(io[idx], selected ? 100 + 2 * idx : idx) << "idx " << idx;
    }
  std::vector<double> a(8, 1.5), b(8, 2.0);
  ASSERT_EQ(apply(MPI_PROD, a.data(), b.data(), 2, cont), MPI_SUCCESS);
  for (double d : b) EXPECT_EQ(d, 3.0);
  EXPECT_FALSE(validFor(MPI_BAND, cont));
  EXPECT_TRUE(validFor(MPI_BAND, vec));
  datatype::free(&vec);
  datatype::free(&cont);
}

TEST_F(OpTest, LargeStridedUsesChunks) {
  // 100k doubles every other slot: more than one 64 KiB scratch chunk.
  MPI_Datatype vec;
  const int n = 100000;
  ASSERT_EQ(datatype::createVector(n, 1, 2, MPI_DOUBLE, &vec), MPI_SUCCESS);
  ASSERT_EQ(datatype::commit(vec), MPI_SUCCESS);
  std::vector<double> in(2 * n), io(2 * n);
  for (int k = 0; k < 2 * n; ++k) {
    in[k] = k;
    io[k] = -1;
  }
  ASSERT_EQ(apply(MPI_MAX, in.data(), io.data(), 1, vec), MPI_SUCCESS);
  for (int k = 0; k < 2 * n; ++k) ASSERT_EQ(io[k], k % 2 == 0 ? k : -1) << k;
  datatype::free(&vec);
}

TEST_F(OpTest, MixedStructOnlyReplace) {
  struct S {
    int a;
    double b;
  };
  const int bl[2] = {1, 1};
  const MPI_Aint disp[2] = {offsetof(S, a), offsetof(S, b)};
  const MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Datatype st;
  ASSERT_EQ(datatype::createStruct(2, bl, disp, types, &st), MPI_SUCCESS);
  ASSERT_EQ(datatype::commit(st), MPI_SUCCESS);
  EXPECT_FALSE(validFor(MPI_SUM, st));
  EXPECT_TRUE(validFor(MPI_REPLACE, st));
  S in[2] = {{1, 2.5}, {3, 4.5}}, io[2] = {{0, 0}, {0, 0}};
  EXPECT_EQ(apply(MPI_SUM, in, io, 2, st), MPI_ERR_OP);
  ASSERT_EQ(apply(MPI_REPLACE, in, io, 2, st), MPI_SUCCESS);
  EXPECT_EQ(io[1].a, 3);
  EXPECT_EQ(io[1].b, 4.5);
  ASSERT_EQ(apply(MPI_NO_OP, io, in, 2, st), MPI_SUCCESS);
  EXPECT_EQ(in[0].a, 1);
  datatype::free(&st);
}

// A non-commutative user op: 2x2 integer matrix product, inout = in * inout.
MPI_Datatype gSeenType = MPI_DATATYPE_NULL;
int gSeenLen = -1;
int gCalls = 0;
void matmul(void* invec, void* inoutvec, int* len, MPI_Datatype* type) {
  ++gCalls;
  gSeenType = *type;
  gSeenLen = *len;
  const int* a = static_cast<const int*>(invec);
  int* b = static_cast<int*>(inoutvec);
  const int per = 4;
  // With MPI_INT the matrices are 4 consecutive ints; len counts ints.
  for (int m = 0; m + per <= *len; m += per) {
    const int* x = a + m;
    int* y = b + m;
    const int r0 = x[0] * y[0] + x[1] * y[2], r1 = x[0] * y[1] + x[1] * y[3];
    const int r2 = x[2] * y[0] + x[3] * y[2], r3 = x[2] * y[1] + x[3] * y[3];
    y[0] = r0;
    y[1] = r1;
    y[2] = r2;
    y[3] = r3;
  }
}

TEST_F(OpTest, UserOpOrderAndArguments) {
  const size_t before = liveUserOps();
  MPI_Op op = create(matmul, false);
  ASSERT_NE(op, MPI_OP_NULL);
  EXPECT_EQ(liveUserOps(), before + 1);
  EXPECT_FALSE(isCommutative(op));
  EXPECT_TRUE(validFor(op, MPI_INT));
  EXPECT_TRUE(validFor(op, MPI_2INT));  // user ops apply to every type
  int a[4] = {1, 2, 3, 4}, b[4] = {0, 1, 1, 0};
  gCalls = 0;
  ASSERT_EQ(apply(op, a, b, 4, MPI_INT), MPI_SUCCESS);
  EXPECT_EQ(gCalls, 1);
  EXPECT_EQ(gSeenType, MPI_INT);
  EXPECT_EQ(gSeenLen, 4);
  // b = a * b_old = [[1,2],[3,4]] * [[0,1],[1,0]] = [[2,1],[4,3]] (not b_old * a).
  EXPECT_EQ(b[0], 2);
  EXPECT_EQ(b[1], 1);
  EXPECT_EQ(b[2], 4);
  EXPECT_EQ(b[3], 3);
  // Count 0 does not call the function.
  gCalls = 0;
  ASSERT_EQ(apply(op, a, b, 0, MPI_INT), MPI_SUCCESS);
  EXPECT_EQ(gCalls, 0);
  MPI_Op copy = op;
  ASSERT_EQ(free(&op), MPI_SUCCESS);
  EXPECT_EQ(op, MPI_OP_NULL);
  EXPECT_EQ(lookup(copy), nullptr);
  EXPECT_EQ(liveUserOps(), before);
  MPI_Op sum = MPI_SUM;
  EXPECT_EQ(free(&sum), MPI_ERR_OP);
  EXPECT_EQ(sum, MPI_SUM);
}

TEST_F(OpTest, UserOpGetsDerivedTypeHandle) {
  MPI_Datatype mat;
  ASSERT_EQ(datatype::createContiguous(4, MPI_INT, &mat), MPI_SUCCESS);
  ASSERT_EQ(datatype::commit(mat), MPI_SUCCESS);
  MPI_Op op = create(
      [](void* in, void* io, int* len, MPI_Datatype* t) {
        gSeenType = *t;
        gSeenLen = *len;
        int* x = static_cast<int*>(in);
        int* y = static_cast<int*>(io);
        for (int k = 0; k < *len * 4; ++k) y[k] = x[k] - y[k];
      },
      true);
  int a[8] = {10, 10, 10, 10, 20, 20, 20, 20}, b[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  ASSERT_EQ(apply(op, a, b, 2, mat), MPI_SUCCESS);
  EXPECT_EQ(gSeenType, mat);
  EXPECT_EQ(gSeenLen, 2);
  EXPECT_EQ(b[0], 9);
  EXPECT_EQ(b[7], 12);
  EXPECT_TRUE(isCommutative(op));
  free(&op);
  datatype::free(&mat);
}

TEST_F(OpTest, RetainKeepsFreedOpUsable) {
  MPI_Op op = create(matmul, false);
  MPI_Op held = op;
  retain(held);
  ASSERT_EQ(free(&op), MPI_SUCCESS);
  EXPECT_EQ(lookup(held), nullptr);  // the user's handle is gone
  int a[4] = {1, 0, 0, 1}, b[4] = {5, 6, 7, 8};
  EXPECT_EQ(apply(held, a, b, 4, MPI_INT), MPI_SUCCESS);  // but an operation may finish
  EXPECT_EQ(b[0], 5);
  const size_t live = liveUserOps();
  release(held);
  EXPECT_EQ(liveUserOps(), live - 1);
}

TEST_F(OpTest, PredefinedNamesAndCommutativity) {
  EXPECT_STREQ(name(MPI_MAXLOC), "MPI_MAXLOC");
  EXPECT_STREQ(name(MPI_NO_OP), "MPI_NO_OP");
  for (MPI_Op op = MPI_MAX; op <= MPI_NO_OP; ++op) {
    ASSERT_NE(lookup(op), nullptr);
    EXPECT_TRUE(lookup(op)->predefined);
    EXPECT_TRUE(isCommutative(op));
  }
  EXPECT_EQ(lookup(MPI_OP_NULL), nullptr);
}

}  // namespace
}  // namespace ccmpi::op
