#pragma once
// The PMIx client (libpmix, Debian's libpmix-dev) behind bootstrap::Pmi when a process
// runs under a PMIx server (Slurm's srun --mpi=pmix, PRRTE). Built only when CMake found
// libpmix (CCMPI_HAVE_PMIX); otherwise every call fails with "built without PMIx".
//
// Values are published as byte objects in the global scope and committed before each
// fence; a fence collects all data, so every later get is answered from the local copy
// (PMIX_OPTIONAL: a missing key is reported at once instead of waited for).
#include <functional>
#include <string>

namespace ccmpi::bootstrap {

class PmixClient {
 public:
  PmixClient() = default;
  ~PmixClient();
  PmixClient(const PmixClient&) = delete;
  PmixClient& operator=(const PmixClient&) = delete;

  // Each returns an empty string on success, else the reason.
  std::string init();
  int rank() const { return rank_; }
  int size() const { return size_; }
  int localSize() const { return localSize_; }
  int universeSize() const { return universeSize_; }
  int appnum() const { return appnum_; }
  const std::string& nspace() const { return nspace_; }

  std::string put(const std::string& key, const std::string& value);
  // *found is false (and no error) when `owner` published no such key.
  std::string get(int owner, const std::string& key, std::string* value, bool* found);
  // Commits our puts and waits for every process; `whileWaiting` (if set) runs meanwhile.
  std::string fence(const std::function<void()>& whileWaiting);
  std::string finalize();
  void abort(int code, const std::string& message);

 private:
  bool initialized_ = false;
  int rank_ = 0;
  int size_ = 1;
  int localSize_ = -1;
  int universeSize_ = 1;
  int appnum_ = 0;
  std::string nspace_;
};

}  // namespace ccmpi::bootstrap
