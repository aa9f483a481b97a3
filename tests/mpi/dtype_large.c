/* Large datatypes and the MPI-4.0 large-count datatype functions: a vector of more than
 * INT_MAX 16-byte blocks commits at once and reports its size, extent and envelope in
 * MPI_Count; a partial receive into it fills only the first blocks (eager and
 * rendezvous sizes) and Get_elements_c/Get_count_c count them; a count-0 send of it moves
 * nothing; every _c constructor builds the type its int twin builds, with the MPI-4
 * envelope (large counts); Pack_c/Unpack_c/Pack_external_c round trips. */
#include <limits.h>
#include <string.h>

#include "check.h"

static void expectSameLayout(MPI_Datatype a, MPI_Datatype b, const char* what) {
  MPI_Count sa, sb, la, lb, ea, eb, tla, tlb, tea, teb;
  CHECK_MPI(MPI_Type_commit(&a));
  CHECK_MPI(MPI_Type_commit(&b));
  CHECK_MPI(MPI_Type_size_c(a, &sa));
  CHECK_MPI(MPI_Type_size_c(b, &sb));
  CHECK_MPI(MPI_Type_get_extent_c(a, &la, &ea));
  CHECK_MPI(MPI_Type_get_extent_c(b, &lb, &eb));
  CHECK_MPI(MPI_Type_get_true_extent_c(a, &tla, &tea));
  CHECK_MPI(MPI_Type_get_true_extent_c(b, &tlb, &teb));
  CHECK(sa == sb && la == lb && ea == eb && tla == tlb && tea == teb,
        "%s: size %lld/%lld lb %lld/%lld extent %lld/%lld true %lld,%lld/%lld,%lld", what, sa, sb,
        la, lb, ea, eb, tla, tea, tlb, teb);
  /* Same data: pack a pattern through both. */
  MPI_Count ps;
  CHECK_MPI(MPI_Pack_size_c(1, a, MPI_COMM_WORLD, &ps));
  CHECK(ps == sa, "%s: pack size %lld", what, ps);
  unsigned char src[4096], pa[4096], pb[4096];
  for (int i = 0; i < 4096; ++i) src[i] = (unsigned char)(i * 7 + 3);
  MPI_Count pos_a = 0, pos_b = 0;
  CHECK_MPI(MPI_Pack_c(src + 1024, 1, a, pa, sizeof pa, &pos_a, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Pack_c(src + 1024, 1, b, pb, sizeof pb, &pos_b, MPI_COMM_WORLD));
  CHECK(pos_a == sa && pos_b == sb && memcmp(pa, pb, (size_t)sa) == 0, "%s: packed data differ",
        what);
}

static void envelope(MPI_Datatype t, MPI_Count ni, MPI_Count na, MPI_Count nc, MPI_Count nd,
                     int comb, const char* what) {
  MPI_Count gi, ga, gc, gd;
  int gcomb;
  CHECK_MPI(MPI_Type_get_envelope_c(t, &gi, &ga, &gc, &gd, &gcomb));
  CHECK(gi == ni && ga == na && gc == nc && gd == nd && gcomb == comb,
        "%s: envelope %lld %lld %lld %lld %d", what, gi, ga, gc, gd, gcomb);
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  /* --- a huge strided type: more blocks than INT_MAX --- */
  MPI_Datatype pair, huge;
  CHECK_MPI(MPI_Type_contiguous(2, MPI_DOUBLE, &pair));
  const MPI_Count n = (MPI_Count)INT_MAX * 2 + 5;
  double t0 = MPI_Wtime();
  CHECK_MPI(MPI_Type_vector_c(n, 1, 3, pair, &huge));
  CHECK_MPI(MPI_Type_commit(&huge));
  double dt = MPI_Wtime() - t0;
  CHECK(dt < 0.5, "commit of a vector of %lld blocks took %.3f s", n, dt);
  MPI_Count sz, lb, ext;
  CHECK_MPI(MPI_Type_size_c(huge, &sz));
  CHECK(sz == n * 16, "size %lld", sz);
  int isz = 0;
  CHECK_MPI(MPI_Type_size(huge, &isz));
  CHECK(isz == MPI_UNDEFINED, "int size %d", isz);
  CHECK_MPI(MPI_Type_get_extent_c(huge, &lb, &ext));
  CHECK(lb == 0 && ext == ((n - 1) * 3 + 1) * 16, "extent %lld %lld", lb, ext);
  CHECK_MPI(MPI_Type_get_true_extent_c(huge, &lb, &ext));
  CHECK(lb == 0 && ext == ((n - 1) * 3 + 1) * 16, "true extent %lld %lld", lb, ext);
  envelope(huge, 0, 0, 3, 1, MPI_COMBINER_VECTOR, "vector_c");
  {
    MPI_Count counts[3];
    MPI_Datatype types[1];
    CHECK_MPI(MPI_Type_get_contents_c(huge, 0, 0, 3, 1, NULL, NULL, counts, types));
    CHECK(counts[0] == n && counts[1] == 1 && counts[2] == 3, "contents %lld %lld %lld", counts[0],
          counts[1], counts[2]);
    MPI_Count ci, ca, cc, cd;
    int comb;
    CHECK_MPI(MPI_Type_get_envelope_c(types[0], &ci, &ca, &cc, &cd, &comb));
    CHECK(comb == MPI_COMBINER_CONTIGUOUS && ci == 1 && cc == 0, "old type envelope");
    MPI_Type_free(&types[0]);
    /* The int envelope cannot describe large counts. */
    int ni, na, nd;
    int rc = MPI_Type_get_envelope(huge, &ni, &na, &nd, &comb);
    int cls = 0;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE, "int envelope of a _c type: class %d", cls);
  }

  /* Count 0 of it moves nothing. */
  if (size >= 2 && rank < 2) {
    MPI_Status st;
    double dummy = 0;
    if (rank == 0) {
      CHECK_MPI(MPI_Send(&dummy, 0, huge, 1, 1, MPI_COMM_WORLD));
    } else {
      CHECK_MPI(MPI_Recv(&dummy, 0, huge, 0, 1, MPI_COMM_WORLD, &st));
      MPI_Count c;
      CHECK_MPI(MPI_Get_count_c(&st, huge, &c));
      CHECK(c == 0, "count-0 receive counted %lld", c);
    }
  }

  /* Partial receives into one element of it: the first k blocks (eager, rendezvous). */
  const int ks[] = {8, 100000};
  for (int i = 0; i < 2 && size >= 2 && rank < 2; ++i) {
    const int k = ks[i];
    if (rank == 0) {
      double* src = malloc(sizeof(double) * 2 * k);
      for (int j = 0; j < 2 * k; ++j) src[j] = j + 0.25;
      CHECK_MPI(MPI_Send(src, 2 * k, MPI_DOUBLE, 1, 2 + i, MPI_COMM_WORLD));
      free(src);
    } else {
      double* dst = malloc(sizeof(double) * 6 * k);
      for (int j = 0; j < 6 * k; ++j) dst[j] = -1;
      MPI_Status st;
      CHECK_MPI(MPI_Recv(dst, 1, huge, 0, 2 + i, MPI_COMM_WORLD, &st));
      for (int j = 0; j < 6 * k; ++j) {
        const double want = j % 6 < 2 ? (j / 6) * 2 + j % 6 + 0.25 : -1;
        CHECK(dst[j] == want, "k=%d: dst[%d] = %g, want %g", k, j, dst[j], want);
      }
      MPI_Count c, e;
      CHECK_MPI(MPI_Get_count_c(&st, huge, &c));
      CHECK_MPI(MPI_Get_elements_c(&st, huge, &e));
      CHECK(c == MPI_UNDEFINED && e == 2 * k, "k=%d: count %lld elements %lld", k, c, e);
      CHECK_MPI(MPI_Get_count_c(&st, pair, &c));
      CHECK(c == k, "k=%d: %lld pairs", k, c);
      free(dst);
    }
  }

  /* --- every _c constructor against its int twin --- */
  MPI_Datatype a, b;
  CHECK_MPI(MPI_Type_contiguous_c(5, pair, &a));
  CHECK_MPI(MPI_Type_contiguous(5, pair, &b));
  expectSameLayout(a, b, "contiguous");
  envelope(a, 0, 0, 1, 1, MPI_COMBINER_CONTIGUOUS, "contiguous_c");
  envelope(b, 1, 0, 0, 1, MPI_COMBINER_CONTIGUOUS, "contiguous");
  MPI_Type_free(&a);
  MPI_Type_free(&b);

  CHECK_MPI(MPI_Type_create_hvector_c(4, 2, 40, MPI_INT, &a));
  CHECK_MPI(MPI_Type_create_hvector(4, 2, 40, MPI_INT, &b));
  expectSameLayout(a, b, "hvector");
  envelope(a, 0, 0, 3, 1, MPI_COMBINER_HVECTOR, "hvector_c");
  envelope(b, 2, 1, 0, 1, MPI_COMBINER_HVECTOR, "hvector");
  MPI_Type_free(&a);
  MPI_Type_free(&b);

  {
    const MPI_Count bl[3] = {2, 1, 3}, disp[3] = {10, 0, 30};
    const int ibl[3] = {2, 1, 3}, idisp[3] = {10, 0, 30};
    const MPI_Aint adisp[3] = {10, 0, 30};
    CHECK_MPI(MPI_Type_indexed_c(3, bl, disp, MPI_SHORT, &a));
    CHECK_MPI(MPI_Type_indexed(3, ibl, idisp, MPI_SHORT, &b));
    expectSameLayout(a, b, "indexed");
    envelope(a, 0, 0, 7, 1, MPI_COMBINER_INDEXED, "indexed_c");
    MPI_Count counts[7];
    MPI_Datatype ty[1];
    CHECK_MPI(MPI_Type_get_contents_c(a, 0, 0, 7, 1, NULL, NULL, counts, ty));
    CHECK(counts[0] == 3 && counts[1] == 2 && counts[4] == 10 && counts[6] == 30,
          "indexed_c contents");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    CHECK_MPI(MPI_Type_create_hindexed_c(3, bl, disp, MPI_SHORT, &a));
    CHECK_MPI(MPI_Type_create_hindexed(3, ibl, adisp, MPI_SHORT, &b));
    expectSameLayout(a, b, "hindexed");
    envelope(a, 0, 0, 7, 1, MPI_COMBINER_HINDEXED, "hindexed_c");
    envelope(b, 4, 3, 0, 1, MPI_COMBINER_HINDEXED, "hindexed");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    CHECK_MPI(MPI_Type_create_indexed_block_c(3, 2, disp, MPI_INT, &a));
    CHECK_MPI(MPI_Type_create_indexed_block(3, 2, idisp, MPI_INT, &b));
    expectSameLayout(a, b, "indexed_block");
    envelope(a, 0, 0, 5, 1, MPI_COMBINER_INDEXED_BLOCK, "indexed_block_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    CHECK_MPI(MPI_Type_create_hindexed_block_c(3, 2, disp, MPI_INT, &a));
    CHECK_MPI(MPI_Type_create_hindexed_block(3, 2, adisp, MPI_INT, &b));
    expectSameLayout(a, b, "hindexed_block");
    envelope(a, 0, 0, 5, 1, MPI_COMBINER_HINDEXED_BLOCK, "hindexed_block_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    const MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, pair};
    CHECK_MPI(MPI_Type_create_struct_c(3, bl, disp, types, &a));
    CHECK_MPI(MPI_Type_create_struct(3, ibl, adisp, types, &b));
    expectSameLayout(a, b, "struct");
    envelope(a, 0, 0, 7, 3, MPI_COMBINER_STRUCT, "struct_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
  }
  {
    const MPI_Count sizes[2] = {10, 12}, subs[2] = {3, 4}, starts[2] = {2, 5};
    const int isizes[2] = {10, 12}, isubs[2] = {3, 4}, istarts[2] = {2, 5};
    CHECK_MPI(MPI_Type_create_subarray_c(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &a));
    CHECK_MPI(MPI_Type_create_subarray(2, isizes, isubs, istarts, MPI_ORDER_C, MPI_INT, &b));
    expectSameLayout(a, b, "subarray");
    envelope(a, 2, 0, 6, 1, MPI_COMBINER_SUBARRAY, "subarray_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    const MPI_Count gs[2] = {9, 7};
    const int igs[2] = {9, 7}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
              dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 2};
    CHECK_MPI(MPI_Type_create_darray_c(4, 3, 2, gs, dist, dargs, ps, MPI_ORDER_C, MPI_BYTE, &a));
    CHECK_MPI(MPI_Type_create_darray(4, 3, 2, igs, dist, dargs, ps, MPI_ORDER_C, MPI_BYTE, &b));
    expectSameLayout(a, b, "darray");
    envelope(a, 10, 0, 2, 1, MPI_COMBINER_DARRAY, "darray_c");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
    CHECK_MPI(MPI_Type_create_resized_c(pair, -8, 40, &a));
    CHECK_MPI(MPI_Type_create_resized(pair, -8, 40, &b));
    expectSameLayout(a, b, "resized");
    envelope(a, 0, 0, 2, 1, MPI_COMBINER_RESIZED, "resized_c");
    envelope(b, 0, 2, 0, 1, MPI_COMBINER_RESIZED, "resized");
    MPI_Type_free(&a);
    MPI_Type_free(&b);
  }

  /* --- Pack_c / Unpack_c / external32 round trips of a strided type --- */
  {
    MPI_Datatype v;
    CHECK_MPI(MPI_Type_vector_c(1000, 1, 2, MPI_DOUBLE, &v));
    CHECK_MPI(MPI_Type_commit(&v));
    double src[2000], back[2000], packed[1000];
    for (int i = 0; i < 2000; ++i) {
      src[i] = i * 1.5;
      back[i] = -1;
    }
    MPI_Count pos = 0;
    CHECK_MPI(MPI_Pack_c(src, 1, v, packed, sizeof packed, &pos, MPI_COMM_WORLD));
    CHECK(pos == 8000, "pack position %lld", pos);
    for (int i = 0; i < 1000; ++i) CHECK(packed[i] == src[2 * i], "packed[%d]", i);
    pos = 0;
    CHECK_MPI(MPI_Unpack_c(packed, sizeof packed, &pos, back, 1, v, MPI_COMM_WORLD));
    for (int i = 0; i < 2000; ++i) CHECK(back[i] == (i % 2 ? -1 : src[i]), "unpacked[%d]", i);
    MPI_Count es;
    CHECK_MPI(MPI_Pack_external_size_c("external32", 1, v, &es));
    CHECK(es == 8000, "external size %lld", es);
    unsigned char ext[8000];
    pos = 0;
    CHECK_MPI(MPI_Pack_external_c("external32", src, 1, v, ext, sizeof ext, &pos));
    CHECK(pos == 8000 && ext[0] == 0 && ext[8 * 1 + 0] == 0x40, "external32 big-endian");
    for (int i = 0; i < 2000; ++i) back[i] = -1;
    pos = 0;
    CHECK_MPI(MPI_Unpack_external_c("external32", ext, sizeof ext, &pos, back, 1, v));
    for (int i = 0; i < 2000; ++i) CHECK(back[i] == (i % 2 ? -1 : src[i]), "external[%d]", i);
    MPI_Status st;
    CHECK_MPI(MPI_Status_set_elements_c(&st, v, 1500));
    MPI_Count e;
    CHECK_MPI(MPI_Get_elements_c(&st, v, &e));
    CHECK(e == 1500, "set/get elements %lld", e);
    MPI_Type_free(&v);
  }

  MPI_Type_free(&huge);
  MPI_Type_free(&pair);
  MPI_Barrier(MPI_COMM_WORLD);
  test_pass("dtype_large");
  MPI_Finalize();
  return 0;
}
