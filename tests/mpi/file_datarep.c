/* User-defined data representations (MPI_Register_datarep, MPI_Register_datarep_c): a
 * representation storing MPI_INT as 16-bit big-endian ("be16", file extent 2) written
 * through a strided view (a subarray filetype) whose extent must scale to the file extents,
 * and through a vector filetype of 2-int blocks (the stride scales), the raw file
 * bytes checked exactly, read back through the view into a strided memory type; the file
 * extents MPI_File_get_type_extent reports; a large-count representation scaling values by
 * 10 ("x10"); MPI_CONVERSION_FN_NULL in both directions; and the errors
 * (MPI_ERR_DUP_DATAREP, MPI_ERR_UNSUPPORTED_DATAREP, MPI_ERR_CONVERSION). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static int rank, size;
static char dir[256];
static int extent_calls;

static int errclass(int err) {
  int c = -1;
  MPI_Error_class(err, &c);
  return c;
}

/* Items of `datatype` (all MPI_INT) packed natively into ints[]: `count` is a number of
 * typemap items, position 0. */
static int ints_per_type(MPI_Datatype datatype) {
  int s = 0;
  MPI_Type_size(datatype, &s);
  return s / (int)sizeof(int);
}

static int be16_extent(MPI_Datatype datatype, MPI_Aint* file_extent, void* extra) {
  CHECK(extra == &extent_calls, "extra_state not passed to the extent function");
  CHECK(datatype == MPI_INT, "extent function called with a type that is not MPI_INT");
  ++extent_calls;
  *file_extent = 2;
  return MPI_SUCCESS;
}

static int be16_write(void* userbuf, MPI_Datatype datatype, int count, void* filebuf,
                      MPI_Offset position, void* extra) {
  CHECK(position == 0, "position %lld", (long long)position);
  CHECK(extra == &extent_calls, "extra_state not passed to the write function");
  int k = ints_per_type(datatype);
  CHECK(k > 0 && count % k == 0, "count %d is not whole elements of %d ints", count, k);
  int* tmp = malloc(sizeof(int) * (size_t)count + 1);
  int pos = 0;
  MPI_Pack(userbuf, count / k, datatype, tmp, (int)sizeof(int) * count, &pos, MPI_COMM_SELF);
  unsigned char* out = filebuf;
  for (int i = 0; i < count; ++i) {
    out[2 * i] = (unsigned char)((tmp[i] >> 8) & 0xff);
    out[2 * i + 1] = (unsigned char)(tmp[i] & 0xff);
  }
  free(tmp);
  return MPI_SUCCESS;
}

static int be16_read(void* userbuf, MPI_Datatype datatype, int count, void* filebuf,
                     MPI_Offset position, void* extra) {
  (void)extra;
  CHECK(position == 0, "position %lld", (long long)position);
  int k = ints_per_type(datatype);
  CHECK(k > 0 && count % k == 0, "count %d is not whole elements of %d ints", count, k);
  int* tmp = malloc(sizeof(int) * (size_t)count + 1);
  const unsigned char* in = filebuf;
  for (int i = 0; i < count; ++i) tmp[i] = (int16_t)((in[2 * i] << 8) | in[2 * i + 1]);
  int pos = 0;
  MPI_Unpack(tmp, (int)sizeof(int) * count, &pos, userbuf, count / k, datatype, MPI_COMM_SELF);
  free(tmp);
  return MPI_SUCCESS;
}

/* "x10": native layout, the file holds 10 times each int (large-count callbacks). */
static int x10_extent(MPI_Datatype datatype, MPI_Aint* file_extent, void* extra) {
  (void)extra;
  MPI_Aint lb;
  return MPI_Type_get_extent(datatype, &lb, file_extent);
}
static int x10_write(void* userbuf, MPI_Datatype datatype, MPI_Count count, void* filebuf,
                     MPI_Offset position, void* extra) {
  (void)extra;
  CHECK(datatype == MPI_INT && position == 0, "x10 write: unexpected type or position");
  for (MPI_Count i = 0; i < count; ++i) ((int*)filebuf)[i] = ((int*)userbuf)[i] * 10;
  return MPI_SUCCESS;
}
static int x10_read(void* userbuf, MPI_Datatype datatype, MPI_Count count, void* filebuf,
                    MPI_Offset position, void* extra) {
  (void)extra;
  CHECK(datatype == MPI_INT && position == 0, "x10 read: unexpected type or position");
  for (MPI_Count i = 0; i < count; ++i) ((int*)userbuf)[i] = ((int*)filebuf)[i] / 10;
  return MPI_SUCCESS;
}

static int failing(void* userbuf, MPI_Datatype datatype, int count, void* filebuf,
                   MPI_Offset position, void* extra) {
  (void)userbuf, (void)datatype, (void)count, (void)filebuf, (void)position, (void)extra;
  return MPI_ERR_OTHER;
}

static void test_register_errors(void) {
  int err = MPI_Register_datarep("be16", be16_read, be16_write, be16_extent, &extent_calls);
  CHECK(errclass(err) == MPI_ERR_DUP_DATAREP, "second be16: class %d", errclass(err));
  err = MPI_Register_datarep("external32", be16_read, be16_write, be16_extent, NULL);
  CHECK(errclass(err) == MPI_ERR_DUP_DATAREP, "external32: class %d", errclass(err));
  err = MPI_Register_datarep("noextent", be16_read, be16_write, NULL, NULL);
  CHECK(errclass(err) == MPI_ERR_ARG, "NULL extent function: class %d", errclass(err));
}

static void test_be16(void) {
  char p[512];
  snprintf(p, sizeof p, "%s/be16", dir);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  int err = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL);
  CHECK(errclass(err) == MPI_ERR_UNSUPPORTED_DATAREP, "unknown datarep: class %d", errclass(err));

  /* Rank r owns every size-th int starting at r (a subarray, whose extent of `size` ints is
   * `2 * size` bytes in the file). */
  MPI_Datatype ft, mem;
  int gsize = size, sub = 1, start = rank;
  MPI_Type_create_subarray(1, &gsize, &sub, &start, MPI_ORDER_C, MPI_INT, &ft);
  MPI_Type_commit(&ft);
  extent_calls = 0;
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, ft, "be16", MPI_INFO_NULL));
  CHECK(extent_calls >= 1, "the extent function was not called");
  char rep[MPI_MAX_DATAREP_STRING];
  MPI_Offset disp;
  MPI_Datatype e, f;
  CHECK_MPI(MPI_File_get_view(fh, &disp, &e, &f, rep));
  CHECK(strcmp(rep, "be16") == 0 && disp == 0, "view %s at %lld", rep, (long long)disp);
  if (f != MPI_INT) MPI_Type_free(&f);
  MPI_Aint ext = 0;
  CHECK_MPI(MPI_File_get_type_extent(fh, MPI_INT, &ext));
  CHECK(ext == 2, "file extent of MPI_INT %ld", (long)ext);
  MPI_Datatype three;
  MPI_Type_contiguous(3, MPI_INT, &three);
  MPI_Type_commit(&three);
  CHECK_MPI(MPI_File_get_type_extent(fh, three, &ext));
  CHECK(ext == 6, "file extent of 3 ints %ld", (long)ext);
  MPI_Type_free(&three);

  /* Memory: every other int of an 8-int array (values -300 + rank*1000 + i). */
  int buf[8], got[8];
  for (int i = 0; i < 8; ++i) buf[i] = (i % 2 == 0) ? -300 + rank * 1000 + i : 77777;
  MPI_Type_vector(4, 1, 2, MPI_INT, &mem);
  MPI_Type_commit(&mem);
  MPI_Status st;
  CHECK_MPI(MPI_File_write_all(fh, buf, 1, mem, &st));
  int n = -1;
  MPI_Get_count(&st, mem, &n);
  CHECK(n == 1, "write_all count %d", n);
  MPI_Offset pos = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == 4, "individual pointer after 4 etypes: %lld", (long long)pos);
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);

  /* The raw bytes: int k of the file (2 bytes at 2k) is item k/size of rank k%size. */
  if (rank == 0) {
    FILE* raw = fopen(p, "rb");
    CHECK(raw != NULL, "cannot open %s", p);
    unsigned char bytes[64];
    size_t nb = fread(bytes, 1, sizeof bytes, raw);
    fclose(raw);
    CHECK(nb == (size_t)(2 * 4 * size), "file size %zu, expected %d", nb, 8 * size);
    for (int k = 0; k < 4 * size; ++k) {
      int r = k % size, item = k / size;
      int v = (int16_t)(-300 + r * 1000 + 2 * item);
      unsigned char hi = (unsigned char)((v >> 8) & 0xff), lo = (unsigned char)(v & 0xff);
      CHECK(bytes[2 * k] == hi && bytes[2 * k + 1] == lo, "byte pair %d: %02x%02x, want %02x%02x",
            k, bytes[2 * k], bytes[2 * k + 1], hi, lo);
    }
  }

  /* Read back through the view into the strided memory type. */
  for (int i = 0; i < 8; ++i) got[i] = -1;
  CHECK_MPI(MPI_File_read_at_all(fh, 0, got, 1, mem, &st));
  for (int i = 0; i < 8; ++i) {
    int want = (i % 2 == 0) ? -300 + rank * 1000 + i : -1;
    CHECK(got[i] == want, "read back [%d] = %d, want %d", i, got[i], want);
  }
  /* Independent read of the second item only. */
  int one = 0;
  CHECK_MPI(MPI_File_read_at(fh, 1, &one, 1, MPI_INT, &st));
  CHECK(one == -300 + rank * 1000 + 2, "read_at 1: %d", one);
  /* Reading past the end gives nothing. */
  CHECK_MPI(MPI_File_read_at(fh, 4, &one, 1, MPI_INT, &st));
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(n == 0, "read past the end: %d ints", n);
  MPI_Type_free(&mem);
  MPI_Type_free(&ft);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(p, MPI_INFO_NULL));
}

/* A vector filetype (2 ints `size` ints apart) at byte displacement 2 * rank: the stride
 * scales to the file extent, the displacement (bytes) does not. */
static void test_be16_vector(void) {
  char p[512];
  snprintf(p, sizeof p, "%s/be16v", dir);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  MPI_Datatype ft;
  MPI_Type_vector(2, 1, size, MPI_INT, &ft);
  MPI_Type_commit(&ft);
  CHECK_MPI(MPI_File_set_view(fh, 2 * rank, MPI_INT, ft, "be16", MPI_INFO_NULL));
  int v[2] = {rank + 1, -(rank + 1)};
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at_all(fh, 0, v, 2, MPI_INT, &st));
  CHECK_MPI(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    FILE* raw = fopen(p, "rb");
    CHECK(raw != NULL, "cannot open %s", p);
    unsigned char bytes[64];
    size_t nb = fread(bytes, 1, sizeof bytes, raw);
    fclose(raw);
    CHECK(nb == (size_t)(4 * size), "vector file size %zu, expected %d", nb, 4 * size);
    for (int k = 0; k < 2 * size; ++k) {
      int r = k % size, want = k < size ? r + 1 : -(r + 1);
      int got = (int16_t)((bytes[2 * k] << 8) | bytes[2 * k + 1]);
      CHECK(got == want, "vector view: int %d of the file is %d, want %d", k, got, want);
    }
  }
  MPI_Type_free(&ft);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(p, MPI_INFO_NULL));
}

static void test_x10_and_null(void) {
  char p[512];
  snprintf(p, sizeof p, "%s/x10", dir);
  MPI_File fh;
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "x10", MPI_INFO_NULL));
  int v[3] = {rank + 1, -(rank + 2), 12345}, back[3] = {0, 0, 0};
  MPI_Status st;
  CHECK_MPI(MPI_File_write_at(fh, 3 * rank, v, 3, MPI_INT, &st));
  CHECK_MPI(MPI_File_read_at(fh, 3 * rank, back, 3, MPI_INT, &st));
  for (int i = 0; i < 3; ++i) CHECK(back[i] == v[i], "x10 read back [%d] %d", i, back[i]);
  /* Through the no-conversion representation the file shows the stored values. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "plain", MPI_INFO_NULL));
  CHECK_MPI(MPI_File_read_at(fh, 3 * rank, back, 3, MPI_INT, &st));
  for (int i = 0; i < 3; ++i) CHECK(back[i] == 10 * v[i], "stored [%d] %d", i, back[i]);
  int w = 42;
  CHECK_MPI(MPI_File_write_at(fh, 3 * rank, &w, 1, MPI_INT, &st));
  CHECK_MPI(MPI_File_read_at(fh, 3 * rank, back, 1, MPI_INT, &st));
  CHECK(back[0] == 42, "plain write/read %d", back[0]);
  /* A conversion function that fails. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "failing", MPI_INFO_NULL));
  int err = MPI_File_write_at(fh, 3 * rank, &w, 1, MPI_INT, &st);
  CHECK(errclass(err) == MPI_ERR_CONVERSION, "failing write conversion: class %d", errclass(err));
  CHECK_MPI(MPI_File_read_at(fh, 3 * rank, back, 1, MPI_INT, &st));
  CHECK(back[0] == 42, "read with a NULL read conversion %d", back[0]);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(p, MPI_INFO_NULL));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    const char* t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ccmpi-datarep-XXXXXX", t && *t ? t : "/tmp");
    CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
  }
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  CHECK_MPI(MPI_Register_datarep("be16", be16_read, be16_write, be16_extent, &extent_calls));
  CHECK_MPI(MPI_Register_datarep_c("x10", x10_read, x10_write, x10_extent, NULL));
  CHECK_MPI(MPI_Register_datarep("plain", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL,
                                 x10_extent, NULL));
  CHECK_MPI(MPI_Register_datarep("failing", MPI_CONVERSION_FN_NULL, failing, x10_extent, NULL));
  test_register_errors();
  test_be16();
  test_be16_vector();
  test_x10_and_null();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK(rmdir(dir) == 0, "files left behind in %s", dir);
  test_pass("file_datarep");
  MPI_Finalize();
  return 0;
}
