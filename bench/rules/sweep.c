/* Times every algorithm of the blocking collectives at a range of message sizes, on the
 * communicator MPI_COMM_WORLD is: each algorithm is forced through the info hint
 * ccmpi_<coll>_algorithm on a duplicate of it. One CSV line per (collective, algorithm,
 * bytes): the time per call in microseconds, the maximum over ranks of each rank's mean
 * over the iterations (after one warm-up call).
 *
 * usage: sweep CCMPI_INFO MAX_BYTES [SECONDS_PER_CELL] [COLL...]
 * bytes = the whole buffer (bcast, reduce, allreduce) or one rank's block (gather,
 * scatter, allgather, alltoall, reduce_scatter_block). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* kColls[] = {"barrier", "bcast",     "reduce",   "allreduce",           "gather",
                               "scatter", "allgather", "alltoall", "reduce_scatter_block"};
#define NCOLLS (int)(sizeof kColls / sizeof kColls[0])

static int rank, size;

static char* algorithm_list(const char* info) {
  int len = 0;
  char* text = NULL;
  if (rank == 0) {
    char cmd[1024], line[1024], table[128] = "", word[128];
    snprintf(cmd, sizeof cmd, "%s --algorithms", info);
    FILE* f = popen(cmd, "r");
    if (!f) MPI_Abort(MPI_COMM_WORLD, 2);
    size_t cap = 1 << 16, used = 0;
    text = calloc(cap, 1);
    while (fgets(line, sizeof line, f)) {
      if (line[0] == ' ' && line[1] == ' ' && line[2] != ' ') {
        if (sscanf(line, "%127s", table) != 1) table[0] = 0;
      } else if (!strncmp(line, "    ", 4) && line[4] != ' ' && table[0]) {
        if (sscanf(line, "%127s", word) != 1 || !strncmp(word, "rules", 5)) continue;
        if (used + 300 < cap) used += (size_t)sprintf(text + used, "%s %s\n", table, word);
      }
    }
    pclose(f);
    len = (int)used + 1;
  }
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank != 0) text = calloc((size_t)len, 1);
  MPI_Bcast(text, len, MPI_CHAR, 0, MPI_COMM_WORLD);
  return text;
}

static void run(const char* coll, MPI_Comm c, long bytes, char* a, char* b) {
  const int n = (int)(bytes / 4);
  if (!strcmp(coll, "barrier"))
    MPI_Barrier(c);
  else if (!strcmp(coll, "bcast"))
    MPI_Bcast(a, n, MPI_INT, 0, c);
  else if (!strcmp(coll, "reduce"))
    MPI_Reduce(a, b, n, MPI_INT, MPI_SUM, 0, c);
  else if (!strcmp(coll, "allreduce"))
    MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, c);
  else if (!strcmp(coll, "gather"))
    MPI_Gather(a, n, MPI_INT, b, n, MPI_INT, 0, c);
  else if (!strcmp(coll, "scatter"))
    MPI_Scatter(a, n, MPI_INT, b, n, MPI_INT, 0, c);
  else if (!strcmp(coll, "allgather"))
    MPI_Allgather(a, n, MPI_INT, b, n, MPI_INT, c);
  else if (!strcmp(coll, "alltoall"))
    MPI_Alltoall(a, n, MPI_INT, b, n, MPI_INT, c);
  else if (!strcmp(coll, "reduce_scatter_block"))
    MPI_Reduce_scatter_block(a, b, n, MPI_INT, MPI_SUM, c);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: sweep CCMPI_INFO MAX_BYTES [SECONDS] [COLL...]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const long maxBytes = atol(argv[2]);
  const double budget = argc > 3 ? atof(argv[3]) : 0.1;
  char* list = algorithm_list(argv[1]);
  /* buffers for the largest case: n blocks of maxBytes */
  const size_t cap = (size_t)maxBytes * (size_t)size + 64;
  char* a = calloc(cap, 1);
  char* b = calloc(cap, 1);
  if (rank == 0) printf("collective,ranks,bytes,algorithm,usec\n");
  char* save = NULL;
  for (char* line = strtok_r(list, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char table[128], alg[128];
    if (sscanf(line, "%127s %127s", table, alg) != 2) continue;
    int want = 0;
    for (int k = 0; k < NCOLLS; ++k) want |= !strcmp(table, kColls[k]);
    if (argc > 4) {
      int listed = 0;
      for (int k = 4; k < argc; ++k) listed |= !strcmp(argv[k], table);
      want &= listed;
    }
    if (!want) continue;
    MPI_Comm c;
    MPI_Info info;
    char key[160];
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Info_create(&info);
    snprintf(key, sizeof key, "ccmpi_%s_algorithm", table);
    MPI_Info_set(info, key, alg);
    MPI_Comm_set_info(c, info);
    MPI_Info_free(&info);
    for (long bytes = 8; bytes <= maxBytes; bytes *= 8) {
      if (!strcmp(table, "barrier") && bytes > 8) break;
      run(table, c, bytes, a, b); /* warm-up (connections, buffers) */
      int iters = 0, go = 1;
      double t0 = MPI_Wtime();
      while (go) {
        run(table, c, bytes, a, b);
        ++iters;
        /* every rank stops after the same iteration: rank 0 decides */
        if (iters % 2 == 0 || iters == 1) {
          go = iters < 1000 && MPI_Wtime() - t0 < budget;
          MPI_Bcast(&go, 1, MPI_INT, 0, c);
        }
      }
      double mean = (MPI_Wtime() - t0) / iters, worst = 0;
      MPI_Reduce(&mean, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, c);
      if (rank == 0) printf("%s,%d,%ld,%s,%.1f\n", table, size, bytes, alg, worst * 1e6);
      fflush(stdout);
    }
    MPI_Comm_free(&c);
  }
  free(a);
  free(b);
  free(list);
  MPI_Finalize();
  return 0;
}
