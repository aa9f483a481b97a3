// Dynamic processes, MPI-4.0 chapter 11: ports (MPI_Open_port/MPI_Close_port),
// MPI_Comm_accept/MPI_Comm_connect, MPI_Comm_join and the name service. Argument checks
// here; the work is in src/comm/dynamic.cc (design: docs/dynamic.md).
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "api/api.h"
#include "api/comm_api.h"
#include "comm/dynamic.h"
#include "comm/info.h"

using namespace ccmpi;

namespace {

// MPI_INFO_NULL or a valid info object (the keys are not used).
bool infoOk(MPI_Info info) {
  return info == MPI_INFO_NULL || comm::lookupInfo(info) != nullptr;
}

// Copies s into a caller's buffer of MPI_MAX_PORT_NAME characters.
void copyName(const std::string& s, char* out) {
  const size_t n = std::min(s.size(), static_cast<size_t>(MPI_MAX_PORT_NAME - 1));
  memcpy(out, s.data(), n);
  out[n] = '\0';
}

// The common checks of MPI_Comm_accept / MPI_Comm_connect; returns the communicator or
// raises (rc).
int acceptConnectArgs(const char* func, const char* port_name, MPI_Info info, int root,
                      MPI_Comm comm, MPI_Comm* newcomm, comm::Comm** c) {
  if (int rc = api::commOrRaise(func, comm, c)) return rc;
  if ((*c)->isInter())
    return api::raiseCommf(comm, func, MPI_ERR_COMM,
                           "comm is an intercommunicator (it must be an intracommunicator)");
  if (!newcomm) return api::raiseCommf(comm, func, MPI_ERR_ARG, "newcomm pointer is NULL");
  if (root < 0 || root >= (*c)->size)
    return api::raiseCommf(comm, func, MPI_ERR_ROOT, "root %d is not a rank of comm (size %d)",
                           root, (*c)->size);
  if ((*c)->rank == root && !port_name)
    return api::raiseCommf(comm, func, MPI_ERR_ARG, "port_name is NULL at the root");
  if ((*c)->rank == root && !infoOk(info))
    return api::raiseCommf(comm, func, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  *newcomm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Open_port(MPI_Info info, char* port_name) {
  CCMPI_API_BEGIN("MPI_Open_port");
  if (!port_name) return api::raisef(kFunc, MPI_ERR_ARG, "port_name is NULL");
  if (!infoOk(info)) return api::raisef(kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  std::string name;
  if (int rc = comm::openPort(&name)) return api::raise(kFunc, rc);
  copyName(name, port_name);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Open_port)

extern "C" int PMPI_Close_port(const char* port_name) {
  CCMPI_API_BEGIN("MPI_Close_port");
  if (!port_name) return api::raisef(kFunc, MPI_ERR_ARG, "port_name is NULL");
  if (int rc = comm::closePort(port_name)) return api::raise(kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Close_port)

extern "C" int PMPI_Comm_accept(const char* port_name, MPI_Info info, int root, MPI_Comm comm,
                                MPI_Comm* newcomm) {
  CCMPI_API_BEGIN("MPI_Comm_accept");
  comm::Comm* c;
  if (int rc = acceptConnectArgs(kFunc, port_name, info, root, comm, newcomm, &c)) return rc;
  const std::string name = c->rank == root ? port_name : "";
  if (int rc = comm::acceptOn(name, root, *c, newcomm)) return api::raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_accept)

extern "C" int PMPI_Comm_connect(const char* port_name, MPI_Info info, int root, MPI_Comm comm,
                                 MPI_Comm* newcomm) {
  CCMPI_API_BEGIN("MPI_Comm_connect");
  comm::Comm* c;
  if (int rc = acceptConnectArgs(kFunc, port_name, info, root, comm, newcomm, &c)) return rc;
  const std::string name = c->rank == root ? port_name : "";
  if (int rc = comm::connectTo(name, root, *c, newcomm)) return api::raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_connect)

extern "C" int PMPI_Comm_join(int fd, MPI_Comm* intercomm) {
  CCMPI_API_BEGIN("MPI_Comm_join");
  if (!intercomm) return api::raisef(kFunc, MPI_ERR_ARG, "intercomm pointer is NULL");
  if (fd < 0) return api::raisef(kFunc, MPI_ERR_ARG, "fd %d is not a socket", fd);
  *intercomm = MPI_COMM_NULL;
  // Errors go to MPI_COMM_SELF's handler (the standard's choice for MPI_COMM_JOIN).
  if (int rc = comm::joinOver(fd, intercomm)) return api::raiseComm(MPI_COMM_SELF, kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Comm_join)

extern "C" int PMPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  CCMPI_API_BEGIN("MPI_Publish_name");
  if (!service_name || !port_name)
    return api::raisef(kFunc, MPI_ERR_ARG, "service_name or port_name is NULL");
  if (!infoOk(info)) return api::raisef(kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  if (!*service_name) return api::raisef(kFunc, MPI_ERR_SERVICE, "service_name is empty");
  if (int rc = comm::publishName(service_name, port_name)) return api::raise(kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Publish_name)

extern "C" int PMPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  CCMPI_API_BEGIN("MPI_Unpublish_name");
  if (!service_name || !port_name)
    return api::raisef(kFunc, MPI_ERR_ARG, "service_name or port_name is NULL");
  if (!infoOk(info)) return api::raisef(kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  if (int rc = comm::unpublishName(service_name, port_name)) return api::raise(kFunc, rc);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Unpublish_name)

extern "C" int PMPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  CCMPI_API_BEGIN("MPI_Lookup_name");
  if (!service_name || !port_name)
    return api::raisef(kFunc, MPI_ERR_ARG, "service_name or port_name is NULL");
  if (!infoOk(info)) return api::raisef(kFunc, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  std::string port;
  if (int rc = comm::lookupName(service_name, &port)) return api::raise(kFunc, rc);
  copyName(port, port_name);
  return MPI_SUCCESS;
}
CCMPI_MPI_ALIAS(MPI_Lookup_name)

namespace {

// The apps of MPI_Comm_spawn(_multiple), read at the root (MPI_ERR_* raised on comm when an
// argument is bad).
int readApp(const char* func, MPI_Comm comm, const char* command, char** argv, int maxprocs,
            MPI_Info info, comm::SpawnApp* app) {
  if (!command || !*command)
    return api::raiseCommf(comm, func, MPI_ERR_ARG, "a command is NULL or empty at the root");
  if (maxprocs <= 0)
    return api::raiseCommf(comm, func, MPI_ERR_ARG, "maxprocs %d is not positive", maxprocs);
  if (!infoOk(info))
    return api::raiseCommf(comm, func, MPI_ERR_INFO, "invalid info handle 0x%x", info);
  app->command = command;
  for (int i = 0; argv && argv[i]; ++i) app->args.emplace_back(argv[i]);
  app->maxprocs = maxprocs;
  if (info != MPI_INFO_NULL) app->hints = comm::lookupInfo(info)->entries;
  return MPI_SUCCESS;
}

// The common part: checks, the spawn, the error codes (at the root).
int spawnApps(const char* func, MPI_Comm comm, int root, MPI_Comm* intercomm,
              int array_of_errcodes[], int count,
              const std::function<int(comm::SpawnApp*, int)>& read) {
  comm::Comm* c;
  if (int rc = api::commOrRaise(func, comm, &c)) return rc;
  if (c->isInter())
    return api::raiseCommf(comm, func, MPI_ERR_COMM,
                           "comm is an intercommunicator (it must be an intracommunicator)");
  if (!intercomm) return api::raiseCommf(comm, func, MPI_ERR_ARG, "intercomm pointer is NULL");
  if (root < 0 || root >= c->size)
    return api::raiseCommf(comm, func, MPI_ERR_ROOT, "root %d is not a rank of comm (size %d)",
                           root, c->size);
  *intercomm = MPI_COMM_NULL;
  const bool atRoot = c->rank == root;
  std::vector<comm::SpawnApp> apps;
  int total = 0;
  if (atRoot) {
    if (count <= 0)
      return api::raiseCommf(comm, func, MPI_ERR_ARG, "count %d is not positive", count);
    apps.resize(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      if (int rc = read(&apps[static_cast<size_t>(i)], i)) return rc;
      total += apps[static_cast<size_t>(i)].maxprocs;
    }
  }
  const int rc = comm::spawn(apps, root, *c, intercomm);
  if (atRoot && array_of_errcodes != MPI_ERRCODES_IGNORE)
    for (int i = 0; i < total; ++i) array_of_errcodes[i] = rc ? MPI_ERR_SPAWN : MPI_SUCCESS;
  if (rc) return api::raiseComm(comm, func, rc);
  return MPI_SUCCESS;
}

}  // namespace

// The new processes are started by a second mpirun (the one that started this job), which
// connects them back to comm in their MPI_Init (docs/dynamic.md).
extern "C" int PMPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info,
                               int root, MPI_Comm comm, MPI_Comm* intercomm,
                               int array_of_errcodes[]) {
  CCMPI_API_BEGIN("MPI_Comm_spawn");
  return spawnApps(kFunc, comm, root, intercomm, array_of_errcodes, 1,
                   [&](comm::SpawnApp* app, int) {
                     return readApp(kFunc, comm, command, argv, maxprocs, info, app);
                   });
}
CCMPI_MPI_ALIAS(MPI_Comm_spawn)

// The processes of all commands share one MPI_COMM_WORLD, in the order of the commands
// (each knows its command's index as MPI_APPNUM).
extern "C" int PMPI_Comm_spawn_multiple(int count, char* array_of_commands[],
                                        char** array_of_argv[], const int array_of_maxprocs[],
                                        const MPI_Info array_of_info[], int root, MPI_Comm comm,
                                        MPI_Comm* intercomm, int array_of_errcodes[]) {
  CCMPI_API_BEGIN("MPI_Comm_spawn_multiple");
  return spawnApps(
      kFunc, comm, root, intercomm, array_of_errcodes, count, [&](comm::SpawnApp* app, int i) {
        if (!array_of_commands || !array_of_maxprocs)
          return api::raiseCommf(comm, kFunc, MPI_ERR_ARG,
                                 "array_of_commands or array_of_maxprocs is NULL");
        return readApp(kFunc, comm, array_of_commands[i],
                       array_of_argv ? array_of_argv[i] : nullptr, array_of_maxprocs[i],
                       array_of_info ? array_of_info[i] : MPI_INFO_NULL, app);
      });
}
CCMPI_MPI_ALIAS(MPI_Comm_spawn_multiple)
