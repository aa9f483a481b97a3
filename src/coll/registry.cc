// The registry of algorithm tables and the restriction vocabulary.
#include <mpi.h>

#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "base/error.h"
#include "coll/algorithm.h"
#include "coll/rules.h"

namespace ccmpi::coll {
namespace {

std::vector<CollectiveDescription>& tables() {
  static std::vector<CollectiveDescription> t;
  return t;
}

}  // namespace

bool restrictionsHold(uint32_t r, const SelectContext& ctx) {
  if ((r & kCommutativeOp) && !ctx.commutative) return false;
  if ((r & kPowerOfTwo) && (ctx.commSize & (ctx.commSize - 1)) != 0) return false;
  return true;
}

std::string restrictionText(uint32_t r) {
  std::string s;
  auto add = [&s](const char* t) {
    if (!s.empty()) s += ", ";
    s += t;
  };
  if (r & kCommutativeOp) add("commutative op");
  if (r & kPowerOfTwo) add("power-of-two size");
  return s;
}

void registerTable(CollectiveDescription d) {
  tables().push_back(std::move(d));
}

namespace {
std::map<std::string, std::vector<ScheduleAlgorithm>>& scheduleTables() {
  static std::map<std::string, std::vector<ScheduleAlgorithm>> t;
  return t;
}
}  // namespace

void registerScheduleTable(const char* collective, std::vector<ScheduleAlgorithm> algorithms) {
  scheduleTables()[collective] = std::move(algorithms);
}

const std::vector<ScheduleAlgorithm>* scheduleTable(const std::string& collective) {
  auto it = scheduleTables().find(collective);
  return it == scheduleTables().end() ? nullptr : &it->second;
}

const std::vector<CollectiveDescription>& algorithmTables() {
  return tables();
}

const char* forcedAlgorithm(const char* collective, Tunable<std::string>& tunable,
                            const SelectContext& ctx, std::string* source) {
  if (ctx.comm && !ctx.comm->hints.empty()) {
    std::string key = std::string("ccmpi_") + collective + "_algorithm";
    for (const auto& [k, v] : ctx.comm->hints) {
      if (k != key) continue;
      if (v.empty() || v == "auto") break;
      *source = "info hint " + key;
      return v.c_str();
    }
  }
  const std::string& forced = tunable.get();
  if (forced.empty() || forced == "auto") return nullptr;
  *source = tunable.name();
  return forced.c_str();
}

namespace {

// The active rules of one collective, in order, or the rules' load error. Built once per
// collective name (under a lock); each thread then finds its list by the table's name
// pointer (a string literal) without locking or comparing strings.
struct CollectiveRules {
  std::vector<const Rule*> rules;
  std::string error;
};

const CollectiveRules& rulesOf(const char* collective) {
  thread_local std::unordered_map<const char*, const CollectiveRules*> cache;
  if (auto it = cache.find(collective); it != cache.end()) return *it->second;
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<CollectiveRules>> byName;
  std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<CollectiveRules>& set = byName[collective];
  if (!set) {
    set = std::make_unique<CollectiveRules>();
    for (const Rule& r : activeRules(&set->error, nullptr))
      if (r.collective == collective) set->rules.push_back(&r);
  }
  cache.emplace(collective, set.get());
  return *set;
}

}  // namespace

const char* ruledAlgorithm(const char* collective, const SelectContext& ctx, int* error,
                           size_t* next) {
  const CollectiveRules& set = rulesOf(collective);
  if (!set.error.empty()) {
    *error = setErrorCause(MPI_ERR_OTHER, "%s", set.error.c_str());
    return nullptr;
  }
  while (*next < set.rules.size()) {
    const Rule& r = *set.rules[(*next)++];
    if (ctx.commSize < r.minRanks || ctx.commSize > r.maxRanks) continue;
    if (ctx.bytes < 0) {
      if (r.minBytes != 0 || r.maxBytes != INT64_MAX) continue;
    } else if (ctx.bytes < r.minBytes || ctx.bytes > r.maxBytes) {
      continue;
    }
    if (r.minHosts > 1 || r.maxHosts < 0x7fffffff) {
      const int hosts = ruleHosts(ctx.commSize, ctx.comm);
      if (hosts < r.minHosts || hosts > r.maxHosts) continue;
    }
    if (r.minRanksPerCore > 0 || r.maxRanksPerCore < 0x7fffffff) {
      const int load = jobRanksPerCore();
      if (load < r.minRanksPerCore || load > r.maxRanksPerCore) continue;  // -1: unknown
    }
    if (r.minRanksPerHost > 1 || r.maxRanksPerHost < 0x7fffffff) {
      const int per = ruleRanksPerHost(const_cast<comm::Comm*>(ctx.comm));
      if (per < r.minRanksPerHost || per > r.maxRanksPerHost) continue;  // -1: unknown
    }
    if (jobRails() < r.minRails || jobRails() > r.maxRails) continue;
    return r.algorithm.c_str();
  }
  return nullptr;
}

int unknownAlgorithmError(const char* collective, const char* name, const std::string& source,
                          const std::string& valid) {
  return setErrorCause(MPI_ERR_ARG, "%s=%s: %s has no such algorithm (valid: %s)", source.c_str(),
                       name, collective, valid.c_str());
}

int noAlgorithmError(const char* collective, const char* tunable) {
  return setErrorCause(MPI_ERR_INTERN, "no %s algorithm applies (see %s)", collective, tunable);
}

}  // namespace ccmpi::coll
