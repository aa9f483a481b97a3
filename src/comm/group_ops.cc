// Group algebra (see group_ops.h). Membership tests go through a hash set so the
// operations stay linear in the group sizes.
#include "comm/group_ops.h"

#include <mpi.h>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "base/error.h"

namespace ccmpi::comm {

RankList groupUnion(const RankList& a, const RankList& b) {
  RankList out = a;
  std::unordered_set<int> inA(a.begin(), a.end());
  for (int w : b)
    if (inA.insert(w).second) out.push_back(w);
  return out;
}

RankList groupIntersection(const RankList& a, const RankList& b) {
  std::unordered_set<int> inB(b.begin(), b.end());
  RankList out;
  for (int w : a)
    if (inB.count(w)) out.push_back(w);
  return out;
}

RankList groupDifference(const RankList& a, const RankList& b) {
  std::unordered_set<int> inB(b.begin(), b.end());
  RankList out;
  for (int w : a)
    if (!inB.count(w)) out.push_back(w);
  return out;
}

int groupCompare(const RankList& a, const RankList& b) {
  if (a == b) return MPI_IDENT;
  if (a.size() != b.size()) return MPI_UNEQUAL;
  RankList sa = a, sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  return sa == sb ? MPI_SIMILAR : MPI_UNEQUAL;
}

int groupTranslate(const RankList& a, int n, const int* ranks, const RankList& b, int* out) {
  if (n < 0) return setErrorCause(MPI_ERR_ARG, "negative number of ranks (%d)", n);
  std::unordered_map<int, int> rankInB;
  rankInB.reserve(b.size());
  for (size_t i = 0; i < b.size(); ++i) rankInB.emplace(b[i], static_cast<int>(i));
  for (int i = 0; i < n; ++i) {
    const int r = ranks[i];
    if (r == MPI_PROC_NULL) {
      out[i] = MPI_PROC_NULL;
      continue;
    }
    if (r < 0 || r >= static_cast<int>(a.size()))
      return setErrorCause(MPI_ERR_RANK, "ranks[%d] = %d is not a rank of a group of size %zu", i,
                           r, a.size());
    auto it = rankInB.find(a[r]);
    out[i] = it == rankInB.end() ? MPI_UNDEFINED : it->second;
  }
  return MPI_SUCCESS;
}

namespace {

// Checks that ranks[0..n) are distinct valid ranks of a group of `size`.
int checkRankList(int size, int n, const int* ranks) {
  if (n < 0 || n > size)
    return setErrorCause(MPI_ERR_ARG, "n = %d outside [0, %d] (group size)", n, size);
  std::vector<char> seen(size, 0);
  for (int i = 0; i < n; ++i) {
    const int r = ranks[i];
    if (r < 0 || r >= size)
      return setErrorCause(MPI_ERR_RANK, "ranks[%d] = %d is not a rank of a group of size %d", i, r,
                           size);
    if (seen[r]) return setErrorCause(MPI_ERR_RANK, "rank %d listed twice", r);
    seen[r] = 1;
  }
  return MPI_SUCCESS;
}

}  // namespace

int groupIncl(const RankList& g, int n, const int* ranks, RankList* out) {
  if (int err = checkRankList(static_cast<int>(g.size()), n, ranks)) return err;
  out->clear();
  for (int i = 0; i < n; ++i) out->push_back(g[ranks[i]]);
  return MPI_SUCCESS;
}

int groupExcl(const RankList& g, int n, const int* ranks, RankList* out) {
  if (int err = checkRankList(static_cast<int>(g.size()), n, ranks)) return err;
  std::vector<char> drop(g.size(), 0);
  for (int i = 0; i < n; ++i) drop[ranks[i]] = 1;
  out->clear();
  for (size_t r = 0; r < g.size(); ++r)
    if (!drop[r]) out->push_back(g[r]);
  return MPI_SUCCESS;
}

int expandRanges(const RankList& g, int n, const int (*ranges)[3], std::vector<int>* ranks) {
  const int size = static_cast<int>(g.size());
  if (n < 0) return setErrorCause(MPI_ERR_ARG, "negative number of ranges (%d)", n);
  std::vector<char> seen(size, 0);
  ranks->clear();
  for (int i = 0; i < n; ++i) {
    const int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0) return setErrorCause(MPI_ERR_ARG, "ranges[%d] has stride 0", i);
    if (first < 0 || first >= size || last < 0 || last >= size)
      return setErrorCause(MPI_ERR_RANK,
                           "ranges[%d] = (%d, %d, %d) names a rank outside a group of size %d", i,
                           first, last, stride, size);
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) continue;  // empty
    for (int64_t r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (seen[r])
        return setErrorCause(MPI_ERR_RANK, "rank %d named twice (ranges[%d])", static_cast<int>(r),
                             i);
      seen[r] = 1;
      ranks->push_back(static_cast<int>(r));
    }
  }
  return MPI_SUCCESS;
}

int groupRangeIncl(const RankList& g, int n, const int (*ranges)[3], RankList* out) {
  std::vector<int> ranks;
  if (int err = expandRanges(g, n, ranges, &ranks)) return err;
  out->clear();
  for (int r : ranks) out->push_back(g[r]);
  return MPI_SUCCESS;
}

int groupRangeExcl(const RankList& g, int n, const int (*ranges)[3], RankList* out) {
  std::vector<int> ranks;
  if (int err = expandRanges(g, n, ranges, &ranks)) return err;
  std::vector<char> drop(g.size(), 0);
  for (int r : ranks) drop[r] = 1;
  out->clear();
  for (size_t r = 0; r < g.size(); ++r)
    if (!drop[r]) out->push_back(g[r]);
  return MPI_SUCCESS;
}

std::vector<int> splitMembers(const std::vector<std::pair<int, int>>& colorKey, int me) {
  std::vector<int> members;
  const int color = colorKey[me].first;
  if (color == MPI_UNDEFINED) return members;
  for (size_t r = 0; r < colorKey.size(); ++r)
    if (colorKey[r].first == color) members.push_back(static_cast<int>(r));
  std::stable_sort(members.begin(), members.end(), [&](int x, int y) {
    return colorKey[x].second != colorKey[y].second ? colorKey[x].second < colorKey[y].second
                                                    : x < y;
  });
  return members;
}

}  // namespace ccmpi::comm
