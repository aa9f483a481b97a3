/* Compile-time unit test of the handle encoding in mpi.h.
 *
 * Every predefined handle must be (kind << 26) | index with the kind and index written
 * here independently of tools/gen_mpi_h.py (the library's tables in src/base/handles.h
 * rely on them), the CCMPI_HANDLE_KIND/INDEX macros must decode them, and aliases must
 * name the same handle. The file compiles only if every check holds; running it just
 * reports success. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#define KIND(h) (((h) >> 26) & 0xf)
#define INDEX(h) ((h) & ((1 << 26) - 1))
#define EXPECT_HANDLE(h, kind, index)                                                          \
  _Static_assert(KIND(h) == (kind) && INDEX(h) == (index) && CCMPI_HANDLE_KIND(h) == (kind) && \
                     CCMPI_HANDLE_INDEX(h) == (index),                                         \
                 #h " is not (" #kind " << 26) | " #index)

/* Kind numbers */
_Static_assert(CCMPI_HANDLE_KIND_SHIFT == 26, "kind shift");
_Static_assert(CCMPI_HANDLE_KIND_COMM == 1 && CCMPI_HANDLE_KIND_GROUP == 2 &&
                   CCMPI_HANDLE_KIND_DATATYPE == 3 && CCMPI_HANDLE_KIND_REQUEST == 4 &&
                   CCMPI_HANDLE_KIND_OP == 5 && CCMPI_HANDLE_KIND_ERRHANDLER == 6 &&
                   CCMPI_HANDLE_KIND_INFO == 7 && CCMPI_HANDLE_KIND_MESSAGE == 8 &&
                   CCMPI_HANDLE_KIND_WIN == 9 && CCMPI_HANDLE_KIND_FILE == 10 &&
                   CCMPI_HANDLE_KIND_SESSION == 11,
               "kind numbers");

/* NULL handles: index 0 of each kind */
EXPECT_HANDLE(MPI_COMM_NULL, 1, 0);
EXPECT_HANDLE(MPI_GROUP_NULL, 2, 0);
EXPECT_HANDLE(MPI_DATATYPE_NULL, 3, 0);
EXPECT_HANDLE(MPI_REQUEST_NULL, 4, 0);
EXPECT_HANDLE(MPI_OP_NULL, 5, 0);
EXPECT_HANDLE(MPI_ERRHANDLER_NULL, 6, 0);
EXPECT_HANDLE(MPI_INFO_NULL, 7, 0);
EXPECT_HANDLE(MPI_MESSAGE_NULL, 8, 0);
EXPECT_HANDLE(MPI_WIN_NULL, 9, 0);
EXPECT_HANDLE(MPI_FILE_NULL, 10, 0);
EXPECT_HANDLE(MPI_SESSION_NULL, 11, 0);

/* Predefined objects other than datatypes and operations */
EXPECT_HANDLE(MPI_COMM_WORLD, 1, 1);
EXPECT_HANDLE(MPI_COMM_SELF, 1, 2);
EXPECT_HANDLE(MPI_GROUP_EMPTY, 2, 1);
EXPECT_HANDLE(MPI_MESSAGE_NO_PROC, 8, 1);
EXPECT_HANDLE(MPI_ERRORS_ARE_FATAL, 6, 1);
EXPECT_HANDLE(MPI_ERRORS_RETURN, 6, 2);
EXPECT_HANDLE(MPI_ERRORS_ABORT, 6, 3);
EXPECT_HANDLE(MPI_INFO_ENV, 7, 1);

/* Operations */
EXPECT_HANDLE(MPI_MAX, 5, 1);
EXPECT_HANDLE(MPI_MIN, 5, 2);
EXPECT_HANDLE(MPI_SUM, 5, 3);
EXPECT_HANDLE(MPI_PROD, 5, 4);
EXPECT_HANDLE(MPI_LAND, 5, 5);
EXPECT_HANDLE(MPI_BAND, 5, 6);
EXPECT_HANDLE(MPI_LOR, 5, 7);
EXPECT_HANDLE(MPI_BOR, 5, 8);
EXPECT_HANDLE(MPI_LXOR, 5, 9);
EXPECT_HANDLE(MPI_BXOR, 5, 10);
EXPECT_HANDLE(MPI_MINLOC, 5, 11);
EXPECT_HANDLE(MPI_MAXLOC, 5, 12);
EXPECT_HANDLE(MPI_REPLACE, 5, 13);
EXPECT_HANDLE(MPI_NO_OP, 5, 14);
_Static_assert(CCMPI_OP_PREDEFINED_MAX == 14, "highest predefined op");

/* Datatypes */
EXPECT_HANDLE(MPI_CHAR, 3, 1);
EXPECT_HANDLE(MPI_SIGNED_CHAR, 3, 2);
EXPECT_HANDLE(MPI_UNSIGNED_CHAR, 3, 3);
EXPECT_HANDLE(MPI_BYTE, 3, 4);
EXPECT_HANDLE(MPI_WCHAR, 3, 5);
EXPECT_HANDLE(MPI_SHORT, 3, 6);
EXPECT_HANDLE(MPI_UNSIGNED_SHORT, 3, 7);
EXPECT_HANDLE(MPI_INT, 3, 8);
EXPECT_HANDLE(MPI_UNSIGNED, 3, 9);
EXPECT_HANDLE(MPI_LONG, 3, 10);
EXPECT_HANDLE(MPI_UNSIGNED_LONG, 3, 11);
EXPECT_HANDLE(MPI_LONG_LONG_INT, 3, 12);
EXPECT_HANDLE(MPI_UNSIGNED_LONG_LONG, 3, 13);
EXPECT_HANDLE(MPI_FLOAT, 3, 14);
EXPECT_HANDLE(MPI_DOUBLE, 3, 15);
EXPECT_HANDLE(MPI_LONG_DOUBLE, 3, 16);
EXPECT_HANDLE(MPI_C_BOOL, 3, 17);
EXPECT_HANDLE(MPI_INT8_T, 3, 18);
EXPECT_HANDLE(MPI_INT16_T, 3, 19);
EXPECT_HANDLE(MPI_INT32_T, 3, 20);
EXPECT_HANDLE(MPI_INT64_T, 3, 21);
EXPECT_HANDLE(MPI_UINT8_T, 3, 22);
EXPECT_HANDLE(MPI_UINT16_T, 3, 23);
EXPECT_HANDLE(MPI_UINT32_T, 3, 24);
EXPECT_HANDLE(MPI_UINT64_T, 3, 25);
EXPECT_HANDLE(MPI_AINT, 3, 26);
EXPECT_HANDLE(MPI_OFFSET, 3, 27);
EXPECT_HANDLE(MPI_COUNT, 3, 28);
EXPECT_HANDLE(MPI_C_FLOAT_COMPLEX, 3, 29);
EXPECT_HANDLE(MPI_C_DOUBLE_COMPLEX, 3, 30);
EXPECT_HANDLE(MPI_C_LONG_DOUBLE_COMPLEX, 3, 31);
EXPECT_HANDLE(MPI_PACKED, 3, 32);
EXPECT_HANDLE(MPI_FLOAT_INT, 3, 33);
EXPECT_HANDLE(MPI_DOUBLE_INT, 3, 34);
EXPECT_HANDLE(MPI_LONG_INT, 3, 35);
EXPECT_HANDLE(MPI_2INT, 3, 36);
EXPECT_HANDLE(MPI_SHORT_INT, 3, 37);
EXPECT_HANDLE(MPI_LONG_DOUBLE_INT, 3, 38);
EXPECT_HANDLE(MPI_CHARACTER, 3, 39);
EXPECT_HANDLE(MPI_LOGICAL, 3, 40);
EXPECT_HANDLE(MPI_INTEGER, 3, 41);
EXPECT_HANDLE(MPI_REAL, 3, 42);
EXPECT_HANDLE(MPI_DOUBLE_PRECISION, 3, 43);
EXPECT_HANDLE(MPI_COMPLEX, 3, 44);
EXPECT_HANDLE(MPI_DOUBLE_COMPLEX, 3, 45);
EXPECT_HANDLE(MPI_2REAL, 3, 46);
EXPECT_HANDLE(MPI_2DOUBLE_PRECISION, 3, 47);
EXPECT_HANDLE(MPI_2INTEGER, 3, 48);
EXPECT_HANDLE(MPI_INTEGER1, 3, 49);
EXPECT_HANDLE(MPI_INTEGER2, 3, 50);
EXPECT_HANDLE(MPI_INTEGER4, 3, 51);
EXPECT_HANDLE(MPI_INTEGER8, 3, 52);
EXPECT_HANDLE(MPI_REAL4, 3, 53);
EXPECT_HANDLE(MPI_REAL8, 3, 54);
EXPECT_HANDLE(MPI_REAL16, 3, 55);
EXPECT_HANDLE(MPI_COMPLEX8, 3, 56);
EXPECT_HANDLE(MPI_COMPLEX16, 3, 57);
EXPECT_HANDLE(MPI_CXX_BOOL, 3, 58);
EXPECT_HANDLE(MPI_CXX_FLOAT_COMPLEX, 3, 59);
EXPECT_HANDLE(MPI_CXX_DOUBLE_COMPLEX, 3, 60);
EXPECT_HANDLE(MPI_CXX_LONG_DOUBLE_COMPLEX, 3, 61);
EXPECT_HANDLE(MPI_LB, 3, 62);
EXPECT_HANDLE(MPI_UB, 3, 63);
EXPECT_HANDLE(MPI_COMPLEX32, 3, 64);
_Static_assert(CCMPI_DATATYPE_PREDEFINED_MAX == 64, "highest predefined datatype");

/* Aliases name the same handle */
_Static_assert(MPI_LONG_LONG == MPI_LONG_LONG_INT, "MPI_LONG_LONG");
_Static_assert(MPI_C_COMPLEX == MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX");

/* Handles of different kinds never compare equal, even with the same index */
_Static_assert(MPI_COMM_WORLD != MPI_GROUP_EMPTY && MPI_COMM_WORLD != MPI_CHAR &&
                   MPI_COMM_WORLD != MPI_MAX && MPI_COMM_WORLD != MPI_ERRORS_ARE_FATAL &&
                   MPI_COMM_WORLD != MPI_INFO_ENV && MPI_COMM_WORLD != MPI_MESSAGE_NO_PROC,
               "index 1 of different kinds");
_Static_assert(MPI_COMM_NULL != 0 && MPI_REQUEST_NULL != 0 && MPI_DATATYPE_NULL != 0,
               "NULL handles are not zero, so a zeroed handle is invalid");

/* Handle and scalar types */
_Static_assert(sizeof(MPI_Comm) == sizeof(int) && sizeof(MPI_Datatype) == sizeof(int) &&
                   sizeof(MPI_Request) == sizeof(int) && sizeof(MPI_Session) == sizeof(int),
               "handles are ints");
_Static_assert(_Generic((MPI_Comm)0, int : 1, default : 0) &&
                   _Generic((MPI_File)0, int : 1, default : 0),
               "handle types are int");
_Static_assert(sizeof(MPI_Aint) == sizeof(void*), "MPI_Aint holds an address");
_Static_assert(sizeof(MPI_Offset) == 8 && sizeof(MPI_Count) == 8, "64-bit offsets and counts");
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint");
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "a C status fits a Fortran status exactly");
_Static_assert(sizeof(MPI_F08_status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint), "F08 status");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                   offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
               "status field positions match the Fortran indices");
_Static_assert(_Generic(((MPI_Status*)0)->ccmpi_count, long long : 1, default : 0),
               "ccmpi_count is a long long byte count");

int main(void) {
  printf("PASS handles_static_test\n");
  return 0;
}
