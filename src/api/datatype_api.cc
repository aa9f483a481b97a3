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

}  // namespace

// ---------- constructors ----------

extern "C" int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_contiguous");
  CHECK_COUNT(count, "count");
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  ENGINE(datatype::createContiguous(count, oldtype, newtype));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_contiguous)

extern "C" int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_vector");
  CHECK_COUNT(count, "count");
  if (blocklength < 0) return raisef(kFunc, MPI_ERR_ARG, "blocklength %d is negative", blocklength);
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  ENGINE(datatype::createVector(count, blocklength, stride, oldtype, newtype));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_vector)

extern "C" int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                                        MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_hvector");
  CHECK_COUNT(count, "count");
  if (blocklength < 0) return raisef(kFunc, MPI_ERR_ARG, "blocklength %d is negative", blocklength);
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  ENGINE(datatype::createHvector(count, blocklength, stride, oldtype, newtype));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_create_hvector)

extern "C" int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
                                 const int array_of_displacements[], MPI_Datatype oldtype,
                                 MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_indexed");
  CHECK_COUNT(count, "count");
  CHECK_ARRAY(array_of_blocklengths, count, "array_of_blocklengths");
  CHECK_ARRAY(array_of_displacements, count, "array_of_displacements");
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  ENGINE(datatype::createIndexed(count, array_of_blocklengths, array_of_displacements, oldtype,
                                 newtype));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_indexed)

extern "C" int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                         const MPI_Aint array_of_displacements[],
                                         MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_hindexed");
  CHECK_COUNT(count, "count");
  CHECK_ARRAY(array_of_blocklengths, count, "array_of_blocklengths");
  CHECK_ARRAY(array_of_displacements, count, "array_of_displacements");
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  ENGINE(datatype::createHindexed(count, array_of_blocklengths, array_of_displacements, oldtype,
                                  newtype));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_create_hindexed)

extern "C" int PMPI_Type_create_indexed_block(int count, int blocklength,
                                              const int array_of_displacements[],
                                              MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_indexed_block");
  CHECK_COUNT(count, "count");
  if (blocklength < 0) return raisef(kFunc, MPI_ERR_ARG, "blocklength %d is negative", blocklength);
  CHECK_ARRAY(array_of_displacements, count, "array_of_displacements");
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  ENGINE(
      datatype::createIndexedBlock(count, blocklength, array_of_displacements, oldtype, newtype));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_create_indexed_block)

extern "C" int PMPI_Type_create_hindexed_block(int count, int blocklength,
                                               const MPI_Aint array_of_displacements[],
                                               MPI_Datatype oldtype, MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_hindexed_block");
  CHECK_COUNT(count, "count");
  if (blocklength < 0) return raisef(kFunc, MPI_ERR_ARG, "blocklength %d is negative", blocklength);
  CHECK_ARRAY(array_of_displacements, count, "array_of_displacements");
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  ENGINE(
      datatype::createHindexedBlock(count, blocklength, array_of_displacements, oldtype, newtype));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_create_hindexed_block)

extern "C" int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[],
                                       const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_struct");
  CHECK_COUNT(count, "count");
  CHECK_ARRAY(array_of_blocklengths, count, "array_of_blocklengths");
  CHECK_ARRAY(array_of_displacements, count, "array_of_displacements");
  CHECK_ARRAY(array_of_types, count, "array_of_types");
  CHECK_PTR(newtype, "newtype");
  ENGINE(datatype::createStruct(count, array_of_blocklengths, array_of_displacements,
                                array_of_types, newtype));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_create_struct)

extern "C" int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                                        MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_resized");
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  ENGINE(datatype::createResized(oldtype, lb, extent, newtype));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_create_resized)

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
  if (ndims <= 0) return raisef(kFunc, MPI_ERR_ARG, "ndims %d is not positive", ndims);
  CHECK_ARRAY(array_of_sizes, ndims, "array_of_sizes");
  CHECK_ARRAY(array_of_subsizes, ndims, "array_of_subsizes");
  CHECK_ARRAY(array_of_starts, ndims, "array_of_starts");
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  ENGINE(datatype::createSubarray(ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                                  oldtype, newtype));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_create_subarray)

extern "C" int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                                       const int array_of_distribs[], const int array_of_dargs[],
                                       const int array_of_psizes[], int order, MPI_Datatype oldtype,
                                       MPI_Datatype* newtype) {
  CCMPI_API_BEGIN("MPI_Type_create_darray");
  if (ndims <= 0) return raisef(kFunc, MPI_ERR_ARG, "ndims %d is not positive", ndims);
  CHECK_ARRAY(array_of_gsizes, ndims, "array_of_gsizes");
  CHECK_ARRAY(array_of_distribs, ndims, "array_of_distribs");
  CHECK_ARRAY(array_of_dargs, ndims, "array_of_dargs");
  CHECK_ARRAY(array_of_psizes, ndims, "array_of_psizes");
  CHECK_PTR(newtype, "newtype");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, oldtype, &t, "oldtype")) return rc;
  ENGINE(datatype::createDarray(size, rank, ndims, array_of_gsizes, array_of_distribs,
                                array_of_dargs, array_of_psizes, order, oldtype, newtype));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_create_darray)

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

extern "C" int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  CCMPI_API_BEGIN("MPI_Type_get_extent");
  CHECK_PTR(lb, "lb");
  CHECK_PTR(extent, "extent");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  *lb = t->lb();
  *extent = t->extent();
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_get_extent)

extern "C" int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  CCMPI_API_BEGIN("MPI_Type_get_extent_x");
  CHECK_PTR(lb, "lb");
  CHECK_PTR(extent, "extent");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  *lb = t->lb();
  *extent = t->extent();
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_get_extent_x)

extern "C" int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb,
                                         MPI_Aint* true_extent) {
  CCMPI_API_BEGIN("MPI_Type_get_true_extent");
  CHECK_PTR(true_lb, "true_lb");
  CHECK_PTR(true_extent, "true_extent");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  *true_lb = t->trueLb();
  *true_extent = t->trueExtent();
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_get_true_extent)

extern "C" int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                                           MPI_Count* true_extent) {
  CCMPI_API_BEGIN("MPI_Type_get_true_extent_x");
  CHECK_PTR(true_lb, "true_lb");
  CHECK_PTR(true_extent, "true_extent");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  *true_lb = t->trueLb();
  *true_extent = t->trueExtent();
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_get_true_extent_x)

extern "C" int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  CCMPI_API_BEGIN("MPI_Type_size");
  CHECK_PTR(size, "size");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  *size = toIntOrUndefined(t->size());
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_size)

extern "C" int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  CCMPI_API_BEGIN("MPI_Type_size_x");
  CHECK_PTR(size, "size");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  *size = t->size();
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_size_x)

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
  ENGINE(datatype::getEnvelope(datatype, num_integers, num_addresses, num_datatypes, combiner));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_get_envelope)

extern "C" int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                                      int max_datatypes, int array_of_integers[],
                                      MPI_Aint array_of_addresses[],
                                      MPI_Datatype array_of_datatypes[]) {
  CCMPI_API_BEGIN("MPI_Type_get_contents");
  CHECK_COUNT(max_integers, "max_integers");
  CHECK_COUNT(max_addresses, "max_addresses");
  CHECK_COUNT(max_datatypes, "max_datatypes");
  CHECK_ARRAY(array_of_integers, max_integers, "array_of_integers");
  CHECK_ARRAY(array_of_addresses, max_addresses, "array_of_addresses");
  CHECK_ARRAY(array_of_datatypes, max_datatypes, "array_of_datatypes");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  ENGINE(datatype::getContents(datatype, max_integers, max_addresses, max_datatypes,
                               array_of_integers, array_of_addresses, array_of_datatypes));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_get_contents)

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

extern "C" int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                         int outsize, int* position, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Pack");
  if (!comm::lookup(comm))
    return raisef(kFunc, MPI_ERR_COMM, "invalid communicator handle 0x%x", comm);
  CCMPI_CHECK(comm, incount >= 0, MPI_ERR_COUNT, "incount %d is negative", incount);
  CCMPI_CHECK(comm, position, MPI_ERR_ARG, "position is NULL");
  CCMPI_CHECK(comm, *position >= 0, MPI_ERR_ARG, "position %d is negative", *position);
  datatype::Datatype* t = nullptr;
  if (int rc = committedArg(kFunc, comm, datatype, &t)) return rc;
  const int64_t need = static_cast<int64_t>(incount) * t->size();
  CCMPI_CHECK(comm, *position + need <= outsize, MPI_ERR_TRUNCATE,
              "packing %lld bytes at position %d overflows the %d-byte output buffer",
              static_cast<long long>(need), *position, outsize);
  CCMPI_CHECK(comm, need == 0 || outbuf, MPI_ERR_BUFFER, "outbuf is NULL");
  if (need > 0) t->pack(inbuf, incount, 0, static_cast<unsigned char*>(outbuf) + *position, need);
  *position += static_cast<int>(need);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Pack)

extern "C" int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                           MPI_Datatype datatype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPI_Unpack");
  if (!comm::lookup(comm))
    return raisef(kFunc, MPI_ERR_COMM, "invalid communicator handle 0x%x", comm);
  CCMPI_CHECK(comm, outcount >= 0, MPI_ERR_COUNT, "outcount %d is negative", outcount);
  CCMPI_CHECK(comm, position, MPI_ERR_ARG, "position is NULL");
  CCMPI_CHECK(comm, *position >= 0, MPI_ERR_ARG, "position %d is negative", *position);
  datatype::Datatype* t = nullptr;
  if (int rc = committedArg(kFunc, comm, datatype, &t)) return rc;
  const int64_t need = static_cast<int64_t>(outcount) * t->size();
  CCMPI_CHECK(comm, *position + need <= insize, MPI_ERR_TRUNCATE,
              "unpacking %lld bytes at position %d overruns the %d-byte input buffer",
              static_cast<long long>(need), *position, insize);
  CCMPI_CHECK(comm, need == 0 || inbuf, MPI_ERR_BUFFER, "inbuf is NULL");
  if (need > 0)
    t->unpack(outbuf, outcount, 0, static_cast<const unsigned char*>(inbuf) + *position, need);
  *position += static_cast<int>(need);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Unpack)

extern "C" int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  CCMPI_API_BEGIN("MPI_Pack_size");
  if (!comm::lookup(comm))
    return raisef(kFunc, MPI_ERR_COMM, "invalid communicator handle 0x%x", comm);
  CCMPI_CHECK(comm, incount >= 0, MPI_ERR_COUNT, "incount %d is negative", incount);
  CCMPI_CHECK(comm, size, MPI_ERR_ARG, "size is NULL");
  datatype::Datatype* t = nullptr;
  if (int rc = committedArg(kFunc, comm, datatype, &t)) return rc;
  *size = toIntOrUndefined(static_cast<int64_t>(incount) * t->size());
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Pack_size)

namespace {
int checkDatarep(const char* kFunc, const char* datarep) {
  if (!datarep) return raisef(kFunc, MPI_ERR_ARG, "datarep is NULL");
  if (std::strcmp(datarep, "external32") != 0)
    return raisef(kFunc, MPI_ERR_UNSUPPORTED_DATAREP,
                  "data representation \"%s\" is not supported (only \"external32\")", datarep);
  return MPI_SUCCESS;
}
}  // namespace

extern "C" int PMPI_Pack_external(const char datarep[], const void* inbuf, int incount,
                                  MPI_Datatype datatype, void* outbuf, MPI_Aint outsize,
                                  MPI_Aint* position) {
  CCMPI_API_BEGIN("MPI_Pack_external");
  if (int rc = checkDatarep(kFunc, datarep)) return rc;
  CHECK_COUNT(incount, "incount");
  CHECK_PTR(position, "position");
  datatype::Datatype* t = nullptr;
  if (int rc = committedArg(kFunc, MPI_COMM_WORLD, datatype, &t)) return rc;
  if (incount > 0 && t->size() > 0 && !outbuf)
    return raisef(kFunc, MPI_ERR_BUFFER, "outbuf is NULL");
  int64_t pos = *position;
  ENGINE(datatype::packExternal(datatype, inbuf, incount, outbuf, outsize, &pos));
  *position = pos;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Pack_external)

extern "C" int PMPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize,
                                    MPI_Aint* position, void* outbuf, int outcount,
                                    MPI_Datatype datatype) {
  CCMPI_API_BEGIN("MPI_Unpack_external");
  if (int rc = checkDatarep(kFunc, datarep)) return rc;
  CHECK_COUNT(outcount, "outcount");
  CHECK_PTR(position, "position");
  datatype::Datatype* t = nullptr;
  if (int rc = committedArg(kFunc, MPI_COMM_WORLD, datatype, &t)) return rc;
  if (outcount > 0 && t->size() > 0 && !inbuf)
    return raisef(kFunc, MPI_ERR_BUFFER, "inbuf is NULL");
  int64_t pos = *position;
  ENGINE(datatype::unpackExternal(datatype, inbuf, insize, &pos, outbuf, outcount));
  *position = pos;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Unpack_external)

extern "C" int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                                       MPI_Aint* size) {
  CCMPI_API_BEGIN("MPI_Pack_external_size");
  if (int rc = checkDatarep(kFunc, datarep)) return rc;
  CHECK_COUNT(incount, "incount");
  CHECK_PTR(size, "size");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  int64_t s = 0;
  ENGINE(datatype::externalSize(datatype, incount, &s));
  *size = s;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Pack_external_size)

// ---------- status queries ----------

extern "C" int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  CCMPI_API_BEGIN("MPI_Get_count");
  if (!status || status == MPI_STATUS_IGNORE)
    return raisef(kFunc, MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
  CHECK_PTR(count, "count");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  const int64_t bytes = status->ccmpi_count;
  if (t->size() == 0) {
    *count = 0;
  } else if (bytes % t->size() != 0) {
    *count = MPI_UNDEFINED;
  } else {
    *count = toIntOrUndefined(bytes / t->size());
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Get_count)

extern "C" int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  CCMPI_API_BEGIN("MPI_Get_elements");
  if (!status || status == MPI_STATUS_IGNORE)
    return raisef(kFunc, MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
  CHECK_PTR(count, "count");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  const int64_t n = t->elementsIn(status->ccmpi_count);
  *count = n == MPI_UNDEFINED ? MPI_UNDEFINED : toIntOrUndefined(n);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Get_elements)

extern "C" int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype,
                                   MPI_Count* count) {
  CCMPI_API_BEGIN("MPI_Get_elements_x");
  if (!status || status == MPI_STATUS_IGNORE)
    return raisef(kFunc, MPI_ERR_ARG, "status is NULL or MPI_STATUS_IGNORE");
  CHECK_PTR(count, "count");
  datatype::Datatype* t = nullptr;
  if (int rc = typeArg(kFunc, datatype, &t)) return rc;
  *count = t->elementsIn(status->ccmpi_count);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Get_elements_x)

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
