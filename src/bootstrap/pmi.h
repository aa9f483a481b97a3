#pragma once
// PMI client: how a process learns its rank and size and exchanges small key/value
// pairs with the other processes of its job through the process manager.
//
// init() picks the first available way to reach the process manager:
//   1. PMI_FD=<fd>   an inherited, connected socket (our mpirun, MPICH Hydra, Slurm's
//                    srun --mpi=pmi2, which serves PMI-1 on the same socket); rank and
//                    size come from PMI_RANK and PMI_SIZE.
//   2. PMI_PORT=<host>:<port>  a TCP connection (Hydra -pmi-port, simple_pmi servers);
//                    with PMI_ID=<id> the "initack" handshake delivers rank and size,
//                    otherwise PMI_RANK/PMI_SIZE are read as above.
//   3. PMIX_RANK / PMIX_NAMESPACE set (srun --mpi=pmix, PRRTE): the PMIx client library
//                    (pmix_client.h), when the library was built with it.
//   4. none of them: singleton, rank 0 of 1, with a private in-memory key/value store;
//                    unless the environment says this process is one of several tasks
//                    a launcher started (SLURM_STEP_NUM_TASKS, PMI_SIZE,
//                    OMPI_COMM_WORLD_SIZE > 1, or PMIx variables without PMIx support):
//                    then init() fails, naming the launcher and what to use instead,
//                    rather than running alone as rank 0 of 1 (launchedJobWithoutPmi()).
// Over a socket it sends cmd=init (PMI 1.1) and caches maxes, appnum, kvsname and
// universe size.
//
// Slurm's PMI-1 server has quirks the client respects: it does not answer unknown
// commands (only the commands below are sent), takes one request per write, answers
// rc=1 to a get of a missing key, and silently drops a request line longer than 1024
// bytes (answering rc=0): a put whose line would exceed kPmiRequestMax is split into
// parts under <key>#1, <key>#2, ... and <key> holds "%Z<parts>" (never a valid escaped
// value), which get() reassembles.
//
// Under PMIx, keys are published per process: a key ending in ".<n>" is read from rank
// n, any other key from rank 0 (ccmpi's keys follow this: ccmpi.addr.<rank>, ccmpi.secret).
//
// Every call is a blocking request/response on the socket, as in MPICH's simple_pmi;
// calls are serialized by a mutex, so any thread may make them. A put becomes visible to
// the other processes after the next barrier(). Values are escaped on the wire (see
// pmi_wire.h) and come back from get() byte for byte.
//
// Errors are MPI error classes with the cause recorded by ccmpi::setErrorCause() and also
// kept in lastError(): MPI_ERR_ARG for an invalid key or an over-long key/value (a value
// may have up to vallen_max - 1 bytes before escaping),
// MPI_ERR_INFO_NOKEY when get() finds no such key, MPI_ERR_OTHER for connection or
// protocol failures (EOF on the socket means the launcher is gone).
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace ccmpi::bootstrap {

struct PmiMessage;
class PmixClient;

// Longest request line sent to a PMI-1 server (Slurm drops longer ones).
inline constexpr std::size_t kPmiRequestMax = 1024;

// Non-empty when the environment shows this process is one of several a launcher started
// but offers no PMI this library can use: the text says which launcher, and what to use.
std::string launchedJobWithoutPmi();
// Whether the library was built with the PMIx client (libpmix).
bool pmixSupported();

class Pmi {
 public:
  Pmi();
  ~Pmi();
  Pmi(const Pmi&) = delete;
  Pmi& operator=(const Pmi&) = delete;

  int init();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool singleton() const { return singleton_; }
  // "PMI-1", "PMIx" or "singleton" (after init).
  const char* kind() const;
  // Ranks of the job on this host, when the process manager says (PMIx, Slurm's task
  // layout); -1 when unknown.
  int localSize() const { return localSize_; }
  int appnum() const { return appnum_; }
  const std::string& kvsName() const { return kvsName_; }
  int universeSize() const { return universeSize_; }
  // The PMI socket (-1 for a singleton or before init / after finalize). The runtime may
  // watch it for EOF, which means the launcher is gone; it must not read from it.
  int fd() const { return fd_; }
  bool initialized() const { return initialized_; }

  int put(const std::string& key, const std::string& value);
  int get(const std::string& key, std::string* value);
  // `whileWaiting`, if given, runs repeatedly until the process manager answers, between
  // checks of its socket; it does the waiting itself (a few milliseconds at most per call):
  // MPI_Finalize keeps the network progressing there, so that peers still waiting on this
  // process (its queued output, a cancel request, a repair) are answered at once.
  int barrier(const std::function<void()>& whileWaiting = {});
  int finalize();
  // Writes `message` (if not empty) as one line to stderr, tells the process manager to
  // abort the job with `exitCode` and exits the process with that code (1 if it is 0 or
  // out of 1..255 after masking). Does not take the mutex: callable from any state.
  [[noreturn]] void abort(int exitCode, const std::string& message);

  const std::string& lastError() const { return lastError_; }

 private:
  int fail(int errClass, const std::string& cause);
  int connectPort(const char* hostPort);
  int initackHandshake(int id);
  int handshake();
  int sendLine(const std::string& line);
  int readLine(std::string* line);
  // Sends `request` and reads one response whose cmd must be `expected`.
  int transact(const std::string& request, const char* expected, PmiMessage* reply);
  int readReply(const char* expected, PmiMessage* reply);
  int putWire(const std::string& key, const std::string& wire);
  int getWire(const std::string& key, std::string* wire, bool* found);
  int initPmix();

  int fd_ = -1;
  bool initialized_ = false;
  bool singleton_ = false;
  int rank_ = 0;
  int size_ = 1;
  int appnum_ = 0;
  int universeSize_ = 1;
  int localSize_ = -1;
  int keyLenMax_ = 0;
  int valLenMax_ = 0;
  std::string kvsName_;
  std::string readBuffer_;
  std::map<std::string, std::string> localKvs_;  // singleton only
  std::unique_ptr<PmixClient> pmix_;             // PMIx only
  std::string lastError_;
  std::mutex mutex_;
};

}  // namespace ccmpi::bootstrap
