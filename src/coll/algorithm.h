#pragma once
// Algorithm tables as data, and selection.
//
// Each collective keeps, in coll/<coll>/<coll>.cc (blocking) and coll/<coll>/i<coll>.cc
// (nonblocking and persistent), a table of {name, description, function, restrictions,
// tunables}. Selection for one call, in this order:
//   1. a forced algorithm: the communicator's info hint ccmpi_<coll>_algorithm
//      (MPI_Comm_set_info / MPI_Comm_dup_with_info), else the tunable
//      CCMPI_<COLL>_ALGORITHM ("auto" = not forced). A name the table does not have is an
//      error (MPI_ERR_ARG) that lists the valid names;
//   2. the rule table (coll/rules.h): the first rule for this collective whose
//      communicator-size and message-size ranges hold names the algorithm;
//   3. the table order: the first algorithm whose restrictions hold.
// A forced or ruled algorithm whose restrictions do not hold is skipped, and an algorithm
// may also decline at run time by returning kDecline (before communicating): selection
// then falls through to the next step. Every rank must reach the same choice, so
// selection only looks at what all ranks of the communicator share (SelectContext).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/log.h"
#include "base/tunables.h"
#include "coll/coll.h"
#include "coll/cost_model.h"
#include "comm/comm.h"

namespace ccmpi::coll {

// Returned by an algorithm that cannot handle the call (never reaches the user).
constexpr int kDecline = -1;

enum Restriction : uint32_t {
  kAnySize = 0,
  kCommutativeOp = 1u << 0,  // the reduction op must be commutative
  kPowerOfTwo = 1u << 1,     // the communicator size must be a power of two
};

// What selection may look at; filled by the collective's entry point. Only facts every
// rank of the communicator agrees on.
struct SelectContext {
  int commSize = 1;
  bool commutative = true;
  // The message size the rules are keyed by, the same at every rank: the whole buffer
  // (bcast, reduce, allreduce, scan), one rank's block (gather, scatter, allgather,
  // alltoall: count x type size), the whole vector (reduce_scatter); -1 when ranks do not
  // share it (the v and w variants): only rules for every size ("*") apply then.
  int64_t bytes = -1;
  const comm::Comm* comm = nullptr;  // whose info hints may force an algorithm
};

bool restrictionsHold(uint32_t restrictions, const SelectContext& ctx);
std::string restrictionText(uint32_t restrictions);

template <typename Fn>
struct Algorithm {
  const char* name;
  const char* description;
  Fn fn;
  uint32_t restrictions;
  const char* tunables = nullptr;  // names of the tunables it reads, comma separated
};

// Registers a table for algorithmTables() (ccmpi_info). Called by AlgorithmTable.
void registerTable(CollectiveDescription d);

// The tables whose algorithms are schedules (the nonblocking ones, "ialltoall"), by name:
// for tools that build a schedule without running it (ccmpi-sim). Registered by
// AlgorithmTable.
struct Plan;
struct ScheduleAlgorithm {
  const char* name;
  int (*fn)(Plan&);
  uint32_t restrictions;
};
void registerScheduleTable(const char* collective, std::vector<ScheduleAlgorithm> algorithms);
// In table order; nullptr when no such table.
const std::vector<ScheduleAlgorithm>* scheduleTable(const std::string& collective);

// The forced algorithm's name for this call (hint, else tunable), or nullptr for "auto".
// *source names where it came from, for error messages.
const char* forcedAlgorithm(const char* collective, Tunable<std::string>& tunable,
                            const SelectContext& ctx, std::string* source);
// The rule table's choice, nullptr when no rule applies. A broken rules file gives
// nullptr with *error set (the error class; the cause is recorded). *next (start at 0)
// is where the search resumes: an algorithm that declines (multicast where multicast does
// not work) hands the call to the next rule that matches, then to table order.
const char* ruledAlgorithm(const char* collective, const SelectContext& ctx, int* error,
                           size_t* next);
// MPI_ERR_ARG with a cause naming the bad name, where it came from and the valid names.
int unknownAlgorithmError(const char* collective, const char* name, const std::string& source,
                          const std::string& valid);
int noAlgorithmError(const char* collective, const char* tunable);

// One collective's algorithm table plus its forcing tunable. Declare one per collective
// at namespace scope in coll/<coll>/<coll>.cc.
template <typename Fn, size_t N>
class AlgorithmTable {
 public:
  AlgorithmTable(const char* collective, const char* envName, const Algorithm<Fn> (&algs)[N])
      : collective_(collective), help_(makeHelp(algs)), forced_(envName, "auto", help_.c_str()) {
    CollectiveDescription d;
    d.collective = collective;
    d.tunable = envName;
    for (size_t i = 0; i < N; ++i) {
      algs_[i] = algs[i];
      d.algorithms.push_back({algs[i].name, algs[i].description,
                              restrictionText(algs[i].restrictions),
                              algs[i].tunables ? algs[i].tunables : ""});
    }
    registerTable(std::move(d));
    if constexpr (std::is_same_v<Fn, int (*)(Plan&)>) {
      std::vector<ScheduleAlgorithm> v;
      for (size_t i = 0; i < N; ++i) v.push_back({algs[i].name, algs[i].fn, algs[i].restrictions});
      registerScheduleTable(collective, std::move(v));
    }
  }

  // Runs the selected algorithm, falling through on kDecline.
  template <typename... Args>
  int run(const SelectContext& ctx, Args&&... args) {
    std::string source;
    if (const char* forced = forcedAlgorithm(collective_, forced_, ctx, &source)) {
      const Algorithm<Fn>* a = find(forced);
      if (!a) return unknownAlgorithmError(collective_, forced, source, validNames());
      if (restrictionsHold(a->restrictions, ctx)) {
        const int rc = a->fn(args...);
        if (rc != kDecline) return chosen(a, "forced", ctx, rc);
      }
    }
    int error = 0;
    size_t next = 0;
    while (const char* ruled = ruledAlgorithm(collective_, ctx, &error, &next)) {
      if (strcmp(ruled, kModelAlgorithm) == 0) {
        for (const std::string& name : modelRanking(collective_, ctx.commSize, ctx.bytes)) {
          const Algorithm<Fn>* a = find(name.c_str());
          if (!a || !restrictionsHold(a->restrictions, ctx)) continue;
          const int rc = a->fn(args...);
          if (rc != kDecline) return chosen(a, "cost model", ctx, rc);
        }
        continue;
      }
      const Algorithm<Fn>* a = find(ruled);
      if (a && restrictionsHold(a->restrictions, ctx)) {
        const int rc = a->fn(args...);
        if (rc != kDecline) return chosen(a, "rule", ctx, rc);
      }
    }
    if (error) return error;
    for (const Algorithm<Fn>& a : algs_) {
      if (!restrictionsHold(a.restrictions, ctx)) continue;
      const int rc = a.fn(args...);
      if (rc != kDecline) return chosen(&a, "table order", ctx, rc);
    }
    return noAlgorithmError(collective_, forced_.name());
  }

 private:
  // CCMPI_VERBOSE=3 logs every choice.
  int chosen(const Algorithm<Fn>* a, const char* why, const SelectContext& ctx, int rc) const {
    if (log::verbosity() >= 3)
      log::debug("%s: %s (%s; %d ranks, %lld bytes)", collective_, a->name, why, ctx.commSize,
                 static_cast<long long>(ctx.bytes));
    return rc;
  }
  const Algorithm<Fn>* find(const char* name) const {
    for (const Algorithm<Fn>& a : algs_)
      if (strcmp(name, a.name) == 0) return &a;
    return nullptr;
  }
  std::string validNames() const {
    std::string v = "auto";
    for (const Algorithm<Fn>& a : algs_) v += std::string(", ") + a.name;
    return v;
  }
  static std::string makeHelp(const Algorithm<Fn> (&algs)[N]) {
    std::string h = "algorithm to force: auto";
    for (size_t i = 0; i < N; ++i) h += std::string(", ") + algs[i].name;
    return h;
  }

  const char* collective_;
  std::string help_;
  Tunable<std::string> forced_;
  Algorithm<Fn> algs_[N];
};

}  // namespace ccmpi::coll
