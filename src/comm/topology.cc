// Neighbour lists of process topologies (see topology.h).
#include "comm/topology.h"

#include "comm/topo_math.h"

namespace ccmpi::comm {

bool topologyNeighbors(const Comm& c, std::vector<int>* sources, std::vector<int>* destinations) {
  sources->clear();
  destinations->clear();
  if (c.topoKind == MPI_CART && c.cart) {
    for (size_t d = 0; d < c.cart->dims.size(); ++d) {
      int src, dst;
      cartShift(c.cart->dims, c.cart->periods, c.rank, static_cast<int>(d), 1, &src, &dst);
      sources->push_back(src);
      sources->push_back(dst);
    }
    *destinations = *sources;
    return true;
  }
  if (c.topoKind == MPI_GRAPH && c.graph) {
    const int first = c.rank == 0 ? 0 : c.graph->index[c.rank - 1];
    for (int i = first; i < c.graph->index[c.rank]; ++i) sources->push_back(c.graph->edges[i]);
    *destinations = *sources;
    return true;
  }
  if (c.topoKind == MPI_DIST_GRAPH && c.distGraph) {
    *sources = c.distGraph->sources;
    *destinations = c.distGraph->destinations;
    return true;
  }
  return false;
}

}  // namespace ccmpi::comm
