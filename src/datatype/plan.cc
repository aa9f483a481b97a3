// Building the plan (plan.h) of a type description: bottom-up, each layout becomes a
// repeat or a sequence over its old types' plans, merged where copies touch, and turned
// into a flat run list wherever the expansion is small.
#include "datatype/plan.h"

#include <algorithm>
#include <utility>

#include "datatype/type_desc.h"

namespace ccmpi::datatype {
namespace {

int64_t gFlatBlocks = 4096;

int64_t satMul(int64_t a, int64_t b) {
  if (a <= 0 || b <= 0) return 0;
  if (a > kManyBlocks / b) return kManyBlocks;
  return std::min(a * b, kManyBlocks);
}

int64_t satAdd(int64_t a, int64_t b) {
  return std::min(a + b, kManyBlocks);  // both <= 2^62: no overflow
}

PlanPtr emptyPlan() {
  return std::make_shared<const PlanNode>();
}

PlanPtr blockPlan(int64_t disp, int64_t len) {
  if (len <= 0) return emptyPlan();
  auto p = std::make_shared<PlanNode>();
  p->size = len;
  p->blocks = 1;
  p->runs.push_back({disp, len, 1, 0, 0});
  return p;
}

inline void emit(std::vector<Block>& out, int64_t disp, int64_t len) {
  if (len <= 0) return;
  if (!out.empty() && out.back().disp + out.back().len == disp) {
    out.back().len += len;
  } else {
    out.push_back({disp, len});
  }
}

// Groups blocks of equal length and equal spacing into runs.
PlanPtr runsPlan(const std::vector<Block>& b) {
  auto p = std::make_shared<PlanNode>();
  int64_t start = 0;
  for (size_t i = 0; i < b.size();) {
    size_t j = i + 1;
    int64_t stride = 0;
    if (j < b.size() && b[j].len == b[i].len) {
      stride = b[j].disp - b[i].disp;
      while (j + 1 < b.size() && b[j + 1].len == b[i].len && b[j + 1].disp - b[j].disp == stride)
        ++j;
      ++j;
    }
    const int64_t n = static_cast<int64_t>(j - i);
    p->runs.push_back({b[i].disp, b[i].len, n, n > 1 ? stride : 0, start});
    start += n * b[i].len;
    i = j;
  }
  p->runs.shrink_to_fit();
  p->size = start;
  p->blocks = static_cast<int64_t>(b.size());
  return p;
}

// p as a flat run list if its expansion has at most max(kFlatBlocks, entries) blocks.
PlanPtr maybeFlat(PlanPtr p, int64_t entries = 0) {
  if (p->kind == PlanNode::Kind::kRuns || p->blocks > std::max(gFlatBlocks, entries)) return p;
  std::vector<Block> b;
  b.reserve(static_cast<size_t>(p->blocks));
  expandPlan(*p, 0, b, static_cast<size_t>(p->blocks));
  return runsPlan(b);
}

// n copies of c, copy i at i*stride.
PlanPtr repeat(int64_t n, int64_t stride, PlanPtr c) {
  if (n <= 0 || c->size == 0) return emptyPlan();
  if (n == 1) return c;
  if (c->singleBlock() && stride == c->size) return blockPlan(c->runs[0].disp, n * c->size);
  auto p = std::make_shared<PlanNode>();
  p->size = n * c->size;
  if (c->kind == PlanNode::Kind::kRuns && c->runs.size() == 1 &&
      stride == c->runs[0].n * c->runs[0].stride) {
    // The copies continue c's single run.
    Run r = c->runs[0];
    r.n *= n;
    p->runs.push_back(r);
    p->blocks = r.n;
    return p;
  }
  p->kind = PlanNode::Kind::kRepeat;
  if (c->kind == PlanNode::Kind::kRepeat && stride == c->count * c->stride) {
    // The copies continue c's loop.
    p->disp = c->disp;
    p->count = n * c->count;
    p->stride = c->stride;
    p->child = c->child;
  } else {
    p->count = n;
    p->stride = stride;
    p->child = std::move(c);
  }
  p->blocks = satMul(p->count, p->child->blocks);
  return p;
}

struct Piece {
  int64_t disp, n;  // n copies of the kid at disp, disp + extent, ...
  PlanPtr kid;
  int64_t extent;
};

// A list of pieces (hindexed, struct): expanded into a run list when that is not larger
// than the description, a sequence otherwise.
PlanPtr sequence(const std::vector<Piece>& pieces) {
  int64_t blocks = 0, entries = 0;
  for (const Piece& pc : pieces) {
    if (pc.n <= 0 || pc.kid->size == 0) continue;
    blocks = satAdd(blocks, satMul(pc.n, pc.kid->blocks));
    ++entries;
  }
  if (blocks <= std::max(gFlatBlocks, entries)) {
    std::vector<Block> b;
    b.reserve(static_cast<size_t>(blocks));
    for (const Piece& pc : pieces) {
      if (pc.n <= 0 || pc.kid->size == 0) continue;
      for (int64_t j = 0; j < pc.n; ++j)
        expandPlan(*pc.kid, pc.disp + j * pc.extent, b, static_cast<size_t>(blocks));
    }
    return runsPlan(b);
  }
  auto p = std::make_shared<PlanNode>();
  p->kind = PlanNode::Kind::kSeq;
  for (const Piece& pc : pieces) {
    if (pc.n <= 0 || pc.kid->size == 0) continue;
    PlanPtr child = maybeFlat(repeat(pc.n, pc.extent, pc.kid));
    p->items.push_back({pc.disp, p->size, child});
    p->size += child->size;
    p->blocks = satAdd(p->blocks, child->blocks);
  }
  p->items.shrink_to_fit();
  return p;
}

}  // namespace

int64_t flatBlocks() {
  return gFlatBlocks;
}

void setFlatBlocks(int64_t n) {
  gFlatBlocks = n;
}

PlanPtr compilePlan(const TypeDesc& d) {
  switch (d.layout) {
    case Layout::kLeaf:
      return blockPlan(0, d.size);
    case Layout::kResized:
    case Layout::kAlias:
      return compilePlan(*d.kids[0]);
    case Layout::kHvector: {
      const TypeDesc& k = *d.kids[0];
      if (k.size == 0 || d.count == 0 || d.blocklen == 0) return emptyPlan();
      PlanPtr inner = maybeFlat(repeat(d.blocklen, k.extent(), compilePlan(k)));
      return maybeFlat(repeat(d.count, d.stride, std::move(inner)));
    }
    case Layout::kHindexed: {
      const TypeDesc& k = *d.kids[0];
      if (k.size == 0) return emptyPlan();
      const PlanPtr kid = compilePlan(k);
      std::vector<Piece> pieces(d.blens.size());
      for (size_t i = 0; i < d.blens.size(); ++i)
        pieces[i] = {d.disps[i], d.blens[i], kid, k.extent()};
      return sequence(pieces);
    }
    case Layout::kStruct: {
      std::vector<Piece> pieces(d.blens.size());
      for (size_t i = 0; i < d.blens.size(); ++i) {
        const TypeDesc& k = *d.kids[i];
        pieces[i] = {d.disps[i], d.blens[i], k.size == 0 ? emptyPlan() : compilePlan(k),
                     k.extent()};
      }
      return sequence(pieces);
    }
  }
  return emptyPlan();
}

bool expandPlan(const PlanNode& p, int64_t base, std::vector<Block>& out, size_t limit) {
  switch (p.kind) {
    case PlanNode::Kind::kRuns:
      for (const Run& r : p.runs) {
        for (int64_t j = 0; j < r.n; ++j) {
          emit(out, base + r.disp + j * r.stride, r.len);
          if (out.size() > limit) return false;
        }
      }
      return true;
    case PlanNode::Kind::kRepeat:
      for (int64_t i = 0; i < p.count; ++i)
        if (!expandPlan(*p.child, base + p.disp + i * p.stride, out, limit)) return false;
      return true;
    case PlanNode::Kind::kSeq:
      for (const PlanItem& it : p.items)
        if (!expandPlan(*it.node, base + it.disp, out, limit)) return false;
      return true;
  }
  return true;
}

int64_t planFootprint(const PlanNode& p) {
  int64_t bytes = sizeof(PlanNode) + static_cast<int64_t>(p.runs.capacity() * sizeof(Run)) +
                  static_cast<int64_t>(p.items.capacity() * sizeof(PlanItem));
  if (p.child) bytes += planFootprint(*p.child);
  for (const PlanItem& it : p.items) bytes += planFootprint(*it.node);
  return bytes;
}

}  // namespace ccmpi::datatype
