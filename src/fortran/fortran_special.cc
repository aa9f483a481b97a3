// The Fortran glue written by hand: the sentinel COMMON blocks, and the functions whose
// Fortran form differs from the C one (tools/gen_fortran.py lists them in SPECIAL):
//   MPI_INIT(IERROR), MPI_INIT_THREAD(REQUIRED, PROVIDED, IERROR), MPI_PCONTROL(LEVEL),
//   MPI_F_SYNC_REG(BUF), MPI_INFO_CREATE_ENV, MPI_INFO_GET_STRING (Fortran lengths), generalized
//   requests with Fortran callbacks, MPI_STATUS_F082F and MPI_STATUS_F2F08;
//   attribute caching: Fortran attribute values are INTEGER(KIND=MPI_ADDRESS_KIND) (INTEGER for
//   the MPI-1 MPI_ATTR_PUT/GET) stored as the C attribute pointer itself; the predefined
//   attributes, which C returns as pointers to their values, are dereferenced;
//   keyvals with Fortran callbacks: the C library calls a trampoline that calls the Fortran
//   procedure with everything by reference (the predefined MPI_*_NULL_COPY_FN, _DUP_FN and
//   _NULL_DELETE_FN procedures below are mapped to the C ones).
#include <mpi.h>

#include <memory>
#include <new>
#include <string>
#include <vector>

#include "fortran/fortran_glue.h"

// gfortran lays COMMON blocks out on 16 bytes (the linker warns when the definition
// promises less).
extern "C" {
alignas(16) MPI_Fint mpi_fortran_bottom_ = 0;
alignas(16) MPI_Fint mpi_fortran_in_place_ = 0;
alignas(16) MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE] = {};
alignas(16) MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE] = {};
alignas(16) MPI_Fint mpi_fortran_errcodes_ignore_[1] = {};
alignas(16) MPI_Fint mpi_fortran_unweighted_[1] = {};
alignas(16) MPI_Fint mpi_fortran_weights_empty_[1] = {};
}

namespace {

// Fortran attribute callbacks (MPI_COMM_COPY_ATTR_FUNCTION and friends), by reference; V is
// MPI_Aint (MPI-2 keyvals) or MPI_Fint (MPI_KEYVAL_CREATE).
template <typename V>
using FortranCopy = void (*)(MPI_Fint* oldobj, MPI_Fint* keyval, V* extra_state, V* value_in,
                             V* value_out, MPI_Fint* flag, MPI_Fint* ierr);
template <typename V>
using FortranDelete = void (*)(MPI_Fint* obj, MPI_Fint* keyval, V* value, V* extra_state,
                               MPI_Fint* ierr);

// What a keyval made from Fortran remembers: the C library's extra_state points to it. It
// lives as long as the program (a keyval may be freed while objects still hold attributes
// whose callbacks need it).
template <typename V>
struct FortranKeyval {
  FortranCopy<V> copy;
  FortranDelete<V> del;
  V extra_state;
};

template <typename V>
int copyTrampoline(MPI_Fint oldobj, int keyval, void* extra_state, void* value_in, void* value_out,
                   int* flag) {
  auto* k = static_cast<FortranKeyval<V>*>(extra_state);
  MPI_Fint obj = oldobj, key = keyval, f = 0, ierr = MPI_SUCCESS;
  V in = static_cast<V>(reinterpret_cast<MPI_Aint>(value_in)), out = 0;
  k->copy(&obj, &key, &k->extra_state, &in, &out, &f, &ierr);
  if (ierr != MPI_SUCCESS) return ierr;
  *flag = f != 0;
  if (*flag) *static_cast<void**>(value_out) = reinterpret_cast<void*>(static_cast<MPI_Aint>(out));
  return MPI_SUCCESS;
}

template <typename V>
int deleteTrampoline(MPI_Fint obj, int keyval, void* value, void* extra_state) {
  auto* k = static_cast<FortranKeyval<V>*>(extra_state);
  MPI_Fint o = obj, key = keyval, ierr = MPI_SUCCESS;
  V v = static_cast<V>(reinterpret_cast<MPI_Aint>(value));
  k->del(&o, &key, &v, &k->extra_state, &ierr);
  return ierr;
}

}  // namespace

extern "C" {

// The predefined Fortran callbacks.
void mpi_comm_null_copy_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint*, MPI_Aint*, MPI_Fint* flag,
                            MPI_Fint* ierr) {
  *flag = 0;
  *ierr = MPI_SUCCESS;
}
void mpi_comm_dup_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint* in, MPI_Aint* out, MPI_Fint* flag,
                      MPI_Fint* ierr) {
  *out = *in;
  *flag = 1;
  *ierr = MPI_SUCCESS;
}
void mpi_comm_null_delete_fn_(MPI_Fint*, MPI_Fint*, MPI_Aint*, MPI_Aint*, MPI_Fint* ierr) {
  *ierr = MPI_SUCCESS;
}
void mpi_type_null_copy_fn_(MPI_Fint* a, MPI_Fint* b, MPI_Aint* c, MPI_Aint* d, MPI_Aint* e,
                            MPI_Fint* flag, MPI_Fint* ierr) {
  mpi_comm_null_copy_fn_(a, b, c, d, e, flag, ierr);
}
void mpi_type_dup_fn_(MPI_Fint* a, MPI_Fint* b, MPI_Aint* c, MPI_Aint* d, MPI_Aint* e,
                      MPI_Fint* flag, MPI_Fint* ierr) {
  mpi_comm_dup_fn_(a, b, c, d, e, flag, ierr);
}
void mpi_type_null_delete_fn_(MPI_Fint* a, MPI_Fint* b, MPI_Aint* c, MPI_Aint* d, MPI_Fint* ierr) {
  mpi_comm_null_delete_fn_(a, b, c, d, ierr);
}
void mpi_win_null_copy_fn_(MPI_Fint* a, MPI_Fint* b, MPI_Aint* c, MPI_Aint* d, MPI_Aint* e,
                           MPI_Fint* flag, MPI_Fint* ierr) {
  mpi_comm_null_copy_fn_(a, b, c, d, e, flag, ierr);
}
void mpi_win_dup_fn_(MPI_Fint* a, MPI_Fint* b, MPI_Aint* c, MPI_Aint* d, MPI_Aint* e,
                     MPI_Fint* flag, MPI_Fint* ierr) {
  mpi_comm_dup_fn_(a, b, c, d, e, flag, ierr);
}
void mpi_win_null_delete_fn_(MPI_Fint* a, MPI_Fint* b, MPI_Aint* c, MPI_Aint* d, MPI_Fint* ierr) {
  mpi_comm_null_delete_fn_(a, b, c, d, ierr);
}
void mpi_null_copy_fn_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint* flag,
                       MPI_Fint* ierr) {
  *flag = 0;
  *ierr = MPI_SUCCESS;
}
void mpi_dup_fn_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint* in, MPI_Fint* out, MPI_Fint* flag,
                 MPI_Fint* ierr) {
  *out = *in;
  *flag = 1;
  *ierr = MPI_SUCCESS;
}
void mpi_null_delete_fn_(MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint*, MPI_Fint* ierr) {
  *ierr = MPI_SUCCESS;
}

void mpi_init_(MPI_Fint* ierr) {
  *ierr = MPI_Init(nullptr, nullptr);
}
void pmpi_init_(MPI_Fint* ierr) {
  *ierr = PMPI_Init(nullptr, nullptr);
}
void mpi_init_thread_(const MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  *ierr = MPI_Init_thread(nullptr, nullptr, *required, provided);
}
void pmpi_init_thread_(const MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  *ierr = PMPI_Init_thread(nullptr, nullptr, *required, provided);
}
void mpi_pcontrol_(const MPI_Fint* level) {
  MPI_Pcontrol(*level);
}
void pmpi_pcontrol_(const MPI_Fint* level) {
  PMPI_Pcontrol(*level);
}

// Generalized requests with Fortran callbacks (everything by reference, extra_state
// INTEGER(KIND=MPI_ADDRESS_KIND), the status an INTEGER(MPI_STATUS_SIZE) array). The
// callbacks get the caller's extra_state variable itself, as in MPICH: a free_fn that changes
// it is seen by the program (MPICH's test f77/pt2pt/greqf relies on it).
struct FortranGrequest {
  void (*query)(MPI_Aint* extra_state, MPI_Fint* status, MPI_Fint* ierr);
  void (*free)(MPI_Aint* extra_state, MPI_Fint* ierr);
  void (*cancel)(MPI_Aint* extra_state, MPI_Fint* complete, MPI_Fint* ierr);
  MPI_Aint* extra_state;
};

static int grequestQuery(void* extra_state, MPI_Status* status) {
  auto* g = static_cast<FortranGrequest*>(extra_state);
  MPI_Fint f[MPI_F_STATUS_SIZE];
  MPI_Fint ierr = MPI_SUCCESS;
  MPI_Status_c2f(status, f);
  g->query(g->extra_state, f, &ierr);
  MPI_Status_f2c(f, status);
  return ierr;
}

static int grequestFree(void* extra_state) {
  auto* g = static_cast<FortranGrequest*>(extra_state);
  MPI_Fint ierr = MPI_SUCCESS;
  g->free(g->extra_state, &ierr);
  delete g;
  return ierr;
}

static int grequestCancel(void* extra_state, int complete) {
  auto* g = static_cast<FortranGrequest*>(extra_state);
  MPI_Fint ierr = MPI_SUCCESS, c = complete != 0;
  g->cancel(g->extra_state, &c, &ierr);
  return ierr;
}

void mpi_grequest_start_(decltype(FortranGrequest::query) query,
                         decltype(FortranGrequest::free) free_fn,
                         decltype(FortranGrequest::cancel) cancel, MPI_Aint* extra_state,
                         MPI_Fint* request, MPI_Fint* ierr) {
  auto* g = new (std::nothrow) FortranGrequest{query, free_fn, cancel, extra_state};
  if (!g) {
    *ierr = MPI_ERR_NO_MEM;
    return;
  }
  *ierr = MPI_Grequest_start(grequestQuery, grequestFree, grequestCancel, g, request);
  if (*ierr != MPI_SUCCESS) delete g;
}

// MPI_STATUS_F082F / MPI_STATUS_F2F08: TYPE(MPI_Status) and INTEGER(MPI_STATUS_SIZE).
void mpi_status_f082f_(const MPI_F08_status* f08_status, MPI_Fint* f_status, MPI_Fint* ierr) {
  *ierr = MPI_Status_f082f(f08_status, f_status);
}
void mpi_status_f2f08_(const MPI_Fint* f_status, MPI_F08_status* f08_status, MPI_Fint* ierr) {
  *ierr = MPI_Status_f2f08(f_status, f08_status);
}
// MPI_F_SYNC_REG(BUF): only makes the compiler assume BUF may change (MPI-3.1 17.1.17).
void mpi_f_sync_reg_(void*) {}

// MPI_INFO_CREATE_ENV(INFO, IERROR): Fortran has no argc/argv to give.
void mpi_info_create_env_(MPI_Fint* info, MPI_Fint* ierr) {
  *ierr = MPI_Info_create_env(0, nullptr, info);
}

// MPI_INFO_GET_STRING(INFO, KEY, BUFLEN, VALUE, FLAG, IERROR): in Fortran BUFLEN counts no
// terminating NUL: on entry the characters wanted, on return the length of the value.
void mpi_info_get_string_(const MPI_Fint* info, const char* key, MPI_Fint* buflen, char* value,
                          MPI_Fint* flag, MPI_Fint* ierr, size_t key_len, size_t value_len) {
  const std::string k = ccmpi::fortran::fromFortranInfo(key, key_len);
  const MPI_Fint wanted = *buflen;
  int cbuflen = wanted > 0 ? wanted + 1 : 0;
  std::vector<char> buf(ccmpi::fortran::outLength(static_cast<size_t>(cbuflen)), '\0');
  int f = 0;
  *ierr = MPI_Info_get_string(*info, k.c_str(), &cbuflen, buf.data(), &f);
  if (*ierr != MPI_SUCCESS) return;
  *flag = f != 0;
  if (!f) return;
  *buflen = cbuflen - 1;
  if (wanted > 0) ccmpi::fortran::toFortran(buf.data(), value, value_len);
}

}  // extern "C"

namespace {

// Makes a C keyval for Fortran callbacks: the predefined Fortran procedures become the C
// ones, anything else goes through the trampolines.
template <typename V, typename CCopy, typename CDelete, typename Create>
int createKeyval(FortranCopy<V> copy, FortranDelete<V> del, MPI_Fint* keyval, V extra_state,
                 FortranCopy<V> null_copy, FortranCopy<V> dup, FortranDelete<V> null_delete,
                 CCopy* c_null_copy, CCopy* c_dup, CDelete* c_null_delete, Create create) {
  // The C keyval keeps only a pointer to the record (its extra_state), and attributes set
  // with it may outlive MPI_*_free_keyval, so the records live as long as the process (a
  // registry keeps them reachable, and is never destroyed: a delete callback may still run
  // during exit, after static destructors).
  static auto* records = new std::vector<std::unique_ptr<FortranKeyval<V>>>;
  auto* k = new (std::nothrow) FortranKeyval<V>{copy, del, extra_state};
  if (!k) return MPI_ERR_NO_MEM;
  records->emplace_back(k);
  CCopy* c_copy = copy == null_copy ? c_null_copy
                  : copy == dup     ? c_dup
                                    : reinterpret_cast<CCopy*>(&copyTrampoline<V>);
  CDelete* c_del =
      del == null_delete ? c_null_delete : reinterpret_cast<CDelete*>(&deleteTrampoline<V>);
  // Handles are int, so the trampolines' first parameter (MPI_Fint) is the C handle type.
  return create(c_copy, c_del, keyval, static_cast<void*>(k));
}

// The value of a predefined attribute, which C returns as a pointer to it.
MPI_Aint commPredefined(int keyval, void* v) {
  return keyval > 0 && keyval <= MPI_APPNUM ? *static_cast<int*>(v) : reinterpret_cast<MPI_Aint>(v);
}
MPI_Aint winPredefined(int keyval, void* v) {
  switch (keyval) {
    case MPI_WIN_SIZE:
      return *static_cast<MPI_Aint*>(v);
    case MPI_WIN_DISP_UNIT:
    case MPI_WIN_CREATE_FLAVOR:
    case MPI_WIN_MODEL:
      return *static_cast<int*>(v);
    default:
      return reinterpret_cast<MPI_Aint>(v);
  }
}
MPI_Aint typePredefined(int, void* v) {
  return reinterpret_cast<MPI_Aint>(v);
}

}  // namespace

extern "C" {

void mpi_comm_create_keyval_(FortranCopy<MPI_Aint> copy, FortranDelete<MPI_Aint> del,
                             MPI_Fint* keyval, const MPI_Aint* extra_state, MPI_Fint* ierr) {
  *ierr =
      createKeyval<MPI_Aint>(copy, del, keyval, *extra_state, &mpi_comm_null_copy_fn_,
                             &mpi_comm_dup_fn_, &mpi_comm_null_delete_fn_, MPI_COMM_NULL_COPY_FN,
                             MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, MPI_Comm_create_keyval);
}
void mpi_type_create_keyval_(FortranCopy<MPI_Aint> copy, FortranDelete<MPI_Aint> del,
                             MPI_Fint* keyval, const MPI_Aint* extra_state, MPI_Fint* ierr) {
  *ierr =
      createKeyval<MPI_Aint>(copy, del, keyval, *extra_state, &mpi_type_null_copy_fn_,
                             &mpi_type_dup_fn_, &mpi_type_null_delete_fn_, MPI_TYPE_NULL_COPY_FN,
                             MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, MPI_Type_create_keyval);
}
void mpi_win_create_keyval_(FortranCopy<MPI_Aint> copy, FortranDelete<MPI_Aint> del,
                            MPI_Fint* keyval, const MPI_Aint* extra_state, MPI_Fint* ierr) {
  *ierr = createKeyval<MPI_Aint>(copy, del, keyval, *extra_state, &mpi_win_null_copy_fn_,
                                 &mpi_win_dup_fn_, &mpi_win_null_delete_fn_, MPI_WIN_NULL_COPY_FN,
                                 MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, MPI_Win_create_keyval);
}
void mpi_keyval_create_(FortranCopy<MPI_Fint> copy, FortranDelete<MPI_Fint> del, MPI_Fint* keyval,
                        const MPI_Fint* extra_state, MPI_Fint* ierr) {
  *ierr = createKeyval<MPI_Fint>(copy, del, keyval, *extra_state, &mpi_null_copy_fn_, &mpi_dup_fn_,
                                 &mpi_null_delete_fn_, MPI_NULL_COPY_FN, MPI_DUP_FN,
                                 MPI_NULL_DELETE_FN, MPI_Keyval_create);
}

void mpi_comm_set_attr_(const MPI_Fint* comm, const MPI_Fint* keyval, const MPI_Aint* value,
                        MPI_Fint* ierr) {
  *ierr = MPI_Comm_set_attr(*comm, *keyval, reinterpret_cast<void*>(*value));
}
void mpi_type_set_attr_(const MPI_Fint* type, const MPI_Fint* keyval, const MPI_Aint* value,
                        MPI_Fint* ierr) {
  *ierr = MPI_Type_set_attr(*type, *keyval, reinterpret_cast<void*>(*value));
}
void mpi_win_set_attr_(const MPI_Fint* win, const MPI_Fint* keyval, const MPI_Aint* value,
                       MPI_Fint* ierr) {
  *ierr = MPI_Win_set_attr(*win, *keyval, reinterpret_cast<void*>(*value));
}
void mpi_attr_put_(const MPI_Fint* comm, const MPI_Fint* keyval, const MPI_Fint* value,
                   MPI_Fint* ierr) {
  *ierr = MPI_Attr_put(*comm, *keyval, reinterpret_cast<void*>(static_cast<MPI_Aint>(*value)));
}

void mpi_comm_get_attr_(const MPI_Fint* comm, const MPI_Fint* keyval, MPI_Aint* value,
                        MPI_Fint* flag, MPI_Fint* ierr) {
  void* v = nullptr;
  int f = 0;
  *ierr = MPI_Comm_get_attr(*comm, *keyval, &v, &f);
  if (*ierr != MPI_SUCCESS) return;
  *flag = f != 0;
  if (f) *value = commPredefined(*keyval, v);
}
void mpi_type_get_attr_(const MPI_Fint* type, const MPI_Fint* keyval, MPI_Aint* value,
                        MPI_Fint* flag, MPI_Fint* ierr) {
  void* v = nullptr;
  int f = 0;
  *ierr = MPI_Type_get_attr(*type, *keyval, &v, &f);
  if (*ierr != MPI_SUCCESS) return;
  *flag = f != 0;
  if (f) *value = typePredefined(*keyval, v);
}
void mpi_win_get_attr_(const MPI_Fint* win, const MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag,
                       MPI_Fint* ierr) {
  void* v = nullptr;
  int f = 0;
  *ierr = MPI_Win_get_attr(*win, *keyval, &v, &f);
  if (*ierr != MPI_SUCCESS) return;
  *flag = f != 0;
  if (f) *value = winPredefined(*keyval, v);
}
void mpi_attr_get_(const MPI_Fint* comm, const MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* flag,
                   MPI_Fint* ierr) {
  void* v = nullptr;
  int f = 0;
  *ierr = MPI_Attr_get(*comm, *keyval, &v, &f);
  if (*ierr != MPI_SUCCESS) return;
  *flag = f != 0;
  if (f) *value = static_cast<MPI_Fint>(commPredefined(*keyval, v));
}

}  // extern "C"
