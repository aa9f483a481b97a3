// ccmpi_info: the library's version, build options and every tunable (name, default,
// current value from the environment, help).
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "base/tunables.h"

namespace {

void usage() {
  printf(
      "usage: ccmpi_info [--tunables] [--version] [--help]\n"
      "  (no option)   version, build options and all tunables\n"
      "  --tunables    only the tunables, one block each\n"
      "  --version     only the version line\n");
}

void printTunables() {
  printf("Tunables (set as environment variables; mpirun -x/--env passes them on):\n");
  for (ccmpi::TunableBase* t : ccmpi::allTunables()) {
    t->reload();
    printf("  %s\n    default: %s\n    current: %s%s\n    %s\n", t->name(),
           t->defaultString().c_str(), t->currentString().c_str(),
           t->fromEnv() ? " (from environment)" : "", t->help());
  }
}

}  // namespace

int main(int argc, char** argv) {
  bool onlyTunables = false, onlyVersion = false;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--tunables")) {
      onlyTunables = true;
    } else if (!strcmp(argv[i], "--version")) {
      onlyVersion = true;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage();
      return 0;
    } else {
      fprintf(stderr, "ccmpi_info: unknown option '%s'\n", argv[i]);
      usage();
      return 2;
    }
  }
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  if (onlyVersion) {
    printf("%s\n", version);
    return 0;
  }
  if (!onlyTunables) {
    int major = 0, minor = 0;
    MPI_Get_version(&major, &minor);
    printf("Library:      %s\n", version);
    printf("MPI standard: %d.%d\n", major, minor);
    printf("Thread level: MPI_THREAD_SERIALIZED\n");
    printf("Transport:    tcp (authenticated, one connection per pair, lazy)\n");
    printf("Bootstrap:    PMI-1 (PMI_FD / PMI_PORT), singleton without a launcher\n\n");
  }
  printTunables();
  return 0;
}
