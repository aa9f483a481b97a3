// Bitmap of free context-id slots (see context_ids.h).
#include "comm/context_ids.h"

namespace ccmpi::comm {

ContextIdPool::ContextIdPool() {
  free_.fill(~uint64_t{0});
  free_[0] &= ~uint64_t{3};                   // WORLD (slot 0) and SELF (slot 1)
  free_[kWords - 1] &= ~(uint64_t{1} << 63);  // create_group scratch slot
}

int64_t ContextIdPool::lowestFree(const uint64_t* mask) {
  for (int w = 0; w < kWords; ++w) {
    if (mask[w] != 0) return 2 * (int64_t{w} * 64 + __builtin_ctzll(mask[w]));
  }
  return -1;
}

bool ContextIdPool::reserve(uint32_t context) {
  if (context % 2 != 0 || context / 2 >= kSlots) return false;
  const uint32_t slot = context / 2;
  const uint64_t bit = uint64_t{1} << (slot % 64);
  if (!(free_[slot / 64] & bit)) return false;
  free_[slot / 64] &= ~bit;
  return true;
}

bool ContextIdPool::release(uint32_t context) {
  if (context % 2 != 0 || context / 2 >= kSlots) return false;
  if (context == kWorldContext || context == kSelfContext || context == kCreateGroupContext)
    return false;
  const uint32_t slot = context / 2;
  const uint64_t bit = uint64_t{1} << (slot % 64);
  if (free_[slot / 64] & bit) return false;
  free_[slot / 64] |= bit;
  return true;
}

bool ContextIdPool::isFree(uint32_t context) const {
  if (context % 2 != 0 || context / 2 >= kSlots) return false;
  const uint32_t slot = context / 2;
  return (free_[slot / 64] >> (slot % 64)) & 1;
}

int ContextIdPool::freeCount() const {
  int n = 0;
  for (uint64_t w : free_) n += __builtin_popcountll(w);
  return n;
}

}  // namespace ccmpi::comm
