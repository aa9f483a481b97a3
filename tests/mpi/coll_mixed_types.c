/* Collectives whose ranks describe the same data with different datatypes (equal type
 * signatures, different element sizes and layouts), which the matrix does not cover:
 * the root uses contiguous(3, MPI_INT) x k, odd ranks MPI_INT x 3k, other ranks a gapped
 * type of 3 ints in 4 (holes must stay untouched) x k. Every algorithm of bcast/ibcast
 * and of the (i)gather(v) and (i)scatter(v) tables is forced in turn through the info
 * hint, roots 0 and n-1, k from 1 to above the pipeline segment (run with
 * CCMPI_BCAST_SEGMENT not a multiple of 12 so pipelined broadcasts cut inside elements). */
#include <stdio.h>

#include "coll_util.h"

static MPI_Datatype g_c3, g_gap3;
static const int kKs[] = {1, 5, 333, 30000};

/* This rank's view: type and count for k triples, and where int j of the data lives. */
static MPI_Datatype my_type(int root, int k, int* count) {
  if (g_rank == root) {
    *count = k;
    return g_c3;
  }
  if (g_rank % 2) {
    *count = 3 * k;
    return MPI_INT;
  }
  *count = k;
  return g_gap3;
}
static long at(int root, long j) {
  return (g_rank != root && g_rank % 2 == 0) ? (j / 3) * 4 + j % 3 : j;
}
static int gapped(int root) {
  return g_rank != root && g_rank % 2 == 0;
}

static MPI_Comm forced(const char* table, const char* alg) {
  MPI_Comm c;
  MPI_Info info;
  char key[64];
  snprintf(key, sizeof key, "ccmpi_%s_algorithm", table);
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_set(info, key, alg));
  CHECK_MPI(MPI_Comm_set_info(c, info));
  CHECK_MPI(MPI_Info_free(&info));
  return c;
}

static void t_bcast(const char* table, const char* alg, int nb) {
  MPI_Comm c = forced(table, alg);
  for (int root = 0; root<g_size; root += g_size> 1 ? g_size - 1 : 1) {
    for (int ki = 0; ki < 4; ++ki) {
      const int k = kKs[ki];
      int count;
      MPI_Datatype t = my_type(root, k, &count);
      int* b = ialloc((size_t)4 * k, SENTINEL);
      if (g_rank == root)
        for (long j = 0; j < 3L * k; ++j) b[j] = val(root, j);
      if (nb) {
        MPI_Request rq;
        CHECK_MPI(MPI_Ibcast(b, count, t, root, c, &rq));
        CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
      } else {
        CHECK_MPI(MPI_Bcast(b, count, t, root, c));
      }
      for (long j = 0; j < 3L * k; ++j)
        CHECK(b[at(root, j)] == val(root, j), "%s %s root %d k %d: int %ld is %d", table, alg, root,
              k, j, b[at(root, j)]);
      if (gapped(root))
        for (long i = 0; i < k; ++i)
          CHECK(b[4 * i + 3] == SENTINEL, "%s %s: hole %ld written", table, alg, i);
      free(b);
    }
  }
  CHECK_MPI(MPI_Comm_free(&c));
}

/* Gather (gather = 1) or scatter, the v variants when vv (every count k, block p at
 * displacement p*k): the root's side is contiguous(3) x k per rank. */
static void t_gs(const char* table, const char* alg, int nb, int gather, int vv) {
  MPI_Comm c = forced(table, alg);
  for (int root = 0; root<g_size; root += g_size> 1 ? g_size - 1 : 1) {
    for (int ki = 0; ki < 3; ++ki) {
      const int k = kKs[ki];
      int count;
      MPI_Datatype t = my_type(root, k, &count);
      int* mine = ialloc((size_t)4 * k, SENTINEL);
      int* all = ialloc((size_t)3 * k * g_size, SENTINEL);
      if (gather) {
        for (long j = 0; j < 3L * k; ++j) mine[at(root, j)] = val(g_rank, j);
      } else if (g_rank == root) {
        for (int p = 0; p < g_size; ++p)
          for (long j = 0; j < 3L * k; ++j) all[3L * k * p + j] = val(p, j);
      }
      int* ks = (int*)xmalloc(sizeof(int) * g_size);
      int* ds = (int*)xmalloc(sizeof(int) * g_size);
      for (int p = 0; p < g_size; ++p) {
        ks[p] = k;
        ds[p] = p * k;
      }
      MPI_Request rq;
      if (vv && gather && nb)
        CHECK_MPI(MPI_Igatherv(mine, count, t, all, ks, ds, g_c3, root, c, &rq));
      else if (vv && gather)
        CHECK_MPI(MPI_Gatherv(mine, count, t, all, ks, ds, g_c3, root, c));
      else if (vv && nb)
        CHECK_MPI(MPI_Iscatterv(all, ks, ds, g_c3, mine, count, t, root, c, &rq));
      else if (vv)
        CHECK_MPI(MPI_Scatterv(all, ks, ds, g_c3, mine, count, t, root, c));
      else if (gather && nb)
        CHECK_MPI(MPI_Igather(mine, count, t, all, k, g_c3, root, c, &rq));
      else if (gather)
        CHECK_MPI(MPI_Gather(mine, count, t, all, k, g_c3, root, c));
      else if (nb)
        CHECK_MPI(MPI_Iscatter(all, k, g_c3, mine, count, t, root, c, &rq));
      else
        CHECK_MPI(MPI_Scatter(all, k, g_c3, mine, count, t, root, c));
      if (nb) CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
      if (gather && g_rank == root) {
        for (int p = 0; p < g_size; ++p)
          for (long j = 0; j < 3L * k; ++j)
            CHECK(all[3L * k * p + j] == val(p, j), "%s %s root %d k %d: rank %d int %ld", table,
                  alg, root, k, p, j);
      } else if (!gather) {
        for (long j = 0; j < 3L * k; ++j)
          CHECK(mine[at(root, j)] == val(g_rank, j), "%s %s root %d k %d: int %ld", table, alg,
                root, k, j);
      }
      if (gapped(root) && !gather)
        for (long i = 0; i < k; ++i)
          CHECK(mine[4 * i + 3] == SENTINEL, "%s %s: hole %ld written", table, alg, i);
      free(mine);
      free(all);
      free(ks);
      free(ds);
    }
  }
  CHECK_MPI(MPI_Comm_free(&c));
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  MPI_Datatype v;
  CHECK_MPI(MPI_Type_contiguous(3, MPI_INT, &g_c3));
  CHECK_MPI(MPI_Type_commit(&g_c3));
  CHECK_MPI(MPI_Type_vector(1, 3, 3, MPI_INT, &v));
  CHECK_MPI(MPI_Type_create_resized(v, 0, 4 * (MPI_Aint)sizeof(int), &g_gap3));
  CHECK_MPI(MPI_Type_commit(&g_gap3));
  CHECK_MPI(MPI_Type_free(&v));
  const char* bcasts[] = {"binomial",
                          "linear",
                          "chain",
                          "binary_tree",
                          "scatter_rd_allgather",
                          "scatter_ring_allgather"};
  for (int i = 0; i < 6; ++i) {
    /* scatter_rd_allgather needs a power-of-two size: forcing it elsewhere falls through. */
    t_bcast("bcast", bcasts[i], 0);
    t_bcast("ibcast", bcasts[i], 1);
  }
  const char* trees[] = {"linear", "binomial"};
  for (int i = 0; i < 2; ++i) {
    for (int vv = 0; vv < 2; ++vv) {
      char name[32];
      snprintf(name, sizeof name, "gather%s", vv ? "v" : "");
      t_gs(name, trees[i], 0, 1, vv);
      snprintf(name, sizeof name, "igather%s", vv ? "v" : "");
      t_gs(name, trees[i], 1, 1, vv);
      snprintf(name, sizeof name, "scatter%s", vv ? "v" : "");
      t_gs(name, trees[i], 0, 0, vv);
      snprintf(name, sizeof name, "iscatter%s", vv ? "v" : "");
      t_gs(name, trees[i], 1, 0, vv);
    }
  }
  CHECK_MPI(MPI_Type_free(&g_c3));
  CHECK_MPI(MPI_Type_free(&g_gap3));
  test_pass("coll_mixed_types");
  MPI_Finalize();
  return 0;
}
