// datatype/: predefined layouts, bounds of every constructor (negative displacements,
// resized types, MPI_LB/MPI_UB markers, struct padding), subarray/darray against a
// brute-force ownership model, contiguity detection, MPI_Get_elements counting,
// lifetime of freed types, envelope/contents, attributes, external32, and pack/unpack
// of random byte ranges of random nested types against a naive byte-by-byte reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "base/error.h"
#include "datatype/datatype.h"
#include "datatype/plan.h"

using namespace ccmpi;
using datatype::Datatype;

namespace {

Datatype* dt(MPI_Datatype h) {
  Datatype* t = datatype::lookup(h);
  EXPECT_NE(t, nullptr) << "handle 0x" << std::hex << h;
  return t;
}

MPI_Datatype committed(MPI_Datatype h) {
  EXPECT_EQ(datatype::commit(h), MPI_SUCCESS);
  return h;
}

void freeType(MPI_Datatype h) {
  EXPECT_EQ(datatype::free(&h), MPI_SUCCESS);
}

struct Bounds {
  int64_t lb, extent, trueLb, trueExtent, size;
};

void expectBounds(MPI_Datatype h, Bounds b) {
  const Datatype* t = dt(h);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->lb(), b.lb) << "lb";
  EXPECT_EQ(t->extent(), b.extent) << "extent";
  EXPECT_EQ(t->trueLb(), b.trueLb) << "true lb";
  EXPECT_EQ(t->trueExtent(), b.trueExtent) << "true extent";
  EXPECT_EQ(t->size(), b.size) << "size";
}

std::vector<datatype::Block> blocksOf(MPI_Datatype h) {
  committed(h);
  return dt(h)->blocks();
}

class DatatypeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    datatype::initPredefined();
    live_ = datatype::liveTypes();
  }
  void TearDown() override { EXPECT_EQ(datatype::liveTypes(), live_) << "leaked datatypes"; }
  size_t live_ = 0;
};

// ---------------------------------------------------------------------------------------
// Predefined types
// ---------------------------------------------------------------------------------------

TEST_F(DatatypeTest, BasicTypesHaveCSizes) {
  struct {
    MPI_Datatype h;
    int64_t size;
    const char* name;
  } cases[] = {
      {MPI_CHAR, 1, "MPI_CHAR"},
      {MPI_SHORT, sizeof(short), "MPI_SHORT"},
      {MPI_INT, sizeof(int), "MPI_INT"},
      {MPI_LONG, sizeof(long), "MPI_LONG"},
      {MPI_LONG_LONG, sizeof(long long), "MPI_LONG_LONG_INT"},
      {MPI_FLOAT, sizeof(float), "MPI_FLOAT"},
      {MPI_DOUBLE, sizeof(double), "MPI_DOUBLE"},
      {MPI_LONG_DOUBLE, sizeof(long double), "MPI_LONG_DOUBLE"},
      {MPI_WCHAR, sizeof(wchar_t), "MPI_WCHAR"},
      {MPI_C_BOOL, 1, "MPI_C_BOOL"},
      {MPI_INT8_T, 1, "MPI_INT8_T"},
      {MPI_UINT64_T, 8, "MPI_UINT64_T"},
      {MPI_AINT, sizeof(MPI_Aint), "MPI_AINT"},
      {MPI_OFFSET, sizeof(MPI_Offset), "MPI_OFFSET"},
      {MPI_COUNT, sizeof(MPI_Count), "MPI_COUNT"},
      {MPI_C_COMPLEX, 8, "MPI_C_FLOAT_COMPLEX"},
      {MPI_C_DOUBLE_COMPLEX, 16, "MPI_C_DOUBLE_COMPLEX"},
      {MPI_C_LONG_DOUBLE_COMPLEX, 2 * sizeof(long double), "MPI_C_LONG_DOUBLE_COMPLEX"},
      {MPI_BYTE, 1, "MPI_BYTE"},
      {MPI_PACKED, 1, "MPI_PACKED"},
      {MPI_CHARACTER, 1, "MPI_CHARACTER"},
      {MPI_LOGICAL, 4, "MPI_LOGICAL"},
      {MPI_INTEGER, 4, "MPI_INTEGER"},
      {MPI_REAL, 4, "MPI_REAL"},
      {MPI_DOUBLE_PRECISION, 8, "MPI_DOUBLE_PRECISION"},
      {MPI_COMPLEX, 8, "MPI_COMPLEX"},
      {MPI_DOUBLE_COMPLEX, 16, "MPI_DOUBLE_COMPLEX"},
      {MPI_INTEGER1, 1, "MPI_INTEGER1"},
      {MPI_INTEGER2, 2, "MPI_INTEGER2"},
      {MPI_INTEGER4, 4, "MPI_INTEGER4"},
      {MPI_INTEGER8, 8, "MPI_INTEGER8"},
      {MPI_REAL4, 4, "MPI_REAL4"},
      {MPI_REAL8, 8, "MPI_REAL8"},
      {MPI_REAL16, 16, "MPI_REAL16"},
      {MPI_COMPLEX8, 8, "MPI_COMPLEX8"},
      {MPI_COMPLEX16, 16, "MPI_COMPLEX16"},
      {MPI_COMPLEX32, 32, "MPI_COMPLEX32"},
      {MPI_CXX_BOOL, sizeof(bool), "MPI_CXX_BOOL"},
      {MPI_CXX_FLOAT_COMPLEX, 8, "MPI_CXX_FLOAT_COMPLEX"},
      {MPI_CXX_DOUBLE_COMPLEX, 16, "MPI_CXX_DOUBLE_COMPLEX"},
      {MPI_CXX_LONG_DOUBLE_COMPLEX, 2 * sizeof(long double), "MPI_CXX_LONG_DOUBLE_COMPLEX"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const Datatype* t = dt(c.h);
    ASSERT_NE(t, nullptr);
    EXPECT_TRUE(t->predefined());
    EXPECT_TRUE(t->committed());
    EXPECT_TRUE(t->contiguous());
    EXPECT_EQ(t->name(), c.name);
    EXPECT_STREQ(datatype::predefinedName(c.h), c.name);
    expectBounds(c.h, {0, c.size, 0, c.size, c.size});
    EXPECT_EQ(t->basicType(), c.h);
    EXPECT_EQ(t->basicCount(), 1);
    EXPECT_EQ(t->elements(), 1);
  }
}

TEST_F(DatatypeTest, EveryPredefinedHandleResolves) {
  for (int i = 1; i <= CCMPI_DATATYPE_PREDEFINED_MAX; ++i) {
    const MPI_Datatype h = makeHandle(HandleKind::kDatatype, i);
    const Datatype* t = datatype::lookup(h);
    ASSERT_NE(t, nullptr) << "index " << i;
    EXPECT_TRUE(t->predefined());
    EXPECT_FALSE(t->name().empty());
  }
  EXPECT_EQ(datatype::lookup(MPI_DATATYPE_NULL), nullptr);
  EXPECT_EQ(datatype::lookup(MPI_COMM_WORLD), nullptr);
}

template <typename A, typename B>
struct CPair {
  A a;
  B b;
};

template <typename A, typename B>
void expectPairLayout(MPI_Datatype h, MPI_Datatype first, MPI_Datatype second) {
  using P = CPair<A, B>;
  SCOPED_TRACE(dt(h)->name());
  const int64_t off = offsetof(P, b);
  expectBounds(h, {0, static_cast<int64_t>(sizeof(P)), 0, off + static_cast<int64_t>(sizeof(B)),
                   static_cast<int64_t>(sizeof(A) + sizeof(B))});
  const Datatype* t = dt(h);
  EXPECT_EQ(t->basicType(), h);
  EXPECT_EQ(t->basicKind(), datatype::BasicKind::kPair);
  EXPECT_EQ(t->elements(), 2);
  // The packed record is the value followed by the index.
  P p[2];
  std::memset(p, 0, sizeof p);
  unsigned char* raw = reinterpret_cast<unsigned char*>(p);
  for (size_t i = 0; i < sizeof p; ++i) raw[i] = static_cast<unsigned char>(i);
  std::vector<unsigned char> packed(2 * t->size());
  EXPECT_EQ(t->pack(p, 2, 0, packed.data(), packed.size()), packed.size());
  for (int e = 0; e < 2; ++e) {
    const unsigned char* rec = packed.data() + e * t->size();
    EXPECT_EQ(std::memcmp(rec, &p[e].a, sizeof(A)), 0);
    EXPECT_EQ(std::memcmp(rec + sizeof(A), &p[e].b, sizeof(B)), 0);
  }
  // elementsIn: the value alone is one element, value + index two.
  EXPECT_EQ(t->elementsIn(dt(first)->size()), 1);
  EXPECT_EQ(t->elementsIn(t->size()), 2);
  EXPECT_EQ(t->elementsIn(2 * t->size()), 4);
  (void)second;
}

TEST_F(DatatypeTest, PairTypesHaveCStructLayouts) {
  expectPairLayout<float, int>(MPI_FLOAT_INT, MPI_FLOAT, MPI_INT);
  expectPairLayout<double, int>(MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT);
  expectPairLayout<long, int>(MPI_LONG_INT, MPI_LONG, MPI_INT);
  expectPairLayout<int, int>(MPI_2INT, MPI_INT, MPI_INT);
  expectPairLayout<short, int>(MPI_SHORT_INT, MPI_SHORT, MPI_INT);
  expectPairLayout<long double, int>(MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT);
  expectPairLayout<float, float>(MPI_2REAL, MPI_REAL, MPI_REAL);
  expectPairLayout<double, double>(MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION,
                                   MPI_DOUBLE_PRECISION);
  expectPairLayout<int, int>(MPI_2INTEGER, MPI_INTEGER, MPI_INTEGER);
  // Concrete numbers for x86-64, as MPICH and Open MPI report them.
  expectBounds(MPI_DOUBLE_INT, {0, 16, 0, 12, 12});
  expectBounds(MPI_SHORT_INT, {0, 8, 0, 8, 6});
  expectBounds(MPI_LONG_DOUBLE_INT, {0, 32, 0, 20, 20});
  EXPECT_FALSE(dt(MPI_DOUBLE_INT)->contiguous());
  EXPECT_TRUE(dt(MPI_2INT)->contiguous());
  EXPECT_EQ(blocksOf(MPI_SHORT_INT), (std::vector<datatype::Block>{{0, 2}, {4, 4}}));
}

TEST_F(DatatypeTest, Markers) {
  expectBounds(MPI_LB, {0, 0, 0, 0, 0});
  expectBounds(MPI_UB, {0, 0, 0, 0, 0});
  EXPECT_EQ(dt(MPI_LB)->elements(), 0);
}

// ---------------------------------------------------------------------------------------
// Bounds of the constructors
// ---------------------------------------------------------------------------------------

TEST_F(DatatypeTest, ContiguousAndVector) {
  MPI_Datatype c, v, neg, hv, empty;
  ASSERT_EQ(datatype::createContiguous(3, MPI_INT, &c), MPI_SUCCESS);
  expectBounds(c, {0, 12, 0, 12, 12});
  ASSERT_EQ(datatype::createVector(3, 2, 4, MPI_DOUBLE, &v), MPI_SUCCESS);
  expectBounds(v, {0, 80, 0, 80, 48});
  EXPECT_EQ(blocksOf(v), (std::vector<datatype::Block>{{0, 16}, {32, 16}, {64, 16}}));
  ASSERT_EQ(datatype::createVector(3, 1, -2, MPI_INT, &neg), MPI_SUCCESS);
  expectBounds(neg, {-16, 20, -16, 20, 12});
  EXPECT_EQ(blocksOf(neg), (std::vector<datatype::Block>{{0, 4}, {-8, 4}, {-16, 4}}));
  // A byte stride that breaks the alignment adds no padding outside structs.
  ASSERT_EQ(datatype::createHvector(2, 1, 3, MPI_INT, &hv), MPI_SUCCESS);
  expectBounds(hv, {0, 7, 0, 7, 8});
  ASSERT_EQ(datatype::createContiguous(0, MPI_INT, &empty), MPI_SUCCESS);
  expectBounds(empty, {0, 0, 0, 0, 0});
  EXPECT_EQ(dt(empty)->basicType(), MPI_INT);
  EXPECT_TRUE(dt(committed(empty))->contiguous());
  for (MPI_Datatype h : {c, v, neg, hv, empty}) freeType(h);
}

TEST_F(DatatypeTest, IndexedFamilies) {
  MPI_Datatype ix, hx, ib, hb;
  const int bl[] = {2, 1, 0};
  const int disp[] = {3, 0, 100};
  ASSERT_EQ(datatype::createIndexed(3, bl, disp, MPI_INT, &ix), MPI_SUCCESS);
  expectBounds(ix, {0, 20, 0, 20, 12});  // the empty block at 100 does not count
  EXPECT_EQ(blocksOf(ix), (std::vector<datatype::Block>{{12, 8}, {0, 4}}));
  const MPI_Aint hdisp[] = {-8, 16};
  const int hbl[] = {1, 2};
  ASSERT_EQ(datatype::createHindexed(2, hbl, hdisp, MPI_DOUBLE, &hx), MPI_SUCCESS);
  expectBounds(hx, {-8, 40, -8, 40, 24});
  const int bdisp[] = {4, -2};
  ASSERT_EQ(datatype::createIndexedBlock(2, 2, bdisp, MPI_SHORT, &ib), MPI_SUCCESS);
  expectBounds(ib, {-4, 16, -4, 16, 8});
  const MPI_Aint bhdisp[] = {5, 1};
  ASSERT_EQ(datatype::createHindexedBlock(2, 3, bhdisp, MPI_CHAR, &hb), MPI_SUCCESS);
  expectBounds(hb, {1, 7, 1, 7, 6});
  EXPECT_EQ(blocksOf(hb), (std::vector<datatype::Block>{{5, 3}, {1, 3}}));
  for (MPI_Datatype h : {ix, hx, ib, hb}) freeType(h);
}

TEST_F(DatatypeTest, StructPaddingFollowsAlignment) {
  MPI_Datatype a, b, c, d;
  {
    const int bl[] = {1, 1};
    const MPI_Aint disp[] = {0, 4};
    const MPI_Datatype ty[] = {MPI_INT, MPI_CHAR};
    ASSERT_EQ(datatype::createStruct(2, bl, disp, ty, &a), MPI_SUCCESS);
    expectBounds(a, {0, 8, 0, 5, 5});  // struct {int; char;} is 8 bytes
  }
  {
    const int bl[] = {1, 1};
    const MPI_Aint disp[] = {0, 8};
    const MPI_Datatype ty[] = {MPI_DOUBLE, MPI_CHAR};
    ASSERT_EQ(datatype::createStruct(2, bl, disp, ty, &b), MPI_SUCCESS);
    expectBounds(b, {0, 16, 0, 9, 9});
  }
  {
    const int bl[] = {3};
    const MPI_Aint disp[] = {0};
    const MPI_Datatype ty[] = {MPI_CHAR};
    ASSERT_EQ(datatype::createStruct(1, bl, disp, ty, &c), MPI_SUCCESS);
    expectBounds(c, {0, 3, 0, 3, 3});
  }
  {
    // A struct of structs keeps the inner alignment: {char; {double; char}} -> 8 + 16 = 24.
    const int bl[] = {1, 1};
    const MPI_Aint disp[] = {0, 8};
    const MPI_Datatype ty[] = {MPI_CHAR, b};
    ASSERT_EQ(datatype::createStruct(2, bl, disp, ty, &d), MPI_SUCCESS);
    expectBounds(d, {0, 24, 0, 17, 10});
  }
  struct S {
    char c;
    struct {
      double x;
      char y;
    } in;
  };
  EXPECT_EQ(dt(d)->extent(), static_cast<int64_t>(sizeof(S)));
  for (MPI_Datatype h : {a, b, c, d}) freeType(h);
}

TEST_F(DatatypeTest, StructWithLbUbMarkers) {
  MPI_Datatype s, u, l, nested;
  {
    const int bl[] = {1, 1, 1};
    const MPI_Aint disp[] = {-4, 0, 12};
    const MPI_Datatype ty[] = {MPI_LB, MPI_INT, MPI_UB};
    ASSERT_EQ(datatype::createStruct(3, bl, disp, ty, &s), MPI_SUCCESS);
    expectBounds(s, {-4, 16, 0, 4, 4});
  }
  {
    // An explicit upper bound: no alignment padding.
    const int bl[] = {1, 1};
    const MPI_Aint disp[] = {0, 6};
    const MPI_Datatype ty[] = {MPI_INT, MPI_UB};
    ASSERT_EQ(datatype::createStruct(2, bl, disp, ty, &u), MPI_SUCCESS);
    expectBounds(u, {0, 6, 0, 4, 4});
  }
  {
    // Lower bound marker above the data: lb is the marker, ub from the data.
    const int bl[] = {1, 1};
    const MPI_Aint disp[] = {2, 8};
    const MPI_Datatype ty[] = {MPI_DOUBLE, MPI_LB};
    ASSERT_EQ(datatype::createStruct(2, bl, disp, ty, &l), MPI_SUCCESS);
    expectBounds(l, {8, 2, 2, 8, 8});
  }
  // Markers are sticky: a vector of s keeps s's bounds per element.
  ASSERT_EQ(datatype::createContiguous(2, s, &nested), MPI_SUCCESS);
  expectBounds(nested, {-4, 32, 0, 20, 8});
  for (MPI_Datatype h : {s, u, l, nested}) freeType(h);
}

TEST_F(DatatypeTest, ResizedTypes) {
  MPI_Datatype r, c, st, neg;
  ASSERT_EQ(datatype::createResized(MPI_INT, -2, 10, &r), MPI_SUCCESS);
  expectBounds(r, {-2, 10, 0, 4, 4});
  EXPECT_FALSE(dt(committed(r))->contiguous());
  ASSERT_EQ(datatype::createContiguous(2, r, &c), MPI_SUCCESS);
  expectBounds(c, {-2, 20, 0, 14, 8});
  EXPECT_EQ(blocksOf(c), (std::vector<datatype::Block>{{0, 4}, {10, 4}}));
  // A struct holding a resized type takes no padding (its bounds are explicit).
  const int bl[] = {1};
  const MPI_Aint disp[] = {0};
  const MPI_Datatype ty[] = {r};
  ASSERT_EQ(datatype::createStruct(1, bl, disp, ty, &st), MPI_SUCCESS);
  expectBounds(st, {-2, 10, 0, 4, 4});
  // Negative extent: elements go downwards.
  ASSERT_EQ(datatype::createResized(MPI_INT, 0, -8, &neg), MPI_SUCCESS);
  MPI_Datatype down;
  ASSERT_EQ(datatype::createContiguous(3, neg, &down), MPI_SUCCESS);
  expectBounds(down, {-16, 8, -16, 20, 12});
  for (MPI_Datatype h : {r, c, st, neg, down}) freeType(h);
}

TEST_F(DatatypeTest, DupKeepsEverything) {
  MPI_Datatype v, d;
  ASSERT_EQ(datatype::createVector(2, 1, 3, MPI_FLOAT, &v), MPI_SUCCESS);
  ASSERT_EQ(datatype::dup(v, &d), MPI_SUCCESS);
  expectBounds(d, {0, 16, 0, 16, 8});
  EXPECT_FALSE(dt(d)->committed());  // dup of an uncommitted type
  freeType(d);
  committed(v);
  ASSERT_EQ(datatype::dup(v, &d), MPI_SUCCESS);
  EXPECT_TRUE(dt(d)->committed());
  EXPECT_EQ(dt(d)->blocks(), dt(v)->blocks());
  freeType(d);
  ASSERT_EQ(datatype::dup(MPI_DOUBLE_INT, &d), MPI_SUCCESS);
  expectBounds(d, {0, 16, 0, 12, 12});
  EXPECT_FALSE(dt(d)->predefined());
  EXPECT_EQ(dt(d)->basicType(), MPI_DOUBLE_INT);
  freeType(d);
  freeType(v);
}

// ---------------------------------------------------------------------------------------
// Subarray and darray against a brute-force model
// ---------------------------------------------------------------------------------------

// Global linear indices (ints in C or Fortran order) selected by a predicate, in type-map
// order: the same order as the memory order of the array.
template <typename Owned>
std::vector<int> selectIndices(const std::vector<int>& sizes, int order, Owned owned) {
  const int n = static_cast<int>(sizes.size());
  int total = 1;
  for (int s : sizes) total *= s;
  std::vector<int> out;
  std::vector<int> x(n);
  for (int lin = 0; lin < total; ++lin) {
    int r = lin;
    if (order == MPI_ORDER_C) {
      for (int i = n - 1; i >= 0; --i) {
        x[i] = r % sizes[i];
        r /= sizes[i];
      }
    } else {
      for (int i = 0; i < n; ++i) {
        x[i] = r % sizes[i];
        r /= sizes[i];
      }
    }
    bool ok = true;
    for (int i = 0; i < n && ok; ++i) ok = owned(i, x[i]);
    if (ok) out.push_back(lin);
  }
  return out;
}

std::vector<int> packIndices(MPI_Datatype h, int total) {
  std::vector<int> global(total);
  for (int i = 0; i < total; ++i) global[i] = i;
  const Datatype* t = dt(committed(h));
  std::vector<int> out(t->size() / sizeof(int));
  EXPECT_EQ(t->pack(global.data(), 1, 0, out.data(), t->size()), static_cast<size_t>(t->size()));
  return out;
}

TEST_F(DatatypeTest, Subarray) {
  for (int order : {MPI_ORDER_C, MPI_ORDER_FORTRAN}) {
    const std::vector<int> sizes = {4, 5, 3}, sub = {2, 3, 2}, start = {1, 2, 0};
    MPI_Datatype h;
    ASSERT_EQ(
        datatype::createSubarray(3, sizes.data(), sub.data(), start.data(), order, MPI_INT, &h),
        MPI_SUCCESS);
    const std::vector<int> expect = selectIndices(
        sizes, order, [&](int i, int x) { return x >= start[i] && x < start[i] + sub[i]; });
    EXPECT_EQ(packIndices(h, 60), expect);
    const Datatype* t = dt(h);
    EXPECT_EQ(t->lb(), 0);
    EXPECT_EQ(t->extent(), 60 * 4);
    EXPECT_EQ(t->trueLb(), expect.front() * 4);
    EXPECT_EQ(t->trueExtent(), (expect.back() - expect.front() + 1) * 4);
    EXPECT_EQ(t->combiner_, MPI_COMBINER_SUBARRAY);
    freeType(h);
  }
  // The classic 2-D case, as numbers.
  const int sizes[] = {4, 5}, sub[] = {2, 3}, start[] = {1, 2};
  MPI_Datatype h;
  ASSERT_EQ(datatype::createSubarray(2, sizes, sub, start, MPI_ORDER_C, MPI_INT, &h), MPI_SUCCESS);
  expectBounds(h, {0, 80, 28, 32, 24});
  EXPECT_EQ(blocksOf(h), (std::vector<datatype::Block>{{28, 12}, {48, 12}}));
  freeType(h);
  const int badStart[] = {3, 0};
  EXPECT_EQ(datatype::createSubarray(2, sizes, sub, badStart, MPI_ORDER_C, MPI_INT, &h),
            MPI_ERR_ARG);
  EXPECT_NE(lastErrorCause().find("array_of_starts[0]"), std::string::npos) << lastErrorCause();
}

TEST_F(DatatypeTest, DarrayMatchesOwnership) {
  struct Case {
    std::vector<int> gsizes, distribs, dargs, psizes;
  };
  const int D = MPI_DISTRIBUTE_DFLT_DARG;
  const Case cases[] = {
      {{7, 5}, {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK}, {D, D}, {2, 3}},
      {{7, 5}, {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC}, {D, 2}, {2, 3}},
      {{9, 4}, {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE}, {2, D}, {4, 1}},
      {{10, 3, 4},
       {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC},
       {4, D, 3},
       {3, 1, 2}},
      {{5}, {MPI_DISTRIBUTE_CYCLIC}, {3}, {3}},
  };
  for (const Case& c : cases) {
    const int n = static_cast<int>(c.gsizes.size());
    int size = 1, total = 1;
    for (int i = 0; i < n; ++i) {
      size *= c.psizes[i];
      total *= c.gsizes[i];
    }
    for (int order : {MPI_ORDER_C, MPI_ORDER_FORTRAN}) {
      for (int rank = 0; rank < size; ++rank) {
        SCOPED_TRACE(::testing::Message()
                     << "ndims " << n << " order " << order << " rank " << rank);
        std::vector<int> coords(n);
        for (int i = n - 1, r = rank; i >= 0; --i) {
          coords[i] = r % c.psizes[i];
          r /= c.psizes[i];
        }
        auto owned = [&](int i, int x) {
          const int g = c.gsizes[i], p = c.psizes[i];
          switch (c.distribs[i]) {
            case MPI_DISTRIBUTE_BLOCK: {
              const int b = c.dargs[i] == D ? (g + p - 1) / p : c.dargs[i];
              return x / b == coords[i];
            }
            case MPI_DISTRIBUTE_CYCLIC: {
              const int b = c.dargs[i] == D ? 1 : c.dargs[i];
              return (x / b) % p == coords[i];
            }
            default:
              return true;
          }
        };
        MPI_Datatype h;
        ASSERT_EQ(datatype::createDarray(size, rank, n, c.gsizes.data(), c.distribs.data(),
                                         c.dargs.data(), c.psizes.data(), order, MPI_INT, &h),
                  MPI_SUCCESS)
            << lastErrorCause();
        EXPECT_EQ(packIndices(h, total), selectIndices(c.gsizes, order, owned));
        EXPECT_EQ(dt(h)->lb(), 0);
        EXPECT_EQ(dt(h)->extent(), total * 4);
        freeType(h);
      }
    }
  }
  const int g[] = {10}, dist[] = {MPI_DISTRIBUTE_BLOCK}, darg[] = {2}, ps[] = {3};
  MPI_Datatype h;
  EXPECT_EQ(datatype::createDarray(3, 0, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &h),
            MPI_ERR_ARG);  // 2 x 3 < 10
  EXPECT_EQ(datatype::createDarray(4, 0, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &h),
            MPI_ERR_ARG);  // grid of 3 != size 4
}

// ---------------------------------------------------------------------------------------
// Contiguity, basic types, elements
// ---------------------------------------------------------------------------------------

TEST_F(DatatypeTest, ContiguityDetection) {
  std::vector<MPI_Datatype> all;
  auto make = [&all](int rc, const MPI_Datatype& h) {  // h read after the call
    EXPECT_EQ(rc, MPI_SUCCESS);
    all.push_back(h);
    return dt(committed(h));
  };
  MPI_Datatype h = MPI_DATATYPE_NULL;
  EXPECT_TRUE(make(datatype::createContiguous(5, MPI_INT, &h), h)->contiguous());
  EXPECT_TRUE(make(datatype::createVector(3, 2, 2, MPI_INT, &h), h)->contiguous());
  EXPECT_FALSE(make(datatype::createVector(3, 1, 2, MPI_INT, &h), h)->contiguous());
  EXPECT_FALSE(make(datatype::createResized(MPI_INT, 0, 8, &h), h)->contiguous());
  {
    const int bl[] = {1, 1};
    const MPI_Aint disp[] = {0, 4};
    const MPI_Datatype ty[] = {MPI_INT, MPI_FLOAT};
    EXPECT_TRUE(make(datatype::createStruct(2, bl, disp, ty, &h), h)->contiguous());
  }
  {
    const int bl[] = {1, 1};
    const int disp[] = {1, 0};  // out of order: not one block in type-map order
    EXPECT_FALSE(make(datatype::createIndexed(2, bl, disp, MPI_INT, &h), h)->contiguous());
  }
  {
    // One block away from the origin: contiguous at trueLb.
    const int bl[] = {3};
    const MPI_Aint disp[] = {8};
    const Datatype* t = make(datatype::createHindexed(1, bl, disp, MPI_INT, &h), h);
    EXPECT_TRUE(t->contiguous());
    EXPECT_EQ(t->trueLb(), 8);
    int src[8] = {0, 0, 1, 2, 3, 4, 5, 6};
    int out[6];
    EXPECT_EQ(t->pack(src, 2, 0, out, sizeof out), sizeof out);
    EXPECT_EQ(out[0], 1);
    EXPECT_EQ(out[5], 6);
  }
  // Huge types stay one block and are never expanded element by element.
  MPI_Datatype inner, big;
  ASSERT_EQ(datatype::createContiguous(1 << 12, MPI_BYTE, &inner), MPI_SUCCESS);
  ASSERT_EQ(datatype::createHvector(1 << 20, 1, 1 << 12, inner, &big), MPI_SUCCESS);
  const Datatype* t = dt(committed(big));
  EXPECT_EQ(t->size(), int64_t{1} << 32);
  EXPECT_TRUE(t->contiguous());
  EXPECT_EQ(t->blocks().size(), 1u);
  freeType(inner);
  freeType(big);
  for (MPI_Datatype x : all) freeType(x);
}

TEST_F(DatatypeTest, BasicTypeOfDerivedTypes) {
  MPI_Datatype v, s, p, m;
  ASSERT_EQ(datatype::createVector(4, 2, 3, MPI_DOUBLE, &v), MPI_SUCCESS);
  EXPECT_EQ(dt(v)->basicType(), MPI_DOUBLE);
  EXPECT_EQ(dt(v)->basicCount(), 8);
  EXPECT_EQ(dt(v)->basicKind(), datatype::BasicKind::kFloat);
  const int bl[] = {2, 1};
  const MPI_Aint disp[] = {0, 64};
  const MPI_Datatype ty[] = {v, MPI_DOUBLE};
  ASSERT_EQ(datatype::createStruct(2, bl, disp, ty, &s), MPI_SUCCESS);
  EXPECT_EQ(dt(s)->basicType(), MPI_DOUBLE);
  EXPECT_EQ(dt(s)->basicCount(), 17);
  ASSERT_EQ(datatype::createContiguous(3, MPI_DOUBLE_INT, &p), MPI_SUCCESS);
  EXPECT_EQ(dt(p)->basicType(), MPI_DOUBLE_INT);
  EXPECT_EQ(dt(p)->basicCount(), 3);
  EXPECT_EQ(dt(p)->elements(), 6);
  const MPI_Datatype mixed[] = {MPI_DOUBLE, MPI_INT};
  const MPI_Aint mdisp[] = {0, 8};
  const int mbl[] = {1, 1};
  ASSERT_EQ(datatype::createStruct(2, mbl, mdisp, mixed, &m), MPI_SUCCESS);
  EXPECT_EQ(dt(m)->basicType(), MPI_DATATYPE_NULL);
  EXPECT_EQ(dt(m)->basicKind(), datatype::BasicKind::kNone);
  for (MPI_Datatype h : {v, s, p, m}) freeType(h);
}

TEST_F(DatatypeTest, ElementsCounting) {
  // struct { double; int x2 } : 16 bytes of data, 3 basic elements.
  MPI_Datatype s;
  const int bl[] = {1, 2};
  const MPI_Aint disp[] = {0, 8};
  const MPI_Datatype ty[] = {MPI_DOUBLE, MPI_INT};
  ASSERT_EQ(datatype::createStruct(2, bl, disp, ty, &s), MPI_SUCCESS);
  const Datatype* t = dt(s);
  EXPECT_EQ(t->elementsIn(0), 0);
  EXPECT_EQ(t->elementsIn(8), 1);
  EXPECT_EQ(t->elementsIn(12), 2);
  EXPECT_EQ(t->elementsIn(16), 3);
  EXPECT_EQ(t->elementsIn(28), 5);
  EXPECT_EQ(t->elementsIn(10), MPI_UNDEFINED);
  EXPECT_EQ(t->elementsIn(18), MPI_UNDEFINED);
  for (int64_t n = 0; n <= 9; ++n) EXPECT_EQ(t->elementsIn(t->bytesForElements(n)), n) << n;
  EXPECT_EQ(t->bytesForElements(4), 24);
  // A vector of complexes: a complex is one element.
  MPI_Datatype v;
  ASSERT_EQ(datatype::createVector(3, 2, 5, MPI_C_DOUBLE_COMPLEX, &v), MPI_SUCCESS);
  EXPECT_EQ(dt(v)->elementsIn(16 * 7), 7);
  EXPECT_EQ(dt(v)->elementsIn(16 * 7 + 8), MPI_UNDEFINED);
  // Size-0 type.
  MPI_Datatype z;
  ASSERT_EQ(datatype::createContiguous(0, MPI_INT, &z), MPI_SUCCESS);
  EXPECT_EQ(dt(z)->elementsIn(0), 0);
  for (MPI_Datatype h : {s, v, z}) freeType(h);
}

// ---------------------------------------------------------------------------------------
// Lifetime, errors, envelope, attributes
// ---------------------------------------------------------------------------------------

TEST_F(DatatypeTest, FreedTypeLivesWhileInUse) {
  MPI_Datatype v, c;
  ASSERT_EQ(datatype::createVector(2, 1, 2, MPI_INT, &v), MPI_SUCCESS);
  ASSERT_EQ(datatype::createContiguous(2, v, &c), MPI_SUCCESS);
  committed(c);
  const MPI_Datatype keep = c;
  datatype::retain(c);  // a pending request
  Datatype* obj = dt(c);
  freeType(v);  // an old type: c does not depend on its handle
  MPI_Datatype h = c;
  ASSERT_EQ(datatype::free(&h), MPI_SUCCESS);
  EXPECT_EQ(h, MPI_DATATYPE_NULL);
  EXPECT_EQ(datatype::lookup(keep), nullptr);   // the user's handle is gone
  EXPECT_EQ(datatype::liveTypes(), live_ + 1);  // the object is not
  int src[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[4] = {};
  EXPECT_EQ(obj->pack(src, 1, 0, out, sizeof out), sizeof out);
  EXPECT_EQ(out[0], 1);  // ints 0 and 2 of each 3-int element
  EXPECT_EQ(out[1], 3);
  EXPECT_EQ(out[2], 4);
  EXPECT_EQ(out[3], 6);
  datatype::release(keep);
  EXPECT_EQ(datatype::liveTypes(), live_);
}

TEST_F(DatatypeTest, ErrorsNameTheCause) {
  MPI_Datatype h;
  EXPECT_EQ(datatype::createContiguous(-1, MPI_INT, &h), MPI_ERR_COUNT);
  EXPECT_NE(lastErrorCause().find("negative"), std::string::npos);
  EXPECT_EQ(datatype::createContiguous(1, MPI_DATATYPE_NULL, &h), MPI_ERR_TYPE);
  EXPECT_NE(lastErrorCause().find("MPI_DATATYPE_NULL"), std::string::npos);
  EXPECT_EQ(datatype::createVector(1, -1, 1, MPI_INT, &h), MPI_ERR_ARG);
  const int bl[] = {1, -2};
  const int disp[] = {0, 0};
  EXPECT_EQ(datatype::createIndexed(2, bl, disp, MPI_INT, &h), MPI_ERR_ARG);
  EXPECT_NE(lastErrorCause().find("array_of_blocklengths[1]"), std::string::npos);
  MPI_Datatype p = MPI_INT;
  EXPECT_EQ(datatype::free(&p), MPI_ERR_TYPE);
  EXPECT_NE(lastErrorCause().find("MPI_INT"), std::string::npos);
  ASSERT_EQ(datatype::createContiguous(1, MPI_INT, &h), MPI_SUCCESS);
  const MPI_Datatype stale = h;
  freeType(h);
  EXPECT_EQ(datatype::commit(stale), MPI_ERR_TYPE);
  EXPECT_EQ(datatype::createContiguous(1, stale, &h), MPI_ERR_TYPE);
}

TEST_F(DatatypeTest, EnvelopeAndContents) {
  MPI_Datatype v, s;
  ASSERT_EQ(datatype::createVector(3, 2, 5, MPI_INT, &v), MPI_SUCCESS);
  int64_t ni, na, nc, nt;
  int comb;
  ASSERT_EQ(datatype::getEnvelope(v, &ni, &na, &nc, &nt, &comb), MPI_SUCCESS);
  EXPECT_EQ(comb, MPI_COMBINER_VECTOR);
  EXPECT_EQ(ni, 3);
  EXPECT_EQ(na, 0);
  EXPECT_EQ(nc, 0);
  EXPECT_EQ(nt, 1);
  int ints[8];
  MPI_Aint aints[8];
  int64_t counts[8];
  MPI_Datatype types[8];
  ASSERT_EQ(datatype::getContents(v, 8, 8, 8, 8, ints, aints, counts, types), MPI_SUCCESS);
  EXPECT_EQ(ints[0], 3);
  EXPECT_EQ(ints[1], 2);
  EXPECT_EQ(ints[2], 5);
  EXPECT_EQ(types[0], MPI_INT);  // predefined: returned as is

  const int bl[] = {1, 2};
  const MPI_Aint disp[] = {0, 100};
  const MPI_Datatype ty[] = {MPI_CHAR, v};
  ASSERT_EQ(datatype::createStruct(2, bl, disp, ty, &s), MPI_SUCCESS);
  freeType(v);  // contents still describe it
  ASSERT_EQ(datatype::getEnvelope(s, &ni, &na, &nc, &nt, &comb), MPI_SUCCESS);
  EXPECT_EQ(comb, MPI_COMBINER_STRUCT);
  EXPECT_EQ(ni, 3);
  EXPECT_EQ(na, 2);
  EXPECT_EQ(nt, 2);
  EXPECT_EQ(datatype::getContents(s, 1, 8, 8, 8, ints, aints, counts, types), MPI_ERR_ARG);
  ASSERT_EQ(datatype::getContents(s, 8, 8, 8, 8, ints, aints, counts, types), MPI_SUCCESS);
  EXPECT_EQ(ints[1], 1);
  EXPECT_EQ(ints[2], 2);
  EXPECT_EQ(aints[1], 100);
  EXPECT_EQ(types[0], MPI_CHAR);
  // The derived old type comes back as a new handle describing the vector.
  ASSERT_EQ(datatype::getEnvelope(types[1], &ni, &na, &nc, &nt, &comb), MPI_SUCCESS);
  EXPECT_EQ(comb, MPI_COMBINER_VECTOR);
  expectBounds(types[1], {0, 48, 0, 48, 24});
  freeType(types[1]);

  ASSERT_EQ(datatype::getEnvelope(MPI_DOUBLE_INT, &ni, &na, &nc, &nt, &comb), MPI_SUCCESS);
  EXPECT_EQ(comb, MPI_COMBINER_NAMED);
  EXPECT_EQ(datatype::getContents(MPI_DOUBLE_INT, 8, 8, 8, 8, ints, aints, counts, types),
            MPI_ERR_ARG);

  MPI_Datatype r;
  ASSERT_EQ(datatype::createResized(s, -3, 77, &r), MPI_SUCCESS);
  ASSERT_EQ(datatype::getEnvelope(r, &ni, &na, &nc, &nt, &comb), MPI_SUCCESS);
  EXPECT_EQ(comb, MPI_COMBINER_RESIZED);
  ASSERT_EQ(datatype::getContents(r, 8, 8, 8, 8, ints, aints, counts, types), MPI_SUCCESS);
  EXPECT_EQ(aints[0], -3);
  EXPECT_EQ(aints[1], 77);
  freeType(types[0]);
  freeType(r);
  freeType(s);
}

int gCopies = 0, gDeletes = 0;
int copyFn(MPI_Datatype, int, void*, void* in, void* out, int* flag) {
  ++gCopies;
  *static_cast<void**>(out) = static_cast<char*>(in) + 1;
  *flag = 1;
  return MPI_SUCCESS;
}
int deleteFn(MPI_Datatype, int, void*, void* extra) {
  ++gDeletes;
  ++*static_cast<int*>(extra);
  return MPI_SUCCESS;
}

TEST_F(DatatypeTest, Attributes) {
  const size_t keyvals = datatype::liveKeyvals();
  int extra = 0;
  int kv;
  ASSERT_EQ(datatype::createKeyval(copyFn, deleteFn, &extra, &kv), MPI_SUCCESS);
  MPI_Datatype t, d;
  ASSERT_EQ(datatype::createContiguous(2, MPI_INT, &t), MPI_SUCCESS);
  char base[4];
  ASSERT_EQ(datatype::setAttr(t, kv, base), MPI_SUCCESS);
  void* v = nullptr;
  int flag = 0;
  ASSERT_EQ(datatype::getAttr(t, kv, &v, &flag), MPI_SUCCESS);
  EXPECT_TRUE(flag);
  EXPECT_EQ(v, base);
  ASSERT_EQ(datatype::dup(t, &d), MPI_SUCCESS);
  ASSERT_EQ(datatype::copyAttributes(t, d), MPI_SUCCESS);
  EXPECT_EQ(gCopies, 1);
  ASSERT_EQ(datatype::getAttr(d, kv, &v, &flag), MPI_SUCCESS);
  EXPECT_TRUE(flag);
  EXPECT_EQ(v, base + 1);
  // Replacing a value deletes the old one.
  ASSERT_EQ(datatype::setAttr(d, kv, base + 2), MPI_SUCCESS);
  EXPECT_EQ(extra, 1);
  ASSERT_EQ(datatype::freeKeyval(&kv), MPI_SUCCESS);
  EXPECT_EQ(kv, MPI_KEYVAL_INVALID);
  freeType(t);  // delete callbacks still run after the keyval was freed
  EXPECT_EQ(extra, 2);
  freeType(d);
  EXPECT_EQ(extra, 3);
  EXPECT_EQ(gDeletes, 3);
  EXPECT_EQ(datatype::liveKeyvals(), keyvals);
  int bad = 12345;
  EXPECT_EQ(datatype::freeKeyval(&bad), MPI_ERR_KEYVAL);
}

TEST_F(DatatypeTest, External32IsBigEndian) {
  MPI_Datatype s;
  const int bl[] = {1, 1, 1};
  const MPI_Aint disp[] = {0, 8, 16};
  const MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE, MPI_LONG_DOUBLE};
  ASSERT_EQ(datatype::createStruct(3, bl, disp, ty, &s), MPI_SUCCESS);
  committed(s);
  struct Rec {
    int i;
    double d;
    long double ld;
  };
  Rec in[2] = {{0x01020304, 1.0, 1.0L}, {-2, -0.5, 3.25L}};
  int64_t size = 0;
  ASSERT_EQ(datatype::externalSize(s, 2, &size), MPI_SUCCESS);
  ASSERT_EQ(size, 2 * (4 + 8 + 16));
  std::vector<unsigned char> ext(size + 3);
  int64_t pos = 3;
  ASSERT_EQ(datatype::packExternal(s, in, 2, ext.data(), ext.size(), &pos), MPI_SUCCESS);
  EXPECT_EQ(pos, 3 + size);
  const unsigned char intBe[] = {1, 2, 3, 4};
  EXPECT_EQ(std::memcmp(ext.data() + 3, intBe, 4), 0);
  const unsigned char oneBe[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(std::memcmp(ext.data() + 7, oneBe, 8), 0);
  // binary128 1.0 = 0x3fff followed by zeros.
  unsigned char quadOne[16] = {0x3f, 0xff};
  EXPECT_EQ(std::memcmp(ext.data() + 15, quadOne, 16), 0);
  Rec out[2];
  std::memset(out, 0, sizeof out);
  pos = 3;
  ASSERT_EQ(datatype::unpackExternal(s, ext.data(), ext.size(), &pos, out, 2), MPI_SUCCESS);
  for (int e = 0; e < 2; ++e) {
    EXPECT_EQ(out[e].i, in[e].i);
    EXPECT_EQ(out[e].d, in[e].d);
    EXPECT_EQ(out[e].ld, in[e].ld);
  }
  pos = 10;
  EXPECT_EQ(datatype::packExternal(s, in, 2, ext.data(), ext.size(), &pos), MPI_ERR_TRUNCATE);
  freeType(s);
}

TEST_F(DatatypeTest, MatchSize) {
  EXPECT_EQ(datatype::matchSize(MPI_TYPECLASS_REAL, 8), MPI_REAL8);
  EXPECT_EQ(datatype::matchSize(MPI_TYPECLASS_INTEGER, 2), MPI_INTEGER2);
  EXPECT_EQ(datatype::matchSize(MPI_TYPECLASS_COMPLEX, 16), MPI_COMPLEX16);
  EXPECT_EQ(datatype::matchSize(MPI_TYPECLASS_REAL, 3), MPI_DATATYPE_NULL);
}

// ---------------------------------------------------------------------------------------
// Pack/unpack of random nested types against a naive reference
// ---------------------------------------------------------------------------------------

// The type map of a type as (displacement, bytes) per basic element, built from the
// constructors' definitions independently of the engine's flattening.
struct Model {
  MPI_Datatype h = MPI_DATATYPE_NULL;
  bool derived = false;
  std::vector<std::pair<int64_t, int64_t>> map;
};

class RandomTypes {
 public:
  explicit RandomTypes(uint32_t seed) : rng_(seed) {}

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  Model basic() {
    struct B {
      MPI_Datatype h;
      std::vector<std::pair<int64_t, int64_t>> map;
    };
    static const B kBasics[] = {
        {MPI_CHAR, {{0, 1}}},
        {MPI_SHORT, {{0, 2}}},
        {MPI_INT, {{0, 4}}},
        {MPI_DOUBLE, {{0, 8}}},
        {MPI_C_DOUBLE_COMPLEX, {{0, 16}}},
        {MPI_DOUBLE_INT, {{0, 8}, {8, 4}}},
        {MPI_SHORT_INT, {{0, 2}, {4, 4}}},
    };
    const B& b = kBasics[pick(0, 6)];
    Model m;
    m.h = b.h;
    m.map = b.map;
    return m;
  }

  static void append(Model& m, const Model& k, int64_t at) {
    for (const auto& [d, l] : k.map) m.map.push_back({at + d, l});
  }

  Model make(int depth) {
    if (depth == 0 || pick(0, 4) == 0) return basic();
    Model m;
    m.derived = true;
    const int kind = pick(0, 7);
    Model k = make(depth - 1);
    const int64_t ext = dt(k.h)->extent();
    switch (kind) {
      case 0: {
        const int n = pick(0, 4);
        EXPECT_EQ(datatype::createContiguous(n, k.h, &m.h), MPI_SUCCESS);
        for (int i = 0; i < n; ++i) append(m, k, i * ext);
        break;
      }
      case 1: {
        const int n = pick(0, 4), bl = pick(0, 3), stride = pick(-4, 5);
        EXPECT_EQ(datatype::createVector(n, bl, stride, k.h, &m.h), MPI_SUCCESS);
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < bl; ++j) append(m, k, (int64_t{i} * stride + j) * ext);
        break;
      }
      case 2: {
        const int n = pick(0, 4), bl = pick(0, 3);
        const MPI_Aint stride = pick(-40, 40);
        EXPECT_EQ(datatype::createHvector(n, bl, stride, k.h, &m.h), MPI_SUCCESS);
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < bl; ++j) append(m, k, i * stride + j * ext);
        break;
      }
      case 3: {
        const int n = pick(0, 4);
        std::vector<int> bl(n), disp(n);
        for (int i = 0; i < n; ++i) {
          bl[i] = pick(0, 3);
          disp[i] = pick(-6, 6);
        }
        EXPECT_EQ(datatype::createIndexed(n, bl.data(), disp.data(), k.h, &m.h), MPI_SUCCESS);
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < bl[i]; ++j) append(m, k, (int64_t{disp[i]} + j) * ext);
        break;
      }
      case 4: {
        const int n = pick(0, 4), bl = pick(0, 3);
        std::vector<MPI_Aint> disp(n);
        for (int i = 0; i < n; ++i) disp[i] = pick(-50, 50);
        EXPECT_EQ(datatype::createHindexedBlock(n, bl, disp.data(), k.h, &m.h), MPI_SUCCESS);
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < bl; ++j) append(m, k, disp[i] + j * ext);
        break;
      }
      case 5: {
        const int n = pick(1, 3);
        std::vector<Model> kids = {k};
        for (int i = 1; i < n; ++i) kids.push_back(make(depth - 1));
        std::vector<int> bl(n);
        std::vector<MPI_Aint> disp(n);
        std::vector<MPI_Datatype> ty(n);
        for (int i = 0; i < n; ++i) {
          bl[i] = pick(0, 3);
          disp[i] = pick(-60, 60);
          ty[i] = kids[i].h;
        }
        EXPECT_EQ(datatype::createStruct(n, bl.data(), disp.data(), ty.data(), &m.h), MPI_SUCCESS);
        for (int i = 0; i < n; ++i) {
          const int64_t e = dt(kids[i].h)->extent();
          for (int j = 0; j < bl[i]; ++j) append(m, kids[i], disp[i] + j * e);
        }
        for (int i = 1; i < n; ++i) release(kids[i]);
        break;
      }
      case 6: {
        const MPI_Aint lb = pick(-20, 20), extent = pick(-8, 48);
        EXPECT_EQ(datatype::createResized(k.h, lb, extent, &m.h), MPI_SUCCESS);
        append(m, k, 0);
        break;
      }
      default: {
        EXPECT_EQ(datatype::dup(k.h, &m.h), MPI_SUCCESS);
        append(m, k, 0);
        break;
      }
    }
    release(k);  // the new type must not depend on the old handle
    return m;
  }

  static void release(Model& m) {
    if (m.derived) freeType(m.h);
    m.h = MPI_DATATYPE_NULL;
  }

  std::mt19937& rng() { return rng_; }

 private:
  std::mt19937 rng_;
};

// Byte address range touched by `count` elements of the model.
std::pair<int64_t, int64_t> span(const Model& m, int64_t extent, int64_t count) {
  int64_t lo = 0, hi = 0;
  bool any = false;
  for (int64_t e = 0; e < count; ++e)
    for (const auto& [d, l] : m.map) {
      const int64_t a = e * extent + d;
      lo = any ? std::min(lo, a) : a;
      hi = any ? std::max(hi, a + l) : a + l;
      any = true;
    }
  return {lo, hi};
}

std::vector<unsigned char> referencePack(const Model& m, int64_t extent, const unsigned char* base,
                                         int64_t count) {
  std::vector<unsigned char> out;
  for (int64_t e = 0; e < count; ++e)
    for (const auto& [d, l] : m.map)
      for (int64_t b = 0; b < l; ++b) out.push_back(base[e * extent + d + b]);
  return out;
}

void referenceUnpack(const Model& m, int64_t extent, unsigned char* base, int64_t count,
                     const std::vector<unsigned char>& in) {
  size_t i = 0;
  for (int64_t e = 0; e < count; ++e)
    for (const auto& [d, l] : m.map)
      for (int64_t b = 0; b < l; ++b) base[e * extent + d + b] = in[i++];
}

// Packs and unpacks 400 random nested types in random ranges and chunks against the
// reference.
void randomRoundTrips(uint32_t seed) {
  RandomTypes gen(seed);
  int nontrivial = 0;
  for (int iter = 0; iter < 400; ++iter) {
    Model m = gen.make(3);
    SCOPED_TRACE(::testing::Message() << "iteration " << iter);
    const Datatype* t = dt(committed(m.h));
    ASSERT_NE(t, nullptr);
    int64_t mapBytes = 0;
    for (const auto& e : m.map) mapBytes += e.second;
    ASSERT_EQ(t->size(), mapBytes);
    const int64_t count = gen.pick(0, 5);
    const int64_t extent = t->extent();
    const auto [lo, hi] = span(m, extent, count);
    // Bounds of the data agree with the model (for count 1).
    if (!m.map.empty() && t->size() > 0) {
      const auto [lo1, hi1] = span(m, extent, 1);
      EXPECT_EQ(t->trueLb(), lo1);
      EXPECT_EQ(t->trueExtent(), hi1 - lo1);
    }
    const int64_t pad = 16;
    std::vector<unsigned char> mem(hi - lo + 2 * pad);
    for (auto& b : mem) b = static_cast<unsigned char>(gen.pick(0, 255));
    unsigned char* base = mem.data() + pad - lo;
    const std::vector<unsigned char> ref = referencePack(m, extent, base, count);
    const size_t total = ref.size();
    ASSERT_EQ(static_cast<int64_t>(total), count * t->size());
    if (total > 64) ++nontrivial;

    // Random byte ranges.
    for (int r = 0; r < 20 && total > 0; ++r) {
      const size_t off = gen.pick(0, static_cast<int>(total));
      const size_t len = gen.pick(0, static_cast<int>(total - off) + 3);
      std::vector<unsigned char> out(len + 1, 0xAB);
      const size_t got = t->pack(base, count, off, out.data(), len);
      ASSERT_EQ(got, std::min(len, total - off));
      ASSERT_TRUE(std::equal(out.begin(), out.begin() + got, ref.begin() + off))
          << "pack offset " << off << " len " << len;
      ASSERT_EQ(out[got], 0xAB) << "wrote past the range";
    }

    // The whole stream in random chunks, packed and unpacked.
    std::vector<unsigned char> chunked(total);
    std::vector<unsigned char> dst(mem.size()), expect(mem.size());
    for (auto& b : dst) b = static_cast<unsigned char>(gen.pick(0, 255));
    expect = dst;
    unsigned char* dbase = dst.data() + pad - lo;
    referenceUnpack(m, extent, expect.data() + pad - lo, count, ref);
    for (size_t off = 0; off < total;) {
      const size_t len = std::min<size_t>(total - off, gen.pick(1, 37));
      ASSERT_EQ(t->pack(base, count, off, chunked.data() + off, len), len);
      ASSERT_EQ(t->unpack(dbase, count, off, ref.data() + off, len), len);
      off += len;
    }
    ASSERT_EQ(chunked, ref);
    ASSERT_EQ(dst, expect) << "unpack differs from the reference (or touched a gap)";
    EXPECT_EQ(t->pack(base, count, total, chunked.data(), 10), 0u);
    RandomTypes::release(m);
  }
  EXPECT_GT(nontrivial, 50);  // the generator produced real work
}

TEST_F(DatatypeTest, RandomPackUnpackMatchesReference) {
  randomRoundTrips(20240611);
}

// The same with the flattening threshold lowered, so the random types' plans consist of
// repeat and sequence nodes (what large types use) rather than flat run lists.
TEST_F(DatatypeTest, RandomPackUnpackThroughLoopNodes) {
  const int64_t saved = datatype::flatBlocks();
  for (int64_t limit : {1, 3}) {
    SCOPED_TRACE(::testing::Message() << "flat limit " << limit);
    datatype::setFlatBlocks(limit);
    randomRoundTrips(777 + static_cast<uint32_t>(limit));
  }
  datatype::setFlatBlocks(saved);
}

TEST_F(DatatypeTest, StridedVectorOfSmallBlocks) {
  // A column of a matrix, sent in odd-sized chunks: the p2p pattern.
  const int rows = 1000, cols = 7;
  std::vector<double> a(rows * cols);
  for (int i = 0; i < rows * cols; ++i) a[i] = i;
  MPI_Datatype col;
  ASSERT_EQ(datatype::createVector(rows, 1, cols, MPI_DOUBLE, &col), MPI_SUCCESS);
  const Datatype* t = dt(committed(col));
  EXPECT_LT(t->planBytes(), 512);  // one run, not 1000 blocks
  std::vector<double> packed(rows);
  unsigned char* p = reinterpret_cast<unsigned char*>(packed.data());
  for (size_t off = 0; off < rows * sizeof(double); off += 1001)
    t->pack(a.data() + 3, 1, off, p + off, std::min<size_t>(1001, rows * 8 - off));
  for (int r = 0; r < rows; ++r) ASSERT_EQ(packed[r], r * cols + 3);
  std::vector<double> b(rows * cols, -1);
  for (size_t off = 0; off < rows * sizeof(double); off += 999)
    t->unpack(b.data() + 3, 1, off, p + off, std::min<size_t>(999, rows * 8 - off));
  for (int i = 0; i < rows * cols; ++i) ASSERT_EQ(b[i], i % cols == 3 ? i : -1);
  freeType(col);
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Compact plans for large regular types
// ---------------------------------------------------------------------------------------

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// The conformance bug: committing vector(INT_MAX/2, 1, 3, <16-byte type>) flattened a
// billion blocks (> 16 GB). The plan is one loop over one block.
TEST_F(DatatypeTest, HugeVectorCommitsCompactly) {
  MPI_Datatype pair, v;
  ASSERT_EQ(datatype::createContiguous(2, MPI_DOUBLE, &pair), MPI_SUCCESS);
  const int64_t n = INT_MAX / 2;
  ASSERT_EQ(datatype::createVector(n, 1, 3, pair, &v), MPI_SUCCESS);
  const auto t0 = std::chrono::steady_clock::now();
  committed(v);
  EXPECT_LT(secondsSince(t0), 0.05);
  const Datatype* t = dt(v);
  EXPECT_LT(t->planBytes(), 1024);
  EXPECT_EQ(t->size(), n * 16);
  EXPECT_EQ(t->extent(), ((n - 1) * 3 + 1) * 16);
  EXPECT_FALSE(t->contiguous());
  EXPECT_TRUE(t->blocks(1000).empty());  // more than 1000 blocks
  // The first eight blocks, packed and unpacked from a small buffer.
  std::vector<double> buf(6 * 8), back(6 * 8, -1.0), out(16);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<double>(i);
  ASSERT_EQ(t->pack(buf.data(), 1, 0, out.data(), 128), 128u);
  for (int k = 0; k < 8; ++k) {
    EXPECT_EQ(out[2 * k], 6 * k);
    EXPECT_EQ(out[2 * k + 1], 6 * k + 1);
  }
  ASSERT_EQ(t->unpack(back.data(), 1, 0, out.data(), 128), 128u);
  for (size_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i], i % 6 < 2 ? buf[i] : -1.0) << i;
  freeType(v);
  freeType(pair);
}

// Offsets beyond 2^32 into the packed stream: 2^40 copies of a pair placed at the same
// address (hvector stride 0), so any range reads the same 16 bytes.
TEST_F(DatatypeTest, PackOffsetsBeyond32Bits) {
  MPI_Datatype pair, v;
  ASSERT_EQ(datatype::createContiguous(2, MPI_DOUBLE, &pair), MPI_SUCCESS);
  const int64_t n = int64_t{1} << 40;
  ASSERT_EQ(datatype::createHvector(n, 1, 0, pair, &v), MPI_SUCCESS);
  const Datatype* t = dt(committed(v));
  EXPECT_EQ(t->size(), n * 16);
  const double buf[2] = {1.5, 2.5};
  double out[4] = {0, 0, 0, 0};
  const size_t off = static_cast<size_t>(n * 16 - 24);
  ASSERT_EQ(t->pack(buf, 1, off, out, 32), 24u);  // clipped at the end of the stream
  EXPECT_EQ(out[0], 2.5);
  EXPECT_EQ(out[1], 1.5);
  EXPECT_EQ(out[2], 2.5);
  EXPECT_EQ(out[3], 0.0);
  freeType(v);
  freeType(pair);
}

// A vector of vectors is two nested loops; packing matches the element formula.
TEST_F(DatatypeTest, NestedVectorsArePackedThroughLoops) {
  const int n = 300;
  MPI_Datatype inner, outer;
  ASSERT_EQ(datatype::createVector(n, 1, 2, MPI_DOUBLE, &inner), MPI_SUCCESS);
  ASSERT_EQ(datatype::createVector(n, 1, 2, inner, &outer), MPI_SUCCESS);
  const Datatype* t = dt(committed(outer));
  EXPECT_LT(t->planBytes(), 1024);
  const int64_t innerExt = (2 * (n - 1) + 1);  // in doubles
  std::vector<double> mem(static_cast<size_t>((2 * (n - 1) + 1) * innerExt));
  for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<double>(i);
  std::vector<double> out(n * n), back(mem.size(), -1.0);
  // In chunks of odd sizes, to resume inside blocks and loops.
  unsigned char* p = reinterpret_cast<unsigned char*>(out.data());
  const size_t total = static_cast<size_t>(n) * n * 8;
  for (size_t off = 0; off < total; off += 1237)
    ASSERT_EQ(t->pack(mem.data(), 1, off, p + off, std::min<size_t>(1237, total - off)),
              std::min<size_t>(1237, total - off));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      ASSERT_EQ(out[i * n + j], 2 * i * innerExt + 2 * j) << i << " " << j;
  ASSERT_EQ(t->unpack(back.data(), 1, 0, p, total), total);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) ASSERT_EQ(back[2 * i * innerExt + 2 * j], 2 * i * innerExt + 2 * j);
  EXPECT_EQ(std::count(back.begin(), back.end(), -1.0), static_cast<long>(mem.size()) - n * n);
  freeType(outer);
  freeType(inner);
}

// Subarray, darray and resized of large regular arrays commit to small plans.
TEST_F(DatatypeTest, LargeSubarrayDarrayResizedAreCompact) {
  const int sizes[3] = {1000, 1000, 1000}, subsizes[3] = {500, 500, 500}, starts[3] = {1, 2, 3};
  MPI_Datatype sub, dar, res, many;
  ASSERT_EQ(datatype::createSubarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_DOUBLE, &sub),
            MPI_SUCCESS);
  const auto t0 = std::chrono::steady_clock::now();
  const Datatype* t = dt(committed(sub));
  EXPECT_LT(secondsSince(t0), 0.05);
  EXPECT_LT(t->planBytes(), 2048);
  EXPECT_EQ(t->size(), int64_t{500} * 500 * 500 * 8);
  EXPECT_EQ(t->extent(), int64_t{1000} * 1000 * 1000 * 8);
  EXPECT_EQ(t->trueLb(), ((int64_t{1} * 1000 + 2) * 1000 + 3) * 8);

  const int gs[3] = {2000, 2000, 1000},
            dist[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE};
  const int dargs[3] = {MPI_DISTRIBUTE_DFLT_DARG, 1, MPI_DISTRIBUTE_DFLT_DARG}, ps[3] = {2, 2, 1};
  ASSERT_EQ(datatype::createDarray(4, 3, 3, gs, dist, dargs, ps, MPI_ORDER_C, MPI_FLOAT, &dar),
            MPI_SUCCESS);
  t = dt(committed(dar));
  EXPECT_LT(t->planBytes(), 2048);
  EXPECT_EQ(t->size(), int64_t{1000} * 1000 * 1000 * 4);

  ASSERT_EQ(datatype::createResized(sub, 0, 16, &res), MPI_SUCCESS);
  ASSERT_EQ(datatype::createContiguous(1 << 30, res, &many), MPI_SUCCESS);
  t = dt(committed(many));
  EXPECT_LT(t->planBytes(), 4096);
  EXPECT_EQ(t->size(), (int64_t{1} << 30) * 500 * 500 * 500 * 8);
  freeType(many);
  freeType(res);
  freeType(dar);
  freeType(sub);
}

// A struct of two large vectors: a sequence of two loops.
TEST_F(DatatypeTest, StructOfVectorsPacksBothLoops) {
  const int n = 5000;
  MPI_Datatype vi, vd, s;
  ASSERT_EQ(datatype::createVector(n, 1, 2, MPI_INT, &vi), MPI_SUCCESS);
  ASSERT_EQ(datatype::createVector(n, 2, 3, MPI_DOUBLE, &vd), MPI_SUCCESS);
  std::vector<int> ints(2 * n);
  std::vector<double> dbls(3 * n);
  for (int i = 0; i < 2 * n; ++i) ints[i] = i;
  for (int i = 0; i < 3 * n; ++i) dbls[i] = 0.5 + i;
  const int bl[2] = {1, 1};
  const MPI_Aint disp[2] = {
      0, reinterpret_cast<MPI_Aint>(dbls.data()) - reinterpret_cast<MPI_Aint>(ints.data())};
  const MPI_Datatype ty[2] = {vi, vd};
  ASSERT_EQ(datatype::createStruct(2, bl, disp, ty, &s), MPI_SUCCESS);
  const Datatype* t = dt(committed(s));
  EXPECT_LT(t->planBytes(), 1024);
  ASSERT_EQ(t->size(), n * 4 + n * 16);
  std::vector<unsigned char> out(static_cast<size_t>(t->size()));
  ASSERT_EQ(t->pack(ints.data(), 1, 0, out.data(), out.size()), out.size());
  for (int i = 0; i < n; ++i) {
    int v;
    std::memcpy(&v, out.data() + 4 * i, 4);
    ASSERT_EQ(v, 2 * i);
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 2; ++j) {
      double d;
      std::memcpy(&d, out.data() + 4 * n + 16 * i + 8 * j, 8);
      ASSERT_EQ(d, dbls[3 * i + j]);
    }
  freeType(s);
  freeType(vd);
  freeType(vi);
}

// external32 has 4-byte C long and unsigned long (MPI-3.1 Table 13.2): truncated when
// packed, sign- or zero-extended when unpacked.
TEST_F(DatatypeTest, External32LongIsFourBytes) {
  int64_t size = 0;
  ASSERT_EQ(datatype::externalSize(MPI_LONG, 3, &size), MPI_SUCCESS);
  EXPECT_EQ(size, 12);
  ASSERT_EQ(datatype::externalSize(MPI_LONG_INT, 2, &size), MPI_SUCCESS);
  EXPECT_EQ(size, 16);
  const long in[2] = {-2, 0x01020304};
  unsigned char ext[8];
  int64_t pos = 0;
  ASSERT_EQ(datatype::packExternal(MPI_LONG, in, 2, ext, sizeof ext, &pos), MPI_SUCCESS);
  EXPECT_EQ(pos, 8);
  const unsigned char want[8] = {0xff, 0xff, 0xff, 0xfe, 1, 2, 3, 4};
  EXPECT_EQ(std::memcmp(ext, want, 8), 0);
  long out[2] = {0, 0};
  pos = 0;
  ASSERT_EQ(datatype::unpackExternal(MPI_LONG, ext, sizeof ext, &pos, out, 2), MPI_SUCCESS);
  EXPECT_EQ(out[0], -2);
  EXPECT_EQ(out[1], 0x01020304);
  unsigned long uout[2] = {0, 0};
  pos = 0;
  ASSERT_EQ(datatype::unpackExternal(MPI_UNSIGNED_LONG, ext, sizeof ext, &pos, uout, 2),
            MPI_SUCCESS);
  EXPECT_EQ(uout[0], 0xfffffffeUL);
}

// An MPI_LB marker bounds only the lower end: {(LB, 10)} has ub 0 and extent -10.
TEST_F(DatatypeTest, LowerBoundMarkerAloneLeavesUpperBoundZero) {
  const int bl[1] = {1};
  const MPI_Aint disp[1] = {10};
  const MPI_Datatype ty[1] = {MPI_LB};
  MPI_Datatype s;
  ASSERT_EQ(datatype::createStruct(1, bl, disp, ty, &s), MPI_SUCCESS);
  expectBounds(s, {10, -10, 0, 0, 0});
  freeType(s);
}
