// Process topologies (MPI-3.1 chapter 7): Cartesian, graph and distributed graph
// constructors and queries, MPI_Dims_create and MPI_Topo_test. `reorder` is ignored: a
// topology communicator keeps the ranks of the old one (processes beyond the grid get
// MPI_COMM_NULL). The math is in comm/topo_math.h.
#include <algorithm>
#include <vector>

#include "api/api.h"
#include "api/comm_api.h"
#include "coll/coll.h"
#include "comm/info.h"
#include "comm/internal.h"
#include "comm/topo_math.h"

using namespace ccmpi;
using api::commOrRaise;

namespace {

int cartOrRaise(const char* func, MPI_Comm comm, comm::Comm** c) {
  if (int rc = commOrRaise(func, comm, c)) return rc;
  if ((*c)->topoKind != MPI_CART || !(*c)->cart)
    return api::raiseCommf(comm, func, MPI_ERR_TOPOLOGY, "communicator has no Cartesian topology");
  return MPI_SUCCESS;
}

int graphOrRaise(const char* func, MPI_Comm comm, comm::Comm** c) {
  if (int rc = commOrRaise(func, comm, c)) return rc;
  if ((*c)->topoKind != MPI_GRAPH || !(*c)->graph)
    return api::raiseCommf(comm, func, MPI_ERR_TOPOLOGY, "communicator has no graph topology");
  return MPI_SUCCESS;
}

int distGraphOrRaise(const char* func, MPI_Comm comm, comm::Comm** c) {
  if (int rc = commOrRaise(func, comm, c)) return rc;
  if ((*c)->topoKind != MPI_DIST_GRAPH || !(*c)->distGraph)
    return api::raiseCommf(comm, func, MPI_ERR_TOPOLOGY,
                           "communicator has no distributed graph topology");
  return MPI_SUCCESS;
}

// Checks ndims/dims/periods of a Cartesian grid that must fit into `size` processes.
int checkGrid(const char* func, MPI_Comm comm, int size, int ndims, const int* dims,
              const int* periods, long long* product) {
  if (ndims < 0) return api::raiseCommf(comm, func, MPI_ERR_DIMS, "ndims %d is negative", ndims);
  if (ndims > 0 && (!dims || !periods))
    return api::raiseCommf(comm, func, MPI_ERR_ARG, "dims or periods is NULL");
  long long p = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0)
      return api::raiseCommf(comm, func, MPI_ERR_DIMS, "dims[%d] = %d is not positive", i, dims[i]);
    p *= dims[i];
    if (p > size)
      return api::raiseCommf(comm, func, MPI_ERR_ARG,
                             "the grid has more than the %d processes of the communicator", size);
  }
  *product = p;
  return MPI_SUCCESS;
}

// Collective over parent: a communicator of its first n ranks.
int firstRanks(comm::Comm& parent, int n, MPI_Comm* out) {
  std::vector<int> members(parent.worldRanks.begin(), parent.worldRanks.begin() + n);
  return comm::createComm(parent, members, out);
}

}  // namespace

extern "C" int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  CCMPI_API_BEGIN("MPI_Dims_create");
  if (ndims > 0 && !dims) return api::raisef(kFunc, MPI_ERR_ARG, "dims is NULL");
  if (int rc = comm::dimsCreate(nnodes, ndims, dims)) return api::raise(kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Dims_create)

extern "C" int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                                int reorder, MPI_Comm* comm_cart) {
  CCMPI_API_BEGIN("MPI_Cart_create");
  (void)reorder;
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm_old, &c)) return rc;
  if (int rc = api::intraOrRaise(kFunc, comm_old, *c)) return rc;
  if (!comm_cart) return api::raiseCommf(comm_old, kFunc, MPI_ERR_ARG, "comm_cart is NULL");
  long long n;
  if (int rc = checkGrid(kFunc, comm_old, c->size, ndims, dims, periods, &n)) return rc;
  if (int rc = firstRanks(*c, static_cast<int>(n), comm_cart))
    return api::raiseComm(comm_old, kFunc, rc);
  if (comm::Comm* nc = comm::lookup(*comm_cart)) {
    nc->topoKind = MPI_CART;
    nc->cart = std::make_unique<comm::CartTopology>();
    nc->cart->dims.assign(dims, dims + ndims);
    for (int i = 0; i < ndims; ++i) nc->cart->periods.push_back(periods[i] ? 1 : 0);
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Cart_create)

extern "C" int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  CCMPI_API_BEGIN("MPI_Cartdim_get");
  comm::Comm* c;
  if (int rc = cartOrRaise(kFunc, comm, &c)) return rc;
  if (!ndims) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "ndims pointer is NULL");
  *ndims = static_cast<int>(c->cart->dims.size());
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Cartdim_get)

extern "C" int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  CCMPI_API_BEGIN("MPI_Cart_get");
  comm::Comm* c;
  if (int rc = cartOrRaise(kFunc, comm, &c)) return rc;
  const int nd = static_cast<int>(c->cart->dims.size());
  if (maxdims < 0) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "maxdims %d < 0", maxdims);
  if (nd > 0 && maxdims > 0 && (!dims || !periods || !coords))
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "NULL output array");
  std::vector<int> co(nd);
  comm::cartCoordsOf(c->cart->dims, c->rank, co.data());
  for (int i = 0; i < std::min(nd, maxdims); ++i) {
    dims[i] = c->cart->dims[i];
    periods[i] = c->cart->periods[i];
    coords[i] = co[i];
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Cart_get)

extern "C" int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  CCMPI_API_BEGIN("MPI_Cart_rank");
  comm::Comm* c;
  if (int rc = cartOrRaise(kFunc, comm, &c)) return rc;
  if (!rank) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "rank pointer is NULL");
  if (!coords && !c->cart->dims.empty())
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "coords is NULL");
  if (int rc = comm::cartRankOf(c->cart->dims, c->cart->periods, coords, rank))
    return api::raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Cart_rank)

extern "C" int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  CCMPI_API_BEGIN("MPI_Cart_coords");
  comm::Comm* c;
  if (int rc = cartOrRaise(kFunc, comm, &c)) return rc;
  const int nd = static_cast<int>(c->cart->dims.size());
  if (rank < 0 || rank >= c->size)
    return api::raiseCommf(comm, kFunc, MPI_ERR_RANK, "rank %d outside [0, %d)", rank, c->size);
  if (maxdims < nd)
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "maxdims %d is less than ndims %d", maxdims,
                           nd);
  if (nd > 0 && !coords) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "coords is NULL");
  comm::cartCoordsOf(c->cart->dims, rank, coords);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Cart_coords)

extern "C" int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source,
                               int* rank_dest) {
  CCMPI_API_BEGIN("MPI_Cart_shift");
  comm::Comm* c;
  if (int rc = cartOrRaise(kFunc, comm, &c)) return rc;
  const int nd = static_cast<int>(c->cart->dims.size());
  if (direction < 0 || direction >= nd)
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "direction %d outside [0, %d)", direction, nd);
  if (!rank_source || !rank_dest)
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "NULL output argument");
  comm::cartShift(c->cart->dims, c->cart->periods, c->rank, direction, disp, rank_source,
                  rank_dest);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Cart_shift)

extern "C" int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  CCMPI_API_BEGIN("MPI_Cart_sub");
  comm::Comm* c;
  if (int rc = cartOrRaise(kFunc, comm, &c)) return rc;
  if (!newcomm) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "newcomm is NULL");
  if (!remain_dims && !c->cart->dims.empty())
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "remain_dims is NULL");
  int color, key;
  std::vector<int> subDims, subPeriods;
  comm::cartSubColorKey(c->cart->dims, c->cart->periods, c->rank, remain_dims, &color, &key,
                        &subDims, &subPeriods);
  if (int rc = comm::splitComm(*c, color, key, newcomm)) return api::raiseComm(comm, kFunc, rc);
  if (comm::Comm* nc = comm::lookup(*newcomm)) {
    nc->topoKind = MPI_CART;
    nc->cart = std::make_unique<comm::CartTopology>();
    nc->cart->dims = std::move(subDims);
    nc->cart->periods = std::move(subPeriods);
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Cart_sub)

extern "C" int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                             int* newrank) {
  CCMPI_API_BEGIN("MPI_Cart_map");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (int rc = api::intraOrRaise(kFunc, comm, *c)) return rc;
  if (!newrank) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "newrank is NULL");
  long long n;
  if (int rc = checkGrid(kFunc, comm, c->size, ndims, dims, periods, &n)) return rc;
  *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Cart_map)

extern "C" int PMPI_Topo_test(MPI_Comm comm, int* status) {
  CCMPI_API_BEGIN("MPI_Topo_test");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (!status) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "status pointer is NULL");
  *status = c->topoKind;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Topo_test)

// --- graph topology ---

namespace {

int checkGraph(const char* func, MPI_Comm comm, int size, int nnodes, const int* index,
               const int* edges) {
  if (nnodes < 0 || nnodes > size)
    return api::raiseCommf(comm, func, MPI_ERR_ARG, "nnodes %d outside [0, %d]", nnodes, size);
  if (nnodes > 0 && !index) return api::raiseCommf(comm, func, MPI_ERR_ARG, "index is NULL");
  int prev = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < prev)
      return api::raiseCommf(comm, func, MPI_ERR_ARG, "index[%d] = %d decreases", i, index[i]);
    prev = index[i];
  }
  if (prev > 0 && !edges) return api::raiseCommf(comm, func, MPI_ERR_ARG, "edges is NULL");
  for (int e = 0; e < prev; ++e)
    if (edges[e] < 0 || edges[e] >= nnodes)
      return api::raiseCommf(comm, func, MPI_ERR_ARG, "edges[%d] = %d outside [0, %d)", e, edges[e],
                             nnodes);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[],
                                 const int edges[], int reorder, MPI_Comm* comm_graph) {
  CCMPI_API_BEGIN("MPI_Graph_create");
  (void)reorder;
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm_old, &c)) return rc;
  if (int rc = api::intraOrRaise(kFunc, comm_old, *c)) return rc;
  if (!comm_graph) return api::raiseCommf(comm_old, kFunc, MPI_ERR_ARG, "comm_graph is NULL");
  if (int rc = checkGraph(kFunc, comm_old, c->size, nnodes, index, edges)) return rc;
  if (int rc = firstRanks(*c, nnodes, comm_graph)) return api::raiseComm(comm_old, kFunc, rc);
  if (comm::Comm* nc = comm::lookup(*comm_graph)) {
    nc->topoKind = MPI_GRAPH;
    nc->graph = std::make_unique<comm::GraphTopology>();
    nc->graph->index.assign(index, index + nnodes);
    const int ne = nnodes > 0 ? index[nnodes - 1] : 0;
    nc->graph->edges.assign(edges, edges + ne);
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Graph_create)

extern "C" int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  CCMPI_API_BEGIN("MPI_Graphdims_get");
  comm::Comm* c;
  if (int rc = graphOrRaise(kFunc, comm, &c)) return rc;
  if (!nnodes || !nedges) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "NULL output argument");
  *nnodes = static_cast<int>(c->graph->index.size());
  *nedges = static_cast<int>(c->graph->edges.size());
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Graphdims_get)

extern "C" int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  CCMPI_API_BEGIN("MPI_Graph_get");
  comm::Comm* c;
  if (int rc = graphOrRaise(kFunc, comm, &c)) return rc;
  const int ni = std::min(maxindex, static_cast<int>(c->graph->index.size()));
  const int ne = std::min(maxedges, static_cast<int>(c->graph->edges.size()));
  if ((ni > 0 && !index) || (ne > 0 && !edges))
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "NULL output array");
  std::copy_n(c->graph->index.begin(), std::max(ni, 0), index);
  std::copy_n(c->graph->edges.begin(), std::max(ne, 0), edges);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Graph_get)

extern "C" int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  CCMPI_API_BEGIN("MPI_Graph_neighbors_count");
  comm::Comm* c;
  if (int rc = graphOrRaise(kFunc, comm, &c)) return rc;
  const int nn = static_cast<int>(c->graph->index.size());
  if (rank < 0 || rank >= nn)
    return api::raiseCommf(comm, kFunc, MPI_ERR_RANK, "rank %d outside [0, %d)", rank, nn);
  if (!nneighbors) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "nneighbors is NULL");
  *nneighbors = c->graph->index[rank] - (rank == 0 ? 0 : c->graph->index[rank - 1]);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Graph_neighbors_count)

extern "C" int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  CCMPI_API_BEGIN("MPI_Graph_neighbors");
  comm::Comm* c;
  if (int rc = graphOrRaise(kFunc, comm, &c)) return rc;
  const int nn = static_cast<int>(c->graph->index.size());
  if (rank < 0 || rank >= nn)
    return api::raiseCommf(comm, kFunc, MPI_ERR_RANK, "rank %d outside [0, %d)", rank, nn);
  const int first = rank == 0 ? 0 : c->graph->index[rank - 1];
  const int n = std::min(maxneighbors, c->graph->index[rank] - first);
  if (n > 0 && !neighbors) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "neighbors is NULL");
  for (int i = 0; i < n; ++i) neighbors[i] = c->graph->edges[first + i];
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Graph_neighbors)

extern "C" int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                              int* newrank) {
  CCMPI_API_BEGIN("MPI_Graph_map");
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm, &c)) return rc;
  if (int rc = api::intraOrRaise(kFunc, comm, *c)) return rc;
  if (!newrank) return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "newrank is NULL");
  if (int rc = checkGraph(kFunc, comm, c->size, nnodes, index, edges)) return rc;
  *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Graph_map)

// --- distributed graph topology ---

namespace {
// Storage whose addresses are the sentinels (never read or written).
int gUnweighted;
int gWeightsEmpty;
}  // namespace

extern "C" {
int* const MPI_UNWEIGHTED = &gUnweighted;
int* const MPI_WEIGHTS_EMPTY = &gWeightsEmpty;
}

namespace {

int checkNeighbors(const char* func, MPI_Comm comm, int size, int n, const int* ranks,
                   const int* weights, const char* what) {
  if (n < 0) return api::raiseCommf(comm, func, MPI_ERR_ARG, "%s degree %d is negative", what, n);
  if (n > 0 && !ranks) return api::raiseCommf(comm, func, MPI_ERR_ARG, "%s array is NULL", what);
  if (n > 0 && !weights)
    return api::raiseCommf(comm, func, MPI_ERR_ARG, "%s weights are NULL (use MPI_UNWEIGHTED)",
                           what);
  for (int i = 0; i < n; ++i)
    if (ranks[i] < 0 || ranks[i] >= size)
      return api::raiseCommf(comm, func, MPI_ERR_RANK, "%s[%d] = %d outside [0, %d)", what, i,
                             ranks[i], size);
  return MPI_SUCCESS;
}

bool isWeighted(const int* w) {
  return w != MPI_UNWEIGHTED;
}
bool realWeights(const int* w) {
  return w && w != MPI_UNWEIGHTED && w != MPI_WEIGHTS_EMPTY;
}

void setDistGraph(MPI_Comm h, std::unique_ptr<comm::DistGraphTopology> t) {
  if (comm::Comm* nc = comm::lookup(h)) {
    nc->topoKind = MPI_DIST_GRAPH;
    nc->distGraph = std::move(t);
  }
}

}  // namespace

extern "C" int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                               const int sourceweights[], int outdegree,
                                               const int destinations[], const int destweights[],
                                               MPI_Info info, int reorder,
                                               MPI_Comm* comm_dist_graph) {
  CCMPI_API_BEGIN("MPI_Dist_graph_create_adjacent");
  (void)reorder;
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm_old, &c)) return rc;
  if (int rc = api::intraOrRaise(kFunc, comm_old, *c)) return rc;
  if (!comm_dist_graph)
    return api::raiseCommf(comm_old, kFunc, MPI_ERR_ARG, "comm_dist_graph is NULL");
  if (info != MPI_INFO_NULL && !comm::lookupInfo(info))
    return api::raiseCommf(comm_old, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  if (int rc =
          checkNeighbors(kFunc, comm_old, c->size, indegree, sources, sourceweights, "sources"))
    return rc;
  if (int rc = checkNeighbors(kFunc, comm_old, c->size, outdegree, destinations, destweights,
                              "destinations"))
    return rc;
  auto t = std::make_unique<comm::DistGraphTopology>();
  t->sources.assign(sources, sources + indegree);
  t->destinations.assign(destinations, destinations + outdegree);
  t->weighted = isWeighted(sourceweights) && isWeighted(destweights);
  if (t->weighted) {
    if (realWeights(sourceweights))
      t->sourceWeights.assign(sourceweights, sourceweights + indegree);
    if (realWeights(destweights)) t->destWeights.assign(destweights, destweights + outdegree);
  }
  if (int rc = comm::dupComm(*c, comm_dist_graph)) return api::raiseComm(comm_old, kFunc, rc);
  setDistGraph(*comm_dist_graph, std::move(t));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Dist_graph_create_adjacent)

// Every process names edges of any sources; an allgather of the edge lists (padded to the
// largest) lets each process pick the edges that end or start at itself. Edge order:
// by contributing rank, then as given.
extern "C" int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[],
                                      const int degrees[], const int destinations[],
                                      const int weights[], MPI_Info info, int reorder,
                                      MPI_Comm* comm_dist_graph) {
  CCMPI_API_BEGIN("MPI_Dist_graph_create");
  (void)reorder;
  comm::Comm* c;
  if (int rc = commOrRaise(kFunc, comm_old, &c)) return rc;
  if (int rc = api::intraOrRaise(kFunc, comm_old, *c)) return rc;
  if (!comm_dist_graph)
    return api::raiseCommf(comm_old, kFunc, MPI_ERR_ARG, "comm_dist_graph is NULL");
  if (info != MPI_INFO_NULL && !comm::lookupInfo(info))
    return api::raiseCommf(comm_old, kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  if (n < 0) return api::raiseCommf(comm_old, kFunc, MPI_ERR_ARG, "n = %d is negative", n);
  if (n > 0 && (!sources || !degrees))
    return api::raiseCommf(comm_old, kFunc, MPI_ERR_ARG, "sources or degrees is NULL");
  // My edges as (source, destination, weight) triples.
  std::vector<int> mine;
  int e = 0;
  for (int i = 0; i < n; ++i) {
    if (sources[i] < 0 || sources[i] >= c->size)
      return api::raiseCommf(comm_old, kFunc, MPI_ERR_RANK, "sources[%d] = %d outside [0, %d)", i,
                             sources[i], c->size);
    if (degrees[i] < 0)
      return api::raiseCommf(comm_old, kFunc, MPI_ERR_ARG, "degrees[%d] = %d is negative", i,
                             degrees[i]);
    for (int k = 0; k < degrees[i]; ++k, ++e) {
      if (!destinations || destinations[e] < 0 || destinations[e] >= c->size)
        return api::raiseCommf(comm_old, kFunc, MPI_ERR_RANK,
                               "destinations[%d] is not a rank of the communicator", e);
      mine.push_back(sources[i]);
      mine.push_back(destinations[e]);
      mine.push_back(realWeights(weights) ? weights[e] : 1);
    }
  }
  // Agree on the largest edge list and whether anyone is weighted.
  int local[2] = {e, isWeighted(weights) ? 1 : 0};
  std::vector<int> counts(2 * static_cast<size_t>(c->size));
  if (int rc = coll::allgather(local, 2, MPI_INT, counts.data(), 2, MPI_INT, *c))
    return api::raiseComm(comm_old, kFunc, rc);
  int maxEdges = 0;
  bool weighted = true;
  for (int r = 0; r < c->size; ++r) {
    maxEdges = std::max(maxEdges, counts[2 * r]);
    weighted = weighted && counts[2 * r + 1];
  }
  const int rec = 3 * maxEdges;
  mine.resize(rec, 0);
  std::vector<int> all(static_cast<size_t>(rec) * c->size);
  if (rec > 0) {
    if (int rc = coll::allgather(mine.data(), rec, MPI_INT, all.data(), rec, MPI_INT, *c))
      return api::raiseComm(comm_old, kFunc, rc);
  }
  auto t = std::make_unique<comm::DistGraphTopology>();
  t->weighted = weighted;
  for (int r = 0; r < c->size; ++r) {
    const int* edges = all.data() + static_cast<size_t>(r) * rec;
    for (int k = 0; k < counts[2 * r]; ++k) {
      const int s = edges[3 * k], d = edges[3 * k + 1], w = edges[3 * k + 2];
      if (d == c->rank) {
        t->sources.push_back(s);
        t->sourceWeights.push_back(w);
      }
      if (s == c->rank) {
        t->destinations.push_back(d);
        t->destWeights.push_back(w);
      }
    }
  }
  if (!weighted) {
    t->sourceWeights.clear();
    t->destWeights.clear();
  }
  if (int rc = comm::dupComm(*c, comm_dist_graph)) return api::raiseComm(comm_old, kFunc, rc);
  setDistGraph(*comm_dist_graph, std::move(t));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Dist_graph_create)

extern "C" int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree,
                                               int* weighted) {
  CCMPI_API_BEGIN("MPI_Dist_graph_neighbors_count");
  comm::Comm* c;
  if (int rc = distGraphOrRaise(kFunc, comm, &c)) return rc;
  if (!indegree || !outdegree || !weighted)
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "NULL output argument");
  *indegree = static_cast<int>(c->distGraph->sources.size());
  *outdegree = static_cast<int>(c->distGraph->destinations.size());
  *weighted = c->distGraph->weighted ? 1 : 0;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Dist_graph_neighbors_count)

extern "C" int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[],
                                         int sourceweights[], int maxoutdegree, int destinations[],
                                         int destweights[]) {
  CCMPI_API_BEGIN("MPI_Dist_graph_neighbors");
  comm::Comm* c;
  if (int rc = distGraphOrRaise(kFunc, comm, &c)) return rc;
  const comm::DistGraphTopology& t = *c->distGraph;
  const int ni = std::min(maxindegree, static_cast<int>(t.sources.size()));
  const int no = std::min(maxoutdegree, static_cast<int>(t.destinations.size()));
  if ((ni > 0 && !sources) || (no > 0 && !destinations))
    return api::raiseCommf(comm, kFunc, MPI_ERR_ARG, "NULL output array");
  for (int i = 0; i < ni; ++i) {
    sources[i] = t.sources[i];
    if (realWeights(sourceweights) && i < static_cast<int>(t.sourceWeights.size()))
      sourceweights[i] = t.sourceWeights[i];
  }
  for (int i = 0; i < no; ++i) {
    destinations[i] = t.destinations[i];
    if (realWeights(destweights) && i < static_cast<int>(t.destWeights.size()))
      destweights[i] = t.destWeights[i];
  }
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Dist_graph_neighbors)
