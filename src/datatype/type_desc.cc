// Layout builders: each computes the new description's bounds, size, alignment and
// basic-element summary from its old types (see type_desc.h for the bound rules).
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
    if (k.marker != Marker::kNone) {
      // An MPI_LB (MPI_UB) marker bounds only the lower (upper) end.
      const int64_t lo = disp + std::min<int64_t>(0, (reps - 1) * repStride);
      const int64_t hi = disp + std::max<int64_t>(0, (reps - 1) * repStride);
      if (k.marker == Marker::kLb) {
        stickyLb_ = sLbFound_ ? std::min(stickyLb_, lo) : lo;
        sLbFound_ = true;
      } else {
        stickyUb_ = sUbFound_ ? std::max(stickyUb_, hi) : hi;
        sUbFound_ = true;
      }
      return;
    }
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
    extSize_ += copies * k.extSize;
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
    d.extSize = extSize_;
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
  int64_t size_ = 0, extSize_ = 0, elements_ = 0, align_ = 1;
  bool basicSet_ = false, mixed_ = false;
  MPI_Datatype basic_ = MPI_DATATYPE_NULL;
  BasicKind kind_ = BasicKind::kNone;
  int64_t basicCount_ = 0;
};

}  // namespace

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
  d.extSize = k.extSize;
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
  d->extSize = size;
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
