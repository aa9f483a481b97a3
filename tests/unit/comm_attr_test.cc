// Attribute caching logic (comm/attributes.h) on bare Comm objects: callback order and
// arguments, keyval lifetime after MPI_Comm_free_keyval, predefined keys.
#include <gtest/gtest.h>
#include <mpi.h>

#include <vector>

#include "comm/attributes.h"

namespace ccmpi::comm {
namespace {

std::vector<std::pair<int, intptr_t>> gDeleted;  // (keyval, value)

int recordDelete(MPI_Comm, int keyval, void* value, void*) {
  gDeleted.emplace_back(keyval, reinterpret_cast<intptr_t>(value));
  return MPI_SUCCESS;
}

int plusOneCopy(MPI_Comm, int, void* extra, void* in, void* out, int* flag) {
  ++*static_cast<int*>(extra);
  *static_cast<void**>(out) = static_cast<char*>(in) + 1;
  *flag = 1;
  return MPI_SUCCESS;
}

int refuseDelete(MPI_Comm, int, void*, void*) {
  return MPI_ERR_OTHER;
}

class CommAttr : public ::testing::Test {
 protected:
  void SetUp() override {
    initPredefinedAttributes(4);
    gDeleted.clear();
  }
  void TearDown() override { finalizeAttributes(); }
  Comm a_, b_;
};

TEST_F(CommAttr, PredefinedKeysAreReadOnlyInts) {
  void* v = nullptr;
  int flag = 0;
  ASSERT_EQ(getAttribute(a_, MPI_TAG_UB, &v, &flag), MPI_SUCCESS);
  ASSERT_TRUE(flag);
  EXPECT_GE(*static_cast<int*>(v), 32767);
  ASSERT_EQ(getAttribute(a_, MPI_UNIVERSE_SIZE, &v, &flag), MPI_SUCCESS);
  EXPECT_EQ(*static_cast<int*>(v), 4);
  ASSERT_EQ(getAttribute(a_, MPI_HOST, &v, &flag), MPI_SUCCESS);
  EXPECT_EQ(*static_cast<int*>(v), MPI_PROC_NULL);
  EXPECT_EQ(setAttribute(a_, 1, MPI_TAG_UB, nullptr), MPI_ERR_KEYVAL);
  EXPECT_EQ(deleteAttribute(a_, 1, MPI_IO), MPI_ERR_KEYVAL);
  int k = MPI_APPNUM;
  EXPECT_EQ(freeKeyval(&k), MPI_ERR_KEYVAL);
}

TEST_F(CommAttr, DeleteRunsOnSetOverDeleteAndFreeNewestFirst) {
  int k1, k2, k3;
  createKeyval(nullptr, recordDelete, nullptr, &k1);
  createKeyval(nullptr, recordDelete, nullptr, &k2);
  createKeyval(nullptr, recordDelete, nullptr, &k3);
  ASSERT_GT(k1, CCMPI_KEYVAL_PREDEFINED_MAX);
  ASSERT_EQ(setAttribute(a_, 7, k2, reinterpret_cast<void*>(20)), MPI_SUCCESS);
  ASSERT_EQ(setAttribute(a_, 7, k1, reinterpret_cast<void*>(10)), MPI_SUCCESS);
  ASSERT_EQ(setAttribute(a_, 7, k3, reinterpret_cast<void*>(30)), MPI_SUCCESS);
  ASSERT_EQ(setAttribute(a_, 7, k2, reinterpret_cast<void*>(21)), MPI_SUCCESS);  // over
  ASSERT_EQ(gDeleted.size(), 1u);
  EXPECT_EQ(gDeleted[0], std::make_pair(k2, intptr_t{20}));
  ASSERT_EQ(deleteAttribute(a_, 7, k3), MPI_SUCCESS);
  EXPECT_EQ(gDeleted.back(), std::make_pair(k3, intptr_t{30}));
  EXPECT_EQ(deleteAttribute(a_, 7, k3), MPI_ERR_KEYVAL);  // no longer set
  gDeleted.clear();
  ASSERT_EQ(deleteAllAttributes(a_, 7), MPI_SUCCESS);
  // k2 was set (again) after k1: newest first.
  ASSERT_EQ(gDeleted.size(), 2u);
  EXPECT_EQ(gDeleted[0], std::make_pair(k2, intptr_t{21}));
  EXPECT_EQ(gDeleted[1], std::make_pair(k1, intptr_t{10}));
  EXPECT_TRUE(a_.attributes.empty());
}

TEST_F(CommAttr, CopyOnlyWithCopyCallbackAndKeyvalOutlivesFree) {
  int copies = 0, kc, kn;
  createKeyval(plusOneCopy, recordDelete, &copies, &kc);
  createKeyval(nullptr, recordDelete, nullptr, &kn);
  setAttribute(a_, 1, kc, reinterpret_cast<void*>(100));
  setAttribute(a_, 1, kn, reinterpret_cast<void*>(200));
  ASSERT_EQ(copyAttributes(a_, 1, b_), MPI_SUCCESS);
  EXPECT_EQ(copies, 1);
  void* v;
  int flag;
  ASSERT_EQ(getAttribute(b_, kc, &v, &flag), MPI_SUCCESS);
  EXPECT_TRUE(flag);
  EXPECT_EQ(reinterpret_cast<intptr_t>(v), 101);
  ASSERT_EQ(getAttribute(b_, kn, &v, &flag), MPI_SUCCESS);
  EXPECT_FALSE(flag);
  const size_t before = liveKeyvals();
  int freed = kc;
  ASSERT_EQ(freeKeyval(&freed), MPI_SUCCESS);
  EXPECT_EQ(freed, MPI_KEYVAL_INVALID);
  EXPECT_EQ(liveKeyvals(), before);                             // still referenced by a_ and b_
  EXPECT_EQ(setAttribute(a_, 1, kc, nullptr), MPI_ERR_KEYVAL);  // no new uses
  ASSERT_EQ(getAttribute(b_, kc, &v, &flag), MPI_SUCCESS);      // old ones still work
  EXPECT_TRUE(flag);
  deleteAllAttributes(a_, 1);
  EXPECT_EQ(liveKeyvals(), before);
  deleteAllAttributes(b_, 2);
  EXPECT_EQ(liveKeyvals(), before - 1);  // the last attribute released kc
  freed = kc;
  EXPECT_EQ(freeKeyval(&freed), MPI_ERR_KEYVAL);
}

TEST_F(CommAttr, FailingDeleteKeepsTheAttribute) {
  int k;
  createKeyval(nullptr, refuseDelete, nullptr, &k);
  setAttribute(a_, 1, k, reinterpret_cast<void*>(5));
  EXPECT_EQ(deleteAttribute(a_, 1, k), MPI_ERR_OTHER);
  void* v;
  int flag;
  ASSERT_EQ(getAttribute(a_, k, &v, &flag), MPI_SUCCESS);
  EXPECT_TRUE(flag);
  EXPECT_EQ(deleteAllAttributes(a_, 1), MPI_ERR_OTHER);
}

}  // namespace
}  // namespace ccmpi::comm
