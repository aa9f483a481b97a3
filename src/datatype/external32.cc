// The "external32" data representation (MPI-3.1 §13.5.2): every basic element in
// big-endian byte order at a fixed size. On this platform (LP64, IEEE floats) the sizes
// equal the native ones except C long and unsigned long (4 bytes in external32: truncated
// when packed, extended when unpacked); packing
// walks the type's leaves in type-map order and byte-swaps each element (each half of a
// complex). long double is x87 80-bit extended in memory and IEEE binary128 in
// external32: converted both ways (binary128 -> x87 truncates the fraction to 63 bits).
#include <cstdint>
#include <cstring>

#include "base/error.h"
#include "datatype/internal.h"

namespace ccmpi::datatype {
namespace {

using Byte = unsigned char;

// Calls f(leaf, address, n) for each run of n consecutive leaves of one element at `at`,
// in type-map order.
template <typename F>
void visitLeaves(const TypeDesc& d, Byte* at, F& f) {
  auto block = [&f](const TypeDesc& k, Byte* p, int64_t n) {
    if (n <= 0 || k.size == 0) return;
    if (k.layout == Layout::kLeaf) {
      f(k, p, n);
      return;
    }
    for (int64_t j = 0; j < n; ++j) visitLeaves(k, p + j * k.extent(), f);
  };
  switch (d.layout) {
    case Layout::kLeaf:
      if (d.size > 0) f(d, at, 1);
      return;
    case Layout::kResized:
    case Layout::kAlias:
      visitLeaves(*d.kids[0], at, f);
      return;
    case Layout::kHvector:
      for (int64_t i = 0; i < d.count; ++i) block(*d.kids[0], at + i * d.stride, d.blocklen);
      return;
    case Layout::kHindexed:
      for (size_t i = 0; i < d.blens.size(); ++i) block(*d.kids[0], at + d.disps[i], d.blens[i]);
      return;
    case Layout::kStruct:
      for (size_t i = 0; i < d.blens.size(); ++i) block(*d.kids[i], at + d.disps[i], d.blens[i]);
      return;
  }
}

uint64_t load64(const Byte* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
void store64(Byte* p, uint64_t v) {
  std::memcpy(p, &v, 8);
}
void storeBe64(Byte* p, uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<Byte>(v);
}
uint64_t loadBe64(const Byte* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
  return v;
}

// x87 extended (little-endian: 64-bit significand with explicit integer bit, then 16 bits
// of sign and exponent) <-> big-endian binary128 (same exponent bias).
void x87ToQuad(const Byte* mem, Byte* ext) {
  const uint64_t sig = load64(mem);
  uint16_t se;
  std::memcpy(&se, mem + 8, 2);
  const uint64_t frac = sig & 0x7fffffffffffffffULL;
  storeBe64(ext, (static_cast<uint64_t>(se) << 48) | (frac >> 15));
  storeBe64(ext + 8, frac << 49);
}

void quadToX87(const Byte* ext, Byte* mem) {
  const uint64_t hi = loadBe64(ext), lo = loadBe64(ext + 8);
  const uint16_t se = static_cast<uint16_t>(hi >> 48);
  const uint64_t frac = ((hi & 0xffffffffffffULL) << 15) | (lo >> 49);
  const uint64_t intBit = (se & 0x7fff) != 0 ? 1ULL << 63 : 0;
  std::memset(mem, 0, 16);
  store64(mem, intBit | frac);
  std::memcpy(mem + 8, &se, 2);
}

// Converts n leaves between memory and the external stream.
template <bool kPack>
void convert(const TypeDesc& leaf, Byte* mem, int64_t n, Byte* ext) {
  if (leaf.extSize != leaf.size) {
    // An integer narrower in external32 (C long: 8 bytes in memory, 4 in external32):
    // truncated when packed, sign- or zero-extended when unpacked.
    const int64_t m = leaf.size, e = leaf.extSize;
    const bool isSigned = leaf.basicKind == BasicKind::kInt;
    for (int64_t u = 0; u < n; ++u, mem += m, ext += e) {
      for (int64_t b = 0; b < e; ++b) {
        if constexpr (kPack) {
          ext[b] = mem[e - 1 - b];
        } else {
          mem[e - 1 - b] = ext[b];
        }
      }
      if constexpr (!kPack) {
        const Byte fill = isSigned && (ext[0] & 0x80) ? 0xff : 0;
        std::memset(mem + e, fill, static_cast<size_t>(m - e));
      }
    }
    return;
  }
  const int64_t unit = leaf.extUnit;
  const int64_t units = n * leaf.size / unit;
  for (int64_t u = 0; u < units; ++u, mem += unit, ext += unit) {
    if (leaf.extX87) {
      if constexpr (kPack) {
        x87ToQuad(mem, ext);
      } else {
        quadToX87(ext, mem);
      }
      continue;
    }
    for (int64_t b = 0; b < unit; ++b) {
      if constexpr (kPack) {
        ext[b] = mem[unit - 1 - b];
      } else {
        mem[unit - 1 - b] = ext[b];
      }
    }
  }
}

int committedType(MPI_Datatype h, Datatype** out) {
  Datatype* t = lookup(h);
  if (!t) return setErrorCause(MPI_ERR_TYPE, "0x%x is not a valid datatype", h);
  if (!t->committed())
    return setErrorCause(MPI_ERR_TYPE, "datatype %s is not committed",
                         t->name_.empty() ? "(unnamed)" : t->name_.c_str());
  *out = t;
  return MPI_SUCCESS;
}

template <bool kPack>
void transfer(const Datatype& t, Byte* mem, int64_t count, Byte* ext) {
  auto f = [&ext](const TypeDesc& leaf, Byte* p, int64_t n) {
    convert<kPack>(leaf, p, n, ext);
    ext += n * leaf.extSize;
  };
  for (int64_t e = 0; e < count; ++e) visitLeaves(*t.desc_, mem + e * t.extent_, f);
}

}  // namespace

int externalSize(MPI_Datatype h, int64_t count, int64_t* size) {
  Datatype* t = lookup(h);
  if (!t) return setErrorCause(MPI_ERR_TYPE, "0x%x is not a valid datatype", h);
  *size = count * t->desc_->extSize;
  return MPI_SUCCESS;
}

int packExternal(MPI_Datatype h, const void* in, int64_t count, void* out, int64_t outSize,
                 int64_t* position) {
  Datatype* t = nullptr;
  if (int rc = committedType(h, &t)) return rc;
  const int64_t need = count * t->desc_->extSize;
  if (*position < 0 || *position + need > outSize)
    return setErrorCause(MPI_ERR_TRUNCATE,
                         "packing %lld bytes at position %lld overflows the %lld-byte buffer",
                         (long long)need, (long long)*position, (long long)outSize);
  transfer<true>(*t, const_cast<Byte*>(static_cast<const Byte*>(in)), count,
                 static_cast<Byte*>(out) + *position);
  *position += need;
  return MPI_SUCCESS;
}

int unpackExternal(MPI_Datatype h, const void* in, int64_t inSize, int64_t* position, void* out,
                   int64_t count) {
  Datatype* t = nullptr;
  if (int rc = committedType(h, &t)) return rc;
  const int64_t need = count * t->desc_->extSize;
  if (*position < 0 || *position + need > inSize)
    return setErrorCause(MPI_ERR_TRUNCATE,
                         "unpacking %lld bytes at position %lld overruns the %lld-byte input",
                         (long long)need, (long long)*position, (long long)inSize);
  transfer<false>(*t, static_cast<Byte*>(out), count,
                  const_cast<Byte*>(static_cast<const Byte*>(in)) + *position);
  *position += need;
  return MPI_SUCCESS;
}

}  // namespace ccmpi::datatype
