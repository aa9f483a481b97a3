/* mpi.h as a C header: built as C11 and as C99 with -Wall -Wextra -Werror -pedantic and
 * more warnings (see CMakeLists.txt), without linking the library.
 *
 * Checks the constants the standard fixes or that must be distinct, that the callback
 * types accept functions of the standard's signatures, and (C11) the exact types of
 * some functions, including const-correct input buffers. Run, it also checks the
 * address constants, which are not constant expressions. */
#include <mpi.h>
#include <mpix_ccmpi.h>
#include <stdio.h>
#include <string.h>

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define HAVE_C11 1
#define STATIC_CHECK(cond, msg) _Static_assert(cond, msg)
#else
#define HAVE_C11 0
#define STATIC_CHECK_CAT2(a, b) a##b
#define STATIC_CHECK_CAT(a, b) STATIC_CHECK_CAT2(a, b)
#define STATIC_CHECK(cond, msg) \
  typedef char STATIC_CHECK_CAT(static_check_line_, __LINE__)[(cond) ? 1 : -1]
#endif

/* Versions */
STATIC_CHECK(MPI_VERSION == 4 && MPI_SUBVERSION == 0, "MPI 4.0");
STATIC_CHECK(CCMPI == 1 && CCMPI_MPIX == 1, "ccmpi markers");

/* Error classes: the values other modules rely on, in one table */
static const int kErrorClasses[] = {MPI_SUCCESS,
                                    MPI_ERR_BUFFER,
                                    MPI_ERR_COUNT,
                                    MPI_ERR_TYPE,
                                    MPI_ERR_TAG,
                                    MPI_ERR_COMM,
                                    MPI_ERR_RANK,
                                    MPI_ERR_REQUEST,
                                    MPI_ERR_ROOT,
                                    MPI_ERR_GROUP,
                                    MPI_ERR_OP,
                                    MPI_ERR_TOPOLOGY,
                                    MPI_ERR_DIMS,
                                    MPI_ERR_ARG,
                                    MPI_ERR_UNKNOWN,
                                    MPI_ERR_TRUNCATE,
                                    MPI_ERR_OTHER,
                                    MPI_ERR_INTERN,
                                    MPI_ERR_PENDING,
                                    MPI_ERR_IN_STATUS,
                                    MPI_ERR_ACCESS,
                                    MPI_ERR_AMODE,
                                    MPI_ERR_ASSERT,
                                    MPI_ERR_BAD_FILE,
                                    MPI_ERR_BASE,
                                    MPI_ERR_CONVERSION,
                                    MPI_ERR_DISP,
                                    MPI_ERR_DUP_DATAREP,
                                    MPI_ERR_FILE_EXISTS,
                                    MPI_ERR_FILE_IN_USE,
                                    MPI_ERR_FILE,
                                    MPI_ERR_INFO_KEY,
                                    MPI_ERR_INFO_NOKEY,
                                    MPI_ERR_INFO_VALUE,
                                    MPI_ERR_INFO,
                                    MPI_ERR_IO,
                                    MPI_ERR_KEYVAL,
                                    MPI_ERR_LOCKTYPE,
                                    MPI_ERR_NAME,
                                    MPI_ERR_NO_MEM,
                                    MPI_ERR_NOT_SAME,
                                    MPI_ERR_NO_SPACE,
                                    MPI_ERR_NO_SUCH_FILE,
                                    MPI_ERR_PORT,
                                    MPI_ERR_QUOTA,
                                    MPI_ERR_READ_ONLY,
                                    MPI_ERR_RMA_CONFLICT,
                                    MPI_ERR_RMA_SYNC,
                                    MPI_ERR_SERVICE,
                                    MPI_ERR_SIZE,
                                    MPI_ERR_SPAWN,
                                    MPI_ERR_UNSUPPORTED_DATAREP,
                                    MPI_ERR_UNSUPPORTED_OPERATION,
                                    MPI_ERR_WIN,
                                    MPI_ERR_RMA_RANGE,
                                    MPI_ERR_RMA_ATTACH,
                                    MPI_ERR_RMA_SHARED,
                                    MPI_ERR_RMA_FLAVOR,
                                    MPI_ERR_PROC_ABORTED,
                                    MPI_ERR_VALUE_TOO_LARGE,
                                    MPI_ERR_SESSION,
                                    MPI_ERR_ERRHANDLER};
STATIC_CHECK(sizeof(kErrorClasses) / sizeof(kErrorClasses[0]) == 62, "62 classes");
STATIC_CHECK(MPI_ERR_ERRHANDLER == CCMPI_ERR_CLASS_PREDEFINED_MAX, "last predefined class");
STATIC_CHECK(CCMPI_ERR_CLASS_PREDEFINED_MAX <= CCMPI_ERR_CLASS_MASK, "classes fit the mask");
STATIC_CHECK(CCMPI_ERR_CLASS_MASK == (1 << CCMPI_ERR_CODE_SHIFT) - 1, "class mask");
STATIC_CHECK(MPI_ERR_LASTCODE > CCMPI_ERR_CLASS_PREDEFINED_MAX,
             "every predefined class is below MPI_ERR_LASTCODE");
STATIC_CHECK(MPI_ERR_LASTCODE < CCMPI_ERR_CLASS_MASK,
             "classes added by MPI_Add_error_class (above MPI_ERR_LASTCODE) fit the mask");

/* Ranks, tags and other small constants fixed by the ccmpi ABI */
STATIC_CHECK(MPI_PROC_NULL == -1 && MPI_ANY_SOURCE == -2 && MPI_ROOT == -3, "ranks");
STATIC_CHECK(MPI_ANY_TAG == -1 && MPI_UNDEFINED == -32766 && MPI_KEYVAL_INVALID == 0, "tags");
STATIC_CHECK(MPI_TAG_UB == 1 && MPI_HOST == 2 && MPI_IO == 3 && MPI_WTIME_IS_GLOBAL == 4 &&
                 MPI_UNIVERSE_SIZE == 5 && MPI_LASTUSEDCODE == 6 && MPI_APPNUM == 7,
             "communicator attribute keys");
STATIC_CHECK(MPI_WIN_BASE > MPI_APPNUM && MPI_WIN_SIZE > MPI_WIN_BASE &&
                 MPI_WIN_DISP_UNIT > MPI_WIN_SIZE && MPI_WIN_CREATE_FLAVOR > MPI_WIN_DISP_UNIT &&
                 MPI_WIN_MODEL == CCMPI_KEYVAL_PREDEFINED_MAX,
             "window attribute keys follow");
STATIC_CHECK(MPI_THREAD_SINGLE == 0 && MPI_THREAD_FUNNELED == 1 && MPI_THREAD_SERIALIZED == 2 &&
                 MPI_THREAD_MULTIPLE == 3,
             "thread levels are ordered");
STATIC_CHECK(MPI_IDENT == 0 && MPI_CONGRUENT == 1 && MPI_SIMILAR == 2 && MPI_UNEQUAL == 3,
             "comparison results");
STATIC_CHECK(MPI_GRAPH == 1 && MPI_CART == 2 && MPI_DIST_GRAPH == 3, "topology types");
STATIC_CHECK(MPI_GRAPH != MPI_UNDEFINED, "MPI_Topo_test distinguishes no topology");
STATIC_CHECK(MPI_COMM_TYPE_SHARED == 1 && MPI_COMM_TYPE_HW_GUIDED != MPI_COMM_TYPE_SHARED &&
                 MPI_COMM_TYPE_HW_UNGUIDED != MPI_COMM_TYPE_HW_GUIDED,
             "split types");
STATIC_CHECK(MPI_MAX_PROCESSOR_NAME == 256 && MPI_MAX_ERROR_STRING == 512 &&
                 MPI_MAX_OBJECT_NAME == 128 && MPI_MAX_INFO_KEY == 255 &&
                 MPI_MAX_INFO_VAL == 1024 && MPI_MAX_LIBRARY_VERSION_STRING == 8192 &&
                 MPI_MAX_PORT_NAME == 256 && MPI_MAX_DATAREP_STRING == 128,
             "string sizes");
STATIC_CHECK(MPI_BSEND_OVERHEAD == 96, "MPI_BSEND_OVERHEAD");

/* Datatype constructors: all distinct, NAMED first */
STATIC_CHECK(MPI_COMBINER_NAMED == 1 && MPI_COMBINER_DUP == 2 && MPI_COMBINER_CONTIGUOUS == 3 &&
                 MPI_COMBINER_VECTOR == 4 && MPI_COMBINER_HVECTOR_INTEGER == 5 &&
                 MPI_COMBINER_HVECTOR == 6 && MPI_COMBINER_INDEXED == 7 &&
                 MPI_COMBINER_HINDEXED_INTEGER == 8 && MPI_COMBINER_HINDEXED == 9 &&
                 MPI_COMBINER_INDEXED_BLOCK == 10 && MPI_COMBINER_HINDEXED_BLOCK == 11 &&
                 MPI_COMBINER_STRUCT_INTEGER == 12 && MPI_COMBINER_STRUCT == 13 &&
                 MPI_COMBINER_SUBARRAY == 14 && MPI_COMBINER_DARRAY == 15 &&
                 MPI_COMBINER_F90_REAL == 16 && MPI_COMBINER_F90_COMPLEX == 17 &&
                 MPI_COMBINER_F90_INTEGER == 18 && MPI_COMBINER_RESIZED == 19,
             "combiners");
STATIC_CHECK(MPI_ORDER_C != MPI_ORDER_FORTRAN, "orders");
STATIC_CHECK(MPI_DISTRIBUTE_BLOCK != MPI_DISTRIBUTE_CYCLIC &&
                 MPI_DISTRIBUTE_CYCLIC != MPI_DISTRIBUTE_NONE &&
                 MPI_DISTRIBUTE_BLOCK != MPI_DISTRIBUTE_NONE && MPI_DISTRIBUTE_DFLT_DARG < 0,
             "distributions; the default darg is no valid darg");
STATIC_CHECK(MPI_TYPECLASS_REAL != MPI_TYPECLASS_INTEGER &&
                 MPI_TYPECLASS_INTEGER != MPI_TYPECLASS_COMPLEX &&
                 MPI_TYPECLASS_REAL != MPI_TYPECLASS_COMPLEX,
             "type classes");

/* Bit flags: one bit each, and I/O modes and RMA assertions do not overlap */
#define ONE_BIT(x) ((x) > 0 && ((x) & ((x)-1)) == 0)
STATIC_CHECK(ONE_BIT(MPI_MODE_NOCHECK) && ONE_BIT(MPI_MODE_NOSTORE) && ONE_BIT(MPI_MODE_NOPUT) &&
                 ONE_BIT(MPI_MODE_NOPRECEDE) && ONE_BIT(MPI_MODE_NOSUCCEED),
             "RMA assertions are bits");
STATIC_CHECK((MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
              MPI_MODE_NOSUCCEED) == (MPI_MODE_NOCHECK + MPI_MODE_NOSTORE + MPI_MODE_NOPUT +
                                      MPI_MODE_NOPRECEDE + MPI_MODE_NOSUCCEED),
             "RMA assertions are distinct bits");
#define IO_MODES                                                                       \
  (MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |               \
   MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL | MPI_MODE_APPEND | \
   MPI_MODE_SEQUENTIAL)
STATIC_CHECK(ONE_BIT(MPI_MODE_CREATE) && ONE_BIT(MPI_MODE_RDONLY) && ONE_BIT(MPI_MODE_WRONLY) &&
                 ONE_BIT(MPI_MODE_RDWR) && ONE_BIT(MPI_MODE_DELETE_ON_CLOSE) &&
                 ONE_BIT(MPI_MODE_UNIQUE_OPEN) && ONE_BIT(MPI_MODE_EXCL) &&
                 ONE_BIT(MPI_MODE_APPEND) && ONE_BIT(MPI_MODE_SEQUENTIAL),
             "I/O modes are bits");
STATIC_CHECK(IO_MODES == (MPI_MODE_CREATE + MPI_MODE_RDONLY + MPI_MODE_WRONLY + MPI_MODE_RDWR +
                          MPI_MODE_DELETE_ON_CLOSE + MPI_MODE_UNIQUE_OPEN + MPI_MODE_EXCL +
                          MPI_MODE_APPEND + MPI_MODE_SEQUENTIAL),
             "I/O modes are distinct bits");
STATIC_CHECK((IO_MODES & (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT |
                          MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)) == 0,
             "I/O modes and RMA assertions do not overlap");
STATIC_CHECK(MPI_LOCK_EXCLUSIVE != MPI_LOCK_SHARED, "lock types");
STATIC_CHECK(MPI_WIN_FLAVOR_CREATE != MPI_WIN_FLAVOR_ALLOCATE &&
                 MPI_WIN_FLAVOR_DYNAMIC != MPI_WIN_FLAVOR_SHARED &&
                 MPI_WIN_FLAVOR_CREATE != MPI_WIN_FLAVOR_SHARED &&
                 MPI_WIN_SEPARATE != MPI_WIN_UNIFIED,
             "window flavors and models");
STATIC_CHECK(MPI_SEEK_SET != MPI_SEEK_CUR && MPI_SEEK_CUR != MPI_SEEK_END &&
                 MPI_SEEK_SET != MPI_SEEK_END && MPI_DISPLACEMENT_CURRENT < 0,
             "seek origins");

/* Callback types accept functions with the standard's signatures */
static void user_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)in, (void)inout, (void)len, (void)type;
}
static int comm_copy(MPI_Comm c, int k, void* e, void* in, void* out, int* flag) {
  (void)c, (void)k, (void)e, (void)in, (void)out, (void)flag;
  return MPI_SUCCESS;
}
static int comm_delete(MPI_Comm c, int k, void* v, void* e) {
  (void)c, (void)k, (void)v, (void)e;
  return MPI_SUCCESS;
}
static int type_copy(MPI_Datatype t, int k, void* e, void* in, void* out, int* flag) {
  (void)t, (void)k, (void)e, (void)in, (void)out, (void)flag;
  return MPI_SUCCESS;
}
static int type_delete(MPI_Datatype t, int k, void* v, void* e) {
  (void)t, (void)k, (void)v, (void)e;
  return MPI_SUCCESS;
}
static int win_copy(MPI_Win w, int k, void* e, void* in, void* out, int* flag) {
  (void)w, (void)k, (void)e, (void)in, (void)out, (void)flag;
  return MPI_SUCCESS;
}
static int win_delete(MPI_Win w, int k, void* v, void* e) {
  (void)w, (void)k, (void)v, (void)e;
  return MPI_SUCCESS;
}
static void comm_errh(MPI_Comm* c, int* code, ...) {
  (void)c, (void)code;
}
static void win_errh(MPI_Win* w, int* code, ...) {
  (void)w, (void)code;
}
static void file_errh(MPI_File* f, int* code, ...) {
  (void)f, (void)code;
}
static void session_errh(MPI_Session* s, int* code, ...) {
  (void)s, (void)code;
}
static int greq_query(void* e, MPI_Status* s) {
  (void)e, (void)s;
  return MPI_SUCCESS;
}
static int greq_free(void* e) {
  (void)e;
  return MPI_SUCCESS;
}
static int greq_cancel(void* e, int complete) {
  (void)e, (void)complete;
  return MPI_SUCCESS;
}
static int datarep_conv(void* u, MPI_Datatype t, int n, void* f, MPI_Offset pos, void* e) {
  (void)u, (void)t, (void)n, (void)f, (void)pos, (void)e;
  return MPI_SUCCESS;
}
static int datarep_extent(MPI_Datatype t, MPI_Aint* extent, void* e) {
  (void)t, (void)extent, (void)e;
  return MPI_SUCCESS;
}

struct Callbacks {
  MPI_User_function* op;
  MPI_Comm_copy_attr_function* comm_copy;
  MPI_Comm_delete_attr_function* comm_delete;
  MPI_Type_copy_attr_function* type_copy;
  MPI_Type_delete_attr_function* type_delete;
  MPI_Win_copy_attr_function* win_copy;
  MPI_Win_delete_attr_function* win_delete;
  MPI_Copy_function* copy;
  MPI_Delete_function* del;
  MPI_Comm_errhandler_function* comm_errh;
  MPI_Comm_errhandler_fn* comm_errh_old;
  MPI_Win_errhandler_function* win_errh;
  MPI_Win_errhandler_fn* win_errh_old;
  MPI_File_errhandler_function* file_errh;
  MPI_File_errhandler_fn* file_errh_old;
  MPI_Session_errhandler_function* session_errh;
  MPI_Grequest_query_function* greq_query;
  MPI_Grequest_free_function* greq_free;
  MPI_Grequest_cancel_function* greq_cancel;
  MPI_Datarep_conversion_function* datarep_conv;
  MPI_Datarep_extent_function* datarep_extent;
};
static const struct Callbacks kCallbacks = {
    user_op,   comm_copy,    comm_delete, type_copy, type_delete, win_copy,     win_delete,
    comm_copy, comm_delete,  comm_errh,   comm_errh, win_errh,    win_errh,     file_errh,
    file_errh, session_errh, greq_query,  greq_free, greq_cancel, datarep_conv, datarep_extent};

#if HAVE_C11
/* Exact function types, without referencing the functions (the operand of _Generic is
 * not evaluated, so nothing needs to be linked). */
#define HAS_TYPE(f, type) _Generic(&(f), type : 1, default : 0)
STATIC_CHECK(HAS_TYPE(MPI_Send, int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm)),
             "MPI_Send takes a const buffer");
STATIC_CHECK(HAS_TYPE(MPI_Recv, int (*)(void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status*)),
             "MPI_Recv");
STATIC_CHECK(HAS_TYPE(MPI_Get_count, int (*)(const MPI_Status*, MPI_Datatype, int*)),
             "MPI_Get_count takes a const status");
STATIC_CHECK(HAS_TYPE(MPI_Alltoallv,
                      int (*)(const void*, const int*, const int*, MPI_Datatype, void*, const int*,
                              const int*, MPI_Datatype, MPI_Comm)),
             "MPI_Alltoallv");
STATIC_CHECK(HAS_TYPE(MPI_Neighbor_alltoallw,
                      int (*)(const void*, const int*, const MPI_Aint*, const MPI_Datatype*, void*,
                              const int*, const MPI_Aint*, const MPI_Datatype*, MPI_Comm)),
             "MPI_Neighbor_alltoallw takes MPI_Aint displacements");
STATIC_CHECK(HAS_TYPE(MPI_Barrier_init, int (*)(MPI_Comm, MPI_Info, MPI_Request*)),
             "MPI_Barrier_init");
STATIC_CHECK(HAS_TYPE(MPI_Allreduce_init, int (*)(const void*, void*, int, MPI_Datatype, MPI_Op,
                                                  MPI_Comm, MPI_Info, MPI_Request*)),
             "MPI_Allreduce_init");
STATIC_CHECK(HAS_TYPE(MPI_Isendrecv, int (*)(const void*, int, MPI_Datatype, int, int, void*, int,
                                             MPI_Datatype, int, int, MPI_Comm, MPI_Request*)),
             "MPI_Isendrecv");
STATIC_CHECK(HAS_TYPE(MPI_Wtime, double (*)(void)) && HAS_TYPE(PMPI_Wtick, double (*)(void)),
             "MPI_Wtime");
STATIC_CHECK(HAS_TYPE(MPI_Aint_add, MPI_Aint (*)(MPI_Aint, MPI_Aint)), "MPI_Aint_add");
STATIC_CHECK(HAS_TYPE(MPI_Type_size_x, int (*)(MPI_Datatype, MPI_Count*)), "MPI_Type_size_x");
STATIC_CHECK(HAS_TYPE(MPI_Comm_c2f, MPI_Fint (*)(MPI_Comm)) &&
                 HAS_TYPE(MPI_Comm_f2c, MPI_Comm (*)(MPI_Fint)),
             "handle conversion");
STATIC_CHECK(HAS_TYPE(MPI_Info_get_string, int (*)(MPI_Info, const char*, int*, char*, int*)),
             "MPI_Info_get_string");
STATIC_CHECK(HAS_TYPE(MPI_Group_range_incl, int (*)(MPI_Group, int, int (*)[3], MPI_Group*)),
             "MPI_Group_range_incl");
STATIC_CHECK(HAS_TYPE(MPI_Pcontrol, int (*)(const int, ...)), "MPI_Pcontrol");
STATIC_CHECK(HAS_TYPE(MPI_COMM_NULL_COPY_FN, MPI_Comm_copy_attr_function*) &&
                 HAS_TYPE(MPI_COMM_DUP_FN, MPI_Comm_copy_attr_function*) &&
                 HAS_TYPE(MPI_COMM_NULL_DELETE_FN, MPI_Comm_delete_attr_function*) &&
                 HAS_TYPE(MPI_TYPE_NULL_COPY_FN, MPI_Type_copy_attr_function*) &&
                 HAS_TYPE(MPI_TYPE_DUP_FN, MPI_Type_copy_attr_function*) &&
                 HAS_TYPE(MPI_TYPE_NULL_DELETE_FN, MPI_Type_delete_attr_function*) &&
                 HAS_TYPE(MPI_WIN_NULL_COPY_FN, MPI_Win_copy_attr_function*) &&
                 HAS_TYPE(MPI_WIN_DUP_FN, MPI_Win_copy_attr_function*) &&
                 HAS_TYPE(MPI_WIN_NULL_DELETE_FN, MPI_Win_delete_attr_function*) &&
                 HAS_TYPE(MPI_NULL_COPY_FN, MPI_Copy_function*) &&
                 HAS_TYPE(MPI_DUP_FN, MPI_Copy_function*) &&
                 HAS_TYPE(MPI_NULL_DELETE_FN, MPI_Delete_function*) &&
                 HAS_TYPE(MPI_CONVERSION_FN_NULL, MPI_Datarep_conversion_function*),
             "predefined callbacks");
#endif

static int failures = 0;
#define CHECK(cond)                                              \
  do {                                                           \
    if (!(cond)) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                \
    }                                                            \
  } while (0)

int main(void) {
  /* Error classes are 0, 1, 2, ... in table order. */
  size_t i;
  for (i = 0; i < sizeof(kErrorClasses) / sizeof(kErrorClasses[0]); ++i)
    CHECK(kErrorClasses[i] == (int)i);

  /* Address constants: distinct where the library tells them apart. */
  CHECK(MPI_BOTTOM == NULL);
  CHECK(MPI_IN_PLACE != MPI_BOTTOM);
  CHECK(MPI_STATUS_IGNORE != NULL && MPI_STATUSES_IGNORE != NULL);
  CHECK(MPI_F_STATUS_IGNORE != NULL && MPI_F08_STATUS_IGNORE != NULL);
  /* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are the library's (MPI_Dist_graph tests use them). */
  CHECK(sizeof(MPI_UNWEIGHTED) == sizeof(int*) && sizeof(MPI_WEIGHTS_EMPTY) == sizeof(int*));
  CHECK(MPI_ERRCODES_IGNORE == NULL && MPI_ARGV_NULL == NULL && MPI_ARGVS_NULL == NULL);

  /* The status is a plain struct with the public fields. */
  {
    MPI_Status st;
    memset(&st, 0, sizeof st);
    st.MPI_SOURCE = 3;
    st.MPI_TAG = MPI_ANY_TAG;
    st.MPI_ERROR = MPI_ERR_TRUNCATE;
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == -1 && st.MPI_ERROR == 15);
  }

  /* The version string matches the numbers. */
  {
    char buf[32];
    snprintf(buf, sizeof buf, "%d.%d.%d", CCMPI_VERSION_MAJOR, CCMPI_VERSION_MINOR,
             CCMPI_VERSION_PATCH);
    CHECK(strcmp(buf, CCMPI_VERSION) == 0);
#ifdef CCMPI_PROJECT_VERSION /* the project version in CMakeLists.txt, given by the build */
    CHECK(strcmp(CCMPI_VERSION, CCMPI_PROJECT_VERSION) == 0);
#endif
  }

  CHECK(kCallbacks.op == user_op && kCallbacks.datarep_extent == datarep_extent);

  if (failures) return 1;
  printf("PASS header_test (C %ld)\n", (long)__STDC_VERSION__);
  return 0;
}
