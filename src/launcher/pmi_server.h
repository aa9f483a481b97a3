#pragma once
// PMI-1 server state of one job: a single key/value space, a barrier over all ranks, and
// the per-rank protocol state. It only parses lines and emits replies through callbacks,
// so it does no I/O and is unit tested on its own; mpirun routes lines to it from local
// PMI sockets and from proxies alike.
//
// Commands (answers as MPICH Hydra gives them):
//   init pmi_version=1 pmi_subversion=N  -> response_to_init pmi_version=1 pmi_subversion=1 rc=0
//   get_maxes           -> maxes kvsname_max=256 keylen_max=64 vallen_max=1024
//   get_appnum          -> appnum appnum=<n>
//   get_my_kvsname      -> my_kvsname kvsname=<name>
//   get_universe_size   -> universe_size size=<n>
//   put kvsname= key= value=  -> put_result rc=0 msg=success (a key may be overwritten)
//   get kvsname= key=   -> get_result rc=0 msg=success value=<v> | rc=-1 msg=key_<k>_not_found
//                          (PMI_process_mapping is predefined, as under Hydra)
//   barrier_in          -> barrier_out to every rank once all ranks have entered
//                          (see below for the one key the server derives at a barrier)
//   finalize            -> finalize_ack
//   abort exitcode=<n>  -> no answer; the job is aborted
// Unsupported commands (spawn, publish_name, ...) get `<cmd>_result rc=-1`; malformed
// lines, a second barrier_in from the same rank or a put of an over-long key/value are
// protocol errors that end the job.
//
// Derived key: when a barrier completes and every rank has put `ccmpi.cpu.<rank>` =
// "<kernel id>:<online CPUs>" (ccmpi's MPI_Init does), the server stores
// `ccmpi.ranks_per_core`: the job's ranks on its busiest machine (ranks sharing one kernel,
// told apart by the kernel id, e.g. its boot_id) divided by that machine's CPUs, rounded
// down. It is the same for every rank, so the collective rules may depend on it.
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ccmpi::launcher {

class PmiServer {
 public:
  struct Config {
    int size = 1;
    int appnum = 0;
    int universeSize = 1;
    std::string kvsName;
    std::string processMapping;
  };
  struct Actions {
    std::function<void(int rank, const std::string& line)> reply;
    std::function<void(int rank, int exitCode)> abort;
    std::function<void(int rank, const std::string& why)> protocolError;
    // A put of kSpawnedKey<rank>.<n>: the rank started an mpirun (MPI_Comm_spawn) whose
    // process id is `value` (optional).
    std::function<void(int rank, const std::string& value)> spawned;
  };
  static constexpr char kSpawnedKey[] = "ccmpi.spawned.";

  PmiServer(Config config, Actions actions);

  // One line (without '\n') received from `rank`.
  void handleLine(int rank, std::string_view line);

  bool initialized(int rank) const { return ranks_.at(static_cast<std::size_t>(rank)).initialized; }
  bool finalized(int rank) const { return ranks_.at(static_cast<std::size_t>(rank)).finalized; }
  std::size_t kvsSize() const { return kvs_.size(); }

  // ccmpi.ranks_per_core from the ccmpi.cpu.<rank> values, or -1 while one is missing or
  // malformed (exposed for the unit test).
  int ranksPerCore() const;
  // The fewest rails any rank published (ccmpi.job_rails for the ranks); -1 when a rank
  // published none.
  int jobRails() const;

 private:
  // ccmpi.link_mbits from the ccmpi.link.<rank> cards (bootstrap/link_card.h).
  void deriveJobLink();
  struct RankState {
    bool initialized = false;
    bool finalized = false;
    bool inBarrier = false;
    bool inMultiCommand = false;
  };

  Config config_;
  Actions actions_;
  std::vector<RankState> ranks_;
  int barrierCount_ = 0;
  std::map<std::string, std::string> kvs_;
};

}  // namespace ccmpi::launcher
