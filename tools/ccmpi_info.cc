// ccmpi_info: the library's version, build options and every tunable (name, default,
// current value from the environment, help).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/link.h"
#include "base/tunables.h"
#include "bootstrap/pmi.h"
#include "coll/coll.h"
#include "coll/cost_model.h"
#include "coll/rules.h"
#include "transport/cma.h"
#include "transport/link_finder.h"
#include "transport/mcast.h"
#include "transport/rails.h"
#include "transport/shm.h"
#include "transport/tcp.h"

namespace {

void usage() {
  printf(
      "usage: ccmpi_info [--tunables] [--algorithms] [--link] [--rails] [--version] [--help]\n"
      "       ccmpi_info --predict bcast RANKS RAILS [BYTES...]\n"
      "  (no option)   version, build options, all tunables and algorithm tables\n"
      "  --tunables    only the tunables, one block each\n"
      "  --algorithms  only the collective algorithm tables\n"
      "  --link        only this host's link rate: Mbit/s (0 if none is found), then where\n"
      "                it comes from\n"
      "  --rails       only this host's rails (docs/multirail.md), one a line: index,\n"
      "                interface, address/prefix, Mbit/s (0 = unknown)\n"
      "  --version     only the version line\n"
      "  --predict     the broadcasts' cost model (coll/cost_model.h): for RANKS ranks, one\n"
      "                per host, on RAILS NICs of CCMPI_LINK_MBITS each (latencies\n"
      "                CCMPI_LINK_LATENCY_US, CCMPI_RAIL_HOP_US), one line per size\n"
      "                (default 1 B-4 MiB) and algorithm: bytes, algorithm, microseconds\n");
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

void printAlgorithms() {
  std::string rulesError;
  const std::string rules = ccmpi::coll::rulesSource(&rulesError);
  printf(
      "Collective algorithms. Selection per call: the algorithm forced by the communicator's\n"
      "info hint ccmpi_<collective>_algorithm or the tunable shown, else the first matching\n"
      "rule (ranks, message bytes), else the first applicable algorithm in table order.\n"
      "Rules: %s%s%s\n",
      rules.c_str(), rulesError.empty() ? "" : "  ERROR: ", rulesError.c_str());
  for (const auto& d : ccmpi::coll::algorithmTables()) {
    const char* forced = getenv(d.tunable.c_str());
    printf("\n  %s  [%s=%s]\n", d.collective.c_str(), d.tunable.c_str(),
           forced && *forced ? forced : "auto");
    for (const auto& a : d.algorithms) {
      printf("    %-24s %s\n", a.name.c_str(), a.description.c_str());
      if (!a.restrictions.empty()) printf("    %-24s requires: %s\n", "", a.restrictions.c_str());
      if (!a.tunables.empty()) printf("    %-24s tunables: %s\n", "", a.tunables.c_str());
    }
    const std::vector<std::string> lines = ccmpi::coll::ruleLines(d.collective);
    if (lines.empty()) {
      printf("    rules: none (table order)\n");
    } else {
      printf(
          "    rules (ranks, bytes, algorithm[, hosts a communicator spans[, ranks per core[, "
          "ranks per host]]]; "
          "first match wins; "
          "job hosts: %d):\n",
          ccmpi::coll::ruleHosts(0x7fffffff, nullptr));
      for (const std::string& l : lines) printf("      %s\n", l.c_str());
    }
  }
}

// This host's link as MPI_Init finds it (transport/link_finder.h): on the interface of
// CCMPI_IFACE, else the one a rank of a multi-host job would use.
// This host's rails as MPI_Init of a multi-host job finds them; false (with why) when
// CCMPI_IFACE names interfaces that cannot be rails.
bool hostRails(std::vector<ccmpi::transport::Rail>* rails, std::string* why) {
  const char* list = getenv("CCMPI_IFACE");
  const std::string ifaces = list ? list : "";
  const std::string first = ifaces.substr(0, ifaces.find(','));
  const std::string primary = first.empty() ? ccmpi::transport::defaultAddress()
                                            : ccmpi::transport::interfaceAddress(first);
  return ccmpi::transport::findRails(ifaces, primary, rails, why);
}

void printRails(const char* indent) {
  std::vector<ccmpi::transport::Rail> rails;
  std::string why;
  if (!hostRails(&rails, &why)) {
    printf("%snone: CCMPI_IFACE: %s\n", indent, why.c_str());
    return;
  }
  for (size_t i = 0; i < rails.size(); ++i)
    printf("%s%zu %s %s/%d %g\n", indent, i, rails[i].iface.empty() ? "-" : rails[i].iface.c_str(),
           rails[i].ip.c_str(), rails[i].prefix, rails[i].mbits);
}

ccmpi::transport::LinkFinding hostLink() {
  const char* name = getenv("CCMPI_IFACE");
  if (name && *name) return ccmpi::transport::findInterfaceLink(name);
  return ccmpi::transport::findLink(ccmpi::transport::defaultAddress());
}

}  // namespace

// --predict bcast RANKS RAILS [BYTES...]: the model's figures, fastest first per size.
int predict(int argc, char** argv) {
  char* end = nullptr;
  const long ranks = argc >= 4 ? strtol(argv[3], &end, 10) : 0;
  if (argc < 5 || strcmp(argv[2], "bcast") != 0 || *end || ranks < 1 || ranks > (1 << 20)) {
    fprintf(stderr, "ccmpi_info: --predict bcast RANKS RAILS [BYTES...]\n");
    return 2;
  }
  const long rails = strtol(argv[4], &end, 10);
  if (*end || rails < 1 || rails > 64) {
    fprintf(stderr, "ccmpi_info: --predict: RAILS must be 1..64, not '%s'\n", argv[4]);
    return 2;
  }
  std::vector<uint64_t> sizes;
  for (int i = 5; i < argc; ++i) {
    uint64_t v = 0;
    if (!ccmpi::parseSize(argv[i], &v)) {
      fprintf(stderr, "ccmpi_info: --predict: '%s' is not a size\n", argv[i]);
      return 2;
    }
    sizes.push_back(v);
  }
  if (sizes.empty()) sizes = {1, 1024, 16384, 65536, 262144, 1048576, 4194304};
  ccmpi::coll::setJobRails(static_cast<int>(rails));
  // The job's ranks per core as MPI_Init would set it: CCMPI_RANKS_PER_CORE, else none
  // (a rank of its own per core).
  if (const char* rpc = getenv("CCMPI_RANKS_PER_CORE")) ccmpi::coll::setJobRanksPerCore(atoi(rpc));
  ccmpi::coll::BcastCostParams p = ccmpi::coll::bcastCostParams(static_cast<int>(ranks));
  p.mcastLanes = std::min<int>(static_cast<int>(rails), ccmpi::transport::kMcastMaxLanes);
  for (uint64_t b : sizes)
    for (const std::string& a : ccmpi::coll::bcastByModel(b, p))
      printf("%llu %s %.1f\n", static_cast<unsigned long long>(b), a.c_str(),
             ccmpi::coll::predictBcastUs(a, b, p));
  return 0;
}

int main(int argc, char** argv) {
  bool onlyTunables = false, onlyVersion = false, onlyAlgorithms = false, onlyLink = false;
  bool onlyRails = false;
  if (argc >= 2 && !strcmp(argv[1], "--predict")) return predict(argc, argv);
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--tunables")) {
      onlyTunables = true;
    } else if (!strcmp(argv[i], "--algorithms")) {
      onlyAlgorithms = true;
    } else if (!strcmp(argv[i], "--link")) {
      onlyLink = true;
    } else if (!strcmp(argv[i], "--rails")) {
      onlyRails = true;
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
  if (onlyLink) {
    const ccmpi::transport::LinkFinding f = hostLink();
    printf("%g %s\n", f.mbits, f.how.c_str());
    return 0;
  }
  if (onlyAlgorithms) {
    printAlgorithms();
    return 0;
  }
  if (onlyRails) {
    std::vector<ccmpi::transport::Rail> rails;
    std::string why;
    if (!hostRails(&rails, &why)) {
      fprintf(stderr, "ccmpi_info: CCMPI_IFACE: %s\n", why.c_str());
      return 1;
    }
    printRails("");
    return 0;
  }
  if (!onlyTunables) {
    int major = 0, minor = 0;
    MPI_Get_version(&major, &minor);
    printf("Library:      %s\n", version);
    printf("MPI standard: %d.%d\n", major, minor);
    printf("Thread level: MPI_THREAD_SERIALIZED\n");
    printf("Transport:    %s\n",
           ccmpi::transport::shmEnabled()
               ? "shared memory within a host (rings in memfd segments, CCMPI_SHM), tcp "
                 "between hosts (authenticated, one connection per pair and rail, lazy)"
               : "tcp (authenticated, one connection per pair and rail, lazy); shared memory off "
                 "(CCMPI_SHM=0)");
    std::string why;
    if (ccmpi::transport::cma::selfTest(&why))
      printf(
          "Single copy:  yes: large messages within a host are read from the sender's "
          "buffer (process_vm_readv)\n");
    else
      printf(
          "Single copy:  refused here (%s): large messages within a host are copied "
          "through shared memory instead\n",
          why.c_str());
    const ccmpi::transport::LinkFinding f = hostLink();
    if (ccmpi::linkMbitsDeclared())
      printf("Link rate:    %g Mbit/s declared (CCMPI_LINK_MBITS); this host would find %g (%s)\n",
             ccmpi::linkMbits(), f.mbits, f.how.c_str());
    else if (f.mbits > 0)
      printf("Link rate:    %g Mbit/s found here (%s); a job uses its slowest host's\n", f.mbits,
             f.how.c_str());
    else
      printf(
          "Link rate:    none found here (%s); 100 Mbit/s assumed unless another host of "
          "a job finds one\n",
          f.how.c_str());
    printf(
        "Rails:        large messages to another host are striped over every rail both hosts "
        "share (CCMPI_STRIPE); this host's (index, interface, address, Mbit/s):\n");
    printRails("              ");
    printf("Shapers:      %s\n", ccmpi::transport::shapersReadable()
                                     ? "tbf and htb qdiscs read (libnl-route-3)"
                                     : "not read (built without libnl-route-3)");
    printf(
        "Bootstrap:    PMI-1 (PMI_FD / PMI_PORT: ccmpi's mpirun, Hydra, srun --mpi=pmi2), "
        "singleton without a launcher\n");
    printf("PMIx support: %s\n",
           ccmpi::bootstrap::pmixSupported()
               ? "yes (libpmix: srun --mpi=pmix, PMIX_RANK)"
               : "no (built without libpmix-dev: srun --mpi=pmix is refused at MPI_Init)");
    printf("Fortran:      %s\n\n", CCMPI_FORTRAN_STRING);
  }
  printTunables();
  if (!onlyTunables) {
    printf("\n");
    printAlgorithms();
  }
  return 0;
}
