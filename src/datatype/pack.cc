// Pack/unpack of a byte range [offset, offset+len) of the packed stream of `count`
// elements.
//
// The packed stream is element 0's data in type-map order, then element 1's, ...; element
// e lives at buf + e*extent. Three paths:
//   contiguous   one memcpy at buf + trueLb + offset;
//   single block each element is one block of `size` bytes: the elements form one strided
//                run (stride = extent) over which we copy;
//   general      the element's runs_ (n equally long blocks at a constant stride, with the
//                packed offset where each starts). The resume position is found in
//                O(log runs): element = offset / size, run by binary search on `start`,
//                block and byte inside the run by division. Then whole blocks are copied
//                run by run; runs of 1, 2, 4, 8, 12 and 16-byte blocks use fixed-size
//                copies and other blocks up to 32 bytes two overlapping moves, so a vector
//                of small blocks costs neither per-byte work nor a memcpy call per block.
// Neither path allocates.
#include <algorithm>
#include <cstring>

#include "datatype/datatype.h"

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

  const int64_t extent = t.extent_;
  int64_t remaining = n;
  if (t.singleBlock_) {
    const int64_t e = off / size, inner = off % size;
    Byte* mem = base + e * extent + t.blocks_[0].disp;
    if (inner > 0) {
      const int64_t c = std::min(size - inner, remaining);
      stream = copyOne<kPack>(mem + inner, c, stream);
      remaining -= c;
      mem += extent;
    }
    const int64_t full = remaining / size;
    stream = copyBlocks<kPack>(mem, extent, size, full, stream);
    remaining -= full * size;
    if (remaining > 0) copyOne<kPack>(mem + full * extent, remaining, stream);
    return static_cast<size_t>(n);
  }

  const Run* runs = t.runs_.data();
  const size_t nruns = t.runs_.size();
  const int64_t r = off % size;
  // The run holding packed byte r of an element: the last one starting at or before r.
  size_t k = static_cast<size_t>(
      std::upper_bound(runs, runs + nruns, r,
                       [](int64_t v, const Run& run) { return v < run.start; }) -
      runs - 1);
  int64_t idx = (r - runs[k].start) / runs[k].len;
  int64_t inner = (r - runs[k].start) % runs[k].len;
  Byte* elem = base + (off / size) * extent;
  if (inner > 0) {  // finish a block begun by an earlier call
    const Run& run = runs[k];
    const int64_t c = std::min(run.len - inner, remaining);
    stream = copyOne<kPack>(elem + run.disp + idx * run.stride + inner, c, stream);
    remaining -= c;
    if (++idx == run.n) {
      idx = 0;
      if (++k == nruns) {
        k = 0;
        elem += extent;
      }
    }
  }
  while (remaining > 0) {
    const Run& run = runs[k];
    Byte* mem = elem + run.disp + idx * run.stride;
    const int64_t left = run.n - idx;
    if (left == 1) {  // irregular types: runs of one block
      if (remaining < run.len) {
        copyOne<kPack>(mem, remaining, stream);
        break;
      }
      stream = copyOne<kPack>(mem, run.len, stream);
      remaining -= run.len;
    } else {
      const int64_t full = std::min(left, remaining / run.len);
      stream = copyBlocks<kPack>(mem, run.stride, run.len, full, stream);
      remaining -= full * run.len;
      if (full < left) {  // the range ends in this run
        if (remaining > 0) copyOne<kPack>(mem + full * run.stride, remaining, stream);
        break;
      }
    }
    idx = 0;
    if (++k == nruns) {
      k = 0;
      elem += extent;
    }
  }
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
