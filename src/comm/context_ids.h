#pragma once
// Context-id allocation. Every communicator owns a pair of context ids (id for p2p
// traffic, id + 1 for collectives), so the pool hands out even ids in slots of two:
// slot s <-> context 2s. Each process keeps a bitmap of its free slots; a new
// communicator's slot is agreed by AND-ing the members' bitmaps (an allreduce with
// MPI_BAND over kWords uint64 words) and taking the lowest slot free everywhere.
// Slot 0 is MPI_COMM_WORLD, slot 1 MPI_COMM_SELF, and the last slot is reserved for
// the temporary communicator MPI_Comm_create_group agrees on.
#include <array>
#include <cstdint>

namespace ccmpi::comm {

class ContextIdPool {
 public:
  static constexpr int kSlots = 2048;
  static constexpr int kWords = kSlots / 64;
  static constexpr uint32_t kWorldContext = 0;
  static constexpr uint32_t kSelfContext = 2;
  static constexpr uint32_t kCreateGroupContext = 2 * (kSlots - 1);

  // All slots free except WORLD, SELF and the create_group slot.
  ContextIdPool();

  // The bitmap to AND with the other members' (1 = free).
  const std::array<uint64_t, kWords>& freeMask() const { return free_; }
  // Lowest context id whose slot is free in `mask` (an AND of free masks), or -1.
  static int64_t lowestFree(const uint64_t* mask);
  // Marks the slot of `context` used; false if it was not free or is out of range.
  bool reserve(uint32_t context);
  // Marks the slot of `context` free again; false if it was not in use / not releasable.
  bool release(uint32_t context);
  bool isFree(uint32_t context) const;
  int freeCount() const;

 private:
  std::array<uint64_t, kWords> free_;
};

}  // namespace ccmpi::comm
