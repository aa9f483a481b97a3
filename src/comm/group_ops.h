#pragma once
// Pure group algebra on "group rank -> world rank" vectors: the set operations of
// MPI_Group_union/intersection/difference, rank selection (incl/excl/range_incl/
// range_excl), translation and comparison, and the member order of MPI_Comm_split.
// Functions that validate arguments return an MPI error class and record the cause
// with setErrorCause; they never touch global MPI state, so unit tests call them directly.
#include <utility>
#include <vector>

namespace ccmpi::comm {

using RankList = std::vector<int>;  // group rank -> world rank

// Members of a followed by the members of b not in a (order of a, then b).
RankList groupUnion(const RankList& a, const RankList& b);
// Members of a that are also in b, in a's order.
RankList groupIntersection(const RankList& a, const RankList& b);
// Members of a not in b, in a's order.
RankList groupDifference(const RankList& a, const RankList& b);

// MPI_IDENT (same members, same order), MPI_SIMILAR (same members) or MPI_UNEQUAL.
int groupCompare(const RankList& a, const RankList& b);

// out[i] = rank in b of the process with rank ranks[i] in a (MPI_UNDEFINED if absent,
// MPI_PROC_NULL for MPI_PROC_NULL). MPI_ERR_RANK for a rank outside a.
int groupTranslate(const RankList& a, int n, const int* ranks, const RankList& b, int* out);

// The n listed ranks of g, in the listed order (MPI_Group_incl) / the others in g's order
// (MPI_Group_excl). MPI_ERR_ARG for n outside [0, size], MPI_ERR_RANK for an invalid or
// repeated rank.
int groupIncl(const RankList& g, int n, const int* ranks, RankList* out);
int groupExcl(const RankList& g, int n, const int* ranks, RankList* out);

// Expands n (first, last, stride) triplets into group ranks (MPI_Group_range_incl/excl).
// MPI_ERR_ARG for a zero stride or a negative n; MPI_ERR_RANK for first/last outside g
// or a rank named twice.
int expandRanges(const RankList& g, int n, const int (*ranges)[3], std::vector<int>* ranks);
int groupRangeIncl(const RankList& g, int n, const int (*ranges)[3], RankList* out);
int groupRangeExcl(const RankList& g, int n, const int (*ranges)[3], RankList* out);

// MPI_Comm_split order: colorKey[r] is (color, key) of parent rank r. Returns the parent
// ranks with the same color as `me`, sorted by (key, parent rank); empty if my color is
// MPI_UNDEFINED.
std::vector<int> splitMembers(const std::vector<std::pair<int, int>>& colorKey, int me);

}  // namespace ccmpi::comm
