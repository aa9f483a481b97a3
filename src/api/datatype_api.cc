// Datatype entry points (MPI-3.1 chapter 4, type attributes and names, MPI_Status
// queries): argument checks, then the datatype engine (src/datatype). Errors name the
// function, the class and the cause; the engine records its own causes, which raise()
// picks up.
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>

#include "api/api.h"
#include "comm/comm.h"
#include "datatype/datatype.h"

using namespace ccmpi;
using ccmpi::api::raise;
using ccmpi::api::raiseCommf;
using ccmpi::api::raisef;

namespace {

// A valid (not freed) datatype handle; raises MPI_ERR_TYPE otherwise.
int typeArg(const char* func, MPI_Datatype h, datatype::Datatype** out,
            const char* what = "datatype") {
  datatype::Datatype* t = datatype::lookup(h);
  if (!t) {
    if (h == MPI_DATATYPE_NULL) return raisef(func, MPI_ERR_TYPE, "%s is MPI_DATATYPE_NULL", what);
    return raisef(func, MPI_ERR_TYPE, "%s 0x%x is not a valid datatype", what, h);
  }
  *out = t;
  return MPI_SUCCESS;
}

const char* nameOf(const datatype::Datatype& t) {
  return t.name().empty() ? "(unnamed)" : t.name().c_str();
}

// A committed datatype (for operations that move data).
int committedArg(const char* func, MPI_Comm comm, MPI_Datatype h, datatype::Datatype** out) {
  datatype::Datatype* t = datatype::lookup(h);
  if (!t) {
    if (h == MPI_DATATYPE_NULL)
      return raiseCommf(comm, func, MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL");
    return raiseCommf(comm, func, MPI_ERR_TYPE, "datatype 0x%x is not a valid datatype", h);
  }
  if (!t->committed())
    return raiseCommf(comm, func, MPI_ERR_TYPE, "datatype %s is not committed", nameOf(*t));
  *out = t;
  return MPI_SUCCESS;
}

#define CHECK_PTR(p, name) \
  if (!(p)) return raisef(kFunc, MPI_ERR_ARG, "%s is NULL", name)
#define CHECK_COUNT(c, name) \
  if ((c) < 0) return raisef(kFunc, MPI_ERR_COUNT, "%s %d is negative", name, static_cast<int>(c))
// Array arguments may be NULL only when count is 0.
#define CHECK_ARRAY(a, count, name) \
  if ((count) > 0 && !(a)) return raisef(kFunc, MPI_ERR_ARG, "%s is NULL", name)

// Engine result: raise with the cause the engine recorded.
#define ENGINE(call)                                \
  do {                                              \
    if (int rc_ = (call)) return raise(kFunc, rc_); \
  } while (0)

int toIntOrUndefined(int64_t v) {
  return v > INT_MAX ? MPI_UNDEFINED : static_cast<int>(v);
}

#define CHECK_COUNT64(c, name) \
  if ((c) < 0) return raisef(kFunc, MPI_ERR_COUNT, "%s %lld is negative", name, (long long)(c))
#define CHECK_BLOCKLEN64(b) \
  if ((b) < 0) return raisef(kFunc, MPI_ERR_ARG, "blocklength %lld is negative", (long long)(b))

template <typename T>
std::vector<int64_t> widen(int64_t n, const T* a) {
  return n > 0 ? std::vector<int64_t>(a, a + n) : std::vector<int64_t>();
}

// Each MPI-3 constructor and its MPI-4 large-count (_c) twin share one implementation
// over 64-bit arguments; `large` selects how the envelope reports them.
int typeContiguous(const char* kFunc, MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype,
                   bool large) {
  CHECK_COUNT64(count, "count");
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  ENGINE(datatype::createContiguous(count, oldtype, newtype, large));
  return MPI_SUCCESS;
}

int typeVector(const char* kFunc, MPI_Count count, MPI_Count blocklength, MPI_Count stride,
               MPI_Datatype oldtype, MPI_Datatype* newtype, bool bytes, bool large) {
  CHECK_COUNT64(count, "count");
  CHECK_BLOCKLEN64(blocklength);
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  if (bytes) {
    ENGINE(datatype::createHvector(count, blocklength, stride, oldtype, newtype, large));
  } else {
    ENGINE(datatype::createVector(count, blocklength, stride, oldtype, newtype, large));
  }
  return MPI_SUCCESS;
}

enum class Indexed { kIndexed, kHindexed, kBlock, kHblock };

// Indexed family: blocklens has `count` entries (or one for the _block variants).
template <typename B, typename D>
int typeIndexed(const char* kFunc, MPI_Count count, const B* blocklens, const D* disps,
                MPI_Datatype oldtype, MPI_Datatype* newtype, Indexed kind, bool large) {
  const bool block = kind == Indexed::kBlock || kind == Indexed::kHblock;
  CHECK_COUNT64(count, "count");
  if (!block) CHECK_ARRAY(blocklens, count, "array_of_blocklengths");
  CHECK_ARRAY(disps, count, "array_of_displacements");
  CHECK_PTR(newtype, "newtype");
  if (block) CHECK_BLOCKLEN64(*blocklens);
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  std::vector<int64_t> d = widen(count, disps);
  switch (kind) {
    case Indexed::kIndexed:
      ENGINE(
          datatype::createIndexed(widen(count, blocklens), std::move(d), oldtype, newtype, large));
      break;
    case Indexed::kHindexed:
      ENGINE(
          datatype::createHindexed(widen(count, blocklens), std::move(d), oldtype, newtype, large));
      break;
    case Indexed::kBlock:
      ENGINE(datatype::createIndexedBlock(*blocklens, std::move(d), oldtype, newtype, large));
      break;
    case Indexed::kHblock:
      ENGINE(datatype::createHindexedBlock(*blocklens, std::move(d), oldtype, newtype, large));
      break;
  }
  return MPI_SUCCESS;
}

template <typename B, typename D>
int typeStruct(const char* kFunc, MPI_Count count, const B* blocklens, const D* disps,
               const MPI_Datatype* types, MPI_Datatype* newtype, bool large) {
  CHECK_COUNT64(count, "count");
  CHECK_ARRAY(blocklens, count, "array_of_blocklengths");
  CHECK_ARRAY(disps, count, "array_of_displacements");
  CHECK_ARRAY(types, count, "array_of_types");
  CHECK_PTR(newtype, "newtype");
  ENGINE(
      datatype::createStruct(widen(count, blocklens), widen(count, disps), types, newtype, large));
  return MPI_SUCCESS;
}

template <typename S>
int typeSubarray(const char* kFunc, int ndims, const S* sizes, const S* subsizes, const S* starts,
                 int order, MPI_Datatype oldtype, MPI_Datatype* newtype, bool large) {
  if (ndims <= 0) return raisef(kFunc, MPI_ERR_ARG, "ndims %d is not positive", ndims);
  CHECK_ARRAY(sizes, ndims, "array_of_sizes");
  CHECK_ARRAY(subsizes, ndims, "array_of_subsizes");
  CHECK_ARRAY(starts, ndims, "array_of_starts");
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  const std::vector<int64_t> a = widen(ndims, sizes), b = widen(ndims, subsizes),
                             c = widen(ndims, starts);
  ENGINE(datatype::createSubarray(ndims, a.data(), b.data(), c.data(), order, oldtype, newtype,
                                  large));
  return MPI_SUCCESS;
}

template <typename S>
int typeDarray(const char* kFunc, int size, int rank, int ndims, const S* gsizes,
               const int* distribs, const int* dargs, const int* psizes, int order,
               MPI_Datatype oldtype, MPI_Datatype* newtype, bool large) {
  if (ndims <= 0) return raisef(kFunc, MPI_ERR_ARG, "ndims %d is not positive", ndims);
  CHECK_ARRAY(gsizes, ndims, "array_of_gsizes");
  CHECK_ARRAY(distribs, ndims, "array_of_distribs");
  CHECK_ARRAY(dargs, ndims, "array_of_dargs");
  CHECK_ARRAY(psizes, ndims, "array_of_psizes");
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  const std::vector<int64_t> g = widen(ndims, gsizes);
  ENGINE(datatype::createDarray(size, rank, ndims, g.data(), distribs, dargs, psizes, order,
                                oldtype, newtype, large));
  return MPI_SUCCESS;
}

int typeResized(const char* kFunc, MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                MPI_Datatype* newtype, bool large) {
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  ENGINE(datatype::createResized(oldtype, lb, extent, newtype, large));
  return MPI_SUCCESS;
}

}  // namespace

// ---------- constructors ----------

extern "C" int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_contiguous");
  return typeContiguous(kFunc, count, oldtype, newtype, false);
}
CCMPI_MPI_ALIAS(MPI_Type_contiguous)

extern "C" int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype,
                                      MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_contiguous_c");
  return typeContiguous(kFunc, count, oldtype, newtype, true);
}
CCMPI_MPI_ALIAS(MPI_Type_contiguous_c)

extern "C" int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_vector");
  return typeVector(kFunc, count, blocklength, stride, oldtype, newtype, false, false);
}
CCMPI_MPI_ALIAS(MPI_Type_vector)

extern "C" int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_vector_c");
  return typeVector(kFunc, count, blocklength, stride, oldtype, newtype, false, true);
}
CCMPI_MPI_ALIAS(MPI_Type_vector_c)

extern "C" int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                        MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_hvector");
  return typeVector(kFunc, count, blocklength, stride, oldtype, newtype, true, false);
}
CCMPI_MPI_ALIAS(MPI_Type_create_hvector)

extern "C" int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                          MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_hvector_c");
  return typeVector(kFunc, count, blocklength, stride, oldtype, newtype, true, true);
}
CCMPI_MPI_ALIAS(MPI_Type_create_hvector_c)

extern "C" int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                                 const int array_of_displacements[], MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_indexed");
  return typeIndexed(kFunc, count, array_of_blocklengths, array_of_displacements, oldtype, newtype,
                     Indexed::kIndexed, false);
}
CCMPI_MPI_ALIAS(MPI_Type_indexed)

extern "C" int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                   const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_indexed_c");
  return typeIndexed(kFunc, count, array_of_blocklengths, array_of_displacements, oldtype, newtype,
                     Indexed::kIndexed, true);
}
CCMPI_MPI_ALIAS(MPI_Type_indexed_c)

extern "C" int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                         const MPI_Aint array_of_displacements[],
                                         MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_hindexed");
  return typeIndexed(kFunc, count, array_of_blocklengths, array_of_displacements, oldtype, newtype,
                     Indexed::kHindexed, false);
}
CCMPI_MPI_ALIAS(MPI_Type_create_hindexed)

extern "C" int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                           const MPI_Count array_of_displacements[],
                                           MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_hindexed_c");
  return typeIndexed(kFunc, count, array_of_blocklengths, array_of_displacements, oldtype, newtype,
                     Indexed::kHindexed, true);
}
CCMPI_MPI_ALIAS(MPI_Type_create_hindexed_c)

extern "C" int PMPI_Type_create_indexed_block(int count, int blocklength,
                                              const int array_of_displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_indexed_block");
  return typeIndexed(kFunc, count, &blocklength, array_of_displacements, oldtype, newtype,
                     Indexed::kBlock, false);
}
CCMPI_MPI_ALIAS(MPI_Type_create_indexed_block)

extern "C" int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                const MPI_Count array_of_displacements[],
                                                MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_indexed_block_c");
  return typeIndexed(kFunc, count, &blocklength, array_of_displacements, oldtype, newtype,
                     Indexed::kBlock, true);
}
CCMPI_MPI_ALIAS(MPI_Type_create_indexed_block_c)

extern "C" int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                               const MPI_Aint array_of_displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_hindexed_block");
  return typeIndexed(kFunc, count, &blocklength, array_of_displacements, oldtype, newtype,
                     Indexed::kHblock, false);
}
CCMPI_MPI_ALIAS(MPI_Type_create_hindexed_block)

extern "C" int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                                 const MPI_Count array_of_displacements[],
                                                 MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_hindexed_block_c");
  return typeIndexed(kFunc, count, &blocklength, array_of_displacements, oldtype, newtype,
                     Indexed::kHblock, true);
}
CCMPI_MPI_ALIAS(MPI_Type_create_hindexed_block_c)

extern "C" int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[],
                                       const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_struct");
  return typeStruct(kFunc, count, array_of_blocklengths, array_of_displacements, array_of_types,
                    newtype, false);
}
CCMPI_MPI_ALIAS(MPI_Type_create_struct)

extern "C" int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                         const MPI_Count array_of_displacements[],
                                         const MPI_Datatype array_of_types[],
                                         MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_struct_c");
  return typeStruct(kFunc, count, array_of_blocklengths, array_of_displacements, array_of_types,
                    newtype, true);
}
CCMPI_MPI_ALIAS(MPI_Type_create_struct_c)

extern "C" int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                        MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_resized");
  return typeResized(kFunc, oldtype, lb, extent, newtype, false);
}
CCMPI_MPI_ALIAS(MPI_Type_create_resized)

extern "C" int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                                          MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_resized_c");
  return typeResized(kFunc, oldtype, lb, extent, newtype, true);
}
CCMPI_MPI_ALIAS(MPI_Type_create_resized_c)

extern "C" int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_dup");
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  MPI_Datatype out = MPI_DATATYPE_NULL;
  ENGINE(datatype::dup(oldtype, &out));
  if (int rc = datatype::copyAttributes(oldtype, out)) {
    const std::string cause = lastErrorCause();
    datatype::free(&out);
    return raise(kFunc, rc, cause.c_str());
  }
  *newtype = out;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_dup)

extern "C" int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
                                         const int array_of_subsizes[], const int array_of_starts[],
                                         int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_subarray");
  return typeSubarray(kFunc, ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                      oldtype, newtype, false);
}
CCMPI_MPI_ALIAS(MPI_Type_create_subarray)

extern "C" int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
                                           const MPI_Count array_of_subsizes[],
                                           const MPI_Count array_of_starts[], int order,
                                           MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_subarray_c");
  return typeSubarray(kFunc, ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                      oldtype, newtype, true);
}
CCMPI_MPI_ALIAS(MPI_Type_create_subarray_c)

extern "C" int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                       const int array_of_distribs[], const int array_of_dargs[],
                                       const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                       MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_darray");
  return typeDarray(kFunc, size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                    array_of_psizes, order, oldtype, newtype, false);
}
CCMPI_MPI_ALIAS(MPI_Type_create_darray)

extern "C" int PMPI_Type_create_darray_c(int size, int rank, int ndims,
                                         const MPI_Count array_of_gsizes[],
                                         const int array_of_distribs[], const int array_of_dargs[],
                                         const int array_of_psizes[], int order,
                                         MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_darray_c");
  return typeDarray(kFunc, size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                    array_of_psizes, order, oldtype, newtype, true);
}
CCMPI_MPI_ALIAS(MPI_Type_create_darray_c)

// ---------- commit, free, queries ----------

extern "C" int PMPI_Type_commit(MPI_Datatype* datatype) {
  CCMPI_API_BEGIN("MPI_Type_commit");
  CHECK_PTR(datatype, "datatype pointer");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, *datatype, &t)) return rc;
  ENGINE(datatype::commit(*datatype));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_commit)

extern "C" int PMPI_Type_free(MPI_Datatype* datatype) {
  CCMPI_API_BEGIN("MPI_Type_free");
  CHECK_PTR(datatype, "datatype pointer");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, *datatype, &t)) return rc;
  if (t->predefined())
    return raisef(kFunc, MPI_ERR_TYPE, "cannot free the predefined datatype %s", nameOf(*t));
  ENGINE(datatype::free(datatype));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_free)

namespace {
// MPI_Type_get_extent / get_true_extent and their _x and _c forms.
template <typename A>
int getExtent(const char* kFunc, MPI_Datatype datatype, A* lb, A* extent, bool trueExtent) {
  CHECK_PTR(lb, trueExtent ? "true_lb" : "lb");
  CHECK_PTR(extent, trueExtent ? "true_extent" : "extent");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  *lb = trueExtent ? t->trueLb() : t->lb();
  *extent = trueExtent ? t->trueExtent() : t->extent();
  return MPI_SUCCESS;
}

int typeSize(const char* kFunc, MPI_Datatype datatype, MPI_Count* size) {
  CHECK_PTR(size, "size");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  *size = t->size();
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  CCMPI_API_BEGIN("MPI_Type_get_extent");
  return getExtent(kFunc, datatype, lb, extent, false);
}
CCMPI_MPI_ALIAS(MPI_Type_get_extent)

extern "C" int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  CCMPI_API_BEGIN("MPI_Type_get_extent_x");
  return getExtent(kFunc, datatype, lb, extent, false);
}
CCMPI_MPI_ALIAS(MPI_Type_get_extent_x)

extern "C" int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  CCMPI_API_BEGIN("MPI_Type_get_extent_c");
  return getExtent(kFunc, datatype, lb, extent, false);
}
CCMPI_MPI_ALIAS(MPI_Type_get_extent_c)

extern "C" int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb,
                                         MPI_Aint* true_extent) {
  CCMPI_API_BEGIN("MPI_Type_get_true_extent");
  return getExtent(kFunc, datatype, true_lb, true_extent, true);
}
CCMPI_MPI_ALIAS(MPI_Type_get_true_extent)

extern "C" int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                                           MPI_Count* true_extent) {
  CCMPI_API_BEGIN("MPI_Type_get_true_extent_x");
  return getExtent(kFunc, datatype, true_lb, true_extent, true);
}
CCMPI_MPI_ALIAS(MPI_Type_get_true_extent_x)

extern "C" int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb,
                                           MPI_Count* true_extent) {
  CCMPI_API_BEGIN("MPI_Type_get_true_extent_c");
  return getExtent(kFunc, datatype, true_lb, true_extent, true);
}
CCMPI_MPI_ALIAS(MPI_Type_get_true_extent_c)

extern "C" int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  CCMPI_API_BEGIN("MPI_Type_size");
  CHECK_PTR(size, "size");
  MPI_Count s = 0;
  if (int rc = typeSize(kFunc, datatype, &s)) return rc;
  *size = toIntOrUndefined(s);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_size)

extern "C" int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  CCMPI_API_BEGIN("MPI_Type_size_x");
  return typeSize(kFunc, datatype, size);
}
CCMPI_MPI_ALIAS(MPI_Type_size_x)

extern "C" int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  CCMPI_API_BEGIN("MPI_Type_size_c");
  return typeSize(kFunc, datatype, size);
}
CCMPI_MPI_ALIAS(MPI_Type_size_c)

extern "C" int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  CCMPI_API_BEGIN("MPI_Type_get_name");
  CHECK_PTR(type_name, "type_name");
  CHECK_PTR(resultlen, "resultlen");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  const std::string& n = t->name();
  const size_t len = std::min<size_t>(n.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, n.data(), len);
  type_name[len] = '\0';
  *resultlen = static_cast<int>(len);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_get_name)

extern "C" int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  CCMPI_API_BEGIN("MPI_Type_set_name");
  CHECK_PTR(type_name, "type_name");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  t->setName(std::string(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1)));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_set_name)

extern "C" int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                                      int* num_datatypes, int* combiner) {
  CCMPI_API_BEGIN("MPI_Type_get_envelope");
  CHECK_PTR(num_integers, "num_integers");
  CHECK_PTR(num_addresses, "num_addresses");
  CHECK_PTR(num_datatypes, "num_datatypes");
  CHECK_PTR(combiner, "combiner");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  int64_t ni = 0, na = 0, nc = 0, nd = 0;
  ENGINE(datatype::getEnvelope(datatype, &ni, &na, &nc, &nd, combiner));
  if (nc > 0)
    return raisef(kFunc, MPI_ERR_TYPE,
                  "datatype %s was created by a large-count (_c) constructor: its envelope has "
                  "%lld large counts (use MPI_Type_get_envelope_c)",
                  nameOf(*t), static_cast<long long>(nc));
  *num_integers = static_cast<int>(ni);
  *num_addresses = static_cast<int>(na);
  *num_datatypes = static_cast<int>(nd);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_get_envelope)

extern "C" int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers,
                                        MPI_Count* num_addresses, MPI_Count* num_large_counts,
                                        MPI_Count* num_datatypes, int* combiner) {
  CCMPI_API_BEGIN("MPI_Type_get_envelope_c");
  CHECK_PTR(num_integers, "num_integers");
  CHECK_PTR(num_addresses, "num_addresses");
  CHECK_PTR(num_large_counts, "num_large_counts");
  CHECK_PTR(num_datatypes, "num_datatypes");
  CHECK_PTR(combiner, "combiner");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  int64_t ni = 0, na = 0, nc = 0, nd = 0;
  ENGINE(datatype::getEnvelope(datatype, &ni, &na, &nc, &nd, combiner));
  *num_integers = ni;
  *num_addresses = na;
  *num_large_counts = nc;
  *num_datatypes = nd;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_get_envelope_c)

namespace {
int getContents(const char* kFunc, MPI_Datatype datatype, MPI_Count max_integers,
                MPI_Count max_addresses, MPI_Count max_large_counts, MPI_Count max_datatypes,
                int array_of_integers[], MPI_Aint array_of_addresses[],
                MPI_Count array_of_large_counts[], MPI_Datatype array_of_datatypes[]) {
  CHECK_COUNT64(max_integers, "max_integers");
  CHECK_COUNT64(max_addresses, "max_addresses");
  CHECK_COUNT64(max_large_counts, "max_large_counts");
  CHECK_COUNT64(max_datatypes, "max_datatypes");
  CHECK_ARRAY(array_of_integers, max_integers, "array_of_integers");
  CHECK_ARRAY(array_of_addresses, max_addresses, "array_of_addresses");
  CHECK_ARRAY(array_of_large_counts, max_large_counts, "array_of_large_counts");
  CHECK_ARRAY(array_of_datatypes, max_datatypes, "array_of_datatypes");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  int64_t ni = 0, na = 0, nc = 0, nd = 0;
  int combiner = 0;
  ENGINE(datatype::getEnvelope(datatype, &ni, &na, &nc, &nd, &combiner));
  if (nc > 0 && !array_of_large_counts)
    return raisef(kFunc, MPI_ERR_TYPE,
                  "datatype %s was created by a large-count (_c) constructor: its contents have "
                  "%lld large counts (use MPI_Type_get_contents_c)",
                  nameOf(*t), static_cast<long long>(nc));
  std::vector<int64_t> counts(static_cast<size_t>(nc));
  ENGINE(datatype::getContents(datatype, max_integers, max_addresses, max_large_counts,
                               max_datatypes, array_of_integers, array_of_addresses, counts.data(),
                               array_of_datatypes));
  std::copy(counts.begin(), counts.end(), array_of_large_counts);
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                      int max_datatypes, int array_of_integers[],
                                      MPI_Aint array_of_addresses[],
                                      MPI_Datatype array_of_datatypes[]) {
  CCMPI_API_BEGIN("MPI_Type_get_contents");
  return getContents(kFunc, datatype, max_integers, max_addresses, 0, max_datatypes,
                     array_of_integers, array_of_addresses, nullptr, array_of_datatypes);
}
CCMPI_MPI_ALIAS(MPI_Type_get_contents)

extern "C" int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                                        MPI_Count max_addresses, MPI_Count max_large_counts,
                                        MPI_Count max_datatypes, int array_of_integers[],
                                        MPI_Aint array_of_addresses[],
                                        MPI_Count array_of_large_counts[],
                                        MPI_Datatype array_of_datatypes[]) {
  CCMPI_API_BEGIN("MPI_Type_get_contents_c");
  return getContents(kFunc, datatype, max_integers, max_addresses, max_large_counts, max_datatypes,
                     array_of_integers, array_of_addresses, array_of_large_counts,
                     array_of_datatypes);
}
CCMPI_MPI_ALIAS(MPI_Type_get_contents_c)

extern "C" int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  CCMPI_API_BEGIN("MPI_Type_match_size");
  CHECK_PTR(datatype, "datatype");
  if (typeclass != MPI_TYPECLASS_REAL && typeclass != MPI_TYPECLASS_INTEGER &&
      typeclass != MPI_TYPECLASS_COMPLEX)
    return raisef(kFunc, MPI_ERR_ARG,
                  "typeclass %d is not MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX", typeclass);
  const MPI_Datatype t = datatype::matchSize(typeclass, size);
  if (t == MPI_DATATYPE_NULL)
    return raisef(kFunc, MPI_ERR_ARG, "no predefined %s type has size %d",
                  typeclass == MPI_TYPECLASS_REAL      ? "real"
                  : typeclass == MPI_TYPECLASS_INTEGER ? "integer"
                                                       : "complex",
                  size);
  *datatype = t;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_match_size)

// MPI_Type_create_f90_real/complex/integer (MPI-4.0 19.1.9): the type of a Fortran REAL or
// COMPLEX of kind SELECTED_REAL_KIND(p, r), or INTEGER of SELECTED_INT_KIND(r), as
// gfortran lays them out (IEEE single, double and quad precision; 1-, 2-, 4- and 8-byte
// integers). MPI_UNDEFINED for p or r asks nothing of it.
namespace {
struct F90Kind {
  int precision, range;
  MPI_Datatype real, complex;
};
constexpr F90Kind kF90Reals[] = {{6, 37, MPI_REAL4, MPI_COMPLEX8},
                                 {15, 307, MPI_REAL8, MPI_COMPLEX16},
                                 {33, 4931, MPI_REAL16, MPI_COMPLEX32}};

int f90Real(const char* kFunc, int p, int r, bool complex, MPI_Datatype* newtype) {
  CHECK_PTR(newtype, "newtype");
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
    return raisef(kFunc, MPI_ERR_ARG, "p and r are both MPI_UNDEFINED");
  if ((p != MPI_UNDEFINED && p < 0) || (r != MPI_UNDEFINED && r < 0))
    return raisef(kFunc, MPI_ERR_ARG, "p = %d and r = %d must be non-negative or MPI_UNDEFINED", p,
                  r);
  for (const F90Kind& k : kF90Reals) {
    if ((p == MPI_UNDEFINED || p <= k.precision) && (r == MPI_UNDEFINED || r <= k.range)) {
      ENGINE(datatype::f90Type(complex ? MPI_COMBINER_F90_COMPLEX : MPI_COMBINER_F90_REAL, {p, r},
                               complex ? k.complex : k.real, newtype));
      return MPI_SUCCESS;
    }
  }
  return raisef(kFunc, MPI_ERR_ARG,
                "no %s kind has precision %d and range %d (at most 33 digits and 10^4931)",
                complex ? "COMPLEX" : "REAL", p, r);
}
}  // namespace

extern "C" int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_f90_real");
  return f90Real(kFunc, p, r, false, newtype);
}
CCMPI_MPI_ALIAS(MPI_Type_create_f90_real)

extern "C" int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_f90_complex");
  return f90Real(kFunc, p, r, true, newtype);
}
CCMPI_MPI_ALIAS(MPI_Type_create_f90_complex)

extern "C" int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_f90_integer");
  CHECK_PTR(newtype, "newtype");
  constexpr struct {
    int range;
    MPI_Datatype type;
  } kInts[] = {{2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8}};
  if (r < 0 && r != MPI_UNDEFINED) return raisef(kFunc, MPI_ERR_ARG, "r = %d is negative", r);
  for (const auto& k : kInts) {
    if (r == MPI_UNDEFINED || r <= k.range) {
      ENGINE(datatype::f90Type(MPI_COMBINER_F90_INTEGER, {r}, k.type, newtype));
      return MPI_SUCCESS;
    }
  }
  return raisef(kFunc, MPI_ERR_ARG, "no INTEGER kind has a range of 10^%d (at most 10^18)", r);
}
CCMPI_MPI_ALIAS(MPI_Type_create_f90_integer)

// ---------- addresses ----------

extern "C" int PMPI_Get_address(const void* location, MPI_Aint* address) {
  CCMPI_API_BEGIN("MPI_Get_address");
  CHECK_PTR(address, "address");
  *address = static_cast<MPI_Aint>(reinterpret_cast<uintptr_t>(location));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Get_address)

extern "C" MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<uintptr_t>(base) + static_cast<uintptr_t>(disp));
}
CCMPI_MPI_ALIAS(MPI_Aint_add)

extern "C" MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<uintptr_t>(addr1) - static_cast<uintptr_t>(addr2));
}
CCMPI_MPI_ALIAS(MPI_Aint_diff)

// ---------- pack / unpack ----------

namespace {
// MPI_Pack/Unpack and their _c forms; P is the position's type (int or MPI_Count).
template <typename P>
int packImpl(const char* kFunc, const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
             void* outbuf, MPI_Count outsize, P* position, MPI_Comm comm) {
  if (!comm::lookup(comm))
    return raisef(kFunc, MPI_ERR_COMM, "invalid communicator handle 0x%x", comm);
  CCMPI_CHECK(comm, incount >= 0, MPI_ERR_COUNT, "incount %lld is negative", incount);
  CCMPI_CHECK(comm, position, MPI_ERR_ARG, "position is NULL");
  CCMPI_CHECK(comm, *position >= 0, MPI_ERR_ARG, "position %lld is negative",
              static_cast<long long>(*position));
  datatype::Datatype* t = nullptr;
  if (int rc = committedArg(kFunc, comm, datatype, &t)) return rc;
  const int64_t need = incount * t->size();
  CCMPI_CHECK(comm, *position + need <= outsize, MPI_ERR_TRUNCATE,
              "packing %lld bytes at position %lld overflows the %lld-byte output buffer",
              static_cast<long long>(need), static_cast<long long>(*position), outsize);
  CCMPI_CHECK(comm, need == 0 || outbuf, MPI_ERR_BUFFER, "outbuf is NULL");
  if (need > 0)
    t->pack(inbuf, incount, 0, static_cast<unsigned char*>(outbuf) + *position,
            static_cast<size_t>(need));
  *position += static_cast<P>(need);
  return MPI_SUCCESS;
}

template <typename P>
int unpackImpl(const char* kFunc, const void* inbuf, MPI_Count insize, P* position, void* outbuf,
               MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  if (!comm::lookup(comm))
    return raisef(kFunc, MPI_ERR_COMM, "invalid communicator handle 0x%x", comm);
  CCMPI_CHECK(comm, outcount >= 0, MPI_ERR_COUNT, "outcount %lld is negative", outcount);
  CCMPI_CHECK(comm, position, MPI_ERR_ARG, "position is NULL");
  CCMPI_CHECK(comm, *position >= 0, MPI_ERR_ARG, "position %lld is negative",
              static_cast<long long>(*position));
  datatype::Datatype* t = nullptr;
  if (int rc = committedArg(kFunc, comm, datatype, &t)) return rc;
  const int64_t need = outcount * t->size();
  CCMPI_CHECK(comm, *position + need <= insize, MPI_ERR_TRUNCATE,
              "unpacking %lld bytes at position %lld overruns the %lld-byte input buffer",
              static_cast<long long>(need), static_cast<long long>(*position), insize);
  CCMPI_CHECK(comm, need == 0 || inbuf, MPI_ERR_BUFFER, "inbuf is NULL");
  if (need > 0)
    t->unpack(outbuf, outcount, 0, static_cast<const unsigned char*>(inbuf) + *position,
              static_cast<size_t>(need));
  *position += static_cast<P>(need);
  return MPI_SUCCESS;
}

int packSize(const char* kFunc, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
             MPI_Count* size) {
  if (!comm::lookup(comm))
    return raisef(kFunc, MPI_ERR_COMM, "invalid communicator handle 0x%x", comm);
  CCMPI_CHECK(comm, incount >= 0, MPI_ERR_COUNT, "incount %lld is negative", incount);
  CCMPI_CHECK(comm, size, MPI_ERR_ARG, "size is NULL");
  datatype::Datatype* t = nullptr;
  if (int rc = committedArg(kFunc, comm, datatype, &t)) return rc;
  *size = incount * t->size();
  return MPI_SUCCESS;
}

int checkDatarep(const char* kFunc, const char* datarep) {
  if (!datarep) return raisef(kFunc, MPI_ERR_ARG, "datarep is NULL");
  if (std::strcmp(datarep, "external32") != 0)
    return raisef(kFunc, MPI_ERR_UNSUPPORTED_DATAREP,
                  "data representation \"%s\" is not supported (only \"external32\")", datarep);
  return MPI_SUCCESS;
}

template <typename P>
int packExternal(const char* kFunc, const char* datarep, const void* inbuf, MPI_Count incount,
                 MPI_Datatype datatype, void* outbuf, MPI_Count outsize, P* position) {
  if (int rc = checkDatarep(kFunc, datarep)) return rc;
  CHECK_COUNT64(incount, "incount");
  CHECK_PTR(position, "position");
  datatype::Datatype* t = nullptr;
  if (int rc = committedArg(kFunc, MPI_COMM_WORLD, datatype, &t)) return rc;
  if (incount > 0 && t->size() > 0 && !outbuf)
    return raisef(kFunc, MPI_ERR_BUFFER, "outbuf is NULL");
  int64_t pos = *position;
  ENGINE(datatype::packExternal(datatype, inbuf, incount, outbuf, outsize, &pos));
  *position = static_cast<P>(pos);
  return MPI_SUCCESS;
}

template <typename P>
int unpackExternal(const char* kFunc, const char* datarep, const void* inbuf, MPI_Count insize,
                   P* position, void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  if (int rc = checkDatarep(kFunc, datarep)) return rc;
  CHECK_COUNT64(outcount, "outcount");
  CHECK_PTR(position, "position");
  datatype::Datatype* t = nullptr;
  if (int rc = committedArg(kFunc, MPI_COMM_WORLD, datatype, &t)) return rc;
  if (outcount > 0 && t->size() > 0 && !inbuf)
    return raisef(kFunc, MPI_ERR_BUFFER, "inbuf is NULL");
  int64_t pos = *position;
  ENGINE(datatype::unpackExternal(datatype, inbuf, insize, &pos, outbuf, outcount));
  *position = static_cast<P>(pos);
  return MPI_SUCCESS;
}

int packExternalSize(const char* kFunc, const char* datarep, MPI_Count incount,
                     MPI_Datatype datatype, MPI_Count* size) {
  if (int rc = checkDatarep(kFunc, datarep)) return rc;
  CHECK_COUNT64(incount, "incount");
  CHECK_PTR(size, "size");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  int64_t s = 0;
  ENGINE(datatype::externalSize(datatype, incount, &s));
  *size = s;
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                         int outsize, int* position, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Pack");
  return packImpl(kFunc, inbuf, incount, datatype, outbuf, outsize, position, comm);
}
CCMPI_MPI_ALIAS(MPI_Pack)

extern "C" int PMPI_Pack_c(const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                           void* outbuf, MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Pack_c");
  return packImpl(kFunc, inbuf, incount, datatype, outbuf, outsize, position, comm);
}
CCMPI_MPI_ALIAS(MPI_Pack_c)

extern "C" int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                           MPI_Datatype datatype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Unpack");
  return unpackImpl(kFunc, inbuf, insize, position, outbuf, outcount, datatype, comm);
}
CCMPI_MPI_ALIAS(MPI_Unpack)

extern "C" int PMPI_Unpack_c(const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
                             MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Unpack_c");
  return unpackImpl(kFunc, inbuf, insize, position, outbuf, outcount, datatype, comm);
}
CCMPI_MPI_ALIAS(MPI_Unpack_c)

extern "C" int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  CCMPI_API_BEGIN("MPI_Pack_size");
  MPI_Count s = 0;
  if (int rc = packSize(kFunc, incount, datatype, comm, size ? &s : nullptr)) return rc;
  *size = toIntOrUndefined(s);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Pack_size)

extern "C" int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                                MPI_Count* size) {
  CCMPI_API_BEGIN("MPI_Pack_size_c");
  return packSize(kFunc, incount, datatype, comm, size);
}
CCMPI_MPI_ALIAS(MPI_Pack_size_c)

extern "C" int PMPI_Pack_external(const char datarep[], const void* inbuf, int incount,
                                  MPI_Datatype datatype, void* outbuf, MPI_Aint outsize,
                                  MPI_Aint* position) {
  CCMPI_API_BEGIN("MPI_Pack_external");
  return packExternal(kFunc, datarep, inbuf, incount, datatype, outbuf, outsize, position);
}
CCMPI_MPI_ALIAS(MPI_Pack_external)

extern "C" int PMPI_Pack_external_c(const char datarep[], const void* inbuf, MPI_Count incount,
                                    MPI_Datatype datatype, void* outbuf, MPI_Count outsize,
                                    MPI_Count* position) {
  CCMPI_API_BEGIN("MPI_Pack_external_c");
  return packExternal(kFunc, datarep, inbuf, incount, datatype, outbuf, outsize, position);
}
CCMPI_MPI_ALIAS(MPI_Pack_external_c)

extern "C" int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize,
                                    MPI_Aint* position, void* outbuf, int outcount,
                                    MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_Unpack_external");
  return unpackExternal(kFunc, datarep, inbuf, insize, position, outbuf, outcount, datatype);
}
CCMPI_MPI_ALIAS(MPI_Unpack_external)

extern "C" int PMPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize,
                                      MPI_Count* position, void* outbuf, MPI_Count outcount,
                                      MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_Unpack_external_c");
  return unpackExternal(kFunc, datarep, inbuf, insize, position, outbuf, outcount, datatype);
}
CCMPI_MPI_ALIAS(MPI_Unpack_external_c)

extern "C" int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                       MPI_Aint* size) {
  CCMPI_API_BEGIN("MPI_Pack_external_size");
  MPI_Count s = 0;
  if (int rc = packExternalSize(kFunc, datarep, incount, datatype, size ? &s : nullptr)) return rc;
  *size = s;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Pack_external_size)

extern "C" int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount,
                                         MPI_Datatype datatype, MPI_Count* size) {
  CCMPI_API_BEGIN("MPI_Pack_external_size_c");
  return packExternalSize(kFunc, datarep, incount, datatype, size);
}
CCMPI_MPI_ALIAS(MPI_Pack_external_size_c)

// ---------- status queries ----------

namespace {
// MPI_Get_count (elements = false) and MPI_Get_elements in 64 bits; MPI_UNDEFINED when
// the received bytes are not a whole number of them.
int statusCount(const char* kFunc, const MPI_Status* status, MPI_Datatype datatype,
                MPI_Count* count, bool elements) {
  if (!status || status == MPI_STATUS_IGNORE)
    return raisef(kFunc, MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
  CHECK_PTR(count, "count");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  const int64_t bytes = status->ccmpi_count;
  if (elements) {
    *count = t->elementsIn(bytes);
  } else if (t->size() == 0) {
    *count = 0;
  } else {
    *count = bytes % t->size() != 0 ? MPI_UNDEFINED : bytes / t->size();
  }
  return MPI_SUCCESS;
}

int statusCountInt(const char* kFunc, const MPI_Status* status, MPI_Datatype datatype, int* count,
                   bool elements) {
  CHECK_PTR(count, "count");
  MPI_Count n = 0;
  if (int rc = statusCount(kFunc, status, datatype, &n, elements)) return rc;
  *count = n == MPI_UNDEFINED ? MPI_UNDEFINED : toIntOrUndefined(n);
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  CCMPI_API_BEGIN("MPI_Get_count");
  return statusCountInt(kFunc, status, datatype, count, false);
}
CCMPI_MPI_ALIAS(MPI_Get_count)

extern "C" int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  CCMPI_API_BEGIN("MPI_Get_count_c");
  return statusCount(kFunc, status, datatype, count, false);
}
CCMPI_MPI_ALIAS(MPI_Get_count_c)

extern "C" int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  CCMPI_API_BEGIN("MPI_Get_elements");
  return statusCountInt(kFunc, status, datatype, count, true);
}
CCMPI_MPI_ALIAS(MPI_Get_elements)

extern "C" int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype,
                                   MPI_Count* count) {
  CCMPI_API_BEGIN("MPI_Get_elements_x");
  return statusCount(kFunc, status, datatype, count, true);
}
CCMPI_MPI_ALIAS(MPI_Get_elements_x)

extern "C" int PMPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype,
                                   MPI_Count* count) {
  CCMPI_API_BEGIN("MPI_Get_elements_c");
  return statusCount(kFunc, status, datatype, count, true);
}
CCMPI_MPI_ALIAS(MPI_Get_elements_c)

namespace {
int setElements(const char* kFunc, MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  if (!status || status == MPI_STATUS_IGNORE)
    return raisef(kFunc, MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
  if (count < 0) return raisef(kFunc, MPI_ERR_COUNT, "count %lld is negative", count);
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  if (count > 0 && t->elements() == 0)
    return raisef(kFunc, MPI_ERR_ARG, "datatype %s has no basic elements", nameOf(*t));
  status->ccmpi_count = t->bytesForElements(count);
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  CCMPI_API_BEGIN("MPI_Status_set_elements");
  return setElements(kFunc, status, datatype, count);
}
CCMPI_MPI_ALIAS(MPI_Status_set_elements)

extern "C" int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype,
                                          MPI_Count count) {
  CCMPI_API_BEGIN("MPI_Status_set_elements_x");
  return setElements(kFunc, status, datatype, count);
}
CCMPI_MPI_ALIAS(MPI_Status_set_elements_x)

extern "C" int PMPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype,
                                          MPI_Count count) {
  CCMPI_API_BEGIN("MPI_Status_set_elements_c");
  return setElements(kFunc, status, datatype, count);
}
CCMPI_MPI_ALIAS(MPI_Status_set_elements_c)

extern "C" int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  CCMPI_API_BEGIN("MPI_Status_set_cancelled");
  if (!status || status == MPI_STATUS_IGNORE)
    return raisef(kFunc, MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
  status->ccmpi_cancelled = flag ? 1 : 0;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Status_set_cancelled)

extern "C" int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  CCMPI_API_BEGIN("MPI_Test_cancelled");
  if (!status || status == MPI_STATUS_IGNORE)
    return raisef(kFunc, MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
  CHECK_PTR(flag, "flag");
  *flag = status->ccmpi_cancelled ? 1 : 0;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Test_cancelled)

// ---------- attributes ----------

extern "C" int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                                       MPI_Type_delete_attr_function* type_delete_attr_fn,
                                       int* type_keyval, void* extra_state) {
  CCMPI_API_BEGIN("MPI_Type_create_keyval");
  CHECK_PTR(type_keyval, "type_keyval");
  ENGINE(datatype::createKeyval(type_copy_attr_fn, type_delete_attr_fn, extra_state, type_keyval));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_create_keyval)

extern "C" int PMPI_Type_free_keyval(int* type_keyval) {
  CCMPI_API_BEGIN("MPI_Type_free_keyval");
  CHECK_PTR(type_keyval, "type_keyval");
  ENGINE(datatype::freeKeyval(type_keyval));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_free_keyval)

extern "C" int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  CCMPI_API_BEGIN("MPI_Type_set_attr");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  ENGINE(datatype::setAttr(datatype, type_keyval, attribute_val));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_set_attr)

extern "C" int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val,
                                  int* flag) {
  CCMPI_API_BEGIN("MPI_Type_get_attr");
  CHECK_PTR(attribute_val, "attribute_val");
  CHECK_PTR(flag, "flag");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  ENGINE(datatype::getAttr(datatype, type_keyval, static_cast<void**>(attribute_val), flag));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_get_attr)

extern "C" int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  CCMPI_API_BEGIN("MPI_Type_delete_attr");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  ENGINE(datatype::deleteAttr(datatype, type_keyval));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_delete_attr)

// Predefined callbacks. NULL_COPY: do not copy; DUP: copy the value; NULL_DELETE: nothing.
extern "C" int MPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}
extern "C" int MPI_TYPE_DUP_FN(MPI_Datatype, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}
extern "C" int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void*, void*) {
  return MPI_SUCCESS;
}
