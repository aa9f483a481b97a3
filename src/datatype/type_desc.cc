// Layout builders: each computes the new description's bounds, size, alignment and
// basic-element summary from its old types (see type_desc.h for the bound rules), and
// flatten(), which expands a description into the merged blocks of one element.
#include "datatype/type_desc.h"

#include <algorithm>
#include <utility>

namespace ccmpi::datatype {
namespace {

// Accumulates the bounds and sizes of a type map built from blocks of old types.
class Accumulator {
 public:
  // `reps` blocks of `n` consecutive copies of `k`, block r at disp + r*repStride.
  void add(const TypeDesc& k, int64_t disp, int64_t n, int64_t reps = 1, int64_t repStride = 0) {
    if (n <= 0 || reps <= 0) return;
    const int64_t ext = k.extent();
    const int64_t span = (n - 1) * ext;
    const int64_t repSpan = (reps - 1) * repStride;
    const int64_t lo = disp + k.lb + std::min<int64_t>(0, span) + std::min<int64_t>(0, repSpan);
    const int64_t hi = disp + k.ub + std::max<int64_t>(0, span) + std::max<int64_t>(0, repSpan);
    if (k.stickyLb) {
      stickyLb_ = sLbFound_ ? std::min(stickyLb_, lo) : lo;
      sLbFound_ = true;
    } else {
      lb_ = lbFound_ ? std::min(lb_, lo) : lo;
      lbFound_ = true;
    }
    if (k.stickyUb) {
      stickyUb_ = sUbFound_ ? std::max(stickyUb_, hi) : hi;
      sUbFound_ = true;
    } else {
      ub_ = ubFound_ ? std::max(ub_, hi) : hi;
      ubFound_ = true;
    }
    if (k.hasData) {
      const int64_t tlo =
          disp + k.trueLb + std::min<int64_t>(0, span) + std::min<int64_t>(0, repSpan);
      const int64_t thi =
          disp + k.trueUb + std::max<int64_t>(0, span) + std::max<int64_t>(0, repSpan);
      trueLb_ = hasData_ ? std::min(trueLb_, tlo) : tlo;
      trueUb_ = hasData_ ? std::max(trueUb_, thi) : thi;
      hasData_ = true;
    }
    const int64_t copies = n * reps;
    size_ += copies * k.size;
    elements_ += copies * k.elements;
    if (k.marker == Marker::kNone) align_ = std::max(align_, k.align);
    if (k.elements > 0) {
      if (k.basicType == MPI_DATATYPE_NULL) {
        mixed_ = true;
      } else if (!basicSet_) {
        basic_ = k.basicType;
        kind_ = k.basicKind;
        basicSet_ = true;
      } else if (basic_ != k.basicType) {
        mixed_ = true;
      }
      basicCount_ += copies * k.basicCount;
    }
  }

  // Writes the result into d. `epsilon`: pad the extent to the alignment (structs).
  // `single`: the only old type, whose basic type an empty type inherits.
  void finish(TypeDesc& d, bool epsilon, const TypeDesc* single) const {
    int64_t lb = sLbFound_ ? stickyLb_ : lb_;
    int64_t ub = sUbFound_ ? stickyUb_ : ub_;
    const bool lbKnown = sLbFound_ || lbFound_, ubKnown = sUbFound_ || ubFound_;
    if (!lbKnown && !ubKnown) lb = ub = 0;
    d.lb = lb;
    d.ub = ub;
    d.stickyLb = sLbFound_;
    d.stickyUb = sUbFound_;
    d.align = align_;
    if (epsilon && !sLbFound_ && !sUbFound_ && align_ > 1) {
      const int64_t ext = d.ub - d.lb;
      const int64_t m = ((ext % align_) + align_) % align_;
      if (m != 0) d.ub += align_ - m;
    }
    d.hasData = hasData_;
    d.trueLb = hasData_ ? trueLb_ : 0;
    d.trueUb = hasData_ ? trueUb_ : 0;
    d.size = size_;
    d.elements = elements_;
    if (mixed_) {
      d.basicType = MPI_DATATYPE_NULL;
      d.basicKind = BasicKind::kNone;
      d.basicCount = elements_;
    } else if (basicSet_) {
      d.basicType = basic_;
      d.basicKind = kind_;
      d.basicCount = basicCount_;
    } else if (single) {
      d.basicType = single->basicType;
      d.basicKind = single->basicKind;
      d.basicCount = 0;
    }
  }

 private:
  bool lbFound_ = false, ubFound_ = false, sLbFound_ = false, sUbFound_ = false;
  bool hasData_ = false;
  int64_t lb_ = 0, ub_ = 0, stickyLb_ = 0, stickyUb_ = 0, trueLb_ = 0, trueUb_ = 0;
  int64_t size_ = 0, elements_ = 0, align_ = 1;
  bool basicSet_ = false, mixed_ = false;
  MPI_Datatype basic_ = MPI_DATATYPE_NULL;
  BasicKind kind_ = BasicKind::kNone;
  int64_t basicCount_ = 0;
};

inline void emit(std::vector<Block>& out, int64_t disp, int64_t len) {
  if (len <= 0) return;
  if (!out.empty() && out.back().disp + out.back().len == disp) {
    out.back().len += len;
  } else {
    out.push_back({disp, len});
  }
}

// A description that is one block of data exactly as long as its extent (copies of it
// placed extent apart join into one block).
bool dense(const TypeDesc& k, const std::vector<Block>& kb) {
  return kb.size() == 1 && kb[0].len == k.extent() && k.extent() > 0;
}

// Blocks of one element of k placed at 0 (leaves need none).
std::vector<Block> blocksOf(const TypeDesc& k) {
  std::vector<Block> kb;
  if (k.layout != Layout::kLeaf) flatten(k, 0, kb);
  return kb;
}

// Emits n consecutive copies of k at `at` (copy j at at + j*extent).
void replicate(const TypeDesc& k, const std::vector<Block>& kb, int64_t at, int64_t n,
               std::vector<Block>& out) {
  if (n <= 0 || k.size == 0) return;
  if (k.layout == Layout::kLeaf) {
    emit(out, at, n * k.size);
    return;
  }
  const int64_t ext = k.extent();
  if (dense(k, kb)) {
    emit(out, at + kb[0].disp, n * ext);
    return;
  }
  for (int64_t j = 0; j < n; ++j) {
    const int64_t base = at + j * ext;
    for (const Block& b : kb) emit(out, base + b.disp, b.len);
  }
}

}  // namespace

void flatten(const TypeDesc& d, int64_t base, std::vector<Block>& out) {
  switch (d.layout) {
    case Layout::kLeaf:
      emit(out, base, d.size);
      return;
    case Layout::kResized:
    case Layout::kAlias:
      flatten(*d.kids[0], base, out);
      return;
    case Layout::kHvector: {
      const TypeDesc& k = *d.kids[0];
      if (k.size == 0 || d.count == 0 || d.blocklen == 0) return;
      const std::vector<Block> kb = blocksOf(k);
      const bool leafOrDense = k.layout == Layout::kLeaf || dense(k, kb);
      // Blocks that touch each other: the whole vector is one block.
      if (leafOrDense && d.stride == d.blocklen * k.extent()) {
        const int64_t first = k.layout == Layout::kLeaf ? 0 : kb[0].disp;
        emit(out, base + first, d.count * d.blocklen * k.extent());
        return;
      }
      for (int64_t i = 0; i < d.count; ++i) replicate(k, kb, base + i * d.stride, d.blocklen, out);
      return;
    }
    case Layout::kHindexed: {
      const TypeDesc& k = *d.kids[0];
      if (k.size == 0) return;
      const std::vector<Block> kb = blocksOf(k);
      for (size_t i = 0; i < d.blens.size(); ++i)
        replicate(k, kb, base + d.disps[i], d.blens[i], out);
      return;
    }
    case Layout::kStruct: {
      for (size_t i = 0; i < d.blens.size(); ++i) {
        const TypeDesc& k = *d.kids[i];
        if (k.size == 0 || d.blens[i] == 0) continue;
        replicate(k, blocksOf(k), base + d.disps[i], d.blens[i], out);
      }
      return;
    }
  }
}

int64_t TypeDesc::prefixElements(int64_t bytes) const {
  if (bytes <= 0) return 0;
  if (bytes >= size) return elements;
  switch (layout) {
    case Layout::kLeaf:
      return -1;  // 0 < bytes < size: inside the element
    case Layout::kResized:
    case Layout::kAlias:
      return kids[0]->prefixElements(bytes);
    case Layout::kHvector:
    case Layout::kHindexed: {
      // Copies of one old type follow each other in the packed stream.
      const TypeDesc& k = *kids[0];
      const int64_t full = bytes / k.size, rem = bytes % k.size;
      const int64_t part = k.prefixElements(rem);
      return part < 0 ? -1 : full * k.elements + part;
    }
    case Layout::kStruct: {
      int64_t n = 0;
      for (size_t i = 0; i < blens.size(); ++i) {
        const TypeDesc& k = *kids[i];
        const int64_t blockBytes = blens[i] * k.size;
        if (bytes >= blockBytes) {
          n += blens[i] * k.elements;
          bytes -= blockBytes;
          if (bytes == 0) return n;
          continue;
        }
        const int64_t full = bytes / k.size, rem = bytes % k.size;
        const int64_t part = k.prefixElements(rem);
        return part < 0 ? -1 : n + full * k.elements + part;
      }
      return n;
    }
  }
  return -1;
}

int64_t TypeDesc::prefixBytes(int64_t n) const {
  if (n <= 0) return 0;
  if (n >= elements) return size;
  switch (layout) {
    case Layout::kLeaf:
      return 0;
    case Layout::kResized:
    case Layout::kAlias:
      return kids[0]->prefixBytes(n);
    case Layout::kHvector:
    case Layout::kHindexed: {
      const TypeDesc& k = *kids[0];
      return (n / k.elements) * k.size + k.prefixBytes(n % k.elements);
    }
    case Layout::kStruct: {
      int64_t bytes = 0;
      for (size_t i = 0; i < blens.size(); ++i) {
        const TypeDesc& k = *kids[i];
        const int64_t blockElems = blens[i] * k.elements;
        if (n >= blockElems) {
          n -= blockElems;
          bytes += blens[i] * k.size;
          if (n == 0) return bytes;
          continue;
        }
        return bytes + (n / k.elements) * k.size + k.prefixBytes(n % k.elements);
      }
      return bytes;
    }
  }
  return 0;
}

std::shared_ptr<TypeDesc> makeHvector(int64_t count, int64_t blocklen, int64_t stride,
                                      DescPtr kid) {
  auto d = std::make_shared<TypeDesc>();
  d->layout = Layout::kHvector;
  d->count = count;
  d->blocklen = blocklen;
  d->stride = stride;
  Accumulator acc;
  acc.add(*kid, 0, blocklen, count, stride);
  acc.finish(*d, false, kid.get());
  d->kids.push_back(std::move(kid));
  return d;
}

std::shared_ptr<TypeDesc> makeHindexed(std::vector<int64_t> blens, std::vector<int64_t> disps,
                                       DescPtr kid) {
  auto d = std::make_shared<TypeDesc>();
  d->layout = Layout::kHindexed;
  Accumulator acc;
  for (size_t i = 0; i < blens.size(); ++i) acc.add(*kid, disps[i], blens[i]);
  acc.finish(*d, false, kid.get());
  d->blens = std::move(blens);
  d->disps = std::move(disps);
  d->kids.push_back(std::move(kid));
  return d;
}

std::shared_ptr<TypeDesc> makeStruct(std::vector<int64_t> blens, std::vector<int64_t> disps,
                                     std::vector<DescPtr> kids) {
  auto d = std::make_shared<TypeDesc>();
  d->layout = Layout::kStruct;
  Accumulator acc;
  for (size_t i = 0; i < blens.size(); ++i) acc.add(*kids[i], disps[i], blens[i]);
  acc.finish(*d, true, kids.size() == 1 ? kids[0].get() : nullptr);
  d->blens = std::move(blens);
  d->disps = std::move(disps);
  d->kids = std::move(kids);
  return d;
}

namespace {
// Copies the properties (not layout or envelope) of k into d.
void copyProperties(TypeDesc& d, const TypeDesc& k) {
  d.size = k.size;
  d.lb = k.lb;
  d.ub = k.ub;
  d.trueLb = k.trueLb;
  d.trueUb = k.trueUb;
  d.stickyLb = k.stickyLb;
  d.stickyUb = k.stickyUb;
  d.hasData = k.hasData;
  d.align = k.align;
  d.basicType = k.basicType;
  d.basicCount = k.basicCount;
  d.elements = k.elements;
  d.basicKind = k.basicKind;
}
}  // namespace

std::shared_ptr<TypeDesc> makeResized(int64_t lb, int64_t extent, DescPtr kid) {
  auto d = std::make_shared<TypeDesc>();
  d->layout = Layout::kResized;
  copyProperties(*d, *kid);
  d->lb = lb;
  d->ub = lb + extent;
  d->stickyLb = d->stickyUb = true;
  d->kids.push_back(std::move(kid));
  return d;
}

std::shared_ptr<TypeDesc> makeAlias(DescPtr kid) {
  auto d = std::make_shared<TypeDesc>();
  d->layout = Layout::kAlias;
  copyProperties(*d, *kid);
  d->kids.push_back(std::move(kid));
  return d;
}

std::shared_ptr<TypeDesc> makeLeaf(MPI_Datatype named, int64_t size, int64_t align, BasicKind kind,
                                   Marker marker) {
  auto d = std::make_shared<TypeDesc>();
  d->layout = Layout::kLeaf;
  d->marker = marker;
  d->named = named;
  d->size = size;
  d->lb = 0;
  d->ub = size;
  d->trueLb = 0;
  d->trueUb = size;
  d->hasData = size > 0;
  d->align = align;
  d->stickyLb = marker == Marker::kLb;
  d->stickyUb = marker == Marker::kUb;
  if (marker == Marker::kNone) {
    d->basicType = named;
    d->basicCount = 1;
    d->elements = 1;
    d->basicKind = kind;
  }
  return d;
}

}  // namespace ccmpi::datatype
