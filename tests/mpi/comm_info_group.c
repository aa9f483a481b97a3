/* MPI_Info objects (set/get/get_string/valuelen/delete/nkeys/nthkey/dup/free and
 * MPI_INFO_ENV) and the group calls on MPI_COMM_WORLD's group. */
#include <string.h>

#include "check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Info info, copy;
  int flag, nkeys, len;
  char val[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];
  CHECK_MPI(MPI_Info_create(&info));
  CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys == 0, "new info is empty");
  CHECK_MPI(MPI_Info_set(info, "b_key", "first"));
  CHECK_MPI(MPI_Info_set(info, "a_key", "second"));
  CHECK_MPI(MPI_Info_set(info, "b_key", "replaced"));
  CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys == 2, "nkeys %d", nkeys);
  CHECK_MPI(MPI_Info_get_nthkey(info, 0, key));
  CHECK(strcmp(key, "b_key") == 0, "nthkey 0 = %s", key);
  CHECK_MPI(MPI_Info_get_nthkey(info, 1, key));
  CHECK(strcmp(key, "a_key") == 0, "nthkey 1 = %s", key);
  CHECK_MPI(MPI_Info_get(info, "b_key", MPI_MAX_INFO_VAL, val, &flag));
  CHECK(flag && strcmp(val, "replaced") == 0, "get b_key = %s", val);
  CHECK_MPI(MPI_Info_get(info, "b_key", 3, val, &flag));
  CHECK(flag && strcmp(val, "rep") == 0, "get truncates to valuelen: %s", val);
  CHECK_MPI(MPI_Info_get(info, "zzz", MPI_MAX_INFO_VAL, val, &flag));
  CHECK(!flag, "missing key");
  CHECK_MPI(MPI_Info_get_valuelen(info, "a_key", &len, &flag));
  CHECK(flag && len == 6, "valuelen %d", len);
  int buflen = 0;
  CHECK_MPI(MPI_Info_get_string(info, "a_key", &buflen, val, &flag));
  CHECK(flag && buflen == 7, "get_string size query %d", buflen);
  buflen = 4;
  CHECK_MPI(MPI_Info_get_string(info, "a_key", &buflen, val, &flag));
  CHECK(flag && buflen == 7 && strcmp(val, "sec") == 0, "get_string truncated '%s'", val);
  CHECK_MPI(MPI_Info_dup(info, &copy));
  CHECK_MPI(MPI_Info_delete(info, "b_key"));
  CHECK_MPI(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys == 1, "after delete nkeys %d", nkeys);
  CHECK_MPI(MPI_Info_get_nkeys(copy, &nkeys));
  CHECK(nkeys == 2, "dup is independent: %d", nkeys);
  CHECK_MPI(MPI_Info_free(&info));
  CHECK_MPI(MPI_Info_free(&copy));
  CHECK(info == MPI_INFO_NULL && copy == MPI_INFO_NULL, "free sets MPI_INFO_NULL");
  CHECK_MPI(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
  for (int i = 0; i < nkeys; ++i) {
    CHECK_MPI(MPI_Info_get_nthkey(MPI_INFO_ENV, i, key));
    CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, key, MPI_MAX_INFO_VAL, val, &flag));
    CHECK(flag, "MPI_INFO_ENV key %s", key);
  }
  CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, val, &flag));
  CHECK(flag && strstr(val, "comm_info_group") != NULL, "MPI_INFO_ENV command = %s", val);

  /* Groups. */
  MPI_Group world, evens, odds, u, x, diff, empty;
  CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int gs, gr;
  CHECK_MPI(MPI_Group_size(world, &gs));
  CHECK_MPI(MPI_Group_rank(world, &gr));
  CHECK(gs == size && gr == rank, "world group %d/%d", gr, gs);
  int ranges[1][3] = {{0, size - 1, 2}};
  CHECK_MPI(MPI_Group_range_incl(world, 1, ranges, &evens));
  CHECK_MPI(MPI_Group_range_excl(world, 1, ranges, &odds));
  CHECK_MPI(MPI_Group_size(evens, &gs));
  CHECK(gs == (size + 1) / 2, "evens size %d", gs);
  CHECK_MPI(MPI_Group_rank(odds, &gr));
  CHECK(gr == (rank % 2 ? rank / 2 : MPI_UNDEFINED), "rank in odds %d", gr);
  CHECK_MPI(MPI_Group_union(odds, evens, &u));
  int res;
  CHECK_MPI(MPI_Group_compare(u, world, &res));
  CHECK(res == (size > 2 ? MPI_SIMILAR : MPI_IDENT) || size == 2, "union vs world %d", res);
  CHECK_MPI(MPI_Group_intersection(odds, evens, &x));
  CHECK_MPI(MPI_Group_compare(x, MPI_GROUP_EMPTY, &res));
  CHECK(res == MPI_IDENT, "odds ^ evens is empty");
  CHECK_MPI(MPI_Group_difference(world, odds, &diff));
  CHECK_MPI(MPI_Group_compare(diff, evens, &res));
  CHECK(res == MPI_IDENT, "world - odds == evens");
  int all[64], tr[64];
  for (int i = 0; i < size; ++i) all[i] = i;
  CHECK_MPI(MPI_Group_translate_ranks(world, size, all, evens, tr));
  for (int i = 0; i < size; ++i)
    CHECK(tr[i] == (i % 2 == 0 ? i / 2 : MPI_UNDEFINED), "translate %d -> %d", i, tr[i]);
  int rev[64];
  for (int i = 0; i < size; ++i) rev[i] = size - 1 - i;
  MPI_Group reversed;
  CHECK_MPI(MPI_Group_incl(world, size, rev, &reversed));
  CHECK_MPI(MPI_Group_rank(reversed, &gr));
  CHECK(gr == size - 1 - rank, "reversed rank %d", gr);
  CHECK_MPI(MPI_Group_excl(world, size, all, &empty));
  CHECK_MPI(MPI_Group_size(empty, &gs));
  CHECK(gs == 0, "excl all gives an empty group");
  CHECK_MPI(MPI_Group_free(&empty));
  CHECK(empty == MPI_GROUP_NULL, "free sets MPI_GROUP_NULL");
  MPI_Group groups[] = {evens, odds, u, x, diff, reversed, world};
  for (int i = 0; i < 7; ++i) CHECK_MPI(MPI_Group_free(&groups[i]));

  test_pass("comm_info_group");
  MPI_Finalize();
  return 0;
}
