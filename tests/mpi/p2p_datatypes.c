/* Derived datatypes on the wire: vector/indexed/struct/resized layouts, small (eager)
 * and large (rendezvous, chunked) messages, sender and receiver using different types
 * with the same type signature; Get_elements. */
#include <stddef.h>
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  const int counts[] = {1, 3, 1000, 150000};
  for (int ci = 0; ci < 4; ++ci) {
    const int rows = counts[ci];
    /* A column of a rows x 4 matrix of doubles: vector(rows, 1, 4). */
    double* m = malloc(sizeof(double) * rows * 4);
    double* col = malloc(sizeof(double) * rows);
    for (int i = 0; i < rows * 4; ++i) m[i] = rank * 1e7 + i;
    MPI_Datatype column;
    CHECK_MPI(MPI_Type_vector(rows, 1, 4, MPI_DOUBLE, &column));
    CHECK_MPI(MPI_Type_commit(&column));
    MPI_Request r;
    CHECK_MPI(MPI_Isend(m + 2, 1, column, right, ci, MPI_COMM_WORLD, &r));
    MPI_Status st;
    CHECK_MPI(MPI_Recv(col, rows, MPI_DOUBLE, left, ci, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    for (int i = 0; i < rows; ++i)
      CHECK(col[i] == left * 1e7 + i * 4 + 2, "column element %d of %d", i, rows);
    /* And back: contiguous send into a strided receive. */
    double* m2 = calloc((size_t)rows * 4, sizeof(double));
    CHECK_MPI(MPI_Isend(col, rows, MPI_DOUBLE, left, 100 + ci, MPI_COMM_WORLD, &r));
    CHECK_MPI(MPI_Recv(m2 + 1, 1, column, right, 100 + ci, MPI_COMM_WORLD, &st));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    int elems = -1;
    CHECK_MPI(MPI_Get_elements(&st, MPI_DOUBLE, &elems));
    CHECK(elems == rows, "get_elements %d", elems);
    for (int i = 0; i < rows; ++i) {
      CHECK(m2[i * 4 + 1] == rank * 1e7 + i * 4 + 2, "strided receive %d", i);
      CHECK(m2[i * 4] == 0 && m2[i * 4 + 2] == 0 && m2[i * 4 + 3] == 0, "gap overwritten at row %d",
            i);
    }
    CHECK_MPI(MPI_Type_free(&column));
    free(m);
    free(m2);
    free(col);
  }
  /* A struct {int; double[2]; char} with a resized extent, 777 of them. */
  struct item {
    int a;
    double b[2];
    char c;
  };
  int bl[3] = {1, 2, 1};
  MPI_Aint disp[3] = {offsetof(struct item, a), offsetof(struct item, b), offsetof(struct item, c)};
  MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, st_t, item_t;
  CHECK_MPI(MPI_Type_create_struct(3, bl, disp, types, &st_t));
  CHECK_MPI(MPI_Type_create_resized(st_t, 0, sizeof(struct item), &item_t));
  CHECK_MPI(MPI_Type_commit(&item_t));
  const int n = 777;
  struct item* s = calloc(n, sizeof *s);
  struct item* d = calloc(n, sizeof *d);
  for (int i = 0; i < n; ++i) {
    s[i].a = rank * 10000 + i;
    s[i].b[0] = i * 0.5;
    s[i].b[1] = -i;
    s[i].c = (char)(i & 0x7f);
  }
  CHECK_MPI(MPI_Sendrecv(s, n, item_t, right, 7, d, n, item_t, left, 7, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  for (int i = 0; i < n; ++i)
    CHECK(d[i].a == left * 10000 + i && d[i].b[0] == i * 0.5 && d[i].b[1] == -i &&
              d[i].c == (char)(i & 0x7f),
          "struct item %d", i);
  /* Indexed blocks of ints. */
  int blens[4] = {2, 1, 3, 1}, idx[4] = {0, 5, 9, 20};
  MPI_Datatype ind;
  CHECK_MPI(MPI_Type_indexed(4, blens, idx, MPI_INT, &ind));
  CHECK_MPI(MPI_Type_commit(&ind));
  int src[21], dst[7];
  for (int i = 0; i < 21; ++i) src[i] = i + rank;
  CHECK_MPI(MPI_Sendrecv(src, 1, ind, right, 8, dst, 7, MPI_INT, left, 8, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  const int expect[7] = {0, 1, 5, 9, 10, 11, 20};
  for (int i = 0; i < 7; ++i) CHECK(dst[i] == expect[i] + left, "indexed %d", i);
  MPI_Type_free(&ind);
  MPI_Type_free(&item_t);
  MPI_Type_free(&st_t);
  free(s);
  free(d);
  test_pass("p2p_datatypes");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
