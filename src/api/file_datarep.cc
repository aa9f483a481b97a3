// User-defined data representations (MPI_Register_datarep, MPI-4.0 chapter 14.5.3).
//
// A registered representation is a name with a read and a write conversion function, a
// file extent function and an extra_state, kept for the life of the process. A view in such
// a representation lays its etype and filetype out in the file as the standard says: every
// predefined type takes the file extent the extent function gives it (asked once per type
// and cached), displacements counted in elements of an old type (contiguous, vector,
// indexed, subarray, darray) scale with it, byte displacements (hvector, hindexed, struct,
// resized) are taken as they are. fileLayoutType builds that layout as a datatype of bytes
// with the same structure, through the type contents (MPI_Type_get_contents), so the view
// engine maps it like any native filetype.
//
// Data in such a view is staged in the file representation: a write calls the write
// conversion function once over the whole access (userbuf the user's buffer, count the
// number of predefined items, position 0), a read reads the file bytes and calls the read
// conversion function. MPI_CONVERSION_FN_NULL in either direction means the data moves
// unconverted (as packed native bytes), which needs file extents equal to the native sizes.
#include <climits>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/api.h"
#include "api/file_impl.h"
#include "base/error.h"
#include "comm/errhandler.h"

namespace ccmpi::io {

struct Datarep {
  std::string name;
  MPI_Datarep_conversion_function* read = nullptr;  // the int-count forms
  MPI_Datarep_conversion_function* write = nullptr;
  MPI_Datarep_conversion_function_c* readC = nullptr;  // MPI_Register_datarep_c
  MPI_Datarep_conversion_function_c* writeC = nullptr;
  bool large = false;
  MPI_Datarep_extent_function* extent = nullptr;
  void* extra = nullptr;
  mutable std::mutex mu;
  mutable std::map<MPI_Datatype, MPI_Aint> extents;  // predefined type -> file extent
};

namespace {

std::mutex gMu;
std::map<std::string, std::unique_ptr<Datarep>>& registry() {
  static auto* r = new std::map<std::string, std::unique_ptr<Datarep>>;
  return *r;
}

// File extent of a predefined type (or one that behaves as predefined).
int predefinedExtent(const Datarep& rep, MPI_Datatype t, MPI_Aint* ext) {
  {
    std::lock_guard<std::mutex> lock(rep.mu);
    auto it = rep.extents.find(t);
    if (it != rep.extents.end()) {
      *ext = it->second;
      return MPI_SUCCESS;
    }
  }
  MPI_Aint e = -1;
  if (int rc = rep.extent(t, &e, rep.extra))
    return setErrorCause(MPI_ERR_CONVERSION,
                         "the extent function of data representation \"%s\" returned %d",
                         rep.name.c_str(), rc);
  if (e < 0)
    return setErrorCause(MPI_ERR_CONVERSION,
                         "the extent function of data representation \"%s\" gave a negative "
                         "extent %lld",
                         rep.name.c_str(), static_cast<long long>(e));
  std::lock_guard<std::mutex> lock(rep.mu);
  rep.extents[t] = e;
  *ext = e;
  return MPI_SUCCESS;
}

// Frees the types of a get_contents answer that are not predefined.
void freeContents(std::vector<MPI_Datatype>& types) {
  for (MPI_Datatype& t : types) {
    int ni, na, nd, comb;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
        comb != MPI_COMBINER_NAMED)
      PMPI_Type_free(&t);
  }
}

// Builds (uncommitted) the file layout of `type`; see the top of the file.
int layout(const Datarep& rep, MPI_Datatype type, MPI_Datatype* out) {
  int ni = 0, na = 0, nd = 0, comb = 0;
  if (int rc = PMPI_Type_get_envelope(type, &ni, &na, &nd, &comb)) return rc;
  if (comb == MPI_COMBINER_NAMED || comb == MPI_COMBINER_F90_REAL ||
      comb == MPI_COMBINER_F90_COMPLEX || comb == MPI_COMBINER_F90_INTEGER) {
    MPI_Aint e = 0;
    if (int rc = predefinedExtent(rep, type, &e)) return rc;
    if (e > INT_MAX)
      return setErrorCause(MPI_ERR_CONVERSION, "file extent %lld too large",
                           static_cast<long long>(e));
    return PMPI_Type_contiguous(static_cast<int>(e), MPI_BYTE, out);
  }
  std::vector<int> ints(static_cast<size_t>(ni));
  std::vector<MPI_Aint> addrs(static_cast<size_t>(na));
  std::vector<MPI_Datatype> types(static_cast<size_t>(nd));
  if (int rc = PMPI_Type_get_contents(type, ni, na, nd, ints.data(), addrs.data(), types.data()))
    return rc;
  std::vector<MPI_Datatype> sub(types.size(), MPI_DATATYPE_NULL);
  int rc = MPI_SUCCESS;
  for (size_t i = 0; i < types.size() && !rc; ++i) rc = layout(rep, types[i], &sub[i]);
  if (!rc) {
    const int* I = ints.data();
    const MPI_Aint* A = addrs.data();
    switch (comb) {
      case MPI_COMBINER_DUP:
        rc = PMPI_Type_dup(sub[0], out);
        break;
      case MPI_COMBINER_CONTIGUOUS:
        rc = PMPI_Type_contiguous(I[0], sub[0], out);
        break;
      case MPI_COMBINER_VECTOR:
        rc = PMPI_Type_vector(I[0], I[1], I[2], sub[0], out);
        break;
      case MPI_COMBINER_HVECTOR:
      case MPI_COMBINER_HVECTOR_INTEGER:
        rc = PMPI_Type_create_hvector(I[0], I[1], A[0], sub[0], out);
        break;
      case MPI_COMBINER_INDEXED:
        rc = PMPI_Type_indexed(I[0], I + 1, I + 1 + I[0], sub[0], out);
        break;
      case MPI_COMBINER_HINDEXED:
      case MPI_COMBINER_HINDEXED_INTEGER:
        rc = PMPI_Type_create_hindexed(I[0], I + 1, A, sub[0], out);
        break;
      case MPI_COMBINER_INDEXED_BLOCK:
        rc = PMPI_Type_create_indexed_block(I[0], I[1], I + 2, sub[0], out);
        break;
      case MPI_COMBINER_HINDEXED_BLOCK:
        rc = PMPI_Type_create_hindexed_block(I[0], I[1], A, sub[0], out);
        break;
      case MPI_COMBINER_STRUCT:
      case MPI_COMBINER_STRUCT_INTEGER:
        rc = PMPI_Type_create_struct(I[0], I + 1, A, sub.data(), out);
        break;
      case MPI_COMBINER_SUBARRAY: {
        const int n = I[0];
        rc = PMPI_Type_create_subarray(n, I + 1, I + 1 + n, I + 1 + 2 * n, I[1 + 3 * n], sub[0],
                                       out);
        break;
      }
      case MPI_COMBINER_DARRAY: {
        const int n = I[2];
        rc = PMPI_Type_create_darray(I[0], I[1], n, I + 3, I + 3 + n, I + 3 + 2 * n, I + 3 + 3 * n,
                                     I[3 + 4 * n], sub[0], out);
        break;
      }
      case MPI_COMBINER_RESIZED:
        rc = PMPI_Type_create_resized(sub[0], A[0], A[1], out);
        break;
      default:
        rc = setErrorCause(MPI_ERR_UNSUPPORTED_DATAREP,
                           "user data representations cannot lay out datatypes of combiner %d",
                           comb);
    }
  }
  for (MPI_Datatype& s : sub)
    if (s != MPI_DATATYPE_NULL) PMPI_Type_free(&s);
  freeContents(types);
  return rc;
}

// Number of predefined items in `count` elements of `type`, and their file bytes.
int items(const Datarep& rep, MPI_Datatype type, int64_t count, int64_t* n, int64_t* bytes) {
  datatype::Datatype* d = datatype::lookup(type);
  *n = count * d->elements();
  if (int rc = datarepFileSize(rep, type, bytes)) return rc;
  *bytes *= count;
  return MPI_SUCCESS;
}

int convert(const Datarep& rep, bool toFile, void* buf, MPI_Datatype type, int64_t count,
            unsigned char* filebuf) {
  if (count == 0) return MPI_SUCCESS;
  int64_t n = 0, fbytes = 0;
  if (int rc = items(rep, type, count, &n, &fbytes)) return rc;
  MPI_Datarep_conversion_function* fn = toFile ? rep.write : rep.read;
  MPI_Datarep_conversion_function_c* fnC = toFile ? rep.writeC : rep.readC;
  const bool none = rep.large ? fnC == MPI_CONVERSION_FN_NULL_C : fn == MPI_CONVERSION_FN_NULL;
  datatype::Datatype* d = datatype::lookup(type);
  if (none) {
    // No conversion: the file holds the packed native bytes.
    if (fbytes != count * d->size())
      return setErrorCause(MPI_ERR_CONVERSION,
                           "data representation \"%s\" has no %s conversion function, but its "
                           "file extents differ from the native sizes",
                           rep.name.c_str(), toFile ? "write" : "read");
    if (toFile)
      d->pack(buf, count, 0, filebuf, static_cast<size_t>(fbytes));
    else
      d->unpack(buf, count, 0, filebuf, static_cast<size_t>(fbytes));
    return MPI_SUCCESS;
  }
  int rc;
  if (rep.large) {
    rc = fnC(buf, type, n, filebuf, 0, rep.extra);
  } else {
    if (n > INT_MAX)
      return setErrorCause(MPI_ERR_CONVERSION,
                           "%lld items exceed the int count of the conversion function (use "
                           "MPI_Register_datarep_c)",
                           static_cast<long long>(n));
    rc = fn(buf, type, static_cast<int>(n), filebuf, 0, rep.extra);
  }
  if (rc != MPI_SUCCESS)
    return setErrorCause(MPI_ERR_CONVERSION,
                         "the %s conversion function of data representation \"%s\" returned %d",
                         toFile ? "write" : "read", rep.name.c_str(), rc);
  return MPI_SUCCESS;
}

}  // namespace

int registerDatarep(const char* datarep, MPI_Datarep_conversion_function* r,
                    MPI_Datarep_conversion_function* w, MPI_Datarep_conversion_function_c* rc_,
                    MPI_Datarep_conversion_function_c* wc, bool large,
                    MPI_Datarep_extent_function* extent, void* extra) {
  if (!datarep) return setErrorCause(MPI_ERR_ARG, "datarep is NULL");
  const size_t len = strlen(datarep);
  if (len == 0 || len >= MPI_MAX_DATAREP_STRING)
    return setErrorCause(MPI_ERR_ARG, "the data representation name must have 1 to %d characters",
                         MPI_MAX_DATAREP_STRING - 1);
  if (!extent) return setErrorCause(MPI_ERR_ARG, "dtype_file_extent_fn is NULL");
  if (large ? (!rc_ || !wc) : (!r || !w))
    return setErrorCause(MPI_ERR_ARG,
                         "a conversion function is NULL (MPI_CONVERSION_FN_NULL%s means none)",
                         large ? "_C" : "");
  std::string lower = datarep;
  for (char& ch : lower) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
  std::lock_guard<std::mutex> lock(gMu);
  if (lower == "native" || lower == "internal" || lower == "external32" ||
      registry().count(datarep))
    return setErrorCause(MPI_ERR_DUP_DATAREP, "data representation \"%s\" is already defined",
                         datarep);
  auto rep = std::make_unique<Datarep>();
  rep->name = datarep;
  rep->read = r;
  rep->write = w;
  rep->readC = rc_;
  rep->writeC = wc;
  rep->large = large;
  rep->extent = extent;
  rep->extra = extra;
  registry()[datarep] = std::move(rep);
  return MPI_SUCCESS;
}

const Datarep* findDatarep(const std::string& name) {
  std::lock_guard<std::mutex> lock(gMu);
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

const std::string& datarepName(const Datarep& rep) {
  return rep.name;
}

int fileLayoutType(const Datarep& rep, MPI_Datatype type, MPI_Datatype* out) {
  *out = MPI_DATATYPE_NULL;
  if (int rc = layout(rep, type, out)) {
    if (*out != MPI_DATATYPE_NULL) PMPI_Type_free(out);
    return rc;
  }
  if (int rc = PMPI_Type_commit(out)) {
    PMPI_Type_free(out);
    return setErrorCause(rc, "laying out the file type failed");
  }
  return MPI_SUCCESS;
}

int datarepFileSize(const Datarep& rep, MPI_Datatype type, int64_t* size) {
  MPI_Datatype t;
  if (int rc = fileLayoutType(rep, type, &t)) return rc;
  *size = datatype::lookup(t)->size();
  PMPI_Type_free(&t);
  return MPI_SUCCESS;
}

int datarepExtent(const Datarep& rep, MPI_Datatype type, int64_t* extent) {
  MPI_Datatype t;
  if (int rc = fileLayoutType(rep, type, &t)) return rc;
  *extent = datatype::lookup(t)->extent();
  PMPI_Type_free(&t);
  return MPI_SUCCESS;
}

int datarepToFile(const Datarep& rep, const void* buf, MPI_Datatype type, int64_t count,
                  unsigned char* filebuf) {
  return convert(rep, true, const_cast<void*>(buf), type, count, filebuf);
}

int datarepFromFile(const Datarep& rep, void* buf, MPI_Datatype type, int64_t count,
                    unsigned char* filebuf) {
  return convert(rep, false, buf, type, count, filebuf);
}

}  // namespace ccmpi::io
