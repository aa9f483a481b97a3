#pragma once
// Reduction operations: the predefined ones for every type they apply to, and
// user-defined ones (MPI_Op_create), commutative or not.
//
// Semantics everywhere: inoutvec = invec (op) inoutvec, elementwise. For a
// non-commutative op the caller passes the lower-ranked operand as invec.
#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace ccmpi::op {

struct Op {
  MPI_User_function* user = nullptr;     // nullptr for predefined ops
  MPI_User_function_c* userC = nullptr;  // MPI_Op_create_c (then user is nullptr)
  bool commutative = true;
  bool predefined = false;
  int refs = 1;
  // Predefined: the OpCode (op/kernels.h); -1 for user ops.
  int code = -1;
  bool freed = false;  // MPI_Op_free was called; lives on while refs > 0
};

Op* lookup(MPI_Op h);
// inoutvec[i] = invec[i] (op) inoutvec[i] for `count` elements of `type` (which may be a
// derived type whose elements are all one basic type; pair types for MINLOC/MAXLOC).
// Returns MPI_ERR_OP if the op is not defined for the type.
int apply(MPI_Op op, const void* invec, void* inoutvec, int64_t count, MPI_Datatype type);
// Whether the predefined op applies to the type (argument checking). User ops apply to
// every type; MPI_OP_NULL and invalid handles to none.
bool validFor(MPI_Op op, MPI_Datatype type);
// Whether the op is commutative (false for an invalid handle).
bool isCommutative(MPI_Op op);
// Name of a predefined op ("MPI_SUM"), "user-defined op", or "invalid op" (messages).
const char* name(MPI_Op op);
void initPredefined();

// User ops (MPI_Op_create / MPI_Op_free). create returns the handle.
MPI_Op create(MPI_User_function* fn, bool commutative);
MPI_Op create(MPI_User_function_c* fn, bool commutative);  // MPI_Op_create_c
// Releases the handle; the op lives on until running collectives release it.
int free(MPI_Op* h);
// Keep an op alive while an operation uses it (nonblocking collectives), and release.
void retain(MPI_Op h);
void release(MPI_Op h);
// Live user ops (leak checks in tests).
size_t liveUserOps();

}  // namespace ccmpi::op
