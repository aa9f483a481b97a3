// MPI-4.0/4.1 additions outside point-to-point: MPI_Op_create_c (large-count user
// functions), MPI_Info_create_env (callable before MPI_Init and after MPI_Finalize) and
// MPI_Type_get_value_index (MPI-4.1: the predefined value-index pair types).
#include <sys/utsname.h>
#include <unistd.h>

#include <string>

#include "api/api.h"
#include "comm/info.h"
#include "op/op.h"

using namespace ccmpi;

extern "C" int PMPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  CCMPI_API_BEGIN("MPI_Op_create_c");
  if (!user_fn) return api::raisef(kFunc, MPI_ERR_ARG, "user function is NULL");
  if (!op) return api::raisef(kFunc, MPI_ERR_ARG, "op pointer is NULL");
  *op = op::create(user_fn, commute != 0);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Op_create_c)

// The info of the standard's reserved keys this process can tell without the runtime, so
// that it is the same before, during and after MPI: "command" and "argv" from the
// arguments, "host", "arch" and "wdir".
extern "C" int PMPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  CCMPI_API_BEGIN_ANYTIME("MPI_Info_create_env");
  if (!info) return api::raisef(kFunc, MPI_ERR_ARG, "info pointer is NULL");
  if (argc < 0) return api::raisef(kFunc, MPI_ERR_ARG, "argc %d is negative", argc);
  if (argc > 0 && !argv) return api::raisef(kFunc, MPI_ERR_ARG, "argv is NULL");
  comm::InfoEntries entries;
  if (argc > 0 && argv[0]) entries.emplace_back("command", argv[0]);
  std::string args;
  for (int i = 1; i < argc && argv[i]; ++i) {
    if (i > 1) args += ' ';
    args += argv[i];
  }
  if (argc > 1) entries.emplace_back("argv", args);
  char host[256];
  if (gethostname(host, sizeof host) == 0) {
    host[sizeof host - 1] = '\0';
    entries.emplace_back("host", host);
  }
  struct utsname u;
  if (uname(&u) == 0) entries.emplace_back("arch", u.machine);
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) entries.emplace_back("wdir", cwd);
  *info = comm::newInfo(std::move(entries));
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Info_create_env)

extern "C" int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                                         MPI_Datatype* pair_type) {
  CCMPI_API_BEGIN("MPI_Type_get_value_index");
  if (!pair_type) return api::raisef(kFunc, MPI_ERR_ARG, "pair_type pointer is NULL");
  struct Pair {
    MPI_Datatype value, index, pair;
  };
  static const Pair kPairs[] = {
      {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
      {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
      {MPI_LONG, MPI_INT, MPI_LONG_INT},
      {MPI_INT, MPI_INT, MPI_2INT},
      {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
      {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
      {MPI_REAL, MPI_REAL, MPI_2REAL},
      {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
      {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
  };
  *pair_type = MPI_DATATYPE_NULL;
  for (const Pair& p : kPairs)
    if (p.value == value_type && p.index == index_type) *pair_type = p.pair;
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Type_get_value_index)
