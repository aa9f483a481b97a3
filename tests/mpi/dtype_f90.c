/* MPI_Type_create_f90_real/complex/integer: the kind chosen for the precision and range,
 * the envelope (MPI_COMBINER_F90_*) and contents, one handle per argument set, the type
 * cannot be freed, it carries data and reductions like the matching REAL/INTEGER type,
 * and impossible kinds are refused with MPI_ERR_ARG. */
#include <string.h>

#include "check.h"

static void check_envelope(MPI_Datatype t, int combiner, int nints, int p, int r) {
  int ni, na, nd, comb;
  CHECK_MPI(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
  CHECK(comb == combiner && ni == nints && na == 0 && nd == 0,
        "envelope: combiner %d ints %d addrs %d types %d", comb, ni, na, nd);
  int ints[2] = {-7, -7};
  MPI_Aint addr;
  MPI_Datatype types[1];
  CHECK_MPI(MPI_Type_get_contents(t, 2, 0, 0, ints, &addr, types));
  if (nints == 2) {
    CHECK(ints[0] == p && ints[1] == r, "contents %d %d, expected %d %d", ints[0], ints[1], p, r);
  } else {
    CHECK(ints[0] == r, "contents %d, expected %d", ints[0], r);
  }
}

static int size_of(MPI_Datatype t) {
  int s = -1;
  CHECK_MPI(MPI_Type_size(t, &s));
  return s;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  MPI_Datatype r4, r8, r8again, r16, c8, c16, i1, i4, i8;
  CHECK_MPI(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &r4));
  CHECK_MPI(MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &r8));
  CHECK_MPI(MPI_Type_create_f90_real(MPI_UNDEFINED, 300, &r8again));
  CHECK_MPI(MPI_Type_create_f90_real(30, 1000, &r16));
  CHECK_MPI(MPI_Type_create_f90_complex(3, 10, &c8));
  CHECK_MPI(MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &c16));
  CHECK_MPI(MPI_Type_create_f90_integer(2, &i1));
  CHECK_MPI(MPI_Type_create_f90_integer(9, &i4));
  CHECK_MPI(MPI_Type_create_f90_integer(18, &i8));
  CHECK(size_of(r4) == 4 && size_of(r8) == 8 && size_of(r16) == 16, "real sizes %d %d %d",
        size_of(r4), size_of(r8), size_of(r16));
  CHECK(size_of(c8) == 8 && size_of(c16) == 16, "complex sizes %d %d", size_of(c8), size_of(c16));
  CHECK(size_of(i1) == 1 && size_of(i4) == 4 && size_of(i8) == 8, "integer sizes %d %d %d",
        size_of(i1), size_of(i4), size_of(i8));
  CHECK(r8 == r8again, "the same arguments gave two handles");
  check_envelope(r4, MPI_COMBINER_F90_REAL, 2, 6, MPI_UNDEFINED);
  check_envelope(c16, MPI_COMBINER_F90_COMPLEX, 2, 15, MPI_UNDEFINED);
  check_envelope(i4, MPI_COMBINER_F90_INTEGER, 1, 0, 9);

  MPI_Datatype t = r8;
  CHECK(MPI_Type_free(&t) != MPI_SUCCESS && t == r8, "an f90 type was freed");

  /* Data and reductions as the matching types. */
  double in[3] = {1.5, 2.5, -4}, out[3] = {10, 20, 30};
  CHECK_MPI(MPI_Reduce_local(in, out, 3, r8, MPI_SUM));
  CHECK(out[0] == 11.5 && out[1] == 22.5 && out[2] == 26, "reduce_local %g %g %g", out[0], out[1],
        out[2]);
  int vals[4] = {rank, 2 * rank, 3, 4}, sums[4];
  CHECK_MPI(MPI_Allreduce(vals, sums, 4, i4, MPI_SUM, MPI_COMM_WORLD));
  const int tri = size * (size - 1) / 2;
  CHECK(sums[0] == tri && sums[1] == 2 * tri && sums[2] == 3 * size && sums[3] == 4 * size,
        "allreduce %d %d %d %d", sums[0], sums[1], sums[2], sums[3]);
  float f[2] = {(float)rank, 0.25f};
  CHECK_MPI(MPI_Bcast(f, 2, r4, 0, MPI_COMM_WORLD));
  CHECK(f[0] == 0.0f && f[1] == 0.25f, "bcast %g %g", f[0], f[1]);

  /* Kinds that do not exist. */
  MPI_Datatype bad = MPI_DATATYPE_NULL;
  int rc = MPI_Type_create_f90_real(40, MPI_UNDEFINED, &bad), cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG && bad == MPI_DATATYPE_NULL, "real(40): class %d", cls);
  rc = MPI_Type_create_f90_complex(MPI_UNDEFINED, MPI_UNDEFINED, &bad);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG, "complex(undefined, undefined): class %d", cls);
  rc = MPI_Type_create_f90_integer(19, &bad);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG, "integer(19): class %d", cls);

  test_pass("dtype_f90");
  MPI_Finalize();
  return 0;
}
