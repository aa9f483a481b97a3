/* Nonblocking data-movement collectives, checked element by element: MPI_Ibarrier (no
 * rank leaves before the last one entered), MPI_Ibcast, MPI_Igather(v), MPI_Iscatter(v),
 * MPI_Iallgather(v) and MPI_Ialltoall(v,w), for counts 0, 1, odd and large, two roots, a
 * gapped derived type (holes must stay untouched; also freed while the collective is
 * pending), MPI_IN_PLACE wherever the standard allows it and mixed type pairs (n ints
 * against n/2 gapped elements). The requests are
 * completed by MPI_Wait, MPI_Test loops, MPI_Waitall and MPI_Testany loops in turn. */
#include <unistd.h>

#include "coll_nb_util.h"

static int g_k = 0; /* rotates the completion method */
#define DONE(req, what) complete_req(&(req), g_k++, what)

/* Roots 0 and size-1 (once when they coincide). */
#define FOR_ROOTS(root)                                          \
  for (int ri_ = 0, root = 0; ri_ < 2; ++ri_, root = g_size - 1) \
    if (ri_ == 0 || g_size > 1)

/* Counts of gapped elements (each carries 2 ints). */
static const int kGapCounts[] = {0, 1, 3, 500};
#define NGAP 4

static MPI_Datatype g_gap;

static void check_barrier(void) {
  for (int round = 0; round < 3; ++round) {
    const int late = round % g_size;
    double entered = 0;
    if (g_rank == late) {
      usleep(20000);
      entered = MPI_Wtime();
    }
    MPI_Request req;
    CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    DONE(req, "ibarrier");
    const double left = MPI_Wtime();
    CHECK_MPI(MPI_Bcast(&entered, 1, MPI_DOUBLE, late, MPI_COMM_WORLD));
    CHECK(left >= entered, "ibarrier round %d: left at %.6f before rank %d entered at %.6f", round,
          left, late, entered);
  }
}

static void check_bcast(void) {
  MPI_Request req;
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    const int count = kCounts[ci];
    int* buf = ialloc(count, 0);
    FOR_ROOTS(root) {
      for (int i = 0; i < count; ++i) buf[i] = g_rank == root ? val(root, i) : SENTINEL;
      CHECK_MPI(MPI_Ibcast(buf, count, MPI_INT, root, MPI_COMM_WORLD, &req));
      DONE(req, "ibcast");
      for (int i = 0; i < count; ++i)
        CHECK(buf[i] == val(root, i), "ibcast root %d count %d: element %d is %d", root, count, i,
              buf[i]);
    }
    free(buf);
  }
  for (int gi = 0; gi < NGAP; ++gi) {
    const int k = kGapCounts[gi];
    int* buf = ialloc(3 * k, SENTINEL);
    FOR_ROOTS(root) {
      fill_int(buf, 3 * k, SENTINEL);
      if (g_rank == root)
        for (int j = 0; j < 2 * k; ++j) buf[gapped_index(j)] = val(root, j);
      /* A type of its own, freed while the broadcast is pending (the standard allows it). */
      MPI_Datatype t = gapped_int_type();
      CHECK_MPI(MPI_Ibcast(buf, k, t, root, MPI_COMM_WORLD, &req));
      CHECK_MPI(MPI_Type_free(&t));
      DONE(req, "ibcast gapped");
      for (int j = 0; j < 2 * k; ++j)
        CHECK(buf[gapped_index(j)] == val(root, j), "gapped ibcast root %d k %d: int %d", root, k,
              j);
      for (int e = 0; e < k; ++e)
        CHECK(buf[3 * e + 1] == SENTINEL, "gapped ibcast wrote into hole %d", e);
    }
    free(buf);
  }
}

static void check_gather(void) {
  MPI_Request req;
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    const int count = kCounts[ci] > 20000 ? 20000 : kCounts[ci];
    int* send = ialloc(count, 0);
    for (int i = 0; i < count; ++i) send[i] = val(g_rank, i);
    int* recv = ialloc((long)count * g_size, SENTINEL);
    FOR_ROOTS(root) {
      fill_int(recv, (long)count * g_size, SENTINEL);
      CHECK_MPI(
          MPI_Igather(send, count, MPI_INT, recv, count, MPI_INT, root, MPI_COMM_WORLD, &req));
      DONE(req, "igather");
      if (g_rank == root)
        for (int p = 0; p < g_size; ++p)
          for (int i = 0; i < count; ++i)
            CHECK(recv[(long)p * count + i] == val(p, i),
                  "igather root %d count %d: block %d elem %d", root, count, p, i);
      /* In place at the root. */
      fill_int(recv, (long)count * g_size, SENTINEL);
      if (g_rank == root) {
        for (int i = 0; i < count; ++i) recv[(long)root * count + i] = val(root, i);
        CHECK_MPI(MPI_Igather(MPI_IN_PLACE, 0, MPI_INT, recv, count, MPI_INT, root, MPI_COMM_WORLD,
                              &req));
      } else {
        CHECK_MPI(MPI_Igather(send, count, MPI_INT, NULL, 0, MPI_INT, root, MPI_COMM_WORLD, &req));
      }
      DONE(req, "igather in place");
      if (g_rank == root)
        for (int p = 0; p < g_size; ++p)
          for (int i = 0; i < count; ++i)
            CHECK(recv[(long)p * count + i] == val(p, i),
                  "in-place igather root %d count %d: block %d", root, count, p);
    }
    free(send);
    free(recv);
  }
  /* 2k ints sent, k gapped elements received per rank. */
  for (int gi = 0; gi < NGAP; ++gi) {
    const int k = kGapCounts[gi];
    int* send = ialloc(2 * k, 0);
    for (int j = 0; j < 2 * k; ++j) send[j] = val(g_rank, j);
    int* recv = ialloc(3L * k * g_size, SENTINEL);
    FOR_ROOTS(root) {
      fill_int(recv, 3L * k * g_size, SENTINEL);
      CHECK_MPI(MPI_Igather(send, 2 * k, MPI_INT, recv, k, g_gap, root, MPI_COMM_WORLD, &req));
      DONE(req, "igather gapped");
      if (g_rank == root)
        for (int p = 0; p < g_size; ++p) {
          for (int j = 0; j < 2 * k; ++j)
            CHECK(recv[3L * k * p + gapped_index(j)] == val(p, j), "gapped igather block %d int %d",
                  p, j);
          for (int e = 0; e < k; ++e)
            CHECK(recv[3L * k * p + 3 * e + 1] == SENTINEL, "gapped igather wrote a hole");
        }
    }
    free(send);
    free(recv);
  }
}

static void check_gatherv(void) {
  MPI_Request req;
  int* counts = ialloc(g_size, 0);
  int* displs = ialloc(g_size, 0);
  for (int ci = 0; ci < NCOUNTS - 1; ++ci) {
    const int base = kCounts[ci];
    for (int p = 0; p < g_size; ++p) {
      counts[p] = vcount(base, p);
      displs[p] = vdispl(base, p, g_size);
    }
    const int total = vtotal(base, g_size);
    const int mine = counts[g_rank];
    int* send = ialloc(mine, 0);
    for (int i = 0; i < mine; ++i) send[i] = val(g_rank, i);
    int* recv = ialloc(total, SENTINEL);
    int* expect = ialloc(total, SENTINEL);
    for (int p = 0; p < g_size; ++p)
      for (int i = 0; i < counts[p]; ++i) expect[displs[p] + i] = val(p, i);
    FOR_ROOTS(root) {
      for (int inplace = 0; inplace < 2; ++inplace) {
        fill_int(recv, total, SENTINEL);
        if (inplace && g_rank == root) {
          for (int i = 0; i < mine; ++i) recv[displs[root] + i] = val(root, i);
          CHECK_MPI(MPI_Igatherv(MPI_IN_PLACE, 0, MPI_INT, recv, counts, displs, MPI_INT, root,
                                 MPI_COMM_WORLD, &req));
        } else {
          CHECK_MPI(MPI_Igatherv(send, mine, MPI_INT, recv, counts, displs, MPI_INT, root,
                                 MPI_COMM_WORLD, &req));
        }
        DONE(req, "igatherv");
        if (g_rank == root)
          for (int i = 0; i < total; ++i)
            CHECK(recv[i] == expect[i],
                  "igatherv root %d base %d in place %d: element %d is %d, want %d", root, base,
                  inplace, i, recv[i], expect[i]);
      }
    }
    free(send);
    free(recv);
    free(expect);
  }
  free(counts);
  free(displs);
}

static void check_scatter(void) {
  MPI_Request req;
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    const int count = kCounts[ci] > 20000 ? 20000 : kCounts[ci];
    int* send = ialloc((long)count * g_size, 0);
    int* recv = ialloc(count, SENTINEL);
    FOR_ROOTS(root) {
      for (int p = 0; p < g_size; ++p)
        for (int i = 0; i < count; ++i) send[(long)p * count + i] = val(p + 7 * root, i);
      fill_int(recv, count, SENTINEL);
      CHECK_MPI(
          MPI_Iscatter(send, count, MPI_INT, recv, count, MPI_INT, root, MPI_COMM_WORLD, &req));
      DONE(req, "iscatter");
      for (int i = 0; i < count; ++i)
        CHECK(recv[i] == val(g_rank + 7 * root, i), "iscatter root %d count %d: element %d", root,
              count, i);
      /* In place at the root: its block stays where it is. */
      fill_int(recv, count, SENTINEL);
      if (g_rank == root)
        CHECK_MPI(MPI_Iscatter(send, count, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, root, MPI_COMM_WORLD,
                               &req));
      else
        CHECK_MPI(MPI_Iscatter(NULL, 0, MPI_INT, recv, count, MPI_INT, root, MPI_COMM_WORLD, &req));
      DONE(req, "iscatter in place");
      const int* got = g_rank == root ? send + (long)root * count : recv;
      for (int i = 0; i < count; ++i)
        CHECK(got[i] == val(g_rank + 7 * root, i), "in-place iscatter root %d count %d: element %d",
              root, count, i);
    }
    free(send);
    free(recv);
  }
  /* k gapped elements sent, 2k ints received per rank. */
  for (int gi = 0; gi < NGAP; ++gi) {
    const int k = kGapCounts[gi];
    int* send = ialloc(3L * k * g_size, SENTINEL);
    for (int p = 0; p < g_size; ++p)
      for (int j = 0; j < 2 * k; ++j) send[3L * k * p + gapped_index(j)] = val(p, j);
    int* recv = ialloc(2 * k, SENTINEL);
    FOR_ROOTS(root) {
      fill_int(recv, 2 * k, SENTINEL);
      CHECK_MPI(MPI_Iscatter(send, k, g_gap, recv, 2 * k, MPI_INT, root, MPI_COMM_WORLD, &req));
      DONE(req, "iscatter gapped");
      for (int j = 0; j < 2 * k; ++j)
        CHECK(recv[j] == val(g_rank, j), "gapped iscatter root %d k %d: int %d", root, k, j);
    }
    free(send);
    free(recv);
  }
}

static void check_scatterv(void) {
  MPI_Request req;
  int* counts = ialloc(g_size, 0);
  int* displs = ialloc(g_size, 0);
  for (int ci = 0; ci < NCOUNTS - 1; ++ci) {
    const int base = kCounts[ci];
    for (int p = 0; p < g_size; ++p) {
      counts[p] = vcount(base, p);
      displs[p] = vdispl(base, p, g_size);
    }
    const int total = vtotal(base, g_size);
    const int mine = counts[g_rank];
    int* send = ialloc(total, SENTINEL);
    for (int p = 0; p < g_size; ++p)
      for (int i = 0; i < counts[p]; ++i) send[displs[p] + i] = val(p, i);
    int* recv = ialloc(mine + 1, SENTINEL);
    FOR_ROOTS(root) {
      for (int inplace = 0; inplace < 2; ++inplace) {
        fill_int(recv, mine + 1, SENTINEL);
        const int atRoot = inplace && g_rank == root;
        CHECK_MPI(MPI_Iscatterv(send, counts, displs, MPI_INT, atRoot ? MPI_IN_PLACE : recv, mine,
                                MPI_INT, root, MPI_COMM_WORLD, &req));
        DONE(req, "iscatterv");
        const int* got = atRoot ? send + displs[root] : recv;
        for (int i = 0; i < mine; ++i)
          CHECK(got[i] == val(g_rank, i), "iscatterv root %d base %d in place %d: element %d", root,
                base, inplace, i);
        CHECK(recv[mine] == SENTINEL, "iscatterv wrote past the block");
      }
    }
    free(send);
    free(recv);
  }
  free(counts);
  free(displs);
}

static void check_allgather(void) {
  MPI_Request req;
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    const int count = kCounts[ci] > 20000 ? 20000 : kCounts[ci];
    const long total = (long)count * g_size;
    int* send = ialloc(count, 0);
    for (int i = 0; i < count; ++i) send[i] = val(g_rank, i);
    int* recv = ialloc(total, SENTINEL);
    for (int inplace = 0; inplace < 2; ++inplace) {
      fill_int(recv, total, SENTINEL);
      if (inplace) {
        for (int i = 0; i < count; ++i) recv[(long)g_rank * count + i] = val(g_rank, i);
        CHECK_MPI(
            MPI_Iallgather(MPI_IN_PLACE, 0, MPI_INT, recv, count, MPI_INT, MPI_COMM_WORLD, &req));
      } else {
        CHECK_MPI(MPI_Iallgather(send, count, MPI_INT, recv, count, MPI_INT, MPI_COMM_WORLD, &req));
      }
      DONE(req, "iallgather");
      for (int p = 0; p < g_size; ++p)
        for (int i = 0; i < count; ++i)
          CHECK(recv[(long)p * count + i] == val(p, i),
                "iallgather count %d in place %d: block %d element %d", count, inplace, p, i);
    }
    free(send);
    free(recv);
  }
  for (int gi = 0; gi < NGAP; ++gi) {
    const int k = kGapCounts[gi];
    int* send = ialloc(2 * k, 0);
    for (int j = 0; j < 2 * k; ++j) send[j] = val(g_rank, j);
    int* recv = ialloc(3L * k * g_size, SENTINEL);
    CHECK_MPI(MPI_Iallgather(send, 2 * k, MPI_INT, recv, k, g_gap, MPI_COMM_WORLD, &req));
    DONE(req, "iallgather gapped");
    for (int p = 0; p < g_size; ++p) {
      for (int j = 0; j < 2 * k; ++j)
        CHECK(recv[3L * k * p + gapped_index(j)] == val(p, j), "gapped iallgather block %d int %d",
              p, j);
      for (int e = 0; e < k; ++e)
        CHECK(recv[3L * k * p + 3 * e + 1] == SENTINEL, "gapped iallgather wrote a hole");
    }
    free(send);
    free(recv);
  }
}

static void check_allgatherv(void) {
  MPI_Request req;
  int* counts = ialloc(g_size, 0);
  int* displs = ialloc(g_size, 0);
  for (int ci = 0; ci < NCOUNTS - 1; ++ci) {
    const int base = kCounts[ci];
    for (int p = 0; p < g_size; ++p) {
      counts[p] = vcount(base, p);
      displs[p] = vdispl(base, p, g_size);
    }
    const int total = vtotal(base, g_size);
    const int mine = counts[g_rank];
    int* send = ialloc(mine, 0);
    for (int i = 0; i < mine; ++i) send[i] = val(g_rank, i);
    int* recv = ialloc(total, SENTINEL);
    int* expect = ialloc(total, SENTINEL);
    for (int p = 0; p < g_size; ++p)
      for (int i = 0; i < counts[p]; ++i) expect[displs[p] + i] = val(p, i);
    for (int inplace = 0; inplace < 2; ++inplace) {
      fill_int(recv, total, SENTINEL);
      if (inplace) {
        for (int i = 0; i < mine; ++i) recv[displs[g_rank] + i] = val(g_rank, i);
        CHECK_MPI(MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_INT, recv, counts, displs, MPI_INT,
                                  MPI_COMM_WORLD, &req));
      } else {
        CHECK_MPI(MPI_Iallgatherv(send, mine, MPI_INT, recv, counts, displs, MPI_INT,
                                  MPI_COMM_WORLD, &req));
      }
      DONE(req, "iallgatherv");
      for (int i = 0; i < total; ++i)
        CHECK(recv[i] == expect[i], "iallgatherv base %d in place %d: element %d is %d, want %d",
              base, inplace, i, recv[i], expect[i]);
    }
    free(send);
    free(recv);
    free(expect);
  }
  free(counts);
  free(displs);
}

static void check_alltoall(void) {
  MPI_Request req;
  for (int ci = 0; ci < NCOUNTS; ++ci) {
    const int count = kCounts[ci] > 20000 ? 20000 : kCounts[ci];
    const long total = (long)count * g_size;
    int* send = ialloc(total, 0);
    int* recv = ialloc(total, SENTINEL);
    for (int p = 0; p < g_size; ++p)
      for (int i = 0; i < count; ++i) send[(long)p * count + i] = val3(g_rank, p, i);
    for (int inplace = 0; inplace < 2; ++inplace) {
      if (inplace) {
        memcpy(recv, send, sizeof(int) * total);
        CHECK_MPI(
            MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_INT, recv, count, MPI_INT, MPI_COMM_WORLD, &req));
      } else {
        fill_int(recv, total, SENTINEL);
        CHECK_MPI(MPI_Ialltoall(send, count, MPI_INT, recv, count, MPI_INT, MPI_COMM_WORLD, &req));
      }
      DONE(req, "ialltoall");
      for (int p = 0; p < g_size; ++p)
        for (int i = 0; i < count; ++i)
          CHECK(recv[(long)p * count + i] == val3(p, g_rank, i),
                "ialltoall count %d in place %d: block %d element %d", count, inplace, p, i);
    }
    free(send);
    free(recv);
  }
  /* k gapped elements out, 2k ints in. */
  for (int gi = 0; gi < NGAP; ++gi) {
    const int k = kGapCounts[gi];
    int* send = ialloc(3L * k * g_size, SENTINEL);
    for (int p = 0; p < g_size; ++p)
      for (int j = 0; j < 2 * k; ++j) send[3L * k * p + gapped_index(j)] = val3(g_rank, p, j);
    int* recv = ialloc(2L * k * g_size, SENTINEL);
    CHECK_MPI(MPI_Ialltoall(send, k, g_gap, recv, 2 * k, MPI_INT, MPI_COMM_WORLD, &req));
    DONE(req, "ialltoall gapped");
    for (int p = 0; p < g_size; ++p)
      for (int j = 0; j < 2 * k; ++j)
        CHECK(recv[2L * k * p + j] == val3(p, g_rank, j), "gapped ialltoall block %d int %d", p, j);
    free(send);
    free(recv);
  }
}

/* Alltoallv/w: the block between ranks s and d has pc(s, d) = pc(d, s) ints, so the
 * in-place form (one set of counts) is consistent. Blocks are stored in reverse peer
 * order with one spare int between them. */
static int pc(int base, int s, int d) {
  return base + (s + d) % 3;
}

static void check_alltoallv(void) {
  MPI_Request req;
  int* counts = ialloc(g_size, 0);
  int* displs = ialloc(g_size, 0);
  for (int ci = 0; ci < NCOUNTS - 1; ++ci) {
    const int base = kCounts[ci];
    int total = 0;
    for (int p = g_size - 1; p >= 0; --p) {
      counts[p] = pc(base, g_rank, p);
      displs[p] = total;
      total += counts[p] + 1;
    }
    int* send = ialloc(total, SENTINEL);
    int* recv = ialloc(total, SENTINEL);
    int* expect = ialloc(total, SENTINEL);
    for (int p = 0; p < g_size; ++p)
      for (int i = 0; i < counts[p]; ++i) {
        send[displs[p] + i] = val3(g_rank, p, i);
        expect[displs[p] + i] = val3(p, g_rank, i);
      }
    for (int inplace = 0; inplace < 2; ++inplace) {
      if (inplace) {
        memcpy(recv, send, sizeof(int) * total);
        CHECK_MPI(MPI_Ialltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, recv, counts, displs, MPI_INT,
                                 MPI_COMM_WORLD, &req));
      } else {
        fill_int(recv, total, SENTINEL);
        CHECK_MPI(MPI_Ialltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT,
                                 MPI_COMM_WORLD, &req));
      }
      DONE(req, "ialltoallv");
      for (int i = 0; i < total; ++i)
        CHECK(recv[i] == expect[i], "ialltoallv base %d in place %d: element %d is %d, want %d",
              base, inplace, i, recv[i], expect[i]);
    }
    free(send);
    free(recv);
    free(expect);
  }
  free(counts);
  free(displs);
}

/* Alltoallw: the block for an odd peer is k = pc gapped elements (2k ints), for an even
 * peer 2k ints; the sender always sends 2k MPI_INTs (out of place). Displacements in
 * bytes. */
static void check_alltoallw(void) {
  MPI_Request req;
  int* scounts = ialloc(g_size, 0);
  int* sdispls = ialloc(g_size, 0);
  int* rcounts = ialloc(g_size, 0);
  int* rdispls = ialloc(g_size, 0);
  MPI_Datatype* stypes = (MPI_Datatype*)xmalloc(sizeof(MPI_Datatype) * g_size);
  MPI_Datatype* rtypes = (MPI_Datatype*)xmalloc(sizeof(MPI_Datatype) * g_size);
  for (int ci = 0; ci < NCOUNTS - 1; ++ci) {
    const int base = kCounts[ci] > 500 ? 500 : kCounts[ci];
    int stotal = 0, rtotal = 0; /* ints */
    for (int p = g_size - 1; p >= 0; --p) {
      const int k = pc(base, g_rank, p);
      scounts[p] = 2 * k;
      stypes[p] = MPI_INT;
      sdispls[p] = stotal * (int)sizeof(int);
      stotal += 2 * k + 1;
      rcounts[p] = p % 2 ? k : 2 * k;
      rtypes[p] = p % 2 ? g_gap : MPI_INT;
      rdispls[p] = rtotal * (int)sizeof(int);
      rtotal += 3 * k + 1;
    }
    int* send = ialloc(stotal, SENTINEL);
    int* recv = ialloc(rtotal, SENTINEL);
    int* expect = ialloc(rtotal, SENTINEL);
    int* mine = ialloc(rtotal, SENTINEL); /* what this rank sends, laid out as recv */
    for (int p = 0; p < g_size; ++p) {
      const int k = pc(base, g_rank, p);
      int* sb = send + sdispls[p] / (int)sizeof(int);
      int* eb = expect + rdispls[p] / (int)sizeof(int);
      int* mb = mine + rdispls[p] / (int)sizeof(int);
      for (int j = 0; j < 2 * k; ++j) {
        sb[j] = val3(g_rank, p, j);
        const long at = p % 2 ? gapped_index(j) : j;
        eb[at] = val3(p, g_rank, j);
        mb[at] = val3(g_rank, p, j);
      }
    }
    for (int inplace = 0; inplace < 2; ++inplace) {
      if (inplace) {
        memcpy(recv, mine, sizeof(int) * rtotal);
        CHECK_MPI(MPI_Ialltoallw(MPI_IN_PLACE, NULL, NULL, NULL, recv, rcounts, rdispls, rtypes,
                                 MPI_COMM_WORLD, &req));
      } else {
        fill_int(recv, rtotal, SENTINEL);
        CHECK_MPI(MPI_Ialltoallw(send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes,
                                 MPI_COMM_WORLD, &req));
      }
      DONE(req, "ialltoallw");
      for (int i = 0; i < rtotal; ++i)
        CHECK(recv[i] == expect[i], "ialltoallw base %d in place %d: int %d is %d, want %d", base,
              inplace, i, recv[i], expect[i]);
    }
    free(send);
    free(recv);
    free(expect);
    free(mine);
  }
  free(scounts);
  free(sdispls);
  free(rcounts);
  free(rdispls);
  free(stypes);
  free(rtypes);
}

int main(int argc, char** argv) {
  coll_init(&argc, &argv);
  g_gap = gapped_int_type();
  check_barrier();
  check_bcast();
  check_gather();
  check_gatherv();
  check_scatter();
  check_scatterv();
  check_allgather();
  check_allgatherv();
  check_alltoall();
  check_alltoallv();
  check_alltoallw();
  CHECK_MPI(MPI_Type_free(&g_gap));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  test_pass("coll_nb_basic");
  MPI_Finalize();
  return 0;
}
