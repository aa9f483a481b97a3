#pragma once
// Shared state of the datatype engine's source files (not part of its interface).
#include <mpi.h>

#include <memory>

#include "base/handles.h"
#include "datatype/datatype.h"
#include "datatype/type_desc.h"

namespace ccmpi::datatype {

// A predefined type: its handle, name and description.
struct PredefinedType {
  MPI_Datatype handle;
  const char* name;
  DescPtr desc;
};

// Builds the descriptions of every predefined type (predefined.cc).
std::vector<PredefinedType> buildPredefinedTypes();

// The object behind a handle, including a freed one still held by a request.
Datatype* findAny(MPI_Datatype h);

// A new (uncommitted) user type from a description; fields filled from the desc.
std::unique_ptr<Datatype> newFromDesc(DescPtr d);
// Registers a user type and returns its handle.
MPI_Datatype registerType(std::unique_ptr<Datatype> t);
// Builds t's plan (plan_, contiguous_) and marks it committed.
void commitObject(Datatype& t);

}  // namespace ccmpi::datatype
