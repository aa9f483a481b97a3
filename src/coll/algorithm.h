#pragma once
// Algorithm tables as data. Each collective keeps, in coll/<coll>/<coll>.cc, a table of
// {name, description, function, restrictions}; the table order is the default
// preference. The tunable CCMPI_<COLL>_ALGORITHM names an algorithm to force ("auto" =
// default). Selection takes the forced algorithm if its restrictions hold, else the first
// one whose restrictions hold; an algorithm may also decline at run time by returning
// kDecline, and selection falls through to the next applicable one.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/log.h"
#include "base/tunables.h"
#include "coll/coll.h"

namespace ccmpi::coll {

// Returned by an algorithm that cannot handle the call (never reaches the user).
constexpr int kDecline = -1;

enum Restriction : uint32_t {
  kAnySize = 0,
  kCommutativeOp = 1u << 0,  // the reduction op must be commutative
  kPowerOfTwo = 1u << 1,     // the communicator size must be a power of two
};

// What selection may look at; filled by the collective's entry point.
struct SelectContext {
  int commSize = 1;
  bool commutative = true;
};

bool restrictionsHold(uint32_t restrictions, const SelectContext& ctx);
std::string restrictionText(uint32_t restrictions);

template <typename Fn>
struct Algorithm {
  const char* name;
  const char* description;
  Fn fn;
  uint32_t restrictions;
};

// Registers a table for algorithmTables() (ccmpi_info). Called by AlgorithmTable.
void registerTable(CollectiveDescription d);

// One collective's algorithm table plus its forcing tunable. Declare one per collective
// at namespace scope in coll/<coll>/<coll>.cc.
template <typename Fn, size_t N>
class AlgorithmTable {
 public:
  AlgorithmTable(const char* collective, const char* envName, const Algorithm<Fn> (&algs)[N])
      : help_(makeHelp(algs)), forced_(envName, "auto", help_.c_str()) {
    CollectiveDescription d;
    d.collective = collective;
    d.tunable = envName;
    for (size_t i = 0; i < N; ++i) {
      algs_[i] = algs[i];
      d.algorithms.push_back(
          {algs[i].name, algs[i].description, restrictionText(algs[i].restrictions)});
    }
    registerTable(std::move(d));
  }

  // Runs the selected algorithm, falling through on kDecline.
  template <typename... Args>
  int run(const SelectContext& ctx, Args&&... args) {
    const std::string& forced = forced_.get();
    if (forced != "auto" && !forced.empty()) {
      bool known = false;
      for (const Algorithm<Fn>& a : algs_) {
        if (forced != a.name) continue;
        known = true;
        if (restrictionsHold(a.restrictions, ctx)) {
          const int rc = a.fn(args...);
          if (rc != kDecline) return rc;
        }
      }
      if (!known && !warned_) {
        warned_ = true;
        log::warn("%s=%s names no algorithm; using the default", forced_.name(), forced.c_str());
      }
    }
    for (const Algorithm<Fn>& a : algs_) {
      if (!restrictionsHold(a.restrictions, ctx)) continue;
      const int rc = a.fn(args...);
      if (rc != kDecline) return rc;
    }
    return setNoAlgorithm();
  }

 private:
  static std::string makeHelp(const Algorithm<Fn> (&algs)[N]) {
    std::string h = "algorithm to force: auto";
    for (size_t i = 0; i < N; ++i) h += std::string(", ") + algs[i].name;
    return h;
  }
  int setNoAlgorithm();

  std::string help_;
  Tunable<std::string> forced_;
  Algorithm<Fn> algs_[N];
  bool warned_ = false;
};

int noAlgorithmError(const char* tunable);

template <typename Fn, size_t N>
int AlgorithmTable<Fn, N>::setNoAlgorithm() {
  return noAlgorithmError(forced_.name());
}

}  // namespace ccmpi::coll
