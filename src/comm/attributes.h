#pragma once
// Attribute caching on communicators: keyvals with copy/delete callbacks
// (MPI_Comm_create_keyval and the deprecated MPI_Keyval_create share them), the
// predefined attributes of MPI_COMM_WORLD (MPI_TAG_UB, MPI_HOST, MPI_IO,
// MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE, MPI_APPNUM, MPI_LASTUSEDCODE, read-only, valid on
// every communicator), and the callbacks run by dup, free, set-over and delete.
// Functions return an MPI error class (cause recorded) or a callback's own error code.
#include <mpi.h>

#include "comm/comm.h"

namespace ccmpi::comm {

struct Keyval {
  MPI_Comm_copy_attr_function* copyFn = nullptr;
  MPI_Comm_delete_attr_function* deleteFn = nullptr;
  void* extraState = nullptr;
  int refs = 1;  // the user's keyval + every attribute set with it
  bool freed = false;
};

int createKeyval(MPI_Comm_copy_attr_function* copyFn, MPI_Comm_delete_attr_function* deleteFn,
                 void* extraState, int* keyval);
// MPI_ERR_KEYVAL for an unknown, freed or predefined keyval; sets *keyval to
// MPI_KEYVAL_INVALID.
int freeKeyval(int* keyval);
bool isPredefinedKeyval(int keyval);

int setAttribute(Comm& c, MPI_Comm h, int keyval, void* value);
int getAttribute(const Comm& c, int keyval, void** value, int* flag);
int deleteAttribute(Comm& c, MPI_Comm h, int keyval);
// Runs the copy callbacks of `from`'s attributes into `to` (MPI_Comm_dup).
int copyAttributes(const Comm& from, MPI_Comm fromHandle, Comm& to);
// Runs the delete callbacks of every attribute of c, newest first (MPI_Comm_free).
int deleteAllAttributes(Comm& c, MPI_Comm h);

void initPredefinedAttributes(int worldSize);
void finalizeAttributes();
// Number of live user keyvals (leak checks).
size_t liveKeyvals();

}  // namespace ccmpi::comm
