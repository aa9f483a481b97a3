// Alltoallv as compiled communication: Level 1/2/3 network control and the data
// transmission routines (see alltoallv_levels.h).
#include "coll/alltoallv/alltoallv_levels.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "base/error.h"
#include "base/log.h"
#include "coll/coll.h"
#include "coll/nb_algorithms.h"
#include "comm/info.h"
#include "sched/files.h"

namespace ccmpi::coll {
namespace {

CompiledPtr finishCompile(int level, sched::Phases phases, comm::Comm& c) {
  auto cp = std::make_shared<CompiledAlltoallv>();
  cp->size = c.size;
  cp->rank = c.rank;
  cp->level = level;
  cp->phases = std::move(phases);
  cp->mine = rankPhasesOf(cp->phases, c.rank);
  cp->sync = phaseSyncFor(cp->phases);
  cp->sendBytes.assign(c.size, -1);
  cp->recvBytes.assign(c.size, -1);
  for (const sched::Phase& ph : cp->phases)
    for (const sched::Message& m : ph.messages) {
      if (m.src == c.rank) cp->sendBytes[m.dst] = m.bytes;
      if (m.dst == c.rank) cp->recvBytes[m.src] = m.bytes;
    }
  return cp;
}

// Ranks in range, no negative size, at most one message per (src, dst): an Alltoallv
// moves one block per pair.
int checkPattern(const sched::Pattern& pattern, int n) {
  std::vector<int64_t> pairs;
  pairs.reserve(pattern.size());
  for (const sched::Message& m : pattern) {
    if (m.src < 0 || m.src >= n || m.dst < 0 || m.dst >= n)
      return setErrorCause(MPI_ERR_ARG,
                           "the pattern has a message %d -> %d outside the communicator of "
                           "size %d",
                           m.src, m.dst, n);
    if (m.bytes < 0)
      return setErrorCause(MPI_ERR_ARG, "the pattern has a message %d -> %d of %lld bytes", m.src,
                           m.dst, static_cast<long long>(m.bytes));
    pairs.push_back(static_cast<int64_t>(m.src) * n + m.dst);
  }
  std::sort(pairs.begin(), pairs.end());
  const auto dup = std::adjacent_find(pairs.begin(), pairs.end());
  if (dup != pairs.end())
    return setErrorCause(MPI_ERR_ARG, "the pattern has more than one message %d -> %d",
                         static_cast<int>(*dup / n), static_cast<int>(*dup % n));
  return MPI_SUCCESS;
}

int readText(const std::string& path, std::string* text) {
  std::ifstream f(path);
  if (!f) return setErrorCause(MPI_ERR_FILE, "cannot read '%s': %s", path.c_str(), strerror(errno));
  std::stringstream ss;
  ss << f.rdbuf();
  *text = ss.str();
  return MPI_SUCCESS;
}

int64_t bytesOf(const int counts[], MPI_Datatype type, int i) {
  return dataBytes(counts[i], type);
}

// MPI_ERR_ARG unless this rank's counts in bytes are those of the schedule (in place:
// the receive counts both ways). O(size) on the rank the schedule was made on.
int checkCounts(const CompiledAlltoallv& plan, const void* sendbuf, const int sendcounts[],
                MPI_Datatype sendtype, const int recvcounts[], MPI_Datatype recvtype,
                const comm::Comm& c) {
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  auto sendBytes = [&](int p) {
    return inPlace ? bytesOf(recvcounts, recvtype, p) : bytesOf(sendcounts, sendtype, p);
  };
  auto recvBytes = [&](int p) { return bytesOf(recvcounts, recvtype, p); };
  std::string why;
  if (plan.rank != c.rank) {
    why = checkRankPhases(plan.phases, c.rank, c.size, sendBytes, recvBytes);
  } else {
    for (int p = 0; p < c.size && why.empty(); ++p) {
      if (p == c.rank) continue;
      // the same wording as checkRankPhases
      const int64_t s = sendBytes(p), r = recvBytes(p);
      const int64_t ss = plan.sendBytes[p], rr = plan.recvBytes[p];
      char buf[160];
      if ((s > 0 || ss >= 0) && s != ss) {
        snprintf(buf, sizeof buf, "rank %d sends %lld bytes to rank %d but the schedule has %lld",
                 c.rank, static_cast<long long>(s), p, static_cast<long long>(ss < 0 ? 0 : ss));
        why = buf;
      } else if ((r > 0 || rr >= 0) && r != rr) {
        snprintf(buf, sizeof buf,
                 "rank %d receives %lld bytes from rank %d but the schedule has %lld", c.rank,
                 static_cast<long long>(r), p, static_cast<long long>(rr < 0 ? 0 : rr));
        why = buf;
      }
    }
  }
  if (!why.empty())
    return setErrorCause(MPI_ERR_ARG, "counts do not match the schedule: %s", why.c_str());
  return MPI_SUCCESS;
}

}  // namespace

int compileAlltoallvLevel1(const int sendcounts[], MPI_Datatype sendtype, comm::Comm& c,
                           CompiledPtr* out) {
  const int n = c.size;
  std::vector<int64_t> row(n, 0), all(static_cast<size_t>(n) * n, 0);
  for (int i = 0; i < n; ++i)
    if (i != c.rank) row[i] = bytesOf(sendcounts, sendtype, i);
  if (int rc = allgather(row.data(), n, MPI_INT64_T, all.data(), n, MPI_INT64_T, c)) return rc;
  sched::Pattern pattern;
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      if (s != d && all[static_cast<size_t>(s) * n + d] > 0)
        pattern.push_back({s, d, all[static_cast<size_t>(s) * n + d]});
  *out = finishCompile(1, schedulePattern(n, pattern), c);
  return MPI_SUCCESS;
}

int compileAlltoallvLevel2(const sched::Pattern& pattern, comm::Comm& c, CompiledPtr* out) {
  if (int rc = checkPattern(pattern, c.size)) return rc;
  *out = finishCompile(2, schedulePattern(c.size, pattern), c);
  return MPI_SUCCESS;
}

int compileAlltoallvLevel3(int hosts, const sched::Phases& phases, comm::Comm& c,
                           CompiledPtr* out) {
  if (hosts != c.size)
    return setErrorCause(MPI_ERR_ARG, "the schedule is for %d hosts, the communicator has %d ranks",
                         hosts, c.size);
  sched::Pattern pattern;
  for (const sched::Phase& ph : phases)
    for (const sched::Message& m : ph.messages) pattern.push_back(m);
  if (int rc = checkPattern(pattern, c.size)) return rc;
  const std::string why = sched::validate(c.size, pattern, phases, INT64_MAX);
  if (!why.empty()) return setErrorCause(MPI_ERR_ARG, "invalid schedule: %s", why.c_str());
  *out = finishCompile(3, phases, c);
  return MPI_SUCCESS;
}

int loadAlltoallvPattern(const std::string& path, comm::Comm& c, CompiledPtr* out) {
  std::string text, error;
  if (int rc = readText(path, &text)) return rc;
  sched::Pattern pattern;
  if (!sched::parsePattern(text, &pattern, &error))
    return setErrorCause(MPI_ERR_ARG, "pattern file '%s': %s", path.c_str(), error.c_str());
  return compileAlltoallvLevel2(pattern, c, out);
}

int loadAlltoallvSchedule(const std::string& path, comm::Comm& c, CompiledPtr* out) {
  std::string text, error;
  if (int rc = readText(path, &text)) return rc;
  int hosts = 0;
  sched::Phases phases;
  if (!sched::parseSchedule(text, &hosts, &phases, &error))
    return setErrorCause(MPI_ERR_ARG, "schedule file '%s': %s", path.c_str(), error.c_str());
  return compileAlltoallvLevel3(hosts, phases, c, out);
}

int alltoallvLinearNow(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, comm::Comm& c) {
  return runBlocking(makeAlltoallvPlan(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                       rdispls, recvtype, c, "alltoallv"),
                     ialltoallvLinear);
}

int alltoallvCompiled(const void* sendbuf, const int sendcounts[], const int sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                      const int rdispls[], MPI_Datatype recvtype, comm::Comm& c,
                      const CompiledPtr& plan, Mode mode, p2p::Request** req) {
  if (plan->size != c.size)
    return setErrorCause(MPI_ERR_ARG, "the schedule is for %d ranks, the communicator has %d",
                         plan->size, c.size);
  if (int rc = checkCounts(*plan, sendbuf, sendcounts, sendtype, recvcounts, recvtype, c))
    return rc;
  const bool inPlace = sendbuf == MPI_IN_PLACE;
  // A schedule made on another communicator of this size, where this process had
  // another rank: its part here is a different one.
  RankPhases other;
  if (plan->rank != c.rank) other = rankPhasesOf(plan->phases, c.rank);
  const RankPhases& rp = plan->rank == c.rank ? plan->mine : other;
  auto p = makeAlltoallvPlan(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                             recvtype, c, "alltoallv");
  p->algorithm = "compiled";
  if (log::verbosity() >= 3)
    log::debug("alltoallv: compiled Level %d, %s: %zu phases%s, %d ranks", plan->level,
               mode == Mode::kPersistent ? "persistent" : "blocking", rp.phases.size(),
               rp.hasSmall ? " + small" : "", c.size);
  const CollArgs& a = p->args;
  addPhasedAlltoall(
      *p->schedule, rp, plan->sync, inPlace, [&](int i) { return alltoallvSendBlock(a, i); },
      [&](int i) { return alltoallvRecvBlock(a, i); });
  if (mode == Mode::kPersistent) return launch(std::move(p), MPI_SUCCESS, mode, req);
  p2p::Request* r = nullptr;
  if (int rc = launch(std::move(p), MPI_SUCCESS, Mode::kNonblocking, &r)) return rc;
  return p2p::wait(r, MPI_STATUS_IGNORE);
}

int alltoallvInitCompiled(const void* sendbuf, const int sendcounts[], const int sdispls[],
                          MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                          const int rdispls[], MPI_Datatype recvtype, comm::Comm& c, MPI_Info info,
                          bool* handled, p2p::Request** req) {
  *handled = false;
  const comm::Info* in = info == MPI_INFO_NULL ? nullptr : comm::lookupInfo(info);
  if (!in) return MPI_SUCCESS;
  const std::string* level = in->find("ccmpi_alltoallv_level");
  const std::string* patternFile = in->find("ccmpi_pattern_file");
  const std::string* scheduleFile = in->find("ccmpi_schedule_file");
  if (!level && !patternFile && !scheduleFile) return MPI_SUCCESS;
  *handled = true;
  std::string lv = level ? *level : scheduleFile ? "3" : "2";
  if (lv == "p2p") {
    if (log::verbosity() >= 3)
      log::debug("alltoallv: point-to-point, persistent (ccmpi_alltoallv_level=p2p)");
    auto p = makeAlltoallvPlan(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype, c, "alltoallv");
    return launch(p, ialltoallvLinear(*p), Mode::kPersistent, req);
  }
  CompiledPtr plan;
  int rc = MPI_SUCCESS;
  if (lv == "1") {
    // Collective by itself: every rank that asked for Level 1 takes part.
    rc = compileAlltoallvLevel1(sendbuf == MPI_IN_PLACE ? recvcounts : sendcounts,
                                sendbuf == MPI_IN_PLACE ? recvtype : sendtype, c, &plan);
    if (rc) return rc;
  } else if (lv == "2") {
    rc = patternFile ? loadAlltoallvPattern(*patternFile, c, &plan)
                     : setErrorCause(MPI_ERR_INFO_VALUE,
                                     "ccmpi_alltoallv_level=2 needs ccmpi_pattern_file");
  } else if (lv == "3") {
    rc = scheduleFile ? loadAlltoallvSchedule(*scheduleFile, c, &plan)
                      : setErrorCause(MPI_ERR_INFO_VALUE,
                                      "ccmpi_alltoallv_level=3 needs ccmpi_schedule_file");
  } else {
    rc = setErrorCause(MPI_ERR_INFO_VALUE, "ccmpi_alltoallv_level=%s: expected p2p, 1, 2 or 3",
                       lv.c_str());
  }
  // Check the counts against the plan before agreeing (the data call checks again).
  if (!rc) rc = checkCounts(*plan, sendbuf, sendcounts, sendtype, recvcounts, recvtype, c);
  // Levels 2 and 3 read files each rank may see differently: fail together, not hang.
  const int mine = rc ? 1 : 0;
  int any = 0;
  if (int arc = allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, c)) return arc;
  if (rc) return rc;
  if (any)
    return setErrorCause(MPI_ERR_OTHER,
                         "another rank could not set up the compiled Alltoallv (see its error)");
  return alltoallvCompiled(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                           recvtype, c, plan, Mode::kPersistent, req);
}

}  // namespace ccmpi::coll
