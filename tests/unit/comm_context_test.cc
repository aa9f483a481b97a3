// Context-id bitmaps (comm/context_ids.h): reservation, release and agreement by AND.
#include <gtest/gtest.h>

#include <vector>

#include "comm/context_ids.h"

namespace ccmpi::comm {
namespace {

using Mask = std::vector<uint64_t>;

Mask maskOf(const ContextIdPool& p) {
  return Mask(p.freeMask().begin(), p.freeMask().end());
}

Mask andOf(const std::vector<ContextIdPool*>& pools) {
  Mask m(ContextIdPool::kWords, ~uint64_t{0});
  for (auto* p : pools)
    for (int w = 0; w < ContextIdPool::kWords; ++w) m[w] &= p->freeMask()[w];
  return m;
}

TEST(CommContext, PredefinedIdsAreTaken) {
  ContextIdPool p;
  EXPECT_FALSE(p.isFree(ContextIdPool::kWorldContext));
  EXPECT_FALSE(p.isFree(ContextIdPool::kSelfContext));
  EXPECT_FALSE(p.isFree(ContextIdPool::kCreateGroupContext));
  EXPECT_EQ(ContextIdPool::lowestFree(maskOf(p).data()), 4);
  EXPECT_EQ(p.freeCount(), ContextIdPool::kSlots - 3);
  EXPECT_FALSE(p.release(ContextIdPool::kWorldContext));
  EXPECT_FALSE(p.release(ContextIdPool::kSelfContext));
}

TEST(CommContext, ReserveReleaseReuse) {
  ContextIdPool p;
  EXPECT_TRUE(p.reserve(4));
  EXPECT_FALSE(p.reserve(4));
  EXPECT_FALSE(p.reserve(5));  // odd ids are the collective halves
  EXPECT_TRUE(p.reserve(6));
  EXPECT_EQ(ContextIdPool::lowestFree(maskOf(p).data()), 8);
  EXPECT_TRUE(p.release(4));
  EXPECT_FALSE(p.release(4));
  EXPECT_EQ(ContextIdPool::lowestFree(maskOf(p).data()), 4);
}

TEST(CommContext, AgreementSkipsIdsUsedAnywhere) {
  ContextIdPool a, b, c;
  a.reserve(4);
  b.reserve(6);
  c.reserve(8);
  c.reserve(130);  // crosses into the third word
  Mask m = andOf({&a, &b, &c});
  EXPECT_EQ(ContextIdPool::lowestFree(m.data()), 10);
  // a and b alone may reuse 8, which only c holds (disjoint communicators).
  m = andOf({&a, &b});
  EXPECT_EQ(ContextIdPool::lowestFree(m.data()), 8);
}

TEST(CommContext, ExhaustionAndWordBoundaries) {
  ContextIdPool p;
  int taken = 0;
  for (;;) {
    const int64_t id = ContextIdPool::lowestFree(maskOf(p).data());
    if (id < 0) break;
    ASSERT_TRUE(p.reserve(static_cast<uint32_t>(id)));
    ++taken;
  }
  EXPECT_EQ(taken, ContextIdPool::kSlots - 3);
  EXPECT_EQ(p.freeCount(), 0);
  EXPECT_FALSE(p.reserve(2 * ContextIdPool::kSlots));  // out of range
  EXPECT_TRUE(p.release(2 * 64));                      // first id of word 1
  EXPECT_EQ(ContextIdPool::lowestFree(maskOf(p).data()), 128);
  EXPECT_TRUE(p.release(2 * (ContextIdPool::kSlots - 2)));
  EXPECT_EQ(ContextIdPool::lowestFree(maskOf(p).data()), 128);
}

}  // namespace
}  // namespace ccmpi::comm
