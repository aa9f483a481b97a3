#pragma once
// The datatype engine: type maps, commit into a flat list of contiguous blocks,
// and pack/unpack of any byte range of the packed stream (so large non-contiguous
// messages move in pipelined chunks, never copied whole).
//
// A type is described by an immutable TypeDesc tree (type_desc.h) that constructors
// build from the descriptions of their old types, so freeing an old type never
// affects a type built from it. Commit compiles the tree into a plan (plan.h): nested
// copy loops over strided runs of blocks, flat only where that is small, so committing
// a vector of a billion blocks takes microseconds and a few hundred bytes. Sizes,
// extents and counts are 64-bit throughout.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/handles.h"

namespace ccmpi::datatype {

struct TypeDesc;
struct PlanNode;

// One contiguous run of bytes of a single element, at displacement `disp` from the
// element's origin (the buffer address for element 0).
struct Block {
  int64_t disp;
  int64_t len;
  bool operator==(const Block&) const = default;
};

// `n` blocks of `len` bytes at disp, disp + stride, ... (a compressed run of Blocks).
// `start` is the offset in the packed stream of one element where the run begins.
struct Run {
  int64_t disp;
  int64_t len;
  int64_t n;
  int64_t stride;
  int64_t start;
};

// What a basic (predefined) element is, for reductions and compression.
enum class BasicKind : uint8_t {
  kNone,  // derived / mixed
  kInt,
  kUnsigned,
  kFloat,
  kComplex,
  kBool,
  kByte,
  kPair,  // MINLOC/MAXLOC value-index pairs
};

class Datatype {
 public:
  // --- properties (valid for committed and uncommitted types) ---
  int64_t size() const { return size_; }  // bytes of data in one element
  int64_t lb() const { return lb_; }
  int64_t extent() const { return extent_; }  // ub - lb
  int64_t ub() const { return lb_ + extent_; }
  int64_t trueLb() const { return trueLb_; }
  int64_t trueExtent() const { return trueExtent_; }
  bool predefined() const { return predefined_; }
  bool committed() const { return committed_ || predefined_; }
  // The data of `count` elements occupies exactly [trueLb, trueLb + count*size) with no
  // gaps: pack/unpack are a single memcpy at offset trueLb.
  bool contiguous() const { return contiguous_; }
  // The predefined type all of whose elements this type consists of (MPI_DATATYPE_NULL if
  // mixed): e.g. a vector of MPI_DOUBLE -> MPI_DOUBLE. Used by reductions and compression.
  // Pair types (MPI_DOUBLE_INT ...) are their own basic type.
  MPI_Datatype basicType() const { return basicType_; }
  // Number of basicType() units per element of this type (a pair counts as one unit).
  // For mixed types (basicType() NULL): the number of basic elements, as elements().
  int64_t basicCount() const { return basicCount_; }
  // Number of basic elements per element as MPI_Get_elements counts them (each pair type
  // counts as its two components).
  int64_t elements() const { return elements_; }
  BasicKind basicKind() const { return basicKind_; }
  const std::string& name() const { return name_; }
  void setName(const std::string& n) { name_ = n; }
  // The contiguous blocks of one element in type-map order, merged where adjacent (after
  // commit), expanded from the plan: for tests and diagnostics of small types; empty if
  // there are more than `limit`.
  std::vector<Block> blocks(size_t limit = 1 << 20) const;
  // Bytes the committed plan occupies (compactness checks).
  int64_t planBytes() const;
  // The committed plan (pack/unpack walk it).
  const PlanNode* plan() const { return plan_.get(); }

  // --- packing; `count` elements based at `buf`; offset/len in bytes of the packed stream.
  // Copies min(len, count*size - offset) bytes; returns the number copied. The type must be
  // committed. Never allocates.
  size_t pack(const void* buf, int64_t count, size_t offset, void* out, size_t len) const;
  size_t unpack(void* buf, int64_t count, size_t offset, const void* in, size_t len) const;

  // Number of whole basic elements in `bytes` packed bytes (MPI_Get_elements), or
  // MPI_UNDEFINED if bytes does not end on a basic element boundary.
  int64_t elementsIn(int64_t bytes) const;
  // Packed bytes holding the first `n` basic elements of a stream of this type (the inverse
  // of elementsIn, for MPI_Status_set_elements).
  int64_t bytesForElements(int64_t n) const;

  // Engine internals, set by the constructors in datatype.cc.
  int64_t size_ = 0, lb_ = 0, extent_ = 0, trueLb_ = 0, trueExtent_ = 0;
  bool predefined_ = false, committed_ = false, contiguous_ = false;
  MPI_Datatype basicType_ = MPI_DATATYPE_NULL;
  int64_t basicCount_ = 0;
  int64_t elements_ = 0;
  BasicKind basicKind_ = BasicKind::kNone;
  std::string name_;
  std::shared_ptr<const PlanNode> plan_;
  int refs_ = 1;  // handle + in-flight users (a freed type lives until its last user ends)
  bool freed_ = false;
  // Returned by MPI_Type_create_f90_*: behaves as predefined (never freed by the user).
  bool fixed_ = false;
  // Envelope/contents for MPI_Type_get_envelope/contents and the type description.
  // types_ holds the handles as passed to the constructor (they may have been freed
  // since); MPI_Type_get_contents works from desc_.
  int combiner_ = MPI_COMBINER_NAMED;
  std::vector<MPI_Datatype> types_;
  // The immutable description (layout, bounds, envelope) shared with derived types.
  std::shared_ptr<const TypeDesc> desc_;
  // Cached attributes: keyval -> value.
  std::map<int, void*> attrs_;
};

// Handle lookup: nullptr for MPI_DATATYPE_NULL, a non-datatype or a freed handle.
Datatype* lookup(MPI_Datatype h);
// Keep a type alive while a request uses it (refs_), and release.
void retain(MPI_Datatype h);
void release(MPI_Datatype h);

// Installs the predefined types (called by MPI_Init; idempotent).
void initPredefined();
void finalizeTypes();
// Number of live user-created types (leak checks in tests), including freed types still
// held by a request.
size_t liveTypes();
// Name of a predefined type ("MPI_DOUBLE"), or nullptr.
const char* predefinedName(MPI_Datatype h);

// --- constructors -------------------------------------------------------------------
// Each creates a new uncommitted type in *out and returns MPI_SUCCESS, or an error class
// (MPI_ERR_TYPE, MPI_ERR_COUNT, MPI_ERR_ARG) with its cause recorded by setErrorCause.
// Counts, displacements and strides are 64-bit. `large`: made by an MPI-4 _c constructor,
// whose integer arguments the envelope reports as large counts (MPI-4.0 §5.1.13);
// otherwise they must fit an int and are reported as integers and addresses.
int createContiguous(int64_t count, MPI_Datatype old, MPI_Datatype* out, bool large = false);
int createVector(int64_t count, int64_t blocklen, int64_t stride, MPI_Datatype old,
                 MPI_Datatype* out, bool large = false);
int createHvector(int64_t count, int64_t blocklen, int64_t stride, MPI_Datatype old,
                  MPI_Datatype* out, bool large = false);
// Block i: blocklens[i] copies at disps[i] (in old-type extents for indexed, bytes for
// hindexed); the count is the arrays' length.
int createIndexed(std::vector<int64_t> blocklens, std::vector<int64_t> disps, MPI_Datatype old,
                  MPI_Datatype* out, bool large);
int createHindexed(std::vector<int64_t> blocklens, std::vector<int64_t> disps, MPI_Datatype old,
                   MPI_Datatype* out, bool large);
int createIndexedBlock(int64_t blocklen, std::vector<int64_t> disps, MPI_Datatype old,
                       MPI_Datatype* out, bool large);
int createHindexedBlock(int64_t blocklen, std::vector<int64_t> disps, MPI_Datatype old,
                        MPI_Datatype* out, bool large);
int createStruct(std::vector<int64_t> blocklens, std::vector<int64_t> disps,
                 const MPI_Datatype* types, MPI_Datatype* out, bool large);
int createResized(MPI_Datatype old, int64_t lb, int64_t extent, MPI_Datatype* out,
                  bool large = false);
int createSubarray(int ndims, const int64_t* sizes, const int64_t* subsizes, const int64_t* starts,
                   int order, MPI_Datatype old, MPI_Datatype* out, bool large);
int createDarray(int size, int rank, int ndims, const int64_t* gsizes, const int* distribs,
                 const int* dargs, const int* psizes, int order, MPI_Datatype old,
                 MPI_Datatype* out, bool large);
// The same with the int arrays of the MPI-3 functions.
int createIndexed(int64_t count, const int* blocklens, const int* disps, MPI_Datatype old,
                  MPI_Datatype* out);
int createHindexed(int64_t count, const int* blocklens, const MPI_Aint* disps, MPI_Datatype old,
                   MPI_Datatype* out);
int createIndexedBlock(int64_t count, int64_t blocklen, const int* disps, MPI_Datatype old,
                       MPI_Datatype* out);
int createHindexedBlock(int64_t count, int64_t blocklen, const MPI_Aint* disps, MPI_Datatype old,
                        MPI_Datatype* out);
int createStruct(int64_t count, const int* blocklens, const MPI_Aint* disps,
                 const MPI_Datatype* types, MPI_Datatype* out);
int createSubarray(int ndims, const int* sizes, const int* subsizes, const int* starts, int order,
                   MPI_Datatype old, MPI_Datatype* out);
int createDarray(int size, int rank, int ndims, const int* gsizes, const int* distribs,
                 const int* dargs, const int* psizes, int order, MPI_Datatype old,
                 MPI_Datatype* out);
// Copies the type and its name-less state; attributes are copied by the caller's
// copy callbacks (copyAttributes).
int dup(MPI_Datatype old, MPI_Datatype* out);
// MPI_Type_create_f90_real/complex/integer: the committed type laid out as `base` with
// combiner MPI_COMBINER_F90_* and the integer arguments `ints` ({p, r} or {r}); the same
// handle for the same arguments; it cannot be freed.
int f90Type(int combiner, std::vector<int> ints, MPI_Datatype base, MPI_Datatype* out);

// Flattens the type (idempotent; predefined types are always committed).
int commit(MPI_Datatype h);
// Frees the user's handle: the object lives on while requests hold it. Runs the delete
// callbacks of its attributes. Sets *h to MPI_DATATYPE_NULL.
int free(MPI_Datatype* h);

// MPI_Type_get_envelope / get_contents. getContents creates new handles for derived
// old types (the caller frees them); predefined ones are returned as they are.
// ncounts/counts: the large counts of types made by the _c constructors (none otherwise).
int getEnvelope(MPI_Datatype h, int64_t* nints, int64_t* naddrs, int64_t* ncounts, int64_t* ntypes,
                int* combiner);
int getContents(MPI_Datatype h, int64_t maxInts, int64_t maxAddrs, int64_t maxCounts,
                int64_t maxTypes, int* ints, MPI_Aint* addrs, int64_t* counts, MPI_Datatype* types);

// --- attributes (MPI_Type_create_keyval ...) ------------------------------------------
int createKeyval(MPI_Type_copy_attr_function* copyFn, MPI_Type_delete_attr_function* deleteFn,
                 void* extraState, int* keyval);
int freeKeyval(int* keyval);
int setAttr(MPI_Datatype h, int keyval, void* value);
int getAttr(MPI_Datatype h, int keyval, void** value, int* flag);
int deleteAttr(MPI_Datatype h, int keyval);
// Runs the copy callbacks of `from`'s attributes onto `to` (MPI_Type_dup).
int copyAttributes(MPI_Datatype from, MPI_Datatype to);
size_t liveKeyvals();

// --- external32 ("external32" data representation: big-endian, fixed sizes) -----------
// Size of `count` elements in external32, or an error class (unsupported type).
int externalSize(MPI_Datatype h, int64_t count, int64_t* size);
// Packs `count` elements into external32 at out[0..outSize) from *position; advances it.
int packExternal(MPI_Datatype h, const void* in, int64_t count, void* out, int64_t outSize,
                 int64_t* position);
int unpackExternal(MPI_Datatype h, const void* in, int64_t inSize, int64_t* position, void* out,
                   int64_t count);

// The predefined type of a Fortran-style type class (MPI_TYPECLASS_*) and size, or
// MPI_DATATYPE_NULL.
MPI_Datatype matchSize(int typeclass, int size);

}  // namespace ccmpi::datatype
