// The registry of algorithm tables and the restriction vocabulary.
#include <mpi.h>

#include "base/error.h"
#include "coll/algorithm.h"

namespace ccmpi::coll {
namespace {

std::vector<CollectiveDescription>& tables() {
  static std::vector<CollectiveDescription> t;
  return t;
}

}  // namespace

bool restrictionsHold(uint32_t r, const SelectContext& ctx) {
  if ((r & kCommutativeOp) && !ctx.commutative) return false;
  if ((r & kPowerOfTwo) && (ctx.commSize & (ctx.commSize - 1)) != 0) return false;
  return true;
}

std::string restrictionText(uint32_t r) {
  std::string s;
  auto add = [&s](const char* t) {
    if (!s.empty()) s += ", ";
    s += t;
  };
  if (r & kCommutativeOp) add("commutative op");
  if (r & kPowerOfTwo) add("power-of-two size");
  return s;
}

void registerTable(CollectiveDescription d) {
  tables().push_back(std::move(d));
}

std::vector<CollectiveDescription> algorithmTables() {
  return tables();
}

int noAlgorithmError(const char* tunable) {
  return setErrorCause(MPI_ERR_INTERN, "no algorithm applies (see %s)", tunable);
}

}  // namespace ccmpi::coll
