#pragma once
// The committed form of a datatype: a small tree of copy loops ("plan") that pack/unpack
// walk, built by commit from the TypeDesc tree.
//
// Three kinds of node, each describing one instance placed at an origin address:
//   kRuns    a flat list of strided runs (n equally long blocks at a constant stride,
//            with the packed offset where each run starts). Used for every subtree whose
//            expansion is small (at most kFlatBlocks contiguous blocks, or no more blocks
//            than the description has entries, as for indexed/struct of basic types).
//   kRepeat  `count` copies of `child`, copy i at disp + i*stride (vector, hvector,
//            contiguous, and the blocklength copies inside each vector block).
//   kSeq     a list of children at their own displacements (hindexed/struct whose blocks
//            are themselves large).
// Building the plan merges what touches: copies of a single block placed a block length
// apart become one block (contiguous of contiguous, vector with stride == blocklength),
// and a repeat of a repeat that tiles it becomes one repeat. So the plan of
// vector(INT_MAX/2, 1, 3, T) is one kRepeat over T's runs: memory and commit time do not
// depend on the count; only indexed/struct lists (the size of their description) are
// proportional to the number of blocks.
//
// A packed-stream offset is found without walking from the start: a repeat divides by
// its child's size, a run list and a sequence binary-search their start offsets.
#include <cstdint>
#include <memory>
#include <vector>

#include "datatype/datatype.h"

namespace ccmpi::datatype {

struct TypeDesc;
struct PlanNode;
using PlanPtr = std::shared_ptr<const PlanNode>;

struct PlanItem {
  int64_t disp;   // origin of the child relative to this node's origin
  int64_t start;  // packed offset of the child within this node
  PlanPtr node;
};

struct PlanNode {
  enum class Kind : uint8_t { kRuns, kRepeat, kSeq };
  Kind kind = Kind::kRuns;
  int64_t size = 0;       // packed bytes of one instance
  int64_t blocks = 0;     // contiguous blocks of one instance (saturates at kManyBlocks)
  std::vector<Run> runs;  // kRuns
  int64_t disp = 0, count = 0, stride = 0;  // kRepeat
  PlanPtr child;                            // kRepeat
  std::vector<PlanItem> items;              // kSeq

  // One contiguous block of `size` bytes at runs[0].disp.
  bool singleBlock() const { return kind == Kind::kRuns && runs.size() == 1 && runs[0].n == 1; }
};

inline constexpr int64_t kManyBlocks = int64_t{1} << 62;
// Subtrees expanding to at most this many blocks become flat run lists (default 4096).
// Tests lower it to exercise the loop nodes with small types; takes effect at the next
// commit.
int64_t flatBlocks();
void setFlatBlocks(int64_t n);

// The plan of one element of d.
PlanPtr compilePlan(const TypeDesc& d);
// Appends the (merged) blocks of one instance of p placed at `base`; at most `limit`
// blocks in total (returns false if there would be more).
bool expandPlan(const PlanNode& p, int64_t base, std::vector<Block>& out, size_t limit);
// Number of nodes and bytes of run/item storage in the plan (compactness checks).
int64_t planFootprint(const PlanNode& p);

}  // namespace ccmpi::datatype
