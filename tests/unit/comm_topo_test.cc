// MPI_Dims_create and Cartesian math (comm/topo_math.h).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <vector>

#include "comm/topo_math.h"

namespace ccmpi::comm {
namespace {

std::vector<int> dims(int n, std::vector<int> d) {
  EXPECT_EQ(dimsCreate(n, static_cast<int>(d.size()), d.data()), MPI_SUCCESS) << n;
  return d;
}

TEST(CommDims, Balanced) {
  EXPECT_EQ(dims(6, {0, 0}), (std::vector<int>{3, 2}));
  EXPECT_EQ(dims(7, {0, 0}), (std::vector<int>{7, 1}));
  EXPECT_EQ(dims(6, {0, 0, 0}), (std::vector<int>{3, 2, 1}));
  EXPECT_EQ(dims(16, {0, 0}), (std::vector<int>{4, 4}));
  EXPECT_EQ(dims(16, {0, 0, 0}), (std::vector<int>{4, 2, 2}));
  EXPECT_EQ(dims(72, {0, 0}), (std::vector<int>{9, 8}));  // greedy factoring gives 12x6
  EXPECT_EQ(dims(72, {0, 0, 0}), (std::vector<int>{6, 4, 3}));
  EXPECT_EQ(dims(1, {0, 0, 0}), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(dims(12, {0}), (std::vector<int>{12}));
  EXPECT_EQ(dims(1024, {0, 0, 0}), (std::vector<int>{16, 8, 8}));
}

TEST(CommDims, FixedEntries) {
  EXPECT_EQ(dims(6, {0, 3, 0}), (std::vector<int>{2, 3, 1}));
  EXPECT_EQ(dims(24, {0, 2, 0}), (std::vector<int>{4, 2, 3}));
  EXPECT_EQ(dims(8, {2, 4}), (std::vector<int>{2, 4}));
  std::vector<int> none;
  EXPECT_EQ(dimsCreate(5, 0, none.data()), MPI_ERR_DIMS);  // product 1 != 5
  EXPECT_EQ(dimsCreate(1, 0, none.data()), MPI_SUCCESS);
}

TEST(CommDims, Errors) {
  std::vector<int> d = {0, 4};
  EXPECT_EQ(dimsCreate(7, 2, d.data()), MPI_ERR_DIMS);  // 4 does not divide 7
  d = {2, 2};
  EXPECT_EQ(dimsCreate(8, 2, d.data()), MPI_ERR_DIMS);  // product != nnodes
  d = {-1, 0};
  EXPECT_EQ(dimsCreate(4, 2, d.data()), MPI_ERR_DIMS);
  EXPECT_EQ(dimsCreate(4, -1, d.data()), MPI_ERR_DIMS);
  d = {0};
  EXPECT_EQ(dimsCreate(0, 1, d.data()), MPI_ERR_ARG);
}

TEST(CommDims, ProductAlwaysMatchesAndNonIncreasing) {
  for (int n = 1; n <= 300; ++n) {
    for (int k = 1; k <= 4; ++k) {
      std::vector<int> d(k, 0);
      ASSERT_EQ(dimsCreate(n, k, d.data()), MPI_SUCCESS);
      long long p = 1;
      for (int x : d) p *= x;
      ASSERT_EQ(p, n) << "n=" << n << " k=" << k;
      ASSERT_TRUE(std::is_sorted(d.rbegin(), d.rend())) << "n=" << n << " k=" << k;
    }
  }
}

TEST(CommCart, RankCoordsRoundTrip) {
  const std::vector<int> d = {3, 4, 2}, p = {0, 0, 0};
  for (int r = 0; r < 24; ++r) {
    int c[3];
    cartCoordsOf(d, r, c);
    int back = -1;
    ASSERT_EQ(cartRankOf(d, p, c, &back), MPI_SUCCESS);
    EXPECT_EQ(back, r);
  }
  int c[3];
  cartCoordsOf(d, 13, c);  // row-major: 13 = 1*8 + 2*2 + 1
  EXPECT_EQ(c[0], 1);
  EXPECT_EQ(c[1], 2);
  EXPECT_EQ(c[2], 1);
}

TEST(CommCart, RankWrapsOnlyPeriodicDims) {
  const std::vector<int> d = {3, 4}, p = {1, 0};
  int r;
  const int wrap[] = {-1, 2};
  ASSERT_EQ(cartRankOf(d, p, wrap, &r), MPI_SUCCESS);
  EXPECT_EQ(r, 2 * 4 + 2);
  const int wrap2[] = {7, 0};
  ASSERT_EQ(cartRankOf(d, p, wrap2, &r), MPI_SUCCESS);
  EXPECT_EQ(r, 1 * 4);
  const int bad[] = {0, 4};
  EXPECT_EQ(cartRankOf(d, p, bad, &r), MPI_ERR_ARG);
  const int bad2[] = {0, -1};
  EXPECT_EQ(cartRankOf(d, p, bad2, &r), MPI_ERR_ARG);
}

TEST(CommCart, Shift) {
  const std::vector<int> d = {4, 3}, p = {1, 0};
  int src, dst;
  // rank 5 = (1, 2)
  cartShift(d, p, 5, 0, 1, &src, &dst);
  EXPECT_EQ(src, 2);  // (0, 2)
  EXPECT_EQ(dst, 8);  // (2, 2)
  cartShift(d, p, 5, 0, 3, &src, &dst);
  EXPECT_EQ(src, 8);  // (-2 -> 2, 2)
  EXPECT_EQ(dst, 2);  // (4 -> 0, 2)
  cartShift(d, p, 5, 1, 1, &src, &dst);
  EXPECT_EQ(src, 4);  // (1, 1)
  EXPECT_EQ(dst, MPI_PROC_NULL);
  cartShift(d, p, 5, 1, -2, &src, &dst);
  EXPECT_EQ(src, MPI_PROC_NULL);
  EXPECT_EQ(dst, 3);  // (1, 0)
  cartShift(d, p, 5, 1, 0, &src, &dst);
  EXPECT_EQ(src, 5);
  EXPECT_EQ(dst, 5);
}

TEST(CommCart, SubColorKey) {
  const std::vector<int> d = {2, 3, 4}, p = {1, 0, 1};
  const int remain[] = {0, 1, 0};
  // rank 17 = (1, 1, 1): dropped dims (0, 2) -> color 1*4+1 = 5, key = 1
  int color, key;
  std::vector<int> sd, sp;
  cartSubColorKey(d, p, 17, remain, &color, &key, &sd, &sp);
  EXPECT_EQ(color, 5);
  EXPECT_EQ(key, 1);
  EXPECT_EQ(sd, std::vector<int>{3});
  EXPECT_EQ(sp, std::vector<int>{0});
  const int none[] = {0, 0, 0};
  cartSubColorKey(d, p, 17, none, &color, &key, &sd, &sp);
  EXPECT_EQ(color, 17);
  EXPECT_EQ(key, 0);
  EXPECT_TRUE(sd.empty());
}

}  // namespace
}  // namespace ccmpi::comm
