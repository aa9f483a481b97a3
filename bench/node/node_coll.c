/* Times one blocking collective with one algorithm (forced through the info hint
 * ccmpi_<coll>_algorithm on a duplicate of MPI_COMM_WORLD, or "auto": the built-in rules)
 * at one size: one warm-up call, then ITERS calls; prints the maximum over ranks of the
 * mean time per call in microseconds, as "coll,alg,ranks,bytes,usec".
 *
 * usage: node_coll COLL ALG BYTES [ITERS]
 * COLL: gather gatherv scatter scatterv allgatherv alltoallv reduce_scatter
 *       reduce_scatter_block; BYTES: one rank's block (MPI_INT elements; the v forms give
 *       every rank the same count, reduce_scatter every rank a block of BYTES, so its
 *       vector is ranks x BYTES). Roots are rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4) {
    if (rank == 0) fprintf(stderr, "usage: node_coll COLL ALG BYTES [ITERS]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* coll = argv[1];
  const char* alg = argv[2];
  const long bytes = atol(argv[3]);
  const int iters = argc > 4 ? atoi(argv[4]) : 2;
  const int n = (int)(bytes / 4);
  int* a = calloc((size_t)n * size + 1, sizeof(int));
  int* b = calloc((size_t)n * size + 1, sizeof(int));
  int* counts = malloc(sizeof(int) * size);
  int* displs = malloc(sizeof(int) * size);
  for (int i = 0; i < size; ++i) counts[i] = n, displs[i] = i * n;
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  if (strcmp(alg, "auto") != 0) {
    MPI_Info info;
    char key[160];
    MPI_Info_create(&info);
    snprintf(key, sizeof key, "ccmpi_%s_algorithm", coll);
    MPI_Info_set(info, key, alg);
    MPI_Comm_set_info(c, info);
    MPI_Info_free(&info);
  }
  double t0 = 0;
  for (int it = -1; it < iters; ++it) {
    if (it == 0) {
      MPI_Barrier(c);
      t0 = MPI_Wtime();
    }
    int rc = MPI_SUCCESS;
    if (!strcmp(coll, "gather"))
      rc = MPI_Gather(a, n, MPI_INT, b, n, MPI_INT, 0, c);
    else if (!strcmp(coll, "gatherv"))
      rc = MPI_Gatherv(a, n, MPI_INT, b, counts, displs, MPI_INT, 0, c);
    else if (!strcmp(coll, "scatter"))
      rc = MPI_Scatter(a, n, MPI_INT, b, n, MPI_INT, 0, c);
    else if (!strcmp(coll, "scatterv"))
      rc = MPI_Scatterv(a, counts, displs, MPI_INT, b, n, MPI_INT, 0, c);
    else if (!strcmp(coll, "allgatherv"))
      rc = MPI_Allgatherv(a, n, MPI_INT, b, counts, displs, MPI_INT, c);
    else if (!strcmp(coll, "alltoallv"))
      rc = MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, c);
    else if (!strcmp(coll, "reduce_scatter"))
      rc = MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, c);
    else if (!strcmp(coll, "reduce_scatter_block"))
      rc = MPI_Reduce_scatter_block(a, b, n, MPI_INT, MPI_SUM, c);
    else
      MPI_Abort(MPI_COMM_WORLD, 3);
    if (rc != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 4);
  }
  double mean = (MPI_Wtime() - t0) / iters, worst = 0;
  MPI_Reduce(&mean, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, c);
  if (rank == 0) printf("%s,%s,%d,%ld,%.1f\n", coll, alg, size, bytes, worst * 1e6);
  MPI_Comm_free(&c);
  free(a), free(b), free(counts), free(displs);
  MPI_Finalize();
  return 0;
}
