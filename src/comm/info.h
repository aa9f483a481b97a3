#pragma once
// MPI_Info objects: ordered (key, value) string pairs. MPI_INFO_ENV is predefined with
// what this process knows of its start ("command", "argv", "maxprocs", "host", "arch",
// "wdir"). Other layers read hints through lookupInfo.
#include <mpi.h>

#include <memory>

#include "comm/comm.h"

namespace ccmpi::comm {

struct Info {
  InfoEntries entries;
  // Value of key, or nullptr.
  const std::string* find(const std::string& key) const;
  void set(const std::string& key, const std::string& value);
  bool erase(const std::string& key);
};

// nullptr for MPI_INFO_NULL, a non-info or a freed handle.
Info* lookupInfo(MPI_Info h);
MPI_Info newInfo(InfoEntries entries = {});
void freeInfo(MPI_Info h);  // predefined handles are kept
bool isPredefinedInfo(MPI_Info h);
// Fills MPI_INFO_ENV (idempotent; called on first use).
void initInfoEnv();
size_t liveInfos();

}  // namespace ccmpi::comm
