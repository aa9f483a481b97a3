// Datatype objects and handles: the predefined table, the type constructors (argument
// checks, then a TypeDesc built from the old types' descriptions), commit (compile the
// plan), free with reference counts, envelope/contents, and
// MPI_Get_elements counting.
#include "datatype/datatype.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <map>
#include <utility>

#include "base/error.h"
#include "base/log.h"
#include "datatype/internal.h"
#include "datatype/plan.h"
#include "datatype/type_desc.h"

namespace ccmpi::datatype {
namespace {

struct State {
  HandleTable<Datatype> table{HandleKind::kDatatype};
  bool initialized = false;
  std::vector<const char*> names;  // predefined names by handle index
};

State& st() {
  static State s;
  return s;
}

// The predefined types by handle index, outside the table: every send and receive looks
// its type up, and a predefined one (never freed) is then one load (callgrind, osu_latency
// 1 B: 244 of ~1,700 instructions per iteration went to the table lookups before).
constexpr size_t kFastTypes = 128;
Datatype* gPredefined[kFastTypes] = {};

const char* describe(const Datatype& t) {
  return t.name_.empty() ? "(unnamed datatype)" : t.name_.c_str();
}

// The description of a valid type handle, or an MPI_ERR_TYPE with the cause recorded.
int oldDesc(MPI_Datatype h, DescPtr* out, const char* what = "oldtype") {
  if (h == MPI_DATATYPE_NULL) return setErrorCause(MPI_ERR_TYPE, "%s is MPI_DATATYPE_NULL", what);
  Datatype* t = lookup(h);
  if (!t) return setErrorCause(MPI_ERR_TYPE, "%s 0x%x is not a valid datatype", what, h);
  *out = t->desc_;
  return MPI_SUCCESS;
}

int checkCount(int64_t count) {
  if (count < 0) return setErrorCause(MPI_ERR_COUNT, "count %lld is negative", (long long)count);
  return MPI_SUCCESS;
}

int checkBlocklen(int64_t b, int64_t i = -1) {
  if (b >= 0) return MPI_SUCCESS;
  if (i < 0) return setErrorCause(MPI_ERR_ARG, "blocklength %lld is negative", (long long)b);
  return setErrorCause(MPI_ERR_ARG, "array_of_blocklengths[%lld] = %lld is negative", (long long)i,
                       (long long)b);
}

// Finishes a constructor: envelope, object, handle.
int finishNew(std::shared_ptr<TypeDesc> d, int combiner, std::vector<int> ints,
              std::vector<MPI_Aint> aints, std::vector<int64_t> counts,
              std::vector<DescPtr> envTypes, std::vector<MPI_Datatype> handles, MPI_Datatype* out) {
  d->combiner = combiner;
  d->ints = std::move(ints);
  d->aints = std::move(aints);
  d->counts = std::move(counts);
  d->envTypes = std::move(envTypes);
  auto t = newFromDesc(std::move(d));
  t->types_ = std::move(handles);
  *out = registerType(std::move(t));
  return MPI_SUCCESS;
}

// An envelope under construction: integer arguments go to the ints of a type made by
// an int constructor and to the large counts of one made by an _c constructor
// (MPI-4.0 §5.1.13); address arguments likewise to the addresses or the large counts.
struct Envelope {
  bool large;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<int64_t> counts;
  void count(int64_t v) {
    if (large) {
      counts.push_back(v);
    } else {
      ints.push_back(static_cast<int>(v));
    }
  }
  void counts_(const std::vector<int64_t>& v) {
    for (int64_t x : v) count(x);
  }
  void addr(int64_t v) {
    if (large) {
      counts.push_back(v);
    } else {
      aints.push_back(v);
    }
  }
  void addrs(const std::vector<int64_t>& v) {
    for (int64_t x : v) addr(x);
  }
};

int finishEnv(std::shared_ptr<TypeDesc> d, int combiner, Envelope&& e,
              std::vector<DescPtr> envTypes, std::vector<MPI_Datatype> handles, MPI_Datatype* out) {
  return finishNew(std::move(d), combiner, std::move(e.ints), std::move(e.aints),
                   std::move(e.counts), std::move(envTypes), std::move(handles), out);
}

int checkBlocklens(const std::vector<int64_t>& b) {
  for (size_t i = 0; i < b.size(); ++i)
    if (int rc = checkBlocklen(b[i], static_cast<int64_t>(i))) return rc;
  return MPI_SUCCESS;
}

template <typename T>
std::vector<int64_t> widen(int64_t n, const T* a) {
  return n > 0 ? std::vector<int64_t>(a, a + n) : std::vector<int64_t>();
}

}  // namespace

// ---------- objects and handles ----------

void initPredefined() {
  State& s = st();
  if (s.initialized) return;
  s.initialized = true;
  std::vector<PredefinedType> types = buildPredefinedTypes();
  int maxIndex = 0;
  for (const PredefinedType& p : types) maxIndex = std::max(maxIndex, handleIndex(p.handle));
  s.table.reservePredefined(maxIndex + 1);
  s.names.assign(maxIndex + 1, nullptr);
  for (PredefinedType& p : types) {
    auto t = std::make_unique<Datatype>();
    Datatype& r = *t;
    t->desc_ = std::move(p.desc);
    const TypeDesc& d = *t->desc_;
    r.size_ = d.size;
    r.lb_ = d.lb;
    r.extent_ = d.extent();
    r.trueLb_ = d.trueLb;
    r.trueExtent_ = d.trueUb - d.trueLb;
    r.basicType_ = d.basicType;
    r.basicCount_ = d.basicCount;
    r.elements_ = d.elements;
    r.basicKind_ = d.basicKind;
    r.combiner_ = MPI_COMBINER_NAMED;
    r.name_ = p.name;
    r.predefined_ = true;
    commitObject(r);
    s.names[handleIndex(p.handle)] = p.name;
    if (static_cast<size_t>(handleIndex(p.handle)) < kFastTypes)
      gPredefined[handleIndex(p.handle)] = t.get();
    s.table.putAt(handleIndex(p.handle), std::move(t));
  }
}

void finalizeTypes() {
  State& s = st();
  std::fill(std::begin(gPredefined), std::end(gPredefined), nullptr);
  s.table = HandleTable<Datatype>(HandleKind::kDatatype);
  s.names.clear();
  s.initialized = false;
}

Datatype* findAny(MPI_Datatype h) {
  if (__builtin_expect(!st().initialized, 0)) initPredefined();
  return st().table.get(h);
}

Datatype* lookup(MPI_Datatype h) {
  const auto i = static_cast<size_t>(handleIndex(h));
  if (__builtin_expect(handleKind(h) == HandleKind::kDatatype && i < kFastTypes, 1) &&
      gPredefined[i])
    return gPredefined[i];
  Datatype* t = findAny(h);
  return (t && !t->freed_) ? t : nullptr;
}

void retain(MPI_Datatype h) {
  if (Datatype* t = findAny(h)) ++t->refs_;
}

void release(MPI_Datatype h) {
  Datatype* t = findAny(h);
  if (!t || t->predefined_) return;
  if (--t->refs_ <= 0) st().table.remove(h);
}

size_t liveTypes() {
  return st().table.liveDynamic();
}

const char* predefinedName(MPI_Datatype h) {
  if (!st().initialized) initPredefined();
  if (handleKind(h) != HandleKind::kDatatype) return nullptr;
  const size_t i = static_cast<size_t>(handleIndex(h));
  return i < st().names.size() ? st().names[i] : nullptr;
}

std::unique_ptr<Datatype> newFromDesc(DescPtr dp) {
  auto t = std::make_unique<Datatype>();
  const TypeDesc& d = *dp;
  t->size_ = d.size;
  t->lb_ = d.lb;
  t->extent_ = d.extent();
  t->trueLb_ = d.trueLb;
  t->trueExtent_ = d.trueUb - d.trueLb;
  t->basicType_ = d.basicType;
  t->basicCount_ = d.basicCount;
  t->elements_ = d.elements;
  t->basicKind_ = d.basicKind;
  t->combiner_ = d.combiner;
  t->desc_ = std::move(dp);
  return t;
}

MPI_Datatype registerType(std::unique_ptr<Datatype> t) {
  if (!st().initialized) initPredefined();
  return st().table.add(std::move(t));
}

void commitObject(Datatype& t) {
  t.plan_ = compilePlan(*t.desc_);
  CCMPI_ASSERT(t.plan_->size == t.size_);
  const PlanNode& p = *t.plan_;
  t.contiguous_ = t.size_ == 0 || (p.singleBlock() && t.extent_ == t.size_);
  t.committed_ = true;
}

std::vector<Block> Datatype::blocks(size_t limit) const {
  std::vector<Block> out;
  if (plan_ && !expandPlan(*plan_, 0, out, limit)) out.clear();
  return out;
}

int64_t Datatype::planBytes() const {
  return plan_ ? planFootprint(*plan_) : 0;
}

// ---------- constructors ----------

int createContiguous(int64_t count, MPI_Datatype old, MPI_Datatype* out, bool large) {
  DescPtr k;
  if (int rc = checkCount(count)) return rc;
  if (int rc = oldDesc(old, &k)) return rc;
  Envelope e{large};
  e.count(count);
  return finishEnv(makeHvector(1, count, 0, k), MPI_COMBINER_CONTIGUOUS, std::move(e), {k}, {old},
                   out);
}

int createVector(int64_t count, int64_t blocklen, int64_t stride, MPI_Datatype old,
                 MPI_Datatype* out, bool large) {
  DescPtr k;
  if (int rc = checkCount(count)) return rc;
  if (int rc = checkBlocklen(blocklen)) return rc;
  if (int rc = oldDesc(old, &k)) return rc;
  Envelope e{large};
  e.counts_({count, blocklen, stride});
  return finishEnv(makeHvector(count, blocklen, stride * k->extent(), k), MPI_COMBINER_VECTOR,
                   std::move(e), {k}, {old}, out);
}

int createHvector(int64_t count, int64_t blocklen, int64_t stride, MPI_Datatype old,
                  MPI_Datatype* out, bool large) {
  DescPtr k;
  if (int rc = checkCount(count)) return rc;
  if (int rc = checkBlocklen(blocklen)) return rc;
  if (int rc = oldDesc(old, &k)) return rc;
  Envelope e{large};
  e.counts_({count, blocklen});
  e.addr(stride);
  return finishEnv(makeHvector(count, blocklen, stride, k), MPI_COMBINER_HVECTOR, std::move(e), {k},
                   {old}, out);
}

int createIndexed(std::vector<int64_t> blocklens, std::vector<int64_t> disps, MPI_Datatype old,
                  MPI_Datatype* out, bool large) {
  DescPtr k;
  if (int rc = checkBlocklens(blocklens)) return rc;
  if (int rc = oldDesc(old, &k)) return rc;
  Envelope e{large};
  e.count(static_cast<int64_t>(blocklens.size()));
  e.counts_(blocklens);
  e.counts_(disps);
  for (int64_t& d : disps) d *= k->extent();
  return finishEnv(makeHindexed(std::move(blocklens), std::move(disps), k), MPI_COMBINER_INDEXED,
                   std::move(e), {k}, {old}, out);
}

int createHindexed(std::vector<int64_t> blocklens, std::vector<int64_t> disps, MPI_Datatype old,
                   MPI_Datatype* out, bool large) {
  DescPtr k;
  if (int rc = checkBlocklens(blocklens)) return rc;
  if (int rc = oldDesc(old, &k)) return rc;
  Envelope e{large};
  e.count(static_cast<int64_t>(blocklens.size()));
  e.counts_(blocklens);
  e.addrs(disps);
  return finishEnv(makeHindexed(std::move(blocklens), std::move(disps), k), MPI_COMBINER_HINDEXED,
                   std::move(e), {k}, {old}, out);
}

int createIndexedBlock(int64_t blocklen, std::vector<int64_t> disps, MPI_Datatype old,
                       MPI_Datatype* out, bool large) {
  DescPtr k;
  if (int rc = checkBlocklen(blocklen)) return rc;
  if (int rc = oldDesc(old, &k)) return rc;
  Envelope e{large};
  e.counts_({static_cast<int64_t>(disps.size()), blocklen});
  e.counts_(disps);
  for (int64_t& d : disps) d *= k->extent();
  std::vector<int64_t> bl(disps.size(), blocklen);
  return finishEnv(makeHindexed(std::move(bl), std::move(disps), k), MPI_COMBINER_INDEXED_BLOCK,
                   std::move(e), {k}, {old}, out);
}

int createHindexedBlock(int64_t blocklen, std::vector<int64_t> disps, MPI_Datatype old,
                        MPI_Datatype* out, bool large) {
  DescPtr k;
  if (int rc = checkBlocklen(blocklen)) return rc;
  if (int rc = oldDesc(old, &k)) return rc;
  Envelope e{large};
  e.counts_({static_cast<int64_t>(disps.size()), blocklen});
  e.addrs(disps);
  std::vector<int64_t> bl(disps.size(), blocklen);
  return finishEnv(makeHindexed(std::move(bl), std::move(disps), k), MPI_COMBINER_HINDEXED_BLOCK,
                   std::move(e), {k}, {old}, out);
}

int createStruct(std::vector<int64_t> blocklens, std::vector<int64_t> disps,
                 const MPI_Datatype* types, MPI_Datatype* out, bool large) {
  const int64_t count = static_cast<int64_t>(blocklens.size());
  std::vector<DescPtr> kids(count);
  for (int64_t i = 0; i < count; ++i) {
    if (int rc = checkBlocklen(blocklens[i], i)) return rc;
    if (types[i] == MPI_DATATYPE_NULL)
      return setErrorCause(MPI_ERR_TYPE, "array_of_types[%lld] is MPI_DATATYPE_NULL", (long long)i);
    Datatype* t = lookup(types[i]);
    if (!t)
      return setErrorCause(MPI_ERR_TYPE, "array_of_types[%lld] = 0x%x is not a valid datatype",
                           (long long)i, types[i]);
    kids[i] = t->desc_;
  }
  Envelope e{large};
  e.count(count);
  e.counts_(blocklens);
  e.addrs(disps);
  auto d = makeStruct(std::move(blocklens), std::move(disps), kids);
  return finishEnv(std::move(d), MPI_COMBINER_STRUCT, std::move(e), std::move(kids),
                   std::vector<MPI_Datatype>(types, types + count), out);
}

int createResized(MPI_Datatype old, int64_t lb, int64_t extent, MPI_Datatype* out, bool large) {
  DescPtr k;
  if (int rc = oldDesc(old, &k)) return rc;
  Envelope e{large};
  e.addrs({lb, extent});
  return finishEnv(makeResized(lb, extent, k), MPI_COMBINER_RESIZED, std::move(e), {k}, {old}, out);
}

// The int-array forms (the engine's tests and older callers).
int createIndexed(int64_t count, const int* blocklens, const int* disps, MPI_Datatype old,
                  MPI_Datatype* out) {
  if (int rc = checkCount(count)) return rc;
  return createIndexed(widen(count, blocklens), widen(count, disps), old, out, false);
}

int createHindexed(int64_t count, const int* blocklens, const MPI_Aint* disps, MPI_Datatype old,
                   MPI_Datatype* out) {
  if (int rc = checkCount(count)) return rc;
  return createHindexed(widen(count, blocklens), widen(count, disps), old, out, false);
}

int createIndexedBlock(int64_t count, int64_t blocklen, const int* disps, MPI_Datatype old,
                       MPI_Datatype* out) {
  if (int rc = checkCount(count)) return rc;
  return createIndexedBlock(blocklen, widen(count, disps), old, out, false);
}

int createHindexedBlock(int64_t count, int64_t blocklen, const MPI_Aint* disps, MPI_Datatype old,
                        MPI_Datatype* out) {
  if (int rc = checkCount(count)) return rc;
  return createHindexedBlock(blocklen, widen(count, disps), old, out, false);
}

int createStruct(int64_t count, const int* blocklens, const MPI_Aint* disps,
                 const MPI_Datatype* types, MPI_Datatype* out) {
  if (int rc = checkCount(count)) return rc;
  return createStruct(widen(count, blocklens), widen(count, disps), types, out, false);
}

int dup(MPI_Datatype old, MPI_Datatype* out) {
  DescPtr k;
  if (int rc = oldDesc(old, &k)) return rc;
  auto d = makeAlias(k);
  if (int rc = finishNew(std::move(d), MPI_COMBINER_DUP, {}, {}, {}, {k}, {old}, out)) return rc;
  // Same committed state as the old type.
  if (lookup(old)->committed()) commitObject(*lookup(*out));
  return MPI_SUCCESS;
}

int f90Type(int combiner, std::vector<int> ints, MPI_Datatype base, MPI_Datatype* out) {
  static std::map<std::pair<int, std::vector<int>>, MPI_Datatype> made;
  auto key = std::make_pair(combiner, ints);
  auto it = made.find(key);
  if (it != made.end() && lookup(it->second)) {
    *out = it->second;
    return MPI_SUCCESS;
  }
  DescPtr k;
  if (int rc = oldDesc(base, &k)) return rc;
  if (int rc = finishNew(makeAlias(k), combiner, std::move(ints), {}, {}, {}, {}, out)) return rc;
  Datatype* t = lookup(*out);
  commitObject(*t);
  t->fixed_ = true;
  made[key] = *out;
  return MPI_SUCCESS;
}

int createSubarray(int ndims, const int64_t* sizes, const int64_t* subsizes, const int64_t* starts,
                   int order, MPI_Datatype old, MPI_Datatype* out, bool large) {
  DescPtr k;
  if (ndims <= 0) return setErrorCause(MPI_ERR_ARG, "ndims %d is not positive", ndims);
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return setErrorCause(MPI_ERR_ARG, "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN",
                         order);
  for (int i = 0; i < ndims; ++i) {
    if (sizes[i] <= 0)
      return setErrorCause(MPI_ERR_ARG, "array_of_sizes[%d] = %lld is not positive", i,
                           (long long)sizes[i]);
    if (subsizes[i] <= 0 || subsizes[i] > sizes[i])
      return setErrorCause(MPI_ERR_ARG, "array_of_subsizes[%d] = %lld is not in [1, %lld]", i,
                           (long long)subsizes[i], (long long)sizes[i]);
    if (starts[i] < 0 || starts[i] > sizes[i] - subsizes[i])
      return setErrorCause(MPI_ERR_ARG, "array_of_starts[%d] = %lld is not in [0, %lld]", i,
                           (long long)starts[i], (long long)(sizes[i] - subsizes[i]));
  }
  if (int rc = oldDesc(old, &k)) return rc;
  // Dimensions from the fastest varying: the last for C order, the first for Fortran.
  std::vector<int> dims(ndims);
  for (int i = 0; i < ndims; ++i) dims[i] = order == MPI_ORDER_C ? ndims - 1 - i : i;
  const int64_t ext = k->extent();
  DescPtr t = makeHvector(1, subsizes[dims[0]], 0, k);
  int64_t step = ext;  // bytes per index of the current dimension
  int64_t disp = starts[dims[0]] * step;
  step *= sizes[dims[0]];
  for (int j = 1; j < ndims; ++j) {
    const int d = dims[j];
    t = makeHvector(subsizes[d], 1, step, t);
    disp += starts[d] * step;
    step *= sizes[d];
  }
  t = makeHindexed({1}, {disp}, t);
  t = makeResized(0, step, t);
  Envelope e{large};
  e.ints.push_back(ndims);
  for (const int64_t* a : {sizes, subsizes, starts})
    for (int i = 0; i < ndims; ++i) e.count(a[i]);
  e.ints.push_back(order);
  return finishEnv(makeAlias(t), MPI_COMBINER_SUBARRAY, std::move(e), {k}, {old}, out);
}

int createSubarray(int ndims, const int* sizes, const int* subsizes, const int* starts, int order,
                   MPI_Datatype old, MPI_Datatype* out) {
  const int64_t n = std::max(ndims, 0);
  const std::vector<int64_t> a = widen(n, sizes), b = widen(n, subsizes), c = widen(n, starts);
  return createSubarray(ndims, a.data(), b.data(), c.data(), order, old, out, false);
}

// Darray (MPI-3.1 §4.1.4): processes form a row-major grid; each dimension, from the
// fastest varying one, wraps the type built so far into a block, cyclic(darg) or
// undistributed slice of that dimension, with lb 0 and extent gsize·(extent so far).
int createDarray(int size, int rank, int ndims, const int64_t* gsizes, const int* distribs,
                 const int* dargs, const int* psizes, int order, MPI_Datatype old,
                 MPI_Datatype* out, bool large) {
  DescPtr k;
  if (size <= 0) return setErrorCause(MPI_ERR_ARG, "size %d is not positive", size);
  if (rank < 0 || rank >= size)
    return setErrorCause(MPI_ERR_ARG, "rank %d is not in [0, %d)", rank, size);
  if (ndims <= 0) return setErrorCause(MPI_ERR_ARG, "ndims %d is not positive", ndims);
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return setErrorCause(MPI_ERR_ARG, "order %d is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN",
                         order);
  int64_t procs = 1;
  for (int i = 0; i < ndims; ++i) {
    if (gsizes[i] <= 0)
      return setErrorCause(MPI_ERR_ARG, "array_of_gsizes[%d] = %lld is not positive", i,
                           (long long)gsizes[i]);
    if (psizes[i] <= 0)
      return setErrorCause(MPI_ERR_ARG, "array_of_psizes[%d] = %d is not positive", i, psizes[i]);
    const int dist = distribs[i];
    if (dist != MPI_DISTRIBUTE_BLOCK && dist != MPI_DISTRIBUTE_CYCLIC &&
        dist != MPI_DISTRIBUTE_NONE)
      return setErrorCause(MPI_ERR_ARG, "array_of_distribs[%d] = %d is not a distribution", i,
                           dist);
    if (dist == MPI_DISTRIBUTE_NONE && psizes[i] != 1)
      return setErrorCause(MPI_ERR_ARG,
                           "dimension %d is MPI_DISTRIBUTE_NONE but array_of_psizes[%d] = %d", i, i,
                           psizes[i]);
    if (dist != MPI_DISTRIBUTE_NONE && dargs[i] != MPI_DISTRIBUTE_DFLT_DARG && dargs[i] <= 0)
      return setErrorCause(MPI_ERR_ARG, "array_of_dargs[%d] = %d is not positive", i, dargs[i]);
    if (dist == MPI_DISTRIBUTE_BLOCK && dargs[i] != MPI_DISTRIBUTE_DFLT_DARG &&
        static_cast<int64_t>(dargs[i]) * psizes[i] < gsizes[i])
      return setErrorCause(MPI_ERR_ARG,
                           "block distribution of dimension %d: darg %d x %d processes < %lld", i,
                           dargs[i], psizes[i], (long long)gsizes[i]);
    procs *= psizes[i];
  }
  if (procs != size)
    return setErrorCause(MPI_ERR_ARG, "the process grid has %lld processes, size is %d",
                         (long long)procs, size);
  if (int rc = oldDesc(old, &k)) return rc;

  std::vector<int> coords(ndims);
  for (int i = ndims - 1, r = rank; i >= 0; --i) {
    coords[i] = r % psizes[i];
    r /= psizes[i];
  }
  DescPtr t = k;
  for (int j = 0; j < ndims; ++j) {
    const int i = order == MPI_ORDER_C ? ndims - 1 - j : j;
    const int64_t ext = t->extent();
    const int64_t g = gsizes[i], p = psizes[i], c = coords[i];
    DescPtr placed;
    if (distribs[i] == MPI_DISTRIBUTE_CYCLIC) {
      const int64_t b = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[i];
      const int64_t nblocks = (g + b - 1) / b;
      const int64_t mine = c < nblocks ? (nblocks - c + p - 1) / p : 0;
      const bool lastIsMine = mine > 0 && (nblocks - 1) % p == c;
      const int64_t lastLen = g - (nblocks - 1) * b;
      DescPtr inner;
      if (lastIsMine && lastLen < b) {
        auto full = makeHvector(mine - 1, b, p * b * ext, t);
        inner = makeStruct({1, lastLen}, {0, (mine - 1) * p * b * ext}, {full, t});
      } else {
        inner = makeHvector(mine, b, p * b * ext, t);
      }
      placed = makeHindexed({1}, {c * b * ext}, inner);
    } else {
      int64_t b = g;  // MPI_DISTRIBUTE_NONE: the whole dimension
      if (distribs[i] == MPI_DISTRIBUTE_BLOCK)
        b = dargs[i] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : dargs[i];
      const int64_t first = distribs[i] == MPI_DISTRIBUTE_BLOCK ? c * b : 0;
      const int64_t n = std::max<int64_t>(0, std::min(b, g - first));
      placed = makeHindexed({1}, {first * ext}, makeHvector(1, n, 0, t));
    }
    t = makeResized(0, g * ext, placed);
  }
  Envelope e{large};
  e.ints = {size, rank, ndims};
  for (int i = 0; i < ndims; ++i) e.count(gsizes[i]);
  e.ints.insert(e.ints.end(), distribs, distribs + ndims);
  e.ints.insert(e.ints.end(), dargs, dargs + ndims);
  e.ints.insert(e.ints.end(), psizes, psizes + ndims);
  e.ints.push_back(order);
  return finishEnv(makeAlias(t), MPI_COMBINER_DARRAY, std::move(e), {k}, {old}, out);
}

int createDarray(int size, int rank, int ndims, const int* gsizes, const int* distribs,
                 const int* dargs, const int* psizes, int order, MPI_Datatype old,
                 MPI_Datatype* out) {
  const std::vector<int64_t> g = widen(std::max(ndims, 0), gsizes);
  return createDarray(size, rank, ndims, g.data(), distribs, dargs, psizes, order, old, out, false);
}

// ---------- commit, free, envelope ----------

int commit(MPI_Datatype h) {
  Datatype* t = lookup(h);
  if (!t) return setErrorCause(MPI_ERR_TYPE, "0x%x is not a valid datatype", h);
  if (t->committed()) return MPI_SUCCESS;
  commitObject(*t);
  return MPI_SUCCESS;
}

int getEnvelope(MPI_Datatype h, int64_t* nints, int64_t* naddrs, int64_t* ncounts, int64_t* ntypes,
                int* combiner) {
  Datatype* t = lookup(h);
  if (!t) return setErrorCause(MPI_ERR_TYPE, "0x%x is not a valid datatype", h);
  const TypeDesc& d = *t->desc_;
  const bool named = t->predefined_;
  *combiner = named ? MPI_COMBINER_NAMED : d.combiner;
  *nints = named ? 0 : static_cast<int64_t>(d.ints.size());
  *naddrs = named ? 0 : static_cast<int64_t>(d.aints.size());
  *ncounts = named ? 0 : static_cast<int64_t>(d.counts.size());
  *ntypes = named ? 0 : static_cast<int64_t>(d.envTypes.size());
  return MPI_SUCCESS;
}

int getContents(MPI_Datatype h, int64_t maxInts, int64_t maxAddrs, int64_t maxCounts,
                int64_t maxTypes, int* ints, MPI_Aint* addrs, int64_t* counts,
                MPI_Datatype* types) {
  Datatype* t = lookup(h);
  if (!t) return setErrorCause(MPI_ERR_TYPE, "0x%x is not a valid datatype", h);
  if (t->predefined_)
    return setErrorCause(MPI_ERR_ARG, "%s is a predefined datatype (combiner MPI_COMBINER_NAMED)",
                         describe(*t));
  const DescPtr d = t->desc_;
  if (maxInts < static_cast<int64_t>(d->ints.size()) ||
      maxAddrs < static_cast<int64_t>(d->aints.size()) ||
      maxCounts < static_cast<int64_t>(d->counts.size()) ||
      maxTypes < static_cast<int64_t>(d->envTypes.size()))
    return setErrorCause(MPI_ERR_ARG,
                         "arrays too small: need %zu integers, %zu addresses, %zu large counts, "
                         "%zu datatypes; got %lld, %lld, %lld, %lld",
                         d->ints.size(), d->aints.size(), d->counts.size(), d->envTypes.size(),
                         (long long)maxInts, (long long)maxAddrs, (long long)maxCounts,
                         (long long)maxTypes);
  std::copy(d->ints.begin(), d->ints.end(), ints);
  std::copy(d->aints.begin(), d->aints.end(), addrs);
  std::copy(d->counts.begin(), d->counts.end(), counts);
  for (size_t i = 0; i < d->envTypes.size(); ++i) {
    const DescPtr& k = d->envTypes[i];
    types[i] = k->named != MPI_DATATYPE_NULL ? k->named : registerType(newFromDesc(k));
  }
  return MPI_SUCCESS;
}

int64_t Datatype::elementsIn(int64_t bytes) const {
  if (bytes <= 0 || size_ == 0) return 0;
  const int64_t full = bytes / size_, rem = bytes % size_;
  const int64_t part = desc_->prefixElements(rem);
  if (part < 0) return MPI_UNDEFINED;
  return full * elements_ + part;
}

int64_t Datatype::bytesForElements(int64_t n) const {
  if (n <= 0 || elements_ == 0) return 0;
  return (n / elements_) * size_ + desc_->prefixBytes(n % elements_);
}

MPI_Datatype matchSize(int typeclass, int size) {
  struct Entry {
    int typeclass, size;
    MPI_Datatype type;
  };
  static const Entry kTable[] = {
      {MPI_TYPECLASS_REAL, 4, MPI_REAL4},         {MPI_TYPECLASS_REAL, 8, MPI_REAL8},
      {MPI_TYPECLASS_REAL, 16, MPI_REAL16},       {MPI_TYPECLASS_INTEGER, 1, MPI_INTEGER1},
      {MPI_TYPECLASS_INTEGER, 2, MPI_INTEGER2},   {MPI_TYPECLASS_INTEGER, 4, MPI_INTEGER4},
      {MPI_TYPECLASS_INTEGER, 8, MPI_INTEGER8},   {MPI_TYPECLASS_COMPLEX, 8, MPI_COMPLEX8},
      {MPI_TYPECLASS_COMPLEX, 16, MPI_COMPLEX16}, {MPI_TYPECLASS_COMPLEX, 32, MPI_COMPLEX32},
  };
  for (const Entry& e : kTable)
    if (e.typeclass == typeclass && e.size == size) return e.type;
  return MPI_DATATYPE_NULL;
}

}  // namespace ccmpi::datatype
