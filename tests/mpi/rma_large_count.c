/* The MPI-4.0 large-count RMA functions: windows made by MPI_Win_create_c,
 * MPI_Win_allocate_c and MPI_Win_allocate_shared_c (MPI_Aint disp_unit, read back through
 * MPI_Win_shared_query_c and the MPI_WIN_DISP_UNIT attribute), MPI_Put_c / Get_c /
 * Accumulate_c / Get_accumulate_c under fence and their request forms under lock_all, a
 * count above INT_MAX of an empty datatype (no truncation to int), and errors that name the
 * _c function. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank_, size_;

static int errclass(int err) {
  int c = -1;
  MPI_Error_class(err, &c);
  return c;
}

static void test_allocate_fence(void) {
  int* base = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_c((MPI_Aint)(4 * sizeof(int)), (MPI_Aint)sizeof(int), MPI_INFO_NULL,
                               MPI_COMM_WORLD, &base, &win));
  int* du = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &du, &flag));
  CHECK(flag && *du == (int)sizeof(int), "disp unit %d", flag ? *du : -1);
  for (int i = 0; i < 4; ++i) base[i] = -1;
  const int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
  int mine[2] = {100 * rank_, 100 * rank_ + 1}, got[2] = {0, 0}, old[1] = {0}, one = 1;
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Put_c(mine, (MPI_Count)2, MPI_INT, right, 0, (MPI_Count)2, MPI_INT, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(base[0] == 100 * left && base[1] == 100 * left + 1, "put_c: %d %d", base[0], base[1]);
  CHECK_MPI(MPI_Get_c(got, (MPI_Count)2, MPI_INT, left, 0, (MPI_Count)2, MPI_INT, win));
  base[2] = 0;
  CHECK_MPI(MPI_Win_fence(0, win));
  int ll = (left + size_ - 1) % size_;
  CHECK(got[0] == 100 * ll && got[1] == 100 * ll + 1, "get_c: %d %d", got[0], got[1]);
  /* Everybody adds 1 to slot 2 of rank 0, then fetches-and-adds 1 to slot 3 of rank 0. */
  CHECK_MPI(
      MPI_Accumulate_c(&one, (MPI_Count)1, MPI_INT, 0, 2, (MPI_Count)1, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  if (rank_ == 0) {
    CHECK(base[2] == size_, "accumulate_c: %d", base[2]);
    base[3] = 0;
  }
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Get_accumulate_c(&one, (MPI_Count)1, MPI_INT, old, (MPI_Count)1, MPI_INT, 0, 3,
                                 (MPI_Count)1, MPI_INT, MPI_SUM, win));
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK(old[0] >= 0 && old[0] < size_, "get_accumulate_c fetched %d", old[0]);
  if (rank_ == 0) CHECK(base[3] == size_, "get_accumulate_c sum %d", base[3]);

  /* A count above INT_MAX of an empty type moves nothing and is not truncated. */
  MPI_Datatype empty;
  MPI_Type_contiguous(0, MPI_INT, &empty);
  MPI_Type_commit(&empty);
  CHECK_MPI(MPI_Put_c(mine, (MPI_Count)3000000000LL, empty, right, 0, (MPI_Count)3000000000LL,
                      empty, win));
  MPI_Type_free(&empty);

  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int err = MPI_Put_c(mine, (MPI_Count)-1, MPI_INT, right, 0, (MPI_Count)1, MPI_INT, win);
  CHECK(errclass(err) == MPI_ERR_COUNT, "negative count: class %d", errclass(err));
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(err, msg, &len);
  CHECK(strstr(msg, "MPI_Put_c") != NULL, "error message \"%s\" does not name MPI_Put_c", msg);
  CHECK_MPI(MPI_Win_fence(0, win));
  CHECK_MPI(MPI_Win_free(&win));
}

static void test_create_requests(void) {
  double mem[4] = {0, 0, 0, 0};
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_c(mem, (MPI_Aint)sizeof mem, (MPI_Aint)sizeof(double), MPI_INFO_NULL,
                             MPI_COMM_WORLD, &win));
  int err;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Win bad;
  err =
      MPI_Win_create_c(mem, (MPI_Aint)sizeof mem, (MPI_Aint)0, MPI_INFO_NULL, MPI_COMM_WORLD, &bad);
  CHECK(errclass(err) == MPI_ERR_DISP, "disp_unit 0: class %d", errclass(err));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Barrier(MPI_COMM_WORLD);

  const int target = (rank_ + 1) % size_;
  double v = rank_ + 0.5, back = -1, fetched = -1, one = 1.0;
  MPI_Request r[4];
  CHECK_MPI(MPI_Win_lock_all(0, win));
  CHECK_MPI(
      MPI_Rput_c(&v, (MPI_Count)1, MPI_DOUBLE, target, 1, (MPI_Count)1, MPI_DOUBLE, win, &r[0]));
  CHECK_MPI(MPI_Waitall(1, r, MPI_STATUSES_IGNORE));
  CHECK_MPI(MPI_Win_flush(target, win));
  CHECK_MPI(
      MPI_Rget_c(&back, (MPI_Count)1, MPI_DOUBLE, target, 1, (MPI_Count)1, MPI_DOUBLE, win, &r[1]));
  CHECK_MPI(MPI_Raccumulate_c(&one, (MPI_Count)1, MPI_DOUBLE, 0, 2, (MPI_Count)1, MPI_DOUBLE,
                              MPI_SUM, win, &r[2]));
  CHECK_MPI(MPI_Waitall(2, &r[1], MPI_STATUSES_IGNORE));
  CHECK(back == v, "rget_c after rput_c: %g, want %g", back, v);
  CHECK_MPI(MPI_Win_flush_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Rget_accumulate_c(NULL, (MPI_Count)0, MPI_DOUBLE, &fetched, (MPI_Count)1,
                                  MPI_DOUBLE, 0, 2, (MPI_Count)1, MPI_DOUBLE, MPI_NO_OP, win,
                                  &r[3]));
  CHECK_MPI(MPI_Wait(&r[3], MPI_STATUS_IGNORE));
  CHECK(fetched == size_, "rget_accumulate_c NO_OP read %g, want %d", fetched, size_);
  CHECK_MPI(MPI_Win_unlock_all(win));
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_MPI(MPI_Win_free(&win));
}

static void test_shared(void) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int nr, ns;
  MPI_Comm_rank(node, &nr);
  MPI_Comm_size(node, &ns);
  long long* mine = NULL;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_shared_c((MPI_Aint)(2 * sizeof(long long)), (MPI_Aint)8, MPI_INFO_NULL,
                                      node, &mine, &win));
  CHECK_MPI(MPI_Win_lock_all(0, win));
  mine[0] = 1000 + nr;
  mine[1] = 2000 + nr;
  CHECK_MPI(MPI_Win_sync(win));
  MPI_Barrier(node);
  CHECK_MPI(MPI_Win_sync(win));
  const int peer = (nr + 1) % ns;
  MPI_Aint sz = -1, du = -1;
  long long* theirs = NULL;
  CHECK_MPI(MPI_Win_shared_query_c(win, peer, &sz, &du, &theirs));
  CHECK(sz == 16 && du == 8, "shared_query_c size %ld disp_unit %ld", (long)sz, (long)du);
  CHECK(theirs != NULL && theirs[0] == 1000 + peer && theirs[1] == 2000 + peer,
        "peer segment %lld %lld", theirs ? theirs[0] : -1, theirs ? theirs[1] : -1);
  CHECK_MPI(MPI_Win_unlock_all(win));
  CHECK_MPI(MPI_Win_free(&win));
  MPI_Comm_free(&node);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  test_allocate_fence();
  test_create_requests();
  test_shared();
  test_pass("rma_large_count");
  MPI_Finalize();
  return 0;
}
