// Pack/unpack of a byte range [offset, offset+len) of the packed stream of `count`
// elements.
//
// The packed stream is element 0's data in type-map order, then element 1's, ...; element
// e lives at buf + e*extent. Contiguous types are one memcpy at buf + trueLb + offset.
// Otherwise `count` elements are a repeat of the type's plan (plan.h) and the walker
// descends it: the resume position is found by division in repeats and binary search in
// run lists and sequences (O(depth + log entries), never a scan from the start); a
// repeat of a single block is one strided loop; a run copies its equally long blocks in
// one loop, with fixed-size copies for blocks of 1, 2, 4, 8, 12 and 16 bytes, two
// overlapping moves for other blocks up to 32 bytes and memcpy above. Nothing allocates.
#include <algorithm>
#include <cstring>

#include "datatype/datatype.h"
#include "datatype/plan.h"

namespace ccmpi::datatype {
namespace {

using Byte = unsigned char;

// Copies n bytes (0 <= n) without a library call for small n: two possibly overlapping
// fixed-size moves cover any length in [k, 2k].
template <size_t K>
inline void move(Byte* d, const Byte* s) {
  std::memcpy(d, s, K);
}
inline void copySmall(Byte* d, const Byte* s, int64_t n) {
  if (n > 32) {
    std::memcpy(d, s, static_cast<size_t>(n));
  } else if (n >= 16) {
    move<16>(d, s);
    move<16>(d + n - 16, s + n - 16);
  } else if (n >= 8) {
    move<8>(d, s);
    move<8>(d + n - 8, s + n - 8);
  } else if (n >= 4) {
    move<4>(d, s);
    move<4>(d + n - 4, s + n - 4);
  } else if (n >= 2) {
    move<2>(d, s);
    move<2>(d + n - 2, s + n - 2);
  } else if (n == 1) {
    *d = *s;
  }
}

// One block between memory and the stream; returns the advanced stream pointer.
template <bool kPack>
inline Byte* copyOne(Byte* mem, int64_t len, Byte* stream) {
  if constexpr (kPack) {
    copySmall(stream, mem, len);
  } else {
    copySmall(mem, stream, len);
  }
  return stream + len;
}

template <bool kPack, size_t L>
inline Byte* copyFixed(Byte* mem, int64_t stride, int64_t n, Byte* stream) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (kPack) {
      std::memcpy(stream, mem, L);
    } else {
      std::memcpy(mem, stream, L);
    }
    mem += stride;
    stream += L;
  }
  return stream;
}

// n blocks of len bytes at mem, mem + stride, ... to/from the stream.
template <bool kPack>
inline Byte* copyBlocks(Byte* mem, int64_t stride, int64_t len, int64_t n, Byte* stream) {
  switch (len) {
    case 1:
      return copyFixed<kPack, 1>(mem, stride, n, stream);
    case 2:
      return copyFixed<kPack, 2>(mem, stride, n, stream);
    case 4:
      return copyFixed<kPack, 4>(mem, stride, n, stream);
    case 8:
      return copyFixed<kPack, 8>(mem, stride, n, stream);
    case 12:
      return copyFixed<kPack, 12>(mem, stride, n, stream);
    case 16:
      return copyFixed<kPack, 16>(mem, stride, n, stream);
    default:
      for (int64_t i = 0; i < n; ++i, mem += stride) stream = copyOne<kPack>(mem, len, stream);
      return stream;
  }
}

// Copies a byte range of the packed stream of plan nodes; `stream`/`left` advance as
// bytes are copied. Each call copies from packed offset `skip` of one instance until the
// instance ends or `left` reaches 0.
template <bool kPack>
struct Walker {
  Byte* stream;
  int64_t left;

  void node(const PlanNode& p, Byte* mem, int64_t skip) {
    switch (p.kind) {
      case PlanNode::Kind::kRuns:
        runs(p, mem, skip);
        return;
      case PlanNode::Kind::kRepeat:
        repeat(p.count, p.stride, *p.child, mem + p.disp, skip);
        return;
      case PlanNode::Kind::kSeq: {
        const PlanItem* items = p.items.data();
        const size_t n = p.items.size();
        size_t k = 0;
        if (skip > 0)
          k = static_cast<size_t>(
              std::upper_bound(items, items + n, skip,
                               [](int64_t v, const PlanItem& it) { return v < it.start; }) -
              items - 1);
        for (; k < n && left > 0; ++k) {
          const PlanItem& it = items[k];
          node(*it.node, mem + it.disp, skip > it.start ? skip - it.start : 0);
        }
        return;
      }
    }
  }

  // The runs of one instance at mem, from packed offset skip.
  void runs(const PlanNode& p, Byte* mem, int64_t skip) {
    const Run* runs = p.runs.data();
    const size_t nruns = p.runs.size();
    size_t k = 0;
    int64_t idx = 0;
    if (skip > 0) {
      k = static_cast<size_t>(
          std::upper_bound(runs, runs + nruns, skip,
                           [](int64_t v, const Run& run) { return v < run.start; }) -
          runs - 1);
      const Run& run = runs[k];
      idx = (skip - run.start) / run.len;
      const int64_t inner = (skip - run.start) % run.len;
      if (inner > 0) {  // finish a block begun by an earlier call
        const int64_t c = std::min(run.len - inner, left);
        stream = copyOne<kPack>(mem + run.disp + idx * run.stride + inner, c, stream);
        left -= c;
        if (++idx == run.n) {
          idx = 0;
          ++k;
        }
      }
    }
    for (; k < nruns && left > 0; ++k, idx = 0) {
      const Run& run = runs[k];
      Byte* at = mem + run.disp + idx * run.stride;
      const int64_t blocks = run.n - idx;
      const int64_t full = std::min(blocks, left / run.len);
      if (full == 1 && blocks == 1) {
        stream = copyOne<kPack>(at, run.len, stream);
      } else {
        stream = copyBlocks<kPack>(at, run.stride, run.len, full, stream);
      }
      left -= full * run.len;
      if (full < blocks) {  // the range ends inside this run
        if (left > 0) stream = copyOne<kPack>(at + full * run.stride, left, stream);
        left = 0;
        return;
      }
    }
  }

  // count instances of c at mem, mem + stride, ..., from packed offset skip.
  void repeat(int64_t count, int64_t stride, const PlanNode& c, Byte* mem, int64_t skip) {
    const int64_t size = c.size;
    int64_t i = skip / size;
    const int64_t inner = skip % size;
    if (c.singleBlock()) {  // equally long blocks: one strided loop
      Byte* at = mem + c.runs[0].disp;
      if (inner > 0) {
        const int64_t n = std::min(size - inner, left);
        stream = copyOne<kPack>(at + i * stride + inner, n, stream);
        left -= n;
        ++i;
      }
      const int64_t full = std::min(count - i, left / size);
      stream = copyBlocks<kPack>(at + i * stride, stride, size, full, stream);
      left -= full * size;
      i += full;
      if (left > 0 && i < count) {
        stream = copyOne<kPack>(at + i * stride, std::min(left, size), stream);
        left -= std::min(left, size);
      }
      return;
    }
    if (inner > 0) {
      node(c, mem + i * stride, inner);
      ++i;
    }
    for (; i < count && left > 0; ++i) node(c, mem + i * stride, 0);
  }
};

template <bool kPack>
size_t walk(const Datatype& t, Byte* base, int64_t count, size_t offset, Byte* stream, size_t len) {
  const int64_t size = t.size_;
  const int64_t total = count * size;
  if (count <= 0 || size == 0 || static_cast<int64_t>(offset) >= total || len == 0) return 0;
  const int64_t n = std::min<int64_t>(static_cast<int64_t>(len), total - offset);
  const int64_t off = static_cast<int64_t>(offset);

  if (t.contiguous_) {
    Byte* mem = base + t.trueLb_ + off;
    if constexpr (kPack) {
      std::memcpy(stream, mem, static_cast<size_t>(n));
    } else {
      std::memcpy(mem, stream, static_cast<size_t>(n));
    }
    return static_cast<size_t>(n);
  }
  Walker<kPack> w{stream, n};
  w.repeat(count, t.extent_, *t.plan_, base, off);
  return static_cast<size_t>(n);
}

}  // namespace

size_t Datatype::pack(const void* buf, int64_t count, size_t offset, void* out, size_t len) const {
  return walk<true>(*this, const_cast<Byte*>(static_cast<const Byte*>(buf)), count, offset,
                    static_cast<Byte*>(out), len);
}

size_t Datatype::unpack(void* buf, int64_t count, size_t offset, const void* in, size_t len) const {
  return walk<false>(*this, static_cast<Byte*>(buf), count, offset,
                     const_cast<Byte*>(static_cast<const Byte*>(in)), len);
}

}  // namespace ccmpi::datatype
