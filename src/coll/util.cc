// Buffer helpers of the collective layer (see util.h).
#include "coll/util.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

#include "base/error.h"

namespace ccmpi::coll {

int TempBuffer::alloc(int64_t count, const datatype::Datatype& dt) {
  storage_.reset();
  base_ = nullptr;
  if (count <= 0) return MPI_SUCCESS;
  // Element i occupies [i*extent + trueLb, i*extent + trueLb + trueExtent).
  const int64_t stride = (count - 1) * dt.extent();
  const int64_t low = dt.trueLb() + std::min<int64_t>(0, stride);
  const int64_t span = dt.trueExtent() + (stride < 0 ? -stride : stride);
  storage_.reset(new (std::nothrow) unsigned char[std::max<int64_t>(span, 1)]);
  if (!storage_)
    return setErrorCause(MPI_ERR_NO_MEM, "cannot allocate %lld bytes of temporary buffer",
                         static_cast<long long>(span));
  base_ = storage_.get() - low;
  return MPI_SUCCESS;
}

int copyLocal(const void* src, int64_t scount, MPI_Datatype stype, void* dst, int64_t rcount,
              MPI_Datatype rtype) {
  const datatype::Datatype& s = typeOf(stype);
  const datatype::Datatype& r = typeOf(rtype);
  const int64_t sbytes = scount * s.size(), rbytes = rcount * r.size();
  if (rbytes < sbytes)
    return setErrorCause(MPI_ERR_TRUNCATE, "local copy of %lld bytes into a buffer of %lld bytes",
                         static_cast<long long>(sbytes), static_cast<long long>(rbytes));
  const int64_t bytes = sbytes;
  if (bytes <= 0 || src == dst) return MPI_SUCCESS;
  if (s.contiguous() && r.contiguous()) {
    std::memmove(byteAt(dst, r.trueLb()), byteAt(src, s.trueLb()), static_cast<size_t>(bytes));
    return MPI_SUCCESS;
  }
  if (s.contiguous()) {
    r.unpack(dst, rcount, 0, byteAt(src, s.trueLb()), static_cast<size_t>(bytes));
    return MPI_SUCCESS;
  }
  if (r.contiguous()) {
    s.pack(src, scount, 0, byteAt(dst, r.trueLb()), static_cast<size_t>(bytes));
    return MPI_SUCCESS;
  }
  constexpr int64_t kChunk = 256 * 1024;
  std::vector<unsigned char> tmp(static_cast<size_t>(std::min(bytes, kChunk)));
  for (int64_t off = 0; off < bytes; off += kChunk) {
    const size_t len = static_cast<size_t>(std::min(kChunk, bytes - off));
    s.pack(src, scount, static_cast<size_t>(off), tmp.data(), len);
    r.unpack(dst, rcount, static_cast<size_t>(off), tmp.data(), len);
  }
  return MPI_SUCCESS;
}

int exchangeBlockInPlace(comm::Comm& c, int tag, int peer, const Block& b) {
  const int64_t bytes = dataBytes(b.count, b.type);
  if (bytes == 0) return MPI_SUCCESS;
  std::vector<unsigned char> out(static_cast<size_t>(bytes));
  typeOf(b.type).pack(b.addr, b.count, 0, out.data(), out.size());
  return p2p::sendrecv(out.data(), bytes, MPI_PACKED, peer, tag, b.addr, b.count, b.type, peer, tag,
                       c, MPI_STATUS_IGNORE, kCtx);
}

}  // namespace ccmpi::coll
