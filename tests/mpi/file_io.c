/* MPI-IO: file handles and their errors, hints, views with strided filetypes, independent
 * and collective access (two-phase forced and automatic), the shared file pointer and the
 * ordered accesses, nonblocking and split collective forms, positioning, external32 and
 * file error handlers. Every file lives in a temporary directory that rank 0 creates and
 * removes at the end (its removal fails if a file, or a shared-pointer side file, was left
 * behind). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static int rank, size;
static char dir[256];

static void path(char* out, const char* name) {
  snprintf(out, 512, "%s/%s", dir, name);
}

static int errclass(int err) {
  int c = -1;
  MPI_Error_class(err, &c);
  return c;
}

static void test_open_errors(void) {
  char p[512];
  MPI_File fh;
  path(p, "missing");
  int err = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(errclass(err) == MPI_ERR_NO_SUCH_FILE, "open of a missing file: class %d", errclass(err));
  err = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
  CHECK(errclass(err) == MPI_ERR_AMODE, "RDONLY|CREATE: class %d", errclass(err));
  err = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  CHECK(errclass(err) == MPI_ERR_AMODE, "RDWR|WRONLY: class %d", errclass(err));
  err = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh);
  CHECK(errclass(err) == MPI_ERR_AMODE, "RDWR|SEQUENTIAL: class %d", errclass(err));

  path(p, "excl");
  CHECK_MPI(
      MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  int amode = 0;
  CHECK_MPI(MPI_File_get_amode(fh, &amode));
  CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_WRONLY), "amode %d", amode);
  char c = 'x';
  MPI_Status st;
  err = MPI_File_read_at(fh, 0, &c, 1, MPI_CHAR, &st);
  CHECK(errclass(err) == MPI_ERR_ACCESS, "read of a WRONLY file: class %d", errclass(err));
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(fh == MPI_FILE_NULL, "close did not reset the handle");
  err = MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                      MPI_INFO_NULL, &fh);
  CHECK(errclass(err) == MPI_ERR_FILE_EXISTS, "EXCL on an existing file: class %d", errclass(err));
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_RDONLY | MPI_MODE_DELETE_ON_CLOSE,
                          MPI_INFO_NULL, &fh));
  err = MPI_File_write_at(fh, 0, &c, 1, MPI_CHAR, &st);
  CHECK(errclass(err) == MPI_ERR_READ_ONLY, "write of a RDONLY file: class %d", errclass(err));
  CHECK_MPI(MPI_File_close(&fh));
  CHECK(access(p, F_OK) != 0, "DELETE_ON_CLOSE left the file");
  err = MPI_File_delete(p, MPI_INFO_NULL);
  CHECK(errclass(err) == MPI_ERR_NO_SUCH_FILE, "delete of a missing file: class %d", errclass(err));
  err = MPI_File_close(&fh);
  CHECK(errclass(err) == MPI_ERR_FILE, "close of MPI_FILE_NULL: class %d", errclass(err));
}

static void test_size_and_hints(void) {
  char p[512];
  MPI_File fh;
  MPI_Info info;
  path(p, "sized");
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_nodes", "2");
  MPI_Info_set(info, "cb_buffer_size", "4096");
  MPI_Info_set(info, "striping_factor", "4");
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  MPI_Info used;
  char v[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  CHECK_MPI(MPI_File_get_info(fh, &used));
  MPI_Info_get(used, "cb_nodes", MPI_MAX_INFO_VAL, v, &flag);
  CHECK(flag && strcmp(v, "2") == 0, "cb_nodes hint %s", flag ? v : "(none)");
  MPI_Info_get(used, "romio_cb_write", MPI_MAX_INFO_VAL, v, &flag);
  CHECK(flag, "no romio_cb_write hint");
  MPI_Info_free(&used);

  CHECK_MPI(MPI_File_set_size(fh, 1000));
  MPI_Offset sz = 0;
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 1000, "size %lld after set_size(1000)", sz);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_preallocate(fh, 500));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 1000, "preallocate shrank the file to %lld", sz);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_preallocate(fh, 2000));
  CHECK_MPI(MPI_File_get_size(fh, &sz));
  CHECK(sz == 2000, "size %lld after preallocate(2000)", sz);
  int err = MPI_File_set_size(fh, -1);
  CHECK(errclass(err) == MPI_ERR_ARG, "set_size(-1): class %d", errclass(err));
  CHECK_MPI(MPI_File_set_atomicity(fh, 1));
  CHECK_MPI(MPI_File_get_atomicity(fh, &flag));
  CHECK(flag == 1, "atomicity %d", flag);
  MPI_Group g;
  int gs = 0;
  CHECK_MPI(MPI_File_get_group(fh, &g));
  MPI_Group_size(g, &gs);
  CHECK(gs == size, "group size %d", gs);
  MPI_Group_free(&g);
  CHECK_MPI(MPI_File_sync(fh));
  CHECK(MPI_File_f2c(MPI_File_c2f(fh)) == fh, "c2f/f2c round trip");
  CHECK_MPI(MPI_File_close(&fh));
  if (rank == 0) CHECK_MPI(MPI_File_delete(p, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
}

/* A strided view: rank r owns blocks r, r+size, ... of `blk` ints. Written collectively
 * (two-phase `mode`), read back whole by every rank independently. */
static void test_strided(const char* mode, int blk, int nblk) {
  char p[512];
  MPI_File fh;
  MPI_Info info;
  path(p, "strided");
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_write", mode);
  MPI_Info_set(info, "romio_cb_read", mode);
  MPI_Info_set(info, "cb_buffer_size", "1000"); /* several rounds */
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  MPI_Datatype vec, ft;
  MPI_Type_vector(1, blk, blk * size, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, (MPI_Aint)(blk * size * sizeof(int)), &ft);
  MPI_Type_commit(&ft);
  MPI_Type_free(&vec);
  CHECK_MPI(
      MPI_File_set_view(fh, (4 + rank * blk) * sizeof(int), MPI_INT, ft, "native", MPI_INFO_NULL));
  MPI_Type_free(&ft); /* the view keeps its own reference */
  int n = blk * nblk;
  int* buf = malloc(sizeof(int) * n);
  for (int i = 0; i < n; ++i) buf[i] = rank * 1000000 + i;
  MPI_Status st;
  CHECK_MPI(MPI_File_write_all(fh, buf, n, MPI_INT, &st));
  int cnt = -1;
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == n, "write_all count %d, expected %d", cnt, n);
  MPI_Offset pos = -1, byte = -1;
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == n, "position %lld after writing %d etypes", pos, n);
  CHECK_MPI(MPI_File_get_byte_offset(fh, blk, &byte));
  CHECK(byte == (MPI_Offset)sizeof(int) * (4 + blk * size + blk * rank), "byte offset %lld", byte);
  /* Collective read back through the view. */
  memset(buf, 0, sizeof(int) * n);
  CHECK_MPI(MPI_File_read_at_all(fh, 0, buf, n, MPI_INT, &st));
  for (int i = 0; i < n; ++i)
    CHECK(buf[i] == rank * 1000000 + i, "read_at_all [%d] = %d", i, buf[i]);
  CHECK_MPI(MPI_File_sync(fh));
  /* Independent read of the whole file in the default view. */
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  int total = n * size + 4;
  int* all = malloc(sizeof(int) * total);
  CHECK_MPI(MPI_File_read_at(fh, 0, all, total * (int)sizeof(int), MPI_BYTE, &st));
  MPI_Get_count(&st, MPI_BYTE, &cnt);
  CHECK(cnt == total * (int)sizeof(int), "read %d bytes", cnt);
  for (int i = 4; i < total; ++i) {
    int k = i - 4, owner = (k / blk) % size, idx = (k / (blk * size)) * blk + k % blk;
    CHECK(all[i] == owner * 1000000 + idx, "file int %d = %d, expected %d", i, all[i],
          owner * 1000000 + idx);
  }
  free(all);
  free(buf);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(p, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_pointers_and_nonblocking(void) {
  char p[512];
  MPI_File fh;
  MPI_Status st;
  path(p, "pointers");
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  /* Ordered: rank r writes r+1 ints of value r, in rank order. */
  int v[64];
  for (int i = 0; i < rank + 1; ++i) v[i] = rank;
  CHECK_MPI(MPI_File_write_ordered(fh, v, rank + 1, MPI_INT, &st));
  MPI_Offset sp = -1, expect = (MPI_Offset)sizeof(int) * size * (size + 1) / 2;
  CHECK_MPI(MPI_File_get_position_shared(fh, &sp));
  CHECK(sp == expect, "shared position %lld after write_ordered, expected %lld", sp, expect);
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  int r[64];
  CHECK_MPI(MPI_File_read_ordered_begin(fh, r, rank + 1, MPI_INT));
  CHECK_MPI(MPI_File_read_ordered_end(fh, r, &st));
  for (int i = 0; i < rank + 1; ++i) CHECK(r[i] == rank, "read_ordered [%d] = %d", i, r[i]);
  /* Shared pointer: every rank appends one int; all values appear once. */
  CHECK_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
  int mine = 100 + rank;
  CHECK_MPI(MPI_File_write_shared(fh, &mine, 1, MPI_INT, &st));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_get_position_shared(fh, &sp));
  CHECK(sp == expect + (MPI_Offset)sizeof(int) * size, "shared position %lld", sp);
  int* tail = malloc(sizeof(int) * size);
  CHECK_MPI(MPI_File_read_at(fh, expect, tail, size * (int)sizeof(int), MPI_BYTE, &st));
  int seen = 0;
  for (int i = 0; i < size; ++i) seen |= 1 << (tail[i] - 100);
  CHECK(seen == (1 << size) - 1, "write_shared values mask 0x%x", seen);
  free(tail);
  /* Individual pointer, seek and nonblocking access. */
  CHECK_MPI(MPI_File_seek(fh, expect + (MPI_Offset)sizeof(int) * (size + rank), MPI_SEEK_SET));
  MPI_Request req;
  int w = 7000 + rank;
  CHECK_MPI(MPI_File_iwrite(fh, &w, 1, MPI_INT, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  int cnt = -1;
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == 1, "iwrite count %d", cnt);
  MPI_Barrier(MPI_COMM_WORLD);
  int got = 0;
  int peer = (rank + 1) % size;
  CHECK_MPI(MPI_File_iread_at_all(fh, expect + (MPI_Offset)sizeof(int) * (size + peer), &got, 1,
                                  MPI_INT, &req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(got == 7000 + peer, "iread_at_all got %d", got);
  MPI_Offset pos = 0;
  CHECK_MPI(MPI_File_seek(fh, -4, MPI_SEEK_END));
  CHECK_MPI(MPI_File_get_position(fh, &pos));
  CHECK(pos == expect + (MPI_Offset)sizeof(int) * 2 * size - 4, "SEEK_END position %lld", pos);
  int err = MPI_File_seek(fh, -1, MPI_SEEK_SET);
  CHECK(errclass(err) == MPI_ERR_ARG, "seek to -1: class %d", errclass(err));
  /* Split collective with the individual pointer; reads past the end return short. */
  CHECK_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
  CHECK_MPI(MPI_File_read_all_begin(fh, r, 4, MPI_INT));
  err = MPI_File_read_all_begin(fh, r, 4, MPI_INT);
  CHECK(err != MPI_SUCCESS, "a second split collective began");
  CHECK_MPI(MPI_File_read_all_end(fh, r, &st));
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(cnt == 0, "read at the end of the file returned %d ints", cnt);
  /* The large-count forms. */
  MPI_Count big = -1;
  CHECK_MPI(MPI_File_write_at_all_c(fh, 4 * rank, &w, (MPI_Count)1, MPI_INT, &st));
  CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &big));
  CHECK(big == 1, "write_at_all_c count %lld", big);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_read_at_c(fh, 4 * peer, &got, (MPI_Count)1, MPI_INT, &st));
  CHECK(got == 7000 + peer, "read_at_c got %d", got);
  CHECK_MPI(MPI_File_get_type_extent_c(fh, MPI_DOUBLE, &big));
  CHECK(big == 8, "MPI_DOUBLE file extent %lld", big);
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(p, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
}

static void test_external32(void) {
  char p[512];
  MPI_File fh;
  MPI_Status st;
  path(p, "ext32");
  CHECK_MPI(MPI_File_open(MPI_COMM_WORLD, p, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
  char rep[MPI_MAX_DATAREP_STRING];
  MPI_Offset disp;
  MPI_Datatype et, ft;
  CHECK_MPI(MPI_File_get_view(fh, &disp, &et, &ft, rep));
  CHECK(strcmp(rep, "external32") == 0 && et == MPI_INT && ft == MPI_INT, "view %s", rep);
  int x = 0x01020304 + rank;
  CHECK_MPI(MPI_File_write_at(fh, rank, &x, 1, MPI_INT, &st));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
  unsigned char b[4];
  CHECK_MPI(MPI_File_read_at(fh, 4 * rank, b, 4, MPI_BYTE, &st));
  CHECK(b[0] == 1 && b[1] == 2 && b[2] == 3 && b[3] == 4 + rank, "external32 bytes %d %d %d %d",
        b[0], b[1], b[2], b[3]);
  int err = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "no-such-rep", MPI_INFO_NULL);
  CHECK(errclass(err) == MPI_ERR_UNSUPPORTED_DATAREP, "unknown datarep: class %d", errclass(err));
  CHECK_MPI(MPI_File_close(&fh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK_MPI(MPI_File_delete(p, MPI_INFO_NULL));
  MPI_Barrier(MPI_COMM_WORLD);
}

static int handler_calls;
static void file_handler(MPI_File* fh, int* code, ...) {
  (void)fh;
  (void)code;
  ++handler_calls;
}

static void test_errhandlers(void) {
  MPI_Errhandler eh, got;
  CHECK_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
  CHECK(got == MPI_ERRORS_RETURN, "MPI_FILE_NULL's default handler 0x%x", got);
  CHECK_MPI(MPI_File_create_errhandler(file_handler, &eh));
  CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
  MPI_File fh;
  char p[512];
  path(p, "none");
  int err = MPI_File_open(MPI_COMM_SELF, p, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK(err != MPI_SUCCESS && handler_calls == 1, "handler calls %d", handler_calls);
  CHECK_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  char name[32];
  snprintf(name, sizeof name, "eh%d", rank);
  path(p, name);
  CHECK_MPI(MPI_File_open(MPI_COMM_SELF, p,
                          MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL,
                          &fh));
  CHECK_MPI(MPI_File_set_errhandler(fh, eh));
  CHECK_MPI(MPI_File_call_errhandler(fh, MPI_ERR_IO));
  CHECK(handler_calls == 2, "handler calls %d", handler_calls);
  err = MPI_File_read_at(fh, -5, p, 1, MPI_CHAR, MPI_STATUS_IGNORE);
  CHECK(errclass(err) == MPI_ERR_ARG && handler_calls == 3, "negative offset: class %d",
        errclass(err));
  MPI_Errhandler_free(&eh);
  CHECK_MPI(MPI_File_close(&fh));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    const char* t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/ccmpi-file-XXXXXX", t && *t ? t : "/tmp");
    CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
  }
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  test_open_errors();
  test_size_and_hints();
  test_strided("enable", 3, 50);
  test_strided("automatic", 5, 20);
  test_strided("disable", 2, 10);
  test_pointers_and_nonblocking();
  test_external32();
  test_errhandlers();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) CHECK(rmdir(dir) == 0, "files left behind in %s", dir);
  test_pass("file_io");
  MPI_Finalize();
  return 0;
}
