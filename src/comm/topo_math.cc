// Cartesian topology math (see topo_math.h).
//
// Dims_create search: the free entries must multiply to m = nnodes / (fixed product).
// We enumerate non-increasing divisor chains d1 >= d2 >= ... >= dk with product m and
// keep the one with the smallest spread d1 - dk (ties: smaller d1). A chain is pruned as
// soon as its largest entry minus the smallest entry it could still reach cannot beat the
// best spread. This is exact (unlike greedy prime assignment, which gives 12x6 for 72
// in 2D instead of 9x8) and fast for any realistic process count.
#include "comm/topo_math.h"

#include <mpi.h>

#include <algorithm>
#include <climits>

#include "base/error.h"

namespace ccmpi::comm {
namespace {

struct DimsSearch {
  std::vector<long long> divisors;  // all divisors of m, ascending
  std::vector<int> cur, best;
  long long bestSpread = LLONG_MAX;
  long long bestMax = LLONG_MAX;

  // Chooses entry `pos` (of k) for remaining product `rem`, entries <= `cap`.
  void run(long long rem, int pos, int k, long long cap) {
    if (pos == k) {
      if (rem != 1) return;
      const long long spread = static_cast<long long>(cur.front()) - cur.back();
      if (spread < bestSpread || (spread == bestSpread && cur.front() < bestMax)) {
        bestSpread = spread;
        bestMax = cur.front();
        best = cur;
      }
      return;
    }
    const int left = k - pos;
    // Largest first: d must satisfy d^left >= rem (otherwise rem cannot be covered).
    for (auto it = divisors.rbegin(); it != divisors.rend(); ++it) {
      const long long d = *it;
      if (d > cap || rem % d != 0) continue;
      // Need d^left >= rem.
      long long p = 1;
      bool enough = false;
      for (int i = 0; i < left; ++i) {
        p *= d;
        if (p >= rem) {
          enough = true;
          break;
        }
      }
      if (!enough) break;  // smaller d cannot cover either
      // Later entries are <= d, so the spread is at least front - d; smaller d only grow it.
      if (pos > 0 && cur.front() - d > bestSpread) break;
      cur.push_back(static_cast<int>(d));
      run(rem / d, pos + 1, k, d);
      cur.pop_back();
    }
  }
};

}  // namespace

int dimsCreate(int nnodes, int ndims, int* dims) {
  if (ndims < 0) return setErrorCause(MPI_ERR_DIMS, "negative ndims (%d)", ndims);
  if (nnodes < 1) return setErrorCause(MPI_ERR_ARG, "nnodes = %d must be positive", nnodes);
  long long fixed = 1;
  int freeCount = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return setErrorCause(MPI_ERR_DIMS, "dims[%d] = %d is negative", i, dims[i]);
    if (dims[i] == 0)
      ++freeCount;
    else
      fixed *= dims[i];
    if (fixed > nnodes)
      return setErrorCause(MPI_ERR_DIMS, "product of the fixed dims entries exceeds nnodes = %d",
                           nnodes);
  }
  if (nnodes % fixed != 0)
    return setErrorCause(MPI_ERR_DIMS,
                         "nnodes = %d is not a multiple of the product (%lld) "
                         "of the nonzero dims entries",
                         nnodes, fixed);
  const long long m = nnodes / fixed;
  if (freeCount == 0) {
    if (m != 1)
      return setErrorCause(MPI_ERR_DIMS, "product of dims (%lld) differs from nnodes = %d", fixed,
                           nnodes);
    return MPI_SUCCESS;
  }
  DimsSearch s;
  for (long long d = 1; d * d <= m; ++d) {
    if (m % d == 0) {
      s.divisors.push_back(d);
      if (d != m / d) s.divisors.push_back(m / d);
    }
  }
  std::sort(s.divisors.begin(), s.divisors.end());
  s.run(m, 0, freeCount, m);
  int j = 0;
  for (int i = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = s.best[j++];
  return MPI_SUCCESS;
}

long long dimsProduct(const std::vector<int>& dims) {
  long long p = 1;
  for (int d : dims) p *= d;
  return p;
}

int cartRankOf(const std::vector<int>& dims, const std::vector<int>& periods, const int* coords,
               int* rank) {
  long long r = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    int c = coords[i];
    if (c < 0 || c >= dims[i]) {
      if (!periods[i])
        return setErrorCause(MPI_ERR_ARG,
                             "coords[%zu] = %d outside [0, %d) of a non-periodic dimension", i, c,
                             dims[i]);
      c %= dims[i];
      if (c < 0) c += dims[i];
    }
    r = r * dims[i] + c;
  }
  *rank = static_cast<int>(r);
  return MPI_SUCCESS;
}

void cartCoordsOf(const std::vector<int>& dims, int rank, int* coords) {
  for (size_t i = dims.size(); i-- > 0;) {
    coords[i] = rank % dims[i];
    rank /= dims[i];
  }
}

void cartShift(const std::vector<int>& dims, const std::vector<int>& periods, int rank,
               int direction, int disp, int* source, int* dest) {
  std::vector<int> coords(dims.size());
  cartCoordsOf(dims, rank, coords.data());
  const int n = dims[direction];
  const int c = coords[direction];
  auto neighbour = [&](long long target) {
    if (target < 0 || target >= n) {
      if (!periods[direction]) return MPI_PROC_NULL;
      target %= n;
      if (target < 0) target += n;
    }
    std::vector<int> t = coords;
    t[direction] = static_cast<int>(target);
    int r = MPI_PROC_NULL;
    cartRankOf(dims, periods, t.data(), &r);
    return r;
  };
  *dest = neighbour(static_cast<long long>(c) + disp);
  *source = neighbour(static_cast<long long>(c) - disp);
}

void cartSubColorKey(const std::vector<int>& dims, const std::vector<int>& periods, int rank,
                     const int* remain, int* color, int* key, std::vector<int>* subDims,
                     std::vector<int>* subPeriods) {
  std::vector<int> coords(dims.size());
  cartCoordsOf(dims, rank, coords.data());
  long long c = 0, k = 0;
  subDims->clear();
  subPeriods->clear();
  for (size_t i = 0; i < dims.size(); ++i) {
    if (remain[i]) {
      k = k * dims[i] + coords[i];
      subDims->push_back(dims[i]);
      subPeriods->push_back(periods[i]);
    } else {
      c = c * dims[i] + coords[i];
    }
  }
  *color = static_cast<int>(c);
  *key = static_cast<int>(k);
}

}  // namespace ccmpi::comm
