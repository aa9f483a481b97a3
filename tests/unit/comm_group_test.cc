// Group algebra and MPI_Comm_split ordering (comm/group_ops.h).
#include <gtest/gtest.h>
#include <mpi.h>

#include "base/error.h"
#include "comm/group_ops.h"

namespace ccmpi::comm {
namespace {

TEST(CommGroup, UnionKeepsFirstOrderThenNewMembers) {
  EXPECT_EQ(groupUnion({3, 1, 5}, {5, 2, 3, 7}), (RankList{3, 1, 5, 2, 7}));
  EXPECT_EQ(groupUnion({}, {4, 2}), (RankList{4, 2}));
  EXPECT_EQ(groupUnion({4, 2}, {}), (RankList{4, 2}));
}

TEST(CommGroup, IntersectionAndDifferenceFollowFirstGroup) {
  EXPECT_EQ(groupIntersection({3, 1, 5, 0}, {0, 5, 9}), (RankList{5, 0}));
  EXPECT_EQ(groupIntersection({1, 2}, {3, 4}), RankList{});
  EXPECT_EQ(groupDifference({3, 1, 5, 0}, {0, 5, 9}), (RankList{3, 1}));
  EXPECT_EQ(groupDifference({1, 2}, {1, 2}), RankList{});
}

TEST(CommGroup, Compare) {
  EXPECT_EQ(groupCompare({0, 1, 2}, {0, 1, 2}), MPI_IDENT);
  EXPECT_EQ(groupCompare({0, 1, 2}, {2, 0, 1}), MPI_SIMILAR);
  EXPECT_EQ(groupCompare({0, 1, 2}, {0, 1}), MPI_UNEQUAL);
  EXPECT_EQ(groupCompare({0, 1, 2}, {0, 1, 3}), MPI_UNEQUAL);
  EXPECT_EQ(groupCompare({}, {}), MPI_IDENT);
}

TEST(CommGroup, Translate) {
  const RankList a = {4, 6, 8, 10}, b = {10, 3, 6};
  const int in[] = {0, 1, 3, MPI_PROC_NULL};
  int out[4];
  ASSERT_EQ(groupTranslate(a, 4, in, b, out), MPI_SUCCESS);
  EXPECT_EQ(out[0], MPI_UNDEFINED);
  EXPECT_EQ(out[1], 2);
  EXPECT_EQ(out[2], 0);
  EXPECT_EQ(out[3], MPI_PROC_NULL);
  const int bad[] = {4};
  EXPECT_EQ(groupTranslate(a, 1, bad, b, out), MPI_ERR_RANK);
  EXPECT_NE(lastErrorCause().find("ranks[0] = 4"), std::string::npos) << lastErrorCause();
}

TEST(CommGroup, InclExcl) {
  const RankList g = {10, 11, 12, 13, 14};
  RankList out;
  const int r1[] = {3, 0, 4};
  ASSERT_EQ(groupIncl(g, 3, r1, &out), MPI_SUCCESS);
  EXPECT_EQ(out, (RankList{13, 10, 14}));
  ASSERT_EQ(groupExcl(g, 3, r1, &out), MPI_SUCCESS);
  EXPECT_EQ(out, (RankList{11, 12}));
  ASSERT_EQ(groupIncl(g, 0, nullptr, &out), MPI_SUCCESS);
  EXPECT_TRUE(out.empty());
  const int dup[] = {1, 1};
  EXPECT_EQ(groupIncl(g, 2, dup, &out), MPI_ERR_RANK);
  EXPECT_EQ(groupExcl(g, 2, dup, &out), MPI_ERR_RANK);
  const int outOfRange[] = {5};
  EXPECT_EQ(groupIncl(g, 1, outOfRange, &out), MPI_ERR_RANK);
  const int negative[] = {-1};
  EXPECT_EQ(groupExcl(g, 1, negative, &out), MPI_ERR_RANK);
  EXPECT_EQ(groupIncl(g, 6, r1, &out), MPI_ERR_ARG);
  EXPECT_EQ(groupIncl(g, -1, r1, &out), MPI_ERR_ARG);
}

TEST(CommGroup, Ranges) {
  RankList g(10);
  for (int i = 0; i < 10; ++i) g[i] = 100 + i;
  RankList out;
  int r1[][3] = {{0, 6, 3}, {9, 7, -1}};
  ASSERT_EQ(groupRangeIncl(g, 2, r1, &out), MPI_SUCCESS);
  EXPECT_EQ(out, (RankList{100, 103, 106, 109, 108, 107}));
  ASSERT_EQ(groupRangeExcl(g, 2, r1, &out), MPI_SUCCESS);
  EXPECT_EQ(out, (RankList{101, 102, 104, 105}));
  int single[][3] = {{4, 4, 1}};
  ASSERT_EQ(groupRangeIncl(g, 1, single, &out), MPI_SUCCESS);
  EXPECT_EQ(out, (RankList{104}));
  int strideBeyond[][3] = {{1, 8, 5}};  // 1, 6
  ASSERT_EQ(groupRangeIncl(g, 1, strideBeyond, &out), MPI_SUCCESS);
  EXPECT_EQ(out, (RankList{101, 106}));
  int zeroStride[][3] = {{0, 3, 0}};
  EXPECT_EQ(groupRangeIncl(g, 1, zeroStride, &out), MPI_ERR_ARG);
  int beyond[][3] = {{0, 10, 1}};
  EXPECT_EQ(groupRangeIncl(g, 1, beyond, &out), MPI_ERR_RANK);
  int overlap[][3] = {{0, 4, 2}, {4, 5, 1}};
  EXPECT_EQ(groupRangeExcl(g, 2, overlap, &out), MPI_ERR_RANK);
  EXPECT_EQ(groupRangeIncl(g, -2, overlap, &out), MPI_ERR_ARG);
}

TEST(CommSplit, OrdersByKeyThenParentRank) {
  // parent rank: 0      1       2      3      4               5
  std::vector<std::pair<int, int>> ck = {{1, 5}, {0, 0}, {1, 2}, {1, 5}, {MPI_UNDEFINED, 0},
                                         {0, -3}};
  EXPECT_EQ(splitMembers(ck, 0), (std::vector<int>{2, 0, 3}));
  EXPECT_EQ(splitMembers(ck, 3), (std::vector<int>{2, 0, 3}));
  EXPECT_EQ(splitMembers(ck, 1), (std::vector<int>{5, 1}));
  EXPECT_TRUE(splitMembers(ck, 4).empty());
}

TEST(CommSplit, SameKeyKeepsParentOrder) {
  std::vector<std::pair<int, int>> ck(7, {3, 0});
  EXPECT_EQ(splitMembers(ck, 6), (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
  ck[2].second = -1;  // moves to the front
  EXPECT_EQ(splitMembers(ck, 0), (std::vector<int>{2, 0, 1, 3, 4, 5, 6}));
}

}  // namespace
}  // namespace ccmpi::comm
