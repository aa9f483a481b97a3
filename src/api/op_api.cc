// Reduction-operation entry points: MPI_Op_create, MPI_Op_free, MPI_Op_commutative and
// MPI_Reduce_local. None is tied to a communicator, so errors go to MPI_COMM_WORLD's
// handler.
#include "api/api.h"
#include "datatype/datatype.h"
#include "op/op.h"

using namespace ccmpi;

extern "C" int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  CCMPI_API_BEGIN("MPI_Op_create");
  if (!user_fn) return api::raisef(kFunc, MPI_ERR_ARG, "user function is NULL");
  if (!op) return api::raisef(kFunc, MPI_ERR_ARG, "op pointer is NULL");
  *op = op::create(user_fn, commute != 0);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Op_create)

extern "C" int PMPI_Op_free(MPI_Op* op) {
  CCMPI_API_BEGIN("MPI_Op_free");
  if (!op) return api::raisef(kFunc, MPI_ERR_ARG, "op pointer is NULL");
  const op::Op* o = op::lookup(*op);
  if (!o) return api::raisef(kFunc, MPI_ERR_OP, "invalid op handle 0x%x", *op);
  if (o->predefined)
    return api::raisef(kFunc, MPI_ERR_OP, "cannot free predefined op %s", op::name(*op));
  if (int rc = op::free(op)) return api::raise(kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Op_free)

extern "C" int PMPI_Op_commutative(MPI_Op op, int* commute) {
  CCMPI_API_BEGIN("MPI_Op_commutative");
  const op::Op* o = op::lookup(op);
  if (!o) return api::raisef(kFunc, MPI_ERR_OP, "invalid op handle 0x%x", op);
  if (!commute) return api::raisef(kFunc, MPI_ERR_ARG, "commute pointer is NULL");
  *commute = o->commutative ? 1 : 0;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Op_commutative)

extern "C" int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op) {
  CCMPI_API_BEGIN("MPI_Reduce_local");
  if (count < 0) return api::raisef(kFunc, MPI_ERR_COUNT, "count %d is negative", count);
  const datatype::Datatype* dt = datatype::lookup(datatype);
  if (!dt) return api::raisef(kFunc, MPI_ERR_TYPE, "invalid datatype handle 0x%x", datatype);
  const char* tname = dt->name().empty() ? "(unnamed derived datatype)" : dt->name().c_str();
  if (!dt->committed())
    return api::raisef(kFunc, MPI_ERR_TYPE, "datatype %s is not committed", tname);
  if (!op::lookup(op)) return api::raisef(kFunc, MPI_ERR_OP, "invalid op handle 0x%x", op);
  if (!op::validFor(op, datatype))
    return api::raisef(kFunc, MPI_ERR_OP, "%s is not defined for datatype %s", op::name(op), tname);
  if (count > 0 && dt->size() > 0 && dt->predefined() && (!inbuf || !inoutbuf))
    return api::raisef(kFunc, MPI_ERR_BUFFER, "%s is NULL but count is %d",
                       inbuf ? "inoutbuf" : "inbuf", count);
  if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
    return api::raisef(kFunc, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed in MPI_Reduce_local");
  if (int rc = op::apply(op, inbuf, inoutbuf, count, datatype)) return api::raise(kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Reduce_local)
