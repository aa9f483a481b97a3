#pragma once
// Immutable description of a datatype: its layout (a tree over the descriptions of the
// old types), its bounds and sizes, and its envelope (what MPI_Type_get_contents
// returns). Derived types share the descriptions of their old types through shared_ptr,
// so a type stays fully usable after the user frees the types it was built from.
//
// Bounds follow the standard's type-map definitions (MPI-3.1 §4.1.6, §4.1.7):
//   lb = min over the data entries' displacements, unless an explicit lower-bound marker
//        (MPI_LB, or create_resized) is present: then the min over those markers;
//   ub = max over (disp + size) of the data entries, plus epsilon for structs, unless
//        an explicit upper-bound marker is present: then the max over those markers.
// Markers are "sticky": a type built from a type with a marker inherits the marker. A
// block of n copies of an old type at displacement d spans
// [d + lb + min(0,(n-1)·extent), d + ub + max(0,(n-1)·extent)] (MPICH's and Open MPI's
// convention, so a child's epsilon padding carries over). Epsilon (structs without
// markers): the least increment making the extent a multiple of the largest alignment
// of the components, as a C compiler pads a struct.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "datatype/datatype.h"

namespace ccmpi::datatype {

struct TypeDesc;
using DescPtr = std::shared_ptr<const TypeDesc>;

enum class Layout : uint8_t {
  kLeaf,      // a basic element of `size` bytes (or an MPI_LB/MPI_UB marker of size 0)
  kHvector,   // count blocks of blocklen copies of kids[0], block i at i*stride bytes
  kHindexed,  // blocks of blens[i] copies of kids[0] at disps[i] bytes
  kStruct,    // blocks of blens[i] copies of kids[i] at disps[i] bytes
  kResized,   // kids[0]'s data with new bounds
  kAlias,     // kids[0] as is (dup, subarray, darray: the layout is the kid's)
};

enum class Marker : uint8_t { kNone, kLb, kUb };

struct TypeDesc {
  // Layout.
  Layout layout = Layout::kLeaf;
  Marker marker = Marker::kNone;
  int64_t count = 0, blocklen = 0, stride = 0;  // kHvector
  std::vector<int64_t> blens, disps;            // kHindexed, kStruct
  std::vector<DescPtr> kids;

  // Properties.
  int64_t size = 0;
  int64_t lb = 0, ub = 0;          // ub - lb is the extent
  int64_t trueLb = 0, trueUb = 0;  // of the data (0, 0 when there is none)
  bool stickyLb = false, stickyUb = false;
  bool hasData = false;  // at least one byte of data
  int64_t align = 1;     // largest alignment of the basic components
  MPI_Datatype basicType = MPI_DATATYPE_NULL;
  int64_t basicCount = 0;
  int64_t elements = 0;  // basic elements as MPI_Get_elements counts them
  BasicKind basicKind = BasicKind::kNone;
  // external32 (leaves): byte-swap unit (1 copies bytes; a complex swaps each half), and
  // whether memory holds an x87 80-bit long double (external32 is IEEE binary128).
  int extUnit = 1;
  bool extX87 = false;
  // Bytes of one element in external32 (for leaves: 4 for C long and unsigned long, which
  // are 8 bytes in memory; the native size otherwise).
  int64_t extSize = 0;

  // Envelope.
  MPI_Datatype named = MPI_DATATYPE_NULL;  // the handle of a predefined type
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<int64_t> counts;  // large counts (types made by the MPI-4 _c constructors)
  std::vector<DescPtr> envTypes;

  int64_t extent() const { return ub - lb; }
  // Number of basic elements in the first `bytes` bytes of one element's packed stream
  // (0 <= bytes <= size), or -1 if that prefix ends inside a basic element.
  int64_t prefixElements(int64_t bytes) const;
  // Bytes of the first `n` basic elements of one element (0 <= n <= elements).
  int64_t prefixBytes(int64_t n) const;
};

// Layout builders (no envelope: the caller fills combiner/ints/aints/envTypes).
// Blocklengths and counts must be non-negative (checked by the callers).
std::shared_ptr<TypeDesc> makeHvector(int64_t count, int64_t blocklen, int64_t stride, DescPtr kid);
std::shared_ptr<TypeDesc> makeHindexed(std::vector<int64_t> blens, std::vector<int64_t> disps,
                                       DescPtr kid);
std::shared_ptr<TypeDesc> makeStruct(std::vector<int64_t> blens, std::vector<int64_t> disps,
                                     std::vector<DescPtr> kids);
std::shared_ptr<TypeDesc> makeResized(int64_t lb, int64_t extent, DescPtr kid);
std::shared_ptr<TypeDesc> makeAlias(DescPtr kid);
std::shared_ptr<TypeDesc> makeLeaf(MPI_Datatype named, int64_t size, int64_t align, BasicKind kind,
                                   Marker marker = Marker::kNone);

}  // namespace ccmpi::datatype
