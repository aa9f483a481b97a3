/* Intercommunicators: MPI_Intercomm_create from world halves of uneven sizes (leaders not at
 * rank 0, peer_comm = MPI_COMM_WORLD and a split communicator), test_inter, remote
 * size/group, point-to-point in every mode across the groups (ANY_SOURCE, status source =
 * remote rank, PROC_NULL, probe/iprobe/mprobe, persistent, sendrecv, cancel), merge with
 * high/low flags, dup (attributes copied), compare, split, create, free, and the errors of
 * overlapping groups and a bad leader. */
#include <string.h>

#include "check.h"

static int wrank, wsize;

/* World rank of rank r of group g. */
static int world_of_group(MPI_Group g, int r) {
  MPI_Group w;
  int out = -1;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &w));
  CHECK_MPI(MPI_Group_translate_ranks(g, 1, &r, w, &out));
  CHECK_MPI(MPI_Group_free(&w));
  return out;
}

/* Checks shape: local group = `local` world ranks, remote group = `remote`. */
static void check_shape(MPI_Comm ic, const int* local, int nl, const int* remote, int nr,
                        const char* what) {
  int flag = 0, size, rsize, rank;
  CHECK_MPI(MPI_Comm_test_inter(ic, &flag));
  CHECK(flag == 1, "%s: test_inter %d", what, flag);
  CHECK_MPI(MPI_Comm_size(ic, &size));
  CHECK_MPI(MPI_Comm_remote_size(ic, &rsize));
  CHECK(size == nl && rsize == nr, "%s: size %d/%d remote %d/%d", what, size, nl, rsize, nr);
  CHECK_MPI(MPI_Comm_rank(ic, &rank));
  CHECK(local[rank] == wrank, "%s: rank %d is world %d, expected %d", what, rank, wrank,
        local[rank]);
  MPI_Group lg, rg;
  CHECK_MPI(MPI_Comm_group(ic, &lg));
  CHECK_MPI(MPI_Comm_remote_group(ic, &rg));
  for (int i = 0; i < nl; ++i) CHECK(world_of_group(lg, i) == local[i], "%s: local %d", what, i);
  for (int i = 0; i < nr; ++i) CHECK(world_of_group(rg, i) == remote[i], "%s: remote %d", what, i);
  CHECK_MPI(MPI_Group_free(&lg));
  CHECK_MPI(MPI_Group_free(&rg));
}

/* Point-to-point across ic: every local rank exchanges with every remote rank. */
static void p2p_all(MPI_Comm ic, const char* what) {
  int rank, size, rsize;
  MPI_Comm_rank(ic, &rank);
  MPI_Comm_size(ic, &size);
  MPI_Comm_remote_size(ic, &rsize);
  /* Standard sends to every remote rank; receive from MPI_ANY_SOURCE. */
  for (int d = 0; d < rsize; ++d) {
    int v = rank * 100 + d;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, d, 1, ic));
  }
  int seen[64] = {0};
  for (int i = 0; i < rsize; ++i) {
    int v = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, ic, &st));
    CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < rsize, "%s: source %d", what, st.MPI_SOURCE);
    CHECK(v == st.MPI_SOURCE * 100 + rank, "%s: got %d from %d", what, v, st.MPI_SOURCE);
    CHECK(!seen[st.MPI_SOURCE], "%s: twice from %d", what, st.MPI_SOURCE);
    seen[st.MPI_SOURCE] = 1;
  }
  /* Ssend / Rsend / Bsend / Isend to remote rank (rank % rsize). A merged communicator
   * serves as the barrier of both groups. */
  MPI_Comm both;
  CHECK_MPI(MPI_Intercomm_merge(ic, 0, &both));
  int bufsize = 4 * (64 + MPI_BSEND_OVERHEAD);
  char* bbuf = malloc(bufsize);
  CHECK_MPI(MPI_Buffer_attach(bbuf, bufsize));
  /* Each local rank r sends to remote (r % rsize) in 4 modes; each remote rank receives from
   * every local rank s with s % rsize == its rank. */
  int vals[4];
  MPI_Request reqs[4 + 4 * 64];
  int nr = 0;
  int recvs[4 * 64];
  int senders[64], ns = 0;
  for (int s = 0; s < rsize; ++s) {
    /* remote rank s sends to my rank if s % size == rank */
    if (s % size == rank) senders[ns++] = s;
  }
  for (int i = 0; i < ns; ++i)
    for (int m = 0; m < 4; ++m)
      CHECK_MPI(MPI_Irecv(&recvs[4 * i + m], 1, MPI_INT, senders[i], 10 + m, ic, &reqs[nr++]));
  CHECK_MPI(MPI_Barrier(both)); /* receives posted before the ready send */
  for (int m = 0; m < 4; ++m) vals[m] = 1000 * m + rank;
  const int dest = rank % rsize;
  CHECK_MPI(MPI_Ssend(&vals[0], 1, MPI_INT, dest, 10, ic));
  CHECK_MPI(MPI_Rsend(&vals[1], 1, MPI_INT, dest, 11, ic));
  CHECK_MPI(MPI_Bsend(&vals[2], 1, MPI_INT, dest, 12, ic));
  CHECK_MPI(MPI_Isend(&vals[3], 1, MPI_INT, dest, 13, ic, &reqs[nr++]));
  MPI_Status sts[4 + 4 * 64];
  CHECK_MPI(MPI_Waitall(nr, reqs, sts));
  for (int i = 0; i < ns; ++i)
    for (int m = 0; m < 4; ++m) {
      CHECK(recvs[4 * i + m] == 1000 * m + senders[i], "%s: mode %d from %d got %d", what, m,
            senders[i], recvs[4 * i + m]);
      CHECK(sts[4 * i + m].MPI_SOURCE == senders[i], "%s: status source %d", what,
            sts[4 * i + m].MPI_SOURCE);
    }
  void* p;
  int psz;
  CHECK_MPI(MPI_Buffer_detach(&p, &psz));
  free(bbuf);

  /* PROC_NULL. */
  MPI_Status st;
  CHECK_MPI(MPI_Send(vals, 1, MPI_INT, MPI_PROC_NULL, 0, ic));
  CHECK_MPI(MPI_Recv(vals, 1, MPI_INT, MPI_PROC_NULL, 0, ic, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "%s: proc_null source %d", what, st.MPI_SOURCE);

  /* A rank outside the remote group is an error. */
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
  int rc = MPI_Send(vals, 1, MPI_INT, rsize, 0, ic);
  int cls;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RANK, "%s: send to rank %d gave class %d", what, rsize, cls);
  MPI_Comm_set_errhandler(ic, MPI_ERRORS_ARE_FATAL);

  /* Sendrecv with the partner pairing rank i <-> i (only ranks below both sizes). */
  const int m = size < rsize ? size : rsize;
  if (rank < m) {
    int out = rank + 7, in = -1;
    CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, rank, 20, &in, 1, MPI_INT, rank, 20, ic, &st));
    CHECK(in == rank + 7 && st.MPI_SOURCE == rank, "%s: sendrecv got %d from %d", what, in,
          st.MPI_SOURCE);
    /* Probe, iprobe, mprobe. */
    out = rank + 11;
    CHECK_MPI(MPI_Send(&out, 1, MPI_INT, rank, 21, ic));
    CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 21, ic, &st));
    CHECK(st.MPI_SOURCE == rank, "%s: probe source %d", what, st.MPI_SOURCE);
    int flag = 0;
    while (!flag) CHECK_MPI(MPI_Iprobe(rank, 21, ic, &flag, &st));
    MPI_Message msg;
    CHECK_MPI(MPI_Mprobe(rank, 21, ic, &msg, &st));
    CHECK(st.MPI_SOURCE == rank, "%s: mprobe source %d", what, st.MPI_SOURCE);
    CHECK_MPI(MPI_Mrecv(&in, 1, MPI_INT, &msg, &st));
    CHECK(in == rank + 11 && st.MPI_SOURCE == rank, "%s: mrecv %d", what, in);
    /* Persistent. */
    MPI_Request pr[2];
    CHECK_MPI(MPI_Send_init(&out, 1, MPI_INT, rank, 22, ic, &pr[0]));
    CHECK_MPI(MPI_Recv_init(&in, 1, MPI_INT, rank, 22, ic, &pr[1]));
    for (int it = 0; it < 3; ++it) {
      out = 50 + it;
      in = -1;
      CHECK_MPI(MPI_Startall(2, pr));
      CHECK_MPI(MPI_Waitall(2, pr, MPI_STATUSES_IGNORE));
      CHECK(in == 50 + it, "%s: persistent %d got %d", what, it, in);
    }
    CHECK_MPI(MPI_Request_free(&pr[0]));
    CHECK_MPI(MPI_Request_free(&pr[1]));
    /* Cancel a receive nobody matches. */
    MPI_Request cr;
    CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, rank, 999, ic, &cr));
    CHECK_MPI(MPI_Cancel(&cr));
    CHECK_MPI(MPI_Wait(&cr, &st));
    int cancelled = 0;
    CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled, "%s: receive not cancelled", what);
  }
  CHECK_MPI(MPI_Barrier(both));
  CHECK_MPI(MPI_Comm_free(&both));
}

/* Merges ic and checks the order: low group first (or, with equal flags, any consistent
 * order: checked by a ring and by both groups being contiguous). */
static void check_merge(MPI_Comm ic, int high, int remote_high, const char* what) {
  MPI_Comm m;
  CHECK_MPI(MPI_Intercomm_merge(ic, high, &m));
  int flag = 1, size, rank, lsize, rsize, lrank;
  CHECK_MPI(MPI_Comm_test_inter(m, &flag));
  CHECK(flag == 0, "%s: merged is inter", what);
  MPI_Comm_size(m, &size);
  MPI_Comm_rank(m, &rank);
  MPI_Comm_size(ic, &lsize);
  MPI_Comm_remote_size(ic, &rsize);
  MPI_Comm_rank(ic, &lrank);
  CHECK(size == lsize + rsize, "%s: merged size %d", what, size);
  if (high != remote_high) {
    const int expect = high ? rsize + lrank : lrank;
    CHECK(rank == expect, "%s: merged rank %d expected %d", what, rank, expect);
  } else {
    CHECK(rank == lrank || rank == rsize + lrank, "%s: merged rank %d", what, rank);
  }
  /* The merged communicator works: sum of world ranks. */
  int sum = 0;
  CHECK_MPI(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, m));
  CHECK(sum == wsize * (wsize - 1) / 2 || size < wsize, "%s: merged sum %d", what, sum);
  int token = rank, got = -1;
  CHECK_MPI(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 3, &got, 1, MPI_INT,
                         (rank + size - 1) % size, 3, m, MPI_STATUS_IGNORE));
  CHECK(got == (rank + size - 1) % size, "%s: merged ring %d", what, got);
  CHECK_MPI(MPI_Comm_free(&m));
}

static int copy_calls;
static int copy_fn(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag) {
  (void)c;
  (void)k;
  (void)extra;
  *(void**)out = in;
  *flag = 1;
  ++copy_calls;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (wsize < 2) {
    test_pass("intercomm");
    MPI_Finalize();
    return 0;
  }
  /* Uneven halves: group A = world ranks [0, na), B = [na, wsize). */
  const int na = wsize / 3 > 0 ? wsize / 3 : 1;
  const int inA = wrank < na;
  MPI_Comm half;
  CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, inA, wsize - wrank, &half)); /* reversed order */
  int A[64], B[64];
  const int nb = wsize - na;
  for (int i = 0; i < na; ++i) A[i] = na - 1 - i; /* key reverses */
  for (int i = 0; i < nb; ++i) B[i] = wsize - 1 - i;
  /* Leaders: last rank of half (local rank size-1), world rank A[na-1] = 0, B[nb-1] = na. */
  int hsize;
  MPI_Comm_size(half, &hsize);
  MPI_Comm ic;
  CHECK_MPI(MPI_Intercomm_create(half, hsize - 1, MPI_COMM_WORLD, inA ? na : 0, 77, &ic));
  if (inA)
    check_shape(ic, A, na, B, nb, "world halves (A)");
  else
    check_shape(ic, B, nb, A, na, "world halves (B)");
  p2p_all(ic, "world halves");
  check_merge(ic, inA, !inA, "merge A low");
  check_merge(ic, !inA, inA, "merge A high");
  check_merge(ic, 0, 0, "merge equal");

  /* Compare, dup with attributes, names. */
  int keyval, res;
  static int attrval = 42;
  CHECK_MPI(MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &keyval, NULL));
  CHECK_MPI(MPI_Comm_set_attr(ic, keyval, &attrval));
  CHECK_MPI(MPI_Comm_set_name(ic, "my intercomm"));
  MPI_Comm dup;
  CHECK_MPI(MPI_Comm_dup(ic, &dup));
  CHECK(copy_calls == 1, "copy callback called %d times", copy_calls);
  void* v;
  int flag;
  CHECK_MPI(MPI_Comm_get_attr(dup, keyval, &v, &flag));
  CHECK(flag && v == &attrval, "dup attribute missing");
  CHECK_MPI(MPI_Comm_compare(ic, dup, &res));
  CHECK(res == MPI_CONGRUENT, "compare dup %d", res);
  CHECK_MPI(MPI_Comm_compare(ic, ic, &res));
  CHECK(res == MPI_IDENT, "compare self %d", res);
  CHECK_MPI(MPI_Comm_compare(ic, half, &res));
  CHECK(res == MPI_UNEQUAL, "compare inter/intra %d", res);
  if (inA)
    check_shape(dup, A, na, B, nb, "dup (A)");
  else
    check_shape(dup, B, nb, A, na, "dup (B)");
  p2p_all(dup, "dup");
  /* Traffic on ic and dup does not mix. */
  {
    int rank;
    MPI_Comm_rank(ic, &rank);
    if (rank == 0) {
      int x = 1, y = 2;
      CHECK_MPI(MPI_Send(&x, 1, MPI_INT, 0, 5, ic));
      CHECK_MPI(MPI_Send(&y, 1, MPI_INT, 0, 5, dup));
      CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, 0, 5, dup, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Recv(&x, 1, MPI_INT, 0, 5, ic, MPI_STATUS_IGNORE));
      CHECK(x == 1 && y == 2, "ic/dup mixed: %d %d", x, y);
    }
  }
  MPI_Comm idup;
  MPI_Request req;
  CHECK_MPI(MPI_Comm_idup(ic, &idup, &req));
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Comm_compare(ic, idup, &res));
  CHECK(res == MPI_CONGRUENT, "compare idup %d", res);
  p2p_all(idup, "idup");
  CHECK_MPI(MPI_Comm_get_attr(idup, keyval, &v, &flag));
  CHECK(flag && v == &attrval, "idup attribute missing");
  CHECK_MPI(MPI_Comm_free(&idup));
  /* MPI_Comm_idup does not block: local rank 0 first receives from every other remote
   * rank, which send only after starting their idup (as in MPICH's comm_idup). */
  {
    int lrank, rsize, b = 0;
    MPI_Comm_rank(ic, &lrank);
    MPI_Comm_remote_size(ic, &rsize);
    if (lrank == 0) {
      for (int i = 1; i < rsize; ++i)
        CHECK_MPI(MPI_Recv(&b, 1, MPI_INT, i, 0, ic, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Comm_idup(ic, &idup, &req));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
      CHECK_MPI(MPI_Comm_idup(ic, &idup, &req));
      CHECK_MPI(MPI_Ssend(&b, 1, MPI_INT, 0, 0, ic));
      CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    int sum = -1, rs;
    MPI_Comm_remote_size(idup, &rs);
    CHECK(rs == rsize, "staggered idup: remote size %d", rs);
    CHECK_MPI(MPI_Allreduce(&lrank, &sum, 1, MPI_INT, MPI_SUM, idup));
    CHECK(sum == rsize * (rsize - 1) / 2, "staggered idup: allreduce %d", sum);
    CHECK_MPI(MPI_Comm_free(&idup));
    /* Several idups outstanding at once, interleaved with nonblocking barriers. */
    MPI_Comm many[4];
    MPI_Request rq[8];
    for (int i = 0; i < 4; ++i) {
      CHECK_MPI(MPI_Ibarrier(ic, &rq[i]));
      CHECK_MPI(MPI_Comm_idup(ic, &many[i], &rq[4 + i]));
    }
    CHECK_MPI(MPI_Waitall(8, rq, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < i; ++j) {
        CHECK_MPI(MPI_Comm_compare(many[i], many[j], &res));
        CHECK(res == MPI_CONGRUENT, "idups %d and %d: compare %d", i, j, res);
      }
      p2p_all(many[i], "outstanding idups");
    }
    for (int i = 0; i < 4; ++i) CHECK_MPI(MPI_Comm_free(&many[i]));
  }
  CHECK_MPI(MPI_Comm_free(&dup));
  CHECK_MPI(MPI_Comm_free_keyval(&keyval));

  /* Split: color = local rank % 2 on both sides; key reverses. */
  {
    int rank, size, rsize;
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_size(ic, &size);
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Comm sp;
    CHECK_MPI(MPI_Comm_split(ic, rank % 2, -rank, &sp));
    const int color = rank % 2;
    int nl = 0, nr = 0;
    for (int i = 0; i < size; ++i) nl += i % 2 == color;
    for (int i = 0; i < rsize; ++i) nr += i % 2 == color;
    if (nr == 0) {
      CHECK(sp == MPI_COMM_NULL, "split: expected MPI_COMM_NULL");
    } else {
      CHECK(sp != MPI_COMM_NULL, "split: got MPI_COMM_NULL");
      int l[64], r[64], k = 0;
      const int* mine = inA ? A : B;
      const int* theirs = inA ? B : A;
      for (int i = size - 1; i >= 0; --i)
        if (i % 2 == color) l[k++] = mine[i];
      k = 0;
      for (int i = rsize - 1; i >= 0; --i)
        if (i % 2 == color) r[k++] = theirs[i];
      check_shape(sp, l, nl, r, nr, "split");
      CHECK_MPI(MPI_Comm_free(&sp));
    }
    /* Undefined color on one side: MPI_COMM_NULL everywhere. */
    CHECK_MPI(MPI_Comm_split(ic, inA ? MPI_UNDEFINED : 0, 0, &sp));
    CHECK(sp == MPI_COMM_NULL, "split undefined: not null");
  }

  /* Create: each side keeps its local rank 0 and, for B, also its last rank. */
  {
    int rank, size, rsize;
    MPI_Comm_rank(ic, &rank);
    MPI_Comm_size(ic, &size);
    MPI_Comm_remote_size(ic, &rsize);
    MPI_Group lg, sub;
    CHECK_MPI(MPI_Comm_group(ic, &lg));
    int pick[2] = {0, size - 1};
    const int npick = (!inA && size > 1) ? 2 : 1;
    CHECK_MPI(MPI_Group_incl(lg, npick, pick, &sub));
    MPI_Comm cr;
    CHECK_MPI(MPI_Comm_create(ic, sub, &cr));
    const int member = rank == 0 || (npick == 2 && rank == size - 1);
    if (!member) {
      CHECK(cr == MPI_COMM_NULL, "create: non-member got a communicator");
    } else {
      const int* mine = inA ? A : B;
      const int* theirs = inA ? B : A;
      const int rn = (inA && rsize > 1) ? 2 : 1;
      int l[2] = {mine[0], mine[size - 1]}, r[2] = {theirs[0], theirs[rsize - 1]};
      check_shape(cr, l, npick, r, rn, "create");
      p2p_all(cr, "create");
      CHECK_MPI(MPI_Comm_free(&cr));
    }
    /* One side empty: MPI_COMM_NULL everywhere. */
    CHECK_MPI(MPI_Comm_create(ic, inA ? MPI_GROUP_EMPTY : lg, &cr));
    CHECK(cr == MPI_COMM_NULL, "create with an empty side: not null");
    CHECK_MPI(MPI_Group_free(&sub));
    CHECK_MPI(MPI_Group_free(&lg));
  }

  /* Errors: overlapping groups (peer leader in my own group) and a bad leader. */
  {
    MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
    MPI_Comm bad = MPI_COMM_NULL;
    int rc = MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, wrank, 78, &bad);
    int cls;
    MPI_Error_class(rc, &cls);
    /* Local leader 0 names itself as the remote leader. */
    CHECK(cls == MPI_ERR_RANK && bad == MPI_COMM_NULL, "self as remote leader: class %d", cls);
    rc = MPI_Intercomm_create(half, hsize, MPI_COMM_WORLD, 0, 78, &bad);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "bad local leader: class %d", cls);
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    rc = MPI_Cart_create(ic, 1, &hsize, &hsize, 0, &bad);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "cart on intercomm: class %d", cls);
    /* Scan and Exscan are not defined on intercommunicators. */
    int x = 1, y = 0;
    MPI_Request r = MPI_REQUEST_NULL;
    rc = MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "scan on intercomm: class %d", cls);
    rc = MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, ic, &r);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "iscan on intercomm: class %d", cls);
    rc = MPI_Exscan_init(&x, &y, 1, MPI_INT, MPI_SUM, ic, MPI_INFO_NULL, &r);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "exscan_init on intercomm: class %d", cls);
  }
  CHECK_MPI(MPI_Comm_free(&ic));

  /* Intercomm from a split communicator as peer: even world ranks vs odd, peer = a dup of
   * world split into one color; leaders = local rank 0 (world 0 and 1). */
  if (wsize >= 2) {
    MPI_Comm parity, peer, ic2;
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &parity));
    CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &peer)); /* reversed */
    /* In peer, world 0 has rank wsize-1 and world 1 has rank wsize-2. */
    CHECK_MPI(MPI_Intercomm_create(parity, 0, peer, wrank % 2 ? wsize - 1 : wsize - 2, 5, &ic2));
    int ev[64], od[64], ne = 0, no = 0;
    for (int i = 0; i < wsize; ++i) {
      if (i % 2)
        od[no++] = i;
      else
        ev[ne++] = i;
    }
    if (wrank % 2)
      check_shape(ic2, od, no, ev, ne, "parity (odd)");
    else
      check_shape(ic2, ev, ne, od, no, "parity (even)");
    p2p_all(ic2, "parity");
    check_merge(ic2, wrank % 2, !(wrank % 2), "parity merge");
    CHECK_MPI(MPI_Comm_disconnect(&ic2));
    CHECK_MPI(MPI_Comm_free(&parity));
    CHECK_MPI(MPI_Comm_free(&peer));
  }
  CHECK_MPI(MPI_Comm_free(&half));

  /* MPI_Intercomm_create_from_groups: groups of a session's world pset, A = [0, na),
   * B = [na, wsize); leaders A's last and B's first. */
  {
    MPI_Session session;
    MPI_Group world, ga, gb;
    CHECK_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
    CHECK_MPI(MPI_Group_from_session_pset(session, "mpi://WORLD", &world));
    int ra[1][3] = {{0, na - 1, 1}}, rb[1][3] = {{na, wsize - 1, 1}};
    CHECK_MPI(MPI_Group_range_incl(world, 1, ra, &ga));
    CHECK_MPI(MPI_Group_range_incl(world, 1, rb, &gb));
    MPI_Comm ic3;
    if (inA)
      CHECK_MPI(MPI_Intercomm_create_from_groups(ga, na - 1, gb, 0, "intercomm test", MPI_INFO_NULL,
                                                 MPI_ERRORS_RETURN, &ic3));
    else
      CHECK_MPI(MPI_Intercomm_create_from_groups(gb, 0, ga, na - 1, "intercomm test", MPI_INFO_NULL,
                                                 MPI_ERRORS_RETURN, &ic3));
    int fa[64], fb[64];
    for (int i = 0; i < na; ++i) fa[i] = i;
    for (int i = 0; i < nb; ++i) fb[i] = na + i;
    if (inA)
      check_shape(ic3, fa, na, fb, nb, "from_groups (A)");
    else
      check_shape(ic3, fb, nb, fa, na, "from_groups (B)");
    p2p_all(ic3, "from_groups");
    CHECK_MPI(MPI_Comm_free(&ic3));
    CHECK_MPI(MPI_Group_free(&ga));
    CHECK_MPI(MPI_Group_free(&gb));
    CHECK_MPI(MPI_Group_free(&world));
    CHECK_MPI(MPI_Session_finalize(&session));
  }
  test_pass("intercomm");
  MPI_Finalize();
  return 0;
}
