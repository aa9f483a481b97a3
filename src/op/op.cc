// Op objects and the reduction entry point.
//
// apply() picks the path by datatype:
//  - predefined type: one kernel call over the array (pair types in their C struct
//    layout);
//  - derived type made of one basic type, contiguous: one kernel call over the packed
//    layout, which is the memory layout at trueLb;
//  - derived type, non-contiguous: both operands are packed chunk by chunk (kChunkBytes)
//    into scratch, reduced there, and the result unpacked into inoutvec;
//  - user op: the user's function on the user's buffers and datatype handle, in pieces of
//    at most INT_MAX elements (MPI_User_function takes an int length).
#include "op/op.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <vector>

#include "base/error.h"
#include "base/handles.h"
#include "datatype/datatype.h"
#include "op/kernels.h"
#include "op/type_table.h"

namespace ccmpi::op {
namespace {

constexpr int64_t kChunkBytes = 64 * 1024;

struct PredefinedOp {
  MPI_Op handle;
  const char* name;
  OpCode code;
};

const PredefinedOp kPredefined[] = {
    {MPI_MAX, "MPI_MAX", kMax},
    {MPI_MIN, "MPI_MIN", kMin},
    {MPI_SUM, "MPI_SUM", kSum},
    {MPI_PROD, "MPI_PROD", kProd},
    {MPI_LAND, "MPI_LAND", kLand},
    {MPI_BAND, "MPI_BAND", kBand},
    {MPI_LOR, "MPI_LOR", kLor},
    {MPI_BOR, "MPI_BOR", kBor},
    {MPI_LXOR, "MPI_LXOR", kLxor},
    {MPI_BXOR, "MPI_BXOR", kBxor},
    {MPI_MINLOC, "MPI_MINLOC", kMinloc},
    {MPI_MAXLOC, "MPI_MAXLOC", kMaxloc},
    {MPI_REPLACE, "MPI_REPLACE", kReplace},
    {MPI_NO_OP, "MPI_NO_OP", kNoOp},
};

HandleTable<Op>& ops() {
  static HandleTable<Op> t(HandleKind::kOp);
  return t;
}

// The op behind a handle, including one already freed by the user but still held by an
// operation in flight.
Op* find(MPI_Op h) {
  if (ops().get(h) == nullptr) initPredefined();
  return ops().get(h);
}

// Scratch for packed operands, kept per thread so that large reductions do not allocate.
struct Scratch {
  std::vector<unsigned char> a, b;
};
Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// Copies the data of `count` elements of `dt` from `in` to `inout` through the packed
// stream (MPI_REPLACE on a type whose elements are not all one basic type).
void copyLayout(const datatype::Datatype& dt, const void* in, void* inout, int64_t count) {
  const int64_t total = count * dt.size();
  Scratch& s = scratch();
  const int64_t chunk = std::min(total, kChunkBytes);
  if (static_cast<int64_t>(s.a.size()) < chunk) s.a.resize(chunk);
  for (int64_t off = 0; off < total; off += chunk) {
    const size_t len = static_cast<size_t>(std::min(chunk, total - off));
    dt.pack(in, count, off, s.a.data(), len);
    dt.unpack(inout, count, off, s.a.data(), len);
  }
}

int notDefined(const Op& o, MPI_Op h, MPI_Datatype type, const datatype::Datatype& dt) {
  (void)o;
  const TypeEntry* e = typeEntry(dt.predefined() ? type : dt.basicType());
  if (!e) {
    return setErrorCause(MPI_ERR_OP, "%s is not defined for datatype %s%s", name(h),
                         dt.name().empty() ? "(unnamed)" : dt.name().c_str(),
                         dt.predefined() ? "" : " (not made of a single basic type)");
  }
  return setErrorCause(MPI_ERR_OP, "%s is not defined for datatype %s (%s type)", name(h),
                       dt.name().empty() ? e->name : dt.name().c_str(), typeGroupName(e->group));
}

int applyPredefined(const Op& o, MPI_Op h, const void* in, void* inout, int64_t count,
                    MPI_Datatype type) {
  const datatype::Datatype* dt = datatype::lookup(type);
  if (!dt) return setErrorCause(MPI_ERR_TYPE, "invalid datatype handle %d in reduction", type);
  if (o.code == kNoOp || count <= 0 || dt->size() == 0) return MPI_SUCCESS;
  if (dt->predefined()) {
    const TypeEntry* e = typeEntry(type);
    if (e && e->natural[o.code]) {
      e->natural[o.code](in, inout, count);
      return MPI_SUCCESS;
    }
    if (o.code == kReplace) {
      copyLayout(*dt, in, inout, count);
      return MPI_SUCCESS;
    }
    return notDefined(o, h, type, *dt);
  }
  const TypeEntry* e = typeEntry(dt->basicType());
  if (!e || !e->packed[o.code]) {
    if (o.code == kReplace) {
      copyLayout(*dt, in, inout, count);
      return MPI_SUCCESS;
    }
    return notDefined(o, h, type, *dt);
  }
  const Kernel k = e->packed[o.code];
  if (dt->contiguous()) {
    const int64_t n = dt->size() / e->packedSize * count;
    k(static_cast<const unsigned char*>(in) + dt->trueLb(),
      static_cast<unsigned char*>(inout) + dt->trueLb(), n);
    return MPI_SUCCESS;
  }
  const int64_t total = count * dt->size();
  const int64_t rec = e->packedSize;
  const int64_t chunk = std::min(total, std::max<int64_t>(rec, kChunkBytes / rec * rec));
  Scratch& s = scratch();
  if (static_cast<int64_t>(s.a.size()) < chunk) s.a.resize(chunk);
  if (static_cast<int64_t>(s.b.size()) < chunk) s.b.resize(chunk);
  for (int64_t off = 0; off < total; off += chunk) {
    const size_t len = static_cast<size_t>(std::min(chunk, total - off));
    dt->pack(in, count, off, s.a.data(), len);
    dt->pack(inout, count, off, s.b.data(), len);
    k(s.a.data(), s.b.data(), static_cast<int64_t>(len) / rec);
    dt->unpack(inout, count, off, s.b.data(), len);
  }
  return MPI_SUCCESS;
}

int applyUser(const Op& o, const void* in, void* inout, int64_t count, MPI_Datatype type) {
  if (count <= 0) return MPI_SUCCESS;
  MPI_Datatype t = type;
  const datatype::Datatype* dt = datatype::lookup(type);
  if (!dt) return setErrorCause(MPI_ERR_TYPE, "invalid datatype handle %d in reduction", type);
  if (o.userC) {  // large-count function: one call
    MPI_Count len = count;
    o.userC(const_cast<void*>(in), inout, &len, &t);
    return MPI_SUCCESS;
  }
  int64_t done = 0;
  while (done < count) {
    int len = static_cast<int>(std::min<int64_t>(count - done, INT_MAX));
    const int64_t off = done * dt->extent();
    o.user(const_cast<unsigned char*>(static_cast<const unsigned char*>(in) + off),
           static_cast<unsigned char*>(inout) + off, &len, &t);
    done += std::min<int64_t>(count - done, INT_MAX);
  }
  return MPI_SUCCESS;
}

}  // namespace

void initPredefined() {
  static bool done = false;
  if (done) return;
  done = true;
  datatype::initPredefined();
  initTypeTable();
  int maxIndex = 0;
  for (const PredefinedOp& p : kPredefined) maxIndex = std::max(maxIndex, handleIndex(p.handle));
  ops().reservePredefined(maxIndex + 1);
  for (const PredefinedOp& p : kPredefined) {
    auto o = std::make_unique<Op>();
    o->predefined = true;
    o->commutative = true;
    o->code = p.code;
    ops().putAt(handleIndex(p.handle), std::move(o));
  }
}

Op* lookup(MPI_Op h) {
  Op* o = find(h);
  return (o && !o->freed) ? o : nullptr;
}

int apply(MPI_Op h, const void* invec, void* inoutvec, int64_t count, MPI_Datatype type) {
  const Op* o = find(h);
  if (!o) return setErrorCause(MPI_ERR_OP, "invalid op handle %d", h);
  if (o->predefined) return applyPredefined(*o, h, invec, inoutvec, count, type);
  return applyUser(*o, invec, inoutvec, count, type);
}

bool validFor(MPI_Op h, MPI_Datatype type) {
  const Op* o = lookup(h);
  if (!o) return false;
  if (!o->predefined) return true;
  const datatype::Datatype* dt = datatype::lookup(type);
  if (!dt) return false;
  if (o->code == kReplace || o->code == kNoOp) return true;
  const TypeEntry* e = typeEntry(dt->predefined() ? type : dt->basicType());
  if (!e) return false;
  return (dt->predefined() ? e->natural[o->code] : e->packed[o->code]) != nullptr;
}

bool isCommutative(MPI_Op h) {
  const Op* o = find(h);
  return o && o->commutative;
}

const char* name(MPI_Op h) {
  for (const PredefinedOp& p : kPredefined)
    if (p.handle == h) return p.name;
  const Op* o = find(h);
  return o ? "user-defined op" : "invalid op";
}

MPI_Op create(MPI_User_function* fn, bool commutative) {
  initPredefined();
  auto o = std::make_unique<Op>();
  o->user = fn;
  o->commutative = commutative;
  return ops().add(std::move(o));
}

MPI_Op create(MPI_User_function_c* fn, bool commutative) {
  initPredefined();
  auto o = std::make_unique<Op>();
  o->userC = fn;
  o->commutative = commutative;
  return ops().add(std::move(o));
}

int free(MPI_Op* h) {
  Op* o = lookup(*h);
  if (!o) return setErrorCause(MPI_ERR_OP, "invalid op handle %d", *h);
  if (o->predefined) return setErrorCause(MPI_ERR_OP, "cannot free predefined op %s", name(*h));
  o->freed = true;
  release(*h);
  *h = MPI_OP_NULL;
  return MPI_SUCCESS;
}

void retain(MPI_Op h) {
  if (Op* o = find(h); o && !o->predefined) ++o->refs;
}

void release(MPI_Op h) {
  Op* o = find(h);
  if (!o || o->predefined) return;
  if (--o->refs <= 0) ops().remove(h);
}

size_t liveUserOps() {
  return ops().liveDynamic();
}

}  // namespace ccmpi::op
