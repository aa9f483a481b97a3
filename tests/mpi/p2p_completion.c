/* Multiple-completion calls: Waitany/Waitsome/Testany/Testsome/Testall with null and
 * inactive requests, Request_get_status, Request_free of an active request, and
 * generalized requests. */
#include <string.h>

#include "check.h"

static int query_calls = 0, free_calls = 0;
static int gq(void* extra, MPI_Status* st) {
  (void)extra;
  ++query_calls;
  MPI_Status_set_elements(st, MPI_INT, 3);
  MPI_Status_set_cancelled(st, 0);
  st->MPI_SOURCE = MPI_UNDEFINED;
  st->MPI_TAG = MPI_UNDEFINED;
  return MPI_SUCCESS;
}
static int gf(void* extra) {
  (void)extra;
  ++free_calls;
  return MPI_SUCCESS;
}
static int gc(void* extra, int complete) {
  (void)extra;
  (void)complete;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  CHECK_MPI(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { K = 8 };
  int in[K][4], out[K][4];
  MPI_Request reqs[K + 2];
  if (rank == 0) {
    /* Receive one message from every other rank, K per rank, with Waitany. */
    for (int round = 0; round < K; ++round) {
      int n = 0;
      for (int s = 1; s < size; ++s, ++n)
        CHECK_MPI(MPI_Irecv(in[n % K], 4, MPI_INT, s, round, MPI_COMM_WORLD, &reqs[n]));
      reqs[n++] = MPI_REQUEST_NULL;
      int seen = 0;
      for (;;) {
        int idx;
        MPI_Status st;
        CHECK_MPI(MPI_Waitany(n, reqs, &idx, &st));
        if (idx == MPI_UNDEFINED) break;
        CHECK(idx < size - 1 && st.MPI_SOURCE == idx + 1 && st.MPI_TAG == round,
              "waitany idx %d src %d", idx, st.MPI_SOURCE);
        CHECK(in[idx % K][0] == st.MPI_SOURCE && in[idx % K][1] == round, "waitany payload");
        ++seen;
      }
      CHECK(seen == size - 1, "waitany saw %d", seen);
    }
    /* Waitsome over the same pattern. */
    int n = 0;
    for (int s = 1; s < size; ++s, ++n)
      CHECK_MPI(MPI_Irecv(out[n % K], 4, MPI_INT, s, 77, MPI_COMM_WORLD, &reqs[n]));
    int done = 0, outcount, idx[K + 2];
    MPI_Status sts[K + 2];
    while (done < size - 1) {
      CHECK_MPI(MPI_Waitsome(n, reqs, &outcount, idx, sts));
      CHECK(outcount >= 1, "waitsome outcount %d", outcount);
      for (int i = 0; i < outcount; ++i) CHECK(sts[i].MPI_SOURCE == idx[i] + 1, "waitsome status");
      done += outcount;
    }
    CHECK_MPI(MPI_Waitsome(n, reqs, &outcount, idx, sts));
    CHECK(outcount == MPI_UNDEFINED, "waitsome on all-null gives %d", outcount);
  } else {
    for (int round = 0; round < K; ++round) {
      int v[4] = {rank, round, 0, 0};
      CHECK_MPI(MPI_Send(v, 4, MPI_INT, 0, round, MPI_COMM_WORLD));
    }
    int v[4] = {rank, 77, 0, 0};
    MPI_Request r;
    CHECK_MPI(MPI_Isend(v, 4, MPI_INT, 0, 77, MPI_COMM_WORLD, &r));
    /* Testall / Request_get_status until done. */
    int flag = 0;
    while (!flag) CHECK_MPI(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
    CHECK(r != MPI_REQUEST_NULL, "get_status must not free");
    CHECK_MPI(MPI_Testall(1, &r, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag && r == MPI_REQUEST_NULL, "testall");
  }
  /* Request_free on an active send: the message is still delivered. */
  if (size >= 2) {
    int v = 1234, w = 0;
    if (rank == 1) {
      MPI_Request r;
      CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, 0, 88, MPI_COMM_WORLD, &r));
      CHECK_MPI(MPI_Request_free(&r));
      CHECK(r == MPI_REQUEST_NULL, "request_free");
    } else if (rank == 0) {
      CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, 1, 88, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(w == 1234, "freed send delivered %d", w);
    }
  }
  /* Testany/Testsome with only null requests. */
  MPI_Request nul[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int index = 0, flag = 0, outc = 0, ids[2];
  CHECK_MPI(MPI_Testany(2, nul, &index, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 1 && index == MPI_UNDEFINED, "testany all null");
  CHECK_MPI(MPI_Testsome(2, nul, &outc, ids, MPI_STATUSES_IGNORE));
  CHECK(outc == MPI_UNDEFINED, "testsome all null");
  /* Generalized request. */
  MPI_Request g;
  CHECK_MPI(MPI_Grequest_start(gq, gf, gc, NULL, &g));
  CHECK_MPI(MPI_Test(&g, &flag, MPI_STATUS_IGNORE));
  CHECK(!flag, "grequest complete too early");
  CHECK_MPI(MPI_Grequest_complete(g));
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&g, &st));
  int cnt = 0;
  MPI_Get_count(&st, MPI_INT, &cnt);
  CHECK(query_calls >= 1 && free_calls == 1 && cnt == 3 && g == MPI_REQUEST_NULL,
        "grequest q=%d f=%d cnt=%d", query_calls, free_calls, cnt);
  test_pass("p2p_completion");
  CHECK_MPI(MPI_Finalize());
  return 0;
}
