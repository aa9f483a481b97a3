#pragma once
// Dynamic processes (MPI-4.0 chapter 11, docs/dynamic.md): ports, MPI_Comm_accept/connect,
// MPI_Comm_join and the name service. Every function returns an MPI error class with the
// cause recorded by setErrorCause.
#include <mpi.h>

#include <string>
#include <vector>

#include "comm/comm.h"

namespace ccmpi::comm {

// MPI_Open_port: a new port of this process; *name fits MPI_MAX_PORT_NAME.
int openPort(std::string* name);
// MPI_Close_port (MPI_ERR_PORT when this process has no such port).
int closePort(const std::string& name);
// MPI_Comm_accept / MPI_Comm_connect, collective over `local`; `portName` is significant
// at `root` only.
int acceptOn(const std::string& portName, int root, Comm& local, MPI_Comm* out);
int connectTo(const std::string& portName, int root, Comm& local, MPI_Comm* out);
// MPI_Comm_join over the connected socket fd.
int joinOver(int fd, MPI_Comm* out);

// MPI_Comm_spawn(_multiple): at `root`, starts the apps' processes with a new mpirun
// (CCMPI_MPIRUN; info keys "wdir", "host" and "path" at the root), which connect back in
// their MPI_Init; every member of `local` gets the intercommunicator.
struct SpawnApp {
  std::string command;
  std::vector<std::string> args;
  int maxprocs = 0;
  InfoEntries hints;
};
int spawn(const std::vector<SpawnApp>& apps, int root, Comm& local, MPI_Comm* out);
// MPI_Finalize at a spawning root: tells the mpiruns it started that this process ends
// normally (their jobs go on). Without it they end their jobs once this process is gone.
void releaseSpawned();
// The spawned side: at MPI_Init, connects to the parents if this job was spawned.
int connectToParent();
// MPI_Comm_get_parent (MPI_COMM_NULL once freed or disconnected).
MPI_Comm parent();
// A communicator handle is being freed (forgets the parent).
void forgetParent(MPI_Comm h);

// The name service (MPI_Publish_name / MPI_Unpublish_name / MPI_Lookup_name).
int publishName(const std::string& service, const std::string& port);
int unpublishName(const std::string& service, const std::string& port);
int lookupName(const std::string& service, std::string* port);

}  // namespace ccmpi::comm
