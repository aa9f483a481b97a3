#pragma once
// Which predefined operation applies to which predefined datatype, as data.
//
// The standard (MPI-4.1 §6.9.2) sorts the basic types into groups and allows each
// operation on some groups:
//
//   MPI_MAX, MPI_MIN           C integer, Fortran integer, floating point
//   MPI_SUM, MPI_PROD          C integer, Fortran integer, floating point, complex
//   MPI_LAND, MPI_LOR, MPI_LXOR  C integer, logical
//   MPI_BAND, MPI_BOR, MPI_BXOR  C integer, Fortran integer, byte
//   MPI_MINLOC, MPI_MAXLOC     value-index pair types (MPI_DOUBLE_INT, MPI_2INT, ...)
//   MPI_REPLACE, MPI_NO_OP     every type
//
// Each predefined datatype gets a TypeEntry holding its group and one kernel per
// operation (nullptr where the operation is not defined).
#include <mpi.h>

#include <cstdint>

#include "op/kernels.h"

namespace ccmpi::op {

enum class TypeGroup : uint8_t {
  kCInteger,
  kFortranInteger,
  kFloating,
  kLogical,
  kComplex,
  kByte,
  kPair,
};

const char* typeGroupName(TypeGroup g);

struct TypeEntry {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  const char* name = "";
  TypeGroup group = TypeGroup::kByte;
  // Bytes between consecutive elements in memory (the C type's size; a pair type's
  // struct size) and bytes of one element in the datatype engine's packed stream.
  int64_t naturalSize = 0;
  int64_t packedSize = 0;
  // Kernels over elements laid out in memory as an array of the C type / over packed
  // records. They differ only for pair types with padding (MPI_DOUBLE_INT).
  Kernel natural[kNumOpCodes] = {};
  Kernel packed[kNumOpCodes] = {};
};

// The entry of a predefined datatype, or nullptr if no reduction applies to it
// (MPI_PACKED, MPI_CHARACTER, MPI_UB ...) or it is not predefined.
const TypeEntry* typeEntry(MPI_Datatype basicType);

// Builds the table (idempotent). Entries whose size disagrees with the datatype engine
// (when the engine is initialized) are dropped with a warning.
void initTypeTable();

}  // namespace ccmpi::op
