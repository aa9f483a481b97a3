#pragma once
// Pure Cartesian-topology math: MPI_Dims_create's balanced factorization, row-major
// rank <-> coordinates, shifts with periodic wrap or MPI_PROC_NULL at open edges, and
// the (color, key) that MPI_Cart_sub splits by. Errors are MPI error classes with the
// cause recorded by setErrorCause.
#include <vector>

namespace ccmpi::comm {

// MPI_Dims_create: fills the zero entries of dims[0..ndims) so that the product of all
// entries is nnodes, the filled entries as close to each other as possible and in
// non-increasing order. MPI_ERR_DIMS for negative ndims/entries or when the fixed
// entries do not divide nnodes; MPI_ERR_ARG for nnodes < 1.
int dimsCreate(int nnodes, int ndims, int* dims);

// Product of dims (0 for an empty list is avoided: an empty list gives 1).
long long dimsProduct(const std::vector<int>& dims);

// Row-major rank of coords (periodic dimensions wrap). MPI_ERR_ARG for a coordinate
// outside a non-periodic dimension.
int cartRankOf(const std::vector<int>& dims, const std::vector<int>& periods, const int* coords,
               int* rank);
// Coordinates of rank (0 <= rank < product of dims).
void cartCoordsOf(const std::vector<int>& dims, int rank, int* coords);
// Neighbours `disp` steps down (source) and up (dest) along `direction`.
void cartShift(const std::vector<int>& dims, const std::vector<int>& periods, int rank,
               int direction, int disp, int* source, int* dest);
// MPI_Cart_sub: color = row-major index over the dropped dimensions, key = index over
// the kept ones; the kept dims/periods are returned.
void cartSubColorKey(const std::vector<int>& dims, const std::vector<int>& periods, int rank,
                     const int* remain, int* color, int* key, std::vector<int>* subDims,
                     std::vector<int>* subPeriods);

}  // namespace ccmpi::comm
