/* One-sided communication (MPI_Win_*, MPI_Put/Get/Accumulate & co.), every rank checking
 * the results it can see:
 *  - window objects: the predefined attributes of each flavor, names, MPI_Win_get_group,
 *    info, user attributes with a delete callback run by MPI_Win_free;
 *  - fence: puts to the right neighbour, gets from the left one, a sum accumulated by
 *    everybody into every rank; derived datatypes on both sides (a strided target, a
 *    strided origin), MPI_MAXLOC on MPI_DOUBLE_INT, MPI_REPLACE;
 *  - transfers larger than the active-message payload (split in pieces);
 *  - post/start/complete/wait and MPI_Win_test around a ring;
 *  - passive target: a counter read, incremented and written back under an exclusive lock
 *    by every rank (exclusion), MPI_Fetch_and_op under lock_all (each fetched value unique:
 *    atomicity), MPI_Compare_and_swap (exactly one rank wins), MPI_Get_accumulate with
 *    MPI_NO_OP, the request-based MPI_Rput/Rget/Raccumulate/Rget_accumulate, flushes;
 *  - dynamic windows: attach, put through an absolute address, detach;
 *  - MPI_Win_allocate_shared + MPI_Win_shared_query: stores into a neighbour's segment;
 *  - errors with MPI_ERRORS_RETURN and a user window error handler: out of range
 *    (MPI_ERR_RMA_RANGE), unlock without lock (MPI_ERR_RMA_SYNC), a bad lock type
 *    (MPI_ERR_LOCKTYPE), a bad rank (MPI_ERR_RANK). */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank_, size_;

static int deleted_;
static int on_delete(MPI_Win win, int keyval, void* value, void* extra) {
  (void)win;
  (void)keyval;
  CHECK(value == &deleted_ && extra == NULL, "delete callback arguments");
  ++deleted_;
  return MPI_SUCCESS;
}

static int handler_calls_, handler_class_;
static void on_error(MPI_Win* win, int* code, ...) {
  (void)win;
  ++handler_calls_;
  MPI_Error_class(*code, &handler_class_);
}

static void objects(void) {
  int buf[8];
  MPI_Win win;
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "no_locks", "false");
  CHECK_MPI(MPI_Win_create(buf, sizeof buf, sizeof(int), info, MPI_COMM_WORLD, &win));
  MPI_Info_free(&info);
  void* base;
  MPI_Aint* size;
  int *disp, *flavor, *model, flag;
  MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
  CHECK(flag && base == buf, "MPI_WIN_BASE %p", base);
  MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag);
  CHECK(flag && *size == (MPI_Aint)sizeof buf, "MPI_WIN_SIZE %ld", (long)*size);
  MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &disp, &flag);
  CHECK(flag && *disp == (int)sizeof(int), "MPI_WIN_DISP_UNIT %d", *disp);
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  CHECK(flag && *flavor == MPI_WIN_FLAVOR_CREATE, "flavor %d", *flavor);
  MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
  CHECK(flag && *model == MPI_WIN_UNIFIED, "model %d", *model);

  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_Win_get_name(win, name, &len);
  CHECK(len == 0, "default name '%s'", name);
  MPI_Win_set_name(win, "my window");
  MPI_Win_get_name(win, name, &len);
  CHECK(strcmp(name, "my window") == 0 && len == 9, "name '%s'", name);

  MPI_Group g, wg;
  int cmp;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Win_get_group(win, &g);
  MPI_Group_compare(g, wg, &cmp);
  CHECK(cmp == MPI_IDENT, "window group compare %d", cmp);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);

  MPI_Info used;
  char value[MPI_MAX_INFO_VAL + 1];
  MPI_Win_get_info(win, &used);
  MPI_Info_get(used, "no_locks", MPI_MAX_INFO_VAL, value, &flag);
  CHECK(flag && strcmp(value, "false") == 0, "info no_locks");
  MPI_Info_free(&used);

  int keyval;
  MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, on_delete, &keyval, NULL);
  MPI_Win_set_attr(win, keyval, &deleted_);
  void* got;
  MPI_Win_get_attr(win, keyval, &got, &flag);
  CHECK(flag && got == &deleted_, "user attribute");
  MPI_Win_free_keyval(&keyval);
  CHECK_MPI(MPI_Win_free(&win));
  CHECK(win == MPI_WIN_NULL && deleted_ == 1, "free: handle %x, deletes %d", win, deleted_);

  void* mem;
  CHECK_MPI(MPI_Win_allocate(100, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  CHECK(*flavor == MPI_WIN_FLAVOR_ALLOCATE, "allocate flavor %d", *flavor);
  MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
  CHECK(base == mem, "allocate base");
  memset(mem, 1, 100); /* the memory is usable */
  MPI_Win_free(&win);
}

static void fence(void) {
  enum { N = 16 };
  int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
  int buf[4 * N], mine[N];
  for (int i = 0; i < 4 * N; ++i) buf[i] = -1;
  buf[3 * N] = 0; /* the sum slot */
  for (int i = 0; i < N; ++i) mine[i] = rank_ * 1000 + i;
  MPI_Win win;
  MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  /* Put to the right neighbour at [0, N), every second int of [N, 3N) through a vector. */
  MPI_Put(mine, N, MPI_INT, right, 0, N, MPI_INT, win);
  MPI_Datatype strided;
  MPI_Type_vector(N, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  MPI_Put(mine, N, MPI_INT, right, N, 1, strided, win);
  for (int t = 0; t < size_; ++t) {
    int one = rank_ + 1;
    MPI_Accumulate(&one, 1, MPI_INT, t, 3 * N, 1, MPI_INT, MPI_SUM, win);
  }
  MPI_Win_fence(0, win);
  for (int i = 0; i < N; ++i) {
    CHECK(buf[i] == left * 1000 + i, "put [%d] = %d", i, buf[i]);
    CHECK(buf[N + 2 * i] == left * 1000 + i && buf[N + 2 * i + 1] == -1, "strided put [%d] = %d", i,
          buf[N + 2 * i]);
  }
  CHECK(buf[3 * N] == size_ * (size_ + 1) / 2, "sum %d", buf[3 * N]);
  /* Get the left neighbour's first N ints into every second slot of a local array. */
  int wide[2 * N];
  for (int i = 0; i < 2 * N; ++i) wide[i] = -7;
  MPI_Get(wide, 1, strided, left, 0, N, MPI_INT, win);
  /* MPI_REPLACE and MPI_MAX into the right neighbour's sum slot and one after it. */
  int big = 1 << 20;
  MPI_Accumulate(&big, 1, MPI_INT, right, 3 * N + 1, 1, MPI_INT, MPI_REPLACE, win);
  MPI_Win_fence(0, win);
  const int lleft = (left + size_ - 1) % size_;
  for (int i = 0; i < N; ++i)
    CHECK(wide[2 * i] == lleft * 1000 + i && wide[2 * i + 1] == -7, "strided get [%d] = %d", i,
          wide[2 * i]);
  CHECK(buf[3 * N + 1] == big, "replace %d", buf[3 * N + 1]);
  int m = rank_;
  MPI_Accumulate(&m, 1, MPI_INT, 0, 3 * N + 2, 1, MPI_INT, MPI_MAX, win);
  MPI_Win_fence(0, win);
  if (rank_ == 0) CHECK(buf[3 * N + 2] == size_ - 1, "max %d", buf[3 * N + 2]);
  MPI_Type_free(&strided);
  MPI_Win_free(&win);

  /* MAXLOC on pairs: the largest value wins, with its index. */
  struct {
    double v;
    int i;
  } pair = {-1.0, -1}, in = {(double)(rank_ % 3), rank_};
  MPI_Win_create(&pair, sizeof pair, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  MPI_Accumulate(&in, 1, MPI_DOUBLE_INT, 0, 0, 1, MPI_DOUBLE_INT, MPI_MAXLOC, win);
  MPI_Win_fence(0, win);
  if (rank_ == 0) {
    const int best = size_ >= 3 ? 2 : size_ - 1;
    CHECK(pair.v == (double)best && pair.i == best, "maxloc %g %d", pair.v, pair.i);
  }
  MPI_Win_free(&win);
}

static void large(void) {
  const int n = 300000; /* bytes: several active messages */
  unsigned char* mem;
  unsigned char* src = malloc(n);
  unsigned char* back = malloc(n);
  MPI_Win win;
  MPI_Win_allocate(n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  for (int i = 0; i < n; ++i) src[i] = (unsigned char)(i * 7 + rank_);
  const int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
  MPI_Win_fence(0, win);
  MPI_Put(src, n, MPI_BYTE, right, 0, n, MPI_BYTE, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < n; ++i)
    CHECK(mem[i] == (unsigned char)(i * 7 + left), "large put byte %d", i);
  MPI_Get(back, n, MPI_BYTE, right, 0, n, MPI_BYTE, win);
  MPI_Win_fence(0, win);
  CHECK(memcmp(back, src, n) == 0, "large get");
  /* A large accumulate of ints. */
  int* isrc = (int*)src;
  for (int i = 0; i < n / 4; ++i) isrc[i] = 1;
  memset(mem, 0, n);
  MPI_Win_fence(0, win);
  for (int t = 0; t < size_; ++t)
    MPI_Accumulate(isrc, n / 4, MPI_INT, t, 0, n / 4, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < n / 4; ++i) CHECK(((int*)mem)[i] == size_, "large sum [%d]", i);
  MPI_Win_free(&win);
  free(src);
  free(back);
}

static void pscw(void) {
  int buf[2] = {-1, -1};
  MPI_Win win;
  MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  const int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
  MPI_Group world, to, from;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &right, &to);
  MPI_Group_incl(world, 1, &left, &from);
  for (int round = 0; round < 3; ++round) {
    MPI_Win_post(from, 0, win);
    MPI_Win_start(to, 0, win);
    int v = rank_ * 10 + round;
    MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    int g = -2;
    MPI_Get(&g, 1, MPI_INT, right, 1, 1, MPI_INT, win);
    MPI_Win_complete(win);
    if (round % 2) {
      int flag = 0;
      for (int i = 0; i < 1000000 && !flag; ++i) MPI_Win_test(win, &flag);
      CHECK(flag, "MPI_Win_test never completed");
    } else {
      MPI_Win_wait(win);
    }
    CHECK(buf[0] == left * 10 + round, "pscw round %d: %d", round, buf[0]);
    CHECK(g == round - 1 || (round == 0 && g == -1), "pscw get %d in round %d", g, round);
    buf[1] = round; /* exposed in the next round */
  }
  MPI_Group_free(&world);
  MPI_Group_free(&to);
  MPI_Group_free(&from);
  MPI_Win_free(&win);
}

static void passive(void) {
  enum { kRounds = 50 };
  long long* mem;
  MPI_Win win;
  MPI_Win_allocate(8 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem,
                   &win);
  for (int i = 0; i < 8; ++i) mem[i] = 0;
  mem[2] = -1;
  MPI_Barrier(MPI_COMM_WORLD);
  /* Read-modify-write under an exclusive lock: no increment is lost. */
  for (int i = 0; i < kRounds; ++i) {
    long long v;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Get(&v, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win);
    MPI_Win_flush(0, win);
    ++v;
    MPI_Put(&v, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win);
    MPI_Win_unlock(0, win);
  }
  /* Fetch-and-add under lock_all: every fetched value appears once. */
  long long* seen = malloc(sizeof(long long) * kRounds);
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < kRounds; ++i) {
    long long one = 1;
    MPI_Fetch_and_op(&one, &seen[i], MPI_LONG_LONG, 0, 1, MPI_SUM, win);
    MPI_Win_flush(0, win);
  }
  /* Compare-and-swap: the first rank to swap -1 for its rank wins. */
  long long mine = rank_, expect = -1, old;
  MPI_Compare_and_swap(&mine, &expect, &old, MPI_LONG_LONG, 0, 2, win);
  MPI_Win_flush_all(win);
  int won = old == -1;
  /* Request-based operations to the right neighbour's slots 4..7. */
  const int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
  MPI_Request req[4];
  long long a = 100 + rank_, b = 5, gacc = -9, rget = -9;
  MPI_Rput(&a, 1, MPI_LONG_LONG, right, 4, 1, MPI_LONG_LONG, win, &req[0]);
  MPI_Raccumulate(&b, 1, MPI_LONG_LONG, right, 5, 1, MPI_LONG_LONG, MPI_SUM, win, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  MPI_Win_flush(right, win);
  MPI_Rget(&rget, 1, MPI_LONG_LONG, right, 4, 1, MPI_LONG_LONG, win, &req[2]);
  MPI_Rget_accumulate(NULL, 0, MPI_LONG_LONG, &gacc, 1, MPI_LONG_LONG, right, 5, 1, MPI_LONG_LONG,
                      MPI_NO_OP, win, &req[3]);
  MPI_Waitall(2, req + 2, MPI_STATUSES_IGNORE);
  CHECK(rget == 100 + rank_ && gacc == 5, "request-based: rget %lld gacc %lld", rget, gacc);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank_ == 0) {
    CHECK(mem[0] == (long long)size_ * kRounds, "exclusive counter %lld", mem[0]);
    CHECK(mem[1] == (long long)size_ * kRounds, "fetch-and-add counter %lld", mem[1]);
    CHECK(mem[2] >= 0 && mem[2] < size_, "cas winner %lld", mem[2]);
  }
  CHECK(mem[4] == 100 + left && mem[5] == 5, "rput %lld raccumulate %lld", mem[4], mem[5]);
  /* Every fetched value 0 .. size*kRounds-1 exactly once. */
  long long* all = malloc(sizeof(long long) * kRounds * size_);
  MPI_Allgather(seen, kRounds, MPI_LONG_LONG, all, kRounds, MPI_LONG_LONG, MPI_COMM_WORLD);
  char* hit = calloc((size_t)size_ * kRounds, 1);
  for (int i = 0; i < size_ * kRounds; ++i) {
    CHECK(all[i] >= 0 && all[i] < size_ * kRounds && !hit[all[i]], "fetched %lld twice", all[i]);
    hit[all[i]] = 1;
  }
  int winners = 0;
  MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(winners == 1, "%d ranks won the compare-and-swap", winners);
  free(hit);
  free(all);
  free(seen);
  MPI_Win_free(&win);
}

static void dynamic(void) {
  MPI_Win win;
  CHECK_MPI(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int* mem = calloc(4, sizeof(int));
  CHECK_MPI(MPI_Win_attach(win, mem, 4 * sizeof(int)));
  MPI_Aint mine, *addrs = malloc(sizeof(MPI_Aint) * size_);
  MPI_Get_address(mem, &mine);
  MPI_Allgather(&mine, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
  const int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
  int v = 77 + rank_;
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  MPI_Put(&v, 1, MPI_INT, right, addrs[right] + sizeof(int), 1, MPI_INT, win);
  MPI_Win_unlock(right, win);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(mem[1] == 77 + left, "dynamic put %d", mem[1]);
  CHECK_MPI(MPI_Win_detach(win, mem));
  MPI_Win_free(&win);
  free(mem);
  free(addrs);
}

static void shared(void) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int nr, ns;
  MPI_Comm_rank(node, &nr);
  MPI_Comm_size(node, &ns);
  int* mine;
  MPI_Win win;
  CHECK_MPI(MPI_Win_allocate_shared((nr + 1) * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine,
                                    &win));
  int *flavor, flag;
  MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
  CHECK(*flavor == MPI_WIN_FLAVOR_SHARED, "shared flavor %d", *flavor);
  const int right = (nr + 1) % ns;
  MPI_Aint size;
  int disp;
  int* theirs;
  MPI_Win_shared_query(win, right, &size, &disp, &theirs);
  CHECK(size == (MPI_Aint)((right + 1) * sizeof(int)) && disp == (int)sizeof(int),
        "shared_query size %ld disp %d", (long)size, disp);
  /* Contiguous by default: rank 0's segment is followed by rank 1's. */
  int* first;
  MPI_Win_shared_query(win, 0, &size, &disp, &first);
  CHECK(first + nr * (nr + 1) / 2 == mine, "segments not contiguous");
  MPI_Win_lock_all(0, win);
  for (int i = 0; i <= right; ++i) theirs[i] = 1000 * nr + i; /* stores into the neighbour */
  MPI_Win_sync(win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  const int left = (nr + ns - 1) % ns;
  for (int i = 0; i <= nr; ++i) CHECK(mine[i] == 1000 * left + i, "shared store [%d]", i);
  /* RMA calls work on the shared window too. */
  MPI_Barrier(node);
  int v = -5;
  MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, win);
  MPI_Win_flush(right, win);
  MPI_Barrier(node);
  MPI_Win_sync(win);
  CHECK(mine[0] == -5, "put into a shared window %d", mine[0]);
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  MPI_Comm_free(&node);
}

static void errors(void) {
  int buf[4];
  MPI_Win win;
  MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
  int cls, rc, v = 0;
  MPI_Win_fence(0, win);
  rc = MPI_Put(&v, 1, MPI_INT, 0, 4, 1, MPI_INT, win);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RMA_RANGE, "out of range: class %d", cls);
  rc = MPI_Put(&v, 1, MPI_INT, size_, 0, 1, MPI_INT, win);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RANK, "bad rank: class %d", cls);
  MPI_Win_fence(0, win);
  rc = MPI_Win_unlock(0, win);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RMA_SYNC, "unlock without lock: class %d", cls);
  rc = MPI_Win_lock(99, 0, 0, win);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_LOCKTYPE, "bad lock type: class %d", cls);
  MPI_Errhandler eh;
  MPI_Win_create_errhandler(on_error, &eh);
  MPI_Win_set_errhandler(win, eh);
  MPI_Errhandler_free(&eh);
  rc = MPI_Win_unlock(0, win);
  CHECK(rc != MPI_SUCCESS && handler_calls_ == 1 && handler_class_ == MPI_ERR_RMA_SYNC,
        "user handler: calls %d class %d", handler_calls_, handler_class_);
  MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
  CHECK(handler_calls_ == 2 && handler_class_ == MPI_ERR_OTHER, "call_errhandler");
  MPI_Win_free(&win);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  objects();
  fence();
  large();
  pscw();
  passive();
  dynamic();
  shared();
  errors();
  test_pass("rma");
  MPI_Finalize();
  return 0;
}
