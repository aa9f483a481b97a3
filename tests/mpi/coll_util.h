/* Helpers shared by the collective test programs (coll_*.c): deterministic element
 * values, the count list, a gapped derived datatype and the 2x2 matrix product used as
 * a non-commutative user op. */
#ifndef CCMPI_TEST_COLL_UTIL_H
#define CCMPI_TEST_COLL_UTIL_H
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Counts every collective is checked with: empty, one, odd, medium, large. */
static const int kCounts[] = {0, 1, 7, 1000, 100000};
#define NCOUNTS ((int)(sizeof(kCounts) / sizeof(kCounts[0])))

static int g_rank, g_size;

static inline void coll_init(int* argc, char*** argv) {
  CHECK_MPI(MPI_Init(argc, argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
}

static inline void* xmalloc(size_t n) {
  void* p = malloc(n ? n : 1);
  CHECK(p != NULL, "malloc(%zu) failed", n);
  return p;
}

static inline int* ialloc(size_t n, int fill) {
  int* p = (int*)xmalloc(n * sizeof(int));
  for (size_t i = 0; i < n; ++i) p[i] = fill;
  return p;
}

/* The value rank r contributes at element i (small, mixed signs). */
static inline int val(int r, long i) {
  return (int)((r * 131 + i * 7) % 1009) - 500;
}
/* The value rank r sends to rank p at element i (all-to-all family). */
static inline int val3(int r, int p, long i) {
  return r * 1000000 + p * 10000 + (int)(i % 10000);
}

#define SENTINEL (-77777)

/* vector(2, 1, 2) of MPI_INT: two ints with a one-int hole; extent 3 ints. Element k
 * lives at ints 3k and 3k+2; int 3k+1 must never be written. */
static inline MPI_Datatype gapped_int_type(void) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}
/* Index in an int array of the j-th int of data described by n gapped elements. */
static inline long gapped_index(long j) {
  return (j / 2) * 3 + (j % 2) * 2;
}

/* 2x2 matrices mod 65521 stored as 4 ints; the user op computes inout = in * inout, which
 * is not commutative, so a reduction must come out as M_0 * M_1 * ... * M_{n-1}. */
#define MOD 65521
static inline void mat_mul(const int* a, const int* b, int* out) {
  long long r0 = ((long long)a[0] * b[0] + (long long)a[1] * b[2]) % MOD;
  long long r1 = ((long long)a[0] * b[1] + (long long)a[1] * b[3]) % MOD;
  long long r2 = ((long long)a[2] * b[0] + (long long)a[3] * b[2]) % MOD;
  long long r3 = ((long long)a[2] * b[1] + (long long)a[3] * b[3]) % MOD;
  out[0] = (int)r0;
  out[1] = (int)r1;
  out[2] = (int)r2;
  out[3] = (int)r3;
}
static inline void mat_op(void* invec, void* inoutvec, int* len, MPI_Datatype* type) {
  (void)type;
  const int* a = (const int*)invec;
  int* b = (int*)inoutvec;
  for (int k = 0; k < *len; ++k) {
    int t[4];
    mat_mul(a + 4 * k, b + 4 * k, t);
    memcpy(b + 4 * k, t, sizeof t);
  }
}
/* Rank r's matrix at element i. */
static inline void mat_of(int r, long i, int* m) {
  m[0] = 1 + (int)((r + i) % 5);
  m[1] = (int)((r * 7 + i) % 11);
  m[2] = (int)((r + 2 * i) % 3) + 1;
  m[3] = 1 + r % 4;
}
/* M_lo * ... * M_hi at element i. */
static inline void mat_prod(int lo, int hi, long i, int* out) {
  out[0] = 1;
  out[1] = 0;
  out[2] = 0;
  out[3] = 1;
  for (int r = lo; r <= hi; ++r) {
    int m[4], t[4];
    mat_of(r, i, m);
    mat_mul(out, m, t);
    memcpy(out, t, sizeof t);
  }
}
static inline MPI_Datatype mat_type(void) {
  MPI_Datatype t;
  CHECK_MPI(MPI_Type_contiguous(4, MPI_INT, &t));
  CHECK_MPI(MPI_Type_commit(&t));
  return t;
}
#endif
