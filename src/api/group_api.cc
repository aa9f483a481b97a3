// Group entry points (MPI-3.1 section 6.3): accessors, constructors and MPI_Group_free.
// The algebra lives in comm/group_ops.h; results with no members are MPI_GROUP_EMPTY.
#include "api/api.h"
#include "comm/comm.h"
#include "comm/group_ops.h"

using namespace ccmpi;

namespace {

int groupOrRaise(const char* func, MPI_Group h, comm::Group** out) {
  *out = comm::lookupGroup(h);
  if (!*out) return api::raisef(func, MPI_ERR_GROUP, "invalid group handle 0x%x", h);
  return MPI_SUCCESS;
}

// Two input groups and an output pointer.
int binaryArgs(const char* func, MPI_Group a, MPI_Group b, MPI_Group* out, comm::Group** ga,
               comm::Group** gb) {
  if (int rc = groupOrRaise(func, a, ga)) return rc;
  if (int rc = groupOrRaise(func, b, gb)) return rc;
  if (!out) return api::raisef(func, MPI_ERR_ARG, "newgroup pointer is NULL");
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Group_size(MPI_Group group, int* size) {
  CCMPI_API_BEGIN("MPI_Group_size");
  comm::Group* g;
  if (int rc = groupOrRaise(kFunc, group, &g)) return rc;
  if (!size) return api::raisef(kFunc, MPI_ERR_ARG, "size pointer is NULL");
  *size = g->size();
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Group_size)

extern "C" int PMPI_Group_rank(MPI_Group group, int* rank) {
  CCMPI_API_BEGIN("MPI_Group_rank");
  comm::Group* g;
  if (int rc = groupOrRaise(kFunc, group, &g)) return rc;
  if (!rank) return api::raisef(kFunc, MPI_ERR_ARG, "rank pointer is NULL");
  comm::Comm* world = comm::lookup(MPI_COMM_WORLD);
  *rank = g->rankOfWorld(world->rank);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Group_rank)

extern "C" int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[],
                                          MPI_Group group2, int ranks2[]) {
  CCMPI_API_BEGIN("MPI_Group_translate_ranks");
  comm::Group *a, *b;
  if (int rc = groupOrRaise(kFunc, group1, &a)) return rc;
  if (int rc = groupOrRaise(kFunc, group2, &b)) return rc;
  if (n > 0 && (!ranks1 || !ranks2))
    return api::raisef(kFunc, MPI_ERR_ARG, "ranks array is NULL with n = %d", n);
  if (int rc = comm::groupTranslate(a->worldRanks, n, ranks1, b->worldRanks, ranks2))
    return api::raise(kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Group_translate_ranks)

extern "C" int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  CCMPI_API_BEGIN("MPI_Group_compare");
  comm::Group *a, *b;
  if (int rc = groupOrRaise(kFunc, group1, &a)) return rc;
  if (int rc = groupOrRaise(kFunc, group2, &b)) return rc;
  if (!result) return api::raisef(kFunc, MPI_ERR_ARG, "result pointer is NULL");
  *result = comm::groupCompare(a->worldRanks, b->worldRanks);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Group_compare)

extern "C" int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  CCMPI_API_BEGIN("MPI_Comm_group");
  comm::Comm* c = comm::lookup(comm);
  if (!c) return api::raisef(kFunc, MPI_ERR_COMM, "invalid communicator handle 0x%x", comm);
  if (!group) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "group pointer is NULL");
  *group = comm::newGroup(c->worldRanks);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_group)

extern "C" int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  CCMPI_API_BEGIN("MPI_Group_union");
  comm::Group *a, *b;
  if (int rc = binaryArgs(kFunc, group1, group2, newgroup, &a, &b)) return rc;
  *newgroup = comm::newGroup(comm::groupUnion(a->worldRanks, b->worldRanks));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Group_union)

extern "C" int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  CCMPI_API_BEGIN("MPI_Group_intersection");
  comm::Group *a, *b;
  if (int rc = binaryArgs(kFunc, group1, group2, newgroup, &a, &b)) return rc;
  *newgroup = comm::newGroup(comm::groupIntersection(a->worldRanks, b->worldRanks));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Group_intersection)

extern "C" int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  CCMPI_API_BEGIN("MPI_Group_difference");
  comm::Group *a, *b;
  if (int rc = binaryArgs(kFunc, group1, group2, newgroup, &a, &b)) return rc;
  *newgroup = comm::newGroup(comm::groupDifference(a->worldRanks, b->worldRanks));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Group_difference)

extern "C" int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  CCMPI_API_BEGIN("MPI_Group_incl");
  comm::Group* g;
  if (int rc = groupOrRaise(kFunc, group, &g)) return rc;
  if (!newgroup) return api::raisef(kFunc, MPI_ERR_ARG, "newgroup pointer is NULL");
  if (n > 0 && !ranks) return api::raisef(kFunc, MPI_ERR_ARG, "ranks is NULL with n = %d", n);
  comm::RankList out;
  if (int rc = comm::groupIncl(g->worldRanks, n, ranks, &out)) return api::raise(kFunc, rc);
  *newgroup = comm::newGroup(std::move(out));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Group_incl)

extern "C" int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  CCMPI_API_BEGIN("MPI_Group_excl");
  comm::Group* g;
  if (int rc = groupOrRaise(kFunc, group, &g)) return rc;
  if (!newgroup) return api::raisef(kFunc, MPI_ERR_ARG, "newgroup pointer is NULL");
  if (n > 0 && !ranks) return api::raisef(kFunc, MPI_ERR_ARG, "ranks is NULL with n = %d", n);
  comm::RankList out;
  if (int rc = comm::groupExcl(g->worldRanks, n, ranks, &out)) return api::raise(kFunc, rc);
  *newgroup = comm::newGroup(std::move(out));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Group_excl)

extern "C" int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  CCMPI_API_BEGIN("MPI_Group_range_incl");
  comm::Group* g;
  if (int rc = groupOrRaise(kFunc, group, &g)) return rc;
  if (!newgroup) return api::raisef(kFunc, MPI_ERR_ARG, "newgroup pointer is NULL");
  if (n > 0 && !ranges) return api::raisef(kFunc, MPI_ERR_ARG, "ranges is NULL with n = %d", n);
  comm::RankList out;
  if (int rc = comm::groupRangeIncl(g->worldRanks, n, ranges, &out)) return api::raise(kFunc, rc);
  *newgroup = comm::newGroup(std::move(out));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Group_range_incl)

extern "C" int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  CCMPI_API_BEGIN("MPI_Group_range_excl");
  comm::Group* g;
  if (int rc = groupOrRaise(kFunc, group, &g)) return rc;
  if (!newgroup) return api::raisef(kFunc, MPI_ERR_ARG, "newgroup pointer is NULL");
  if (n > 0 && !ranges) return api::raisef(kFunc, MPI_ERR_ARG, "ranges is NULL with n = %d", n);
  comm::RankList out;
  if (int rc = comm::groupRangeExcl(g->worldRanks, n, ranges, &out)) return api::raise(kFunc, rc);
  *newgroup = comm::newGroup(std::move(out));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Group_range_excl)

extern "C" int PMPI_Group_free(MPI_Group* group) {
  CCMPI_API_BEGIN("MPI_Group_free");
  if (!group) return api::raisef(kFunc, MPI_ERR_ARG, "group pointer is NULL");
  comm::Group* g;
  if (int rc = groupOrRaise(kFunc, *group, &g)) return rc;
  comm::freeGroup(*group);  // MPI_GROUP_EMPTY (a possible result of the constructors) stays
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Group_free)
