// The MPIX_* extensions of include/mpix_ccmpi.h: compiled communication for Alltoallv
// (network control apart from data transmission, coll/alltoallv/alltoallv_levels.h).
#include <mpix_ccmpi.h>

#include <arpa/inet.h>

#include <cstring>
#include <memory>
#include <vector>

#include "api/api.h"
#include "api/coll_checks.h"
#include "base/link.h"
#include "coll/algorithms.h"
#include "coll/alltoallv/alltoallv_levels.h"
#include "coll/generate_recv/generate_recv.h"
#include "coll/mcast/mcast_coll.h"
#include "coll/mcast/mcast_subgroup.h"
#include "coll/util.h"
#include "comm/comm.h"
#include "datatype/datatype.h"
#include "p2p/am.h"
#include "p2p/compress_channel.h"
#include "p2p/p2p.h"
#include "transport/mcast.h"

using namespace ccmpi;
using api::checkCollComm;
using api::finish;

struct ccmpix_schedule {
  coll::CompiledPtr plan;
};

struct ccmpix_mcast_group {
  coll::McastSubgroup sub;
  MPI_Comm comm = MPI_COMM_NULL;
  comm::Comm* c = nullptr;
};

namespace {

int checkScheduleOut(const char* func, MPI_Comm comm, MPIX_Schedule* out) {
  if (!out) return api::raiseCommf(comm, func, MPI_ERR_ARG, "schedule is NULL");
  *out = MPIX_SCHEDULE_NULL;
  return MPI_SUCCESS;
}

int deliverSchedule(const char* func, MPI_Comm comm, int rc, coll::CompiledPtr plan,
                    MPIX_Schedule* out) {
  if (rc) return api::raiseComm(comm, func, rc);
  *out = new ccmpix_schedule{std::move(plan)};
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int MPIX_Alltoallv_control1(const int sendcounts[], MPI_Datatype sendtype, MPI_Comm comm,
                                       MPIX_Schedule* schedule) {
  CCMPI_API_BEGIN("MPIX_Alltoallv_control1");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkScheduleOut(kFunc, comm, schedule));
  CCMPI_CHECK(comm, sendcounts, MPI_ERR_ARG, "sendcounts is NULL");
  for (int i = 0; i < c->size; ++i)
    CCMPI_CHECK(comm, sendcounts[i] >= 0, MPI_ERR_COUNT, "sendcounts[%d] = %d is negative", i,
                sendcounts[i]);
  const datatype::Datatype* dt = datatype::lookup(sendtype);
  CCMPI_CHECK(comm, dt, MPI_ERR_TYPE, "sendtype: invalid datatype handle 0x%x", sendtype);
  CCMPI_CHECK(comm, dt->committed(), MPI_ERR_TYPE, "sendtype is not committed");
  coll::CompiledPtr plan;
  const int rc = coll::compileAlltoallvLevel1(sendcounts, sendtype, *c, &plan);
  return deliverSchedule(kFunc, comm, rc, std::move(plan), schedule);
}

extern "C" int MPIX_Generate_recv(const int sendcounts[], int recvcounts[], MPI_Comm comm) {
  CCMPI_API_BEGIN("MPIX_Generate_recv");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_CHECK(comm, sendcounts, MPI_ERR_ARG, "sendcounts is NULL");
  CCMPI_CHECK(comm, recvcounts, MPI_ERR_ARG, "recvcounts is NULL");
  for (int i = 0; i < c->size; ++i)
    CCMPI_CHECK(comm, sendcounts[i] >= 0, MPI_ERR_COUNT, "sendcounts[%d] = %d is negative", i,
                sendcounts[i]);
  const int rc = coll::generateRecv(sendcounts, recvcounts, *c);
  if (rc != MPI_SUCCESS) return api::raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}

extern "C" int MPIX_Alltoallv_control2(const MPI_Count pattern[], MPI_Comm comm,
                                       MPIX_Schedule* schedule) {
  CCMPI_API_BEGIN("MPIX_Alltoallv_control2");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkScheduleOut(kFunc, comm, schedule));
  CCMPI_CHECK(comm, pattern, MPI_ERR_ARG, "pattern is NULL");
  const int n = c->size;
  sched::Pattern p;
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d) {
      const MPI_Count b = pattern[static_cast<size_t>(s) * n + d];
      CCMPI_CHECK(comm, b >= 0, MPI_ERR_ARG, "pattern[%d * %d + %d] = %lld bytes is negative", s, n,
                  d, b);
      if (s != d && b > 0) p.push_back({s, d, static_cast<int64_t>(b)});
    }
  coll::CompiledPtr plan;
  const int rc = coll::compileAlltoallvLevel2(p, *c, &plan);
  return deliverSchedule(kFunc, comm, rc, std::move(plan), schedule);
}

extern "C" int MPIX_Schedule_load(const char* path, MPI_Comm comm, MPIX_Schedule* schedule) {
  CCMPI_API_BEGIN("MPIX_Schedule_load");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(checkScheduleOut(kFunc, comm, schedule));
  CCMPI_CHECK(comm, path, MPI_ERR_ARG, "path is NULL");
  coll::CompiledPtr plan;
  const int rc = coll::loadAlltoallvSchedule(path, *c, &plan);
  return deliverSchedule(kFunc, comm, rc, std::move(plan), schedule);
}

extern "C" int MPIX_Schedule_get_info(MPIX_Schedule schedule, int* nphases, int* small_phase) {
  CCMPI_API_BEGIN("MPIX_Schedule_get_info");
  CCMPI_CHECK(MPI_COMM_WORLD, schedule, MPI_ERR_ARG, "schedule is MPIX_SCHEDULE_NULL");
  if (nphases) *nphases = static_cast<int>(schedule->plan->mine.phases.size());
  if (small_phase) *small_phase = schedule->plan->mine.hasSmall ? 1 : 0;
  return MPI_SUCCESS;
}

extern "C" int MPIX_Schedule_free(MPIX_Schedule* schedule) {
  CCMPI_API_BEGIN("MPIX_Schedule_free");
  CCMPI_CHECK(MPI_COMM_WORLD, schedule && *schedule, MPI_ERR_ARG,
              "schedule is NULL or MPIX_SCHEDULE_NULL");
  delete *schedule;
  *schedule = MPIX_SCHEDULE_NULL;
  return MPI_SUCCESS;
}

extern "C" int MPIX_Alltoallv_data_trans1(const void* sendbuf, const int sendcounts[],
                                          const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                          const int recvcounts[], const int rdispls[],
                                          MPI_Datatype recvtype, MPI_Comm comm) {
  CCMPI_API_BEGIN("MPIX_Alltoallv_data_trans1");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkAlltoallv(kFunc, comm, *c, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                recvcounts, rdispls, recvtype));
  return finish(kFunc, comm,
                coll::alltoallvLinearNow(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                         recvcounts, rdispls, recvtype, *c));
}

extern "C" int MPIX_Alltoallv_data_trans2(const void* sendbuf, const int sendcounts[],
                                          const int sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                          const int recvcounts[], const int rdispls[],
                                          MPI_Datatype recvtype, MPI_Comm comm,
                                          MPIX_Schedule schedule) {
  CCMPI_API_BEGIN("MPIX_Alltoallv_data_trans2");
  comm::Comm* c = nullptr;
  CCMPI_TRY(checkCollComm(kFunc, comm, &c));
  CCMPI_TRY(api::checkAlltoallv(kFunc, comm, *c, sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                recvcounts, rdispls, recvtype));
  CCMPI_CHECK(comm, schedule, MPI_ERR_ARG, "schedule is MPIX_SCHEDULE_NULL");
  return finish(
      kFunc, comm,
      coll::alltoallvCompiled(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                              recvtype, *c, schedule->plan, coll::Mode::kNonblocking, nullptr));
}

extern "C" int MPIX_Compress_get_stats(MPIX_Compress_stats* stats) {
  CCMPI_API_BEGIN("MPIX_Compress_get_stats");
  CCMPI_CHECK(MPI_COMM_WORLD, stats, MPI_ERR_ARG, "stats is NULL");
  const p2p::compress_channel::Stats& s = p2p::compress_channel::stats();
  stats->sent_frames = s.sentFrames;
  stats->sent_bytes = s.sentBytes;
  stats->sent_wire = s.sentWire;
  stats->recv_frames = s.recvFrames;
  stats->recv_bytes = s.recvBytes;
  stats->recv_wire = s.recvWire;
  stats->compress_seconds = static_cast<double>(s.encodeNs) * 1e-9;
  stats->decompress_seconds = static_cast<double>(s.decodeNs) * 1e-9;
  stats->mode = static_cast<int>(p2p::compress_channel::mode());
  return MPI_SUCCESS;
}

extern "C" int MPIX_Mcast_get_stats(MPIX_Mcast_stats* stats) {
  CCMPI_API_BEGIN("MPIX_Mcast_get_stats");
  CCMPI_CHECK(MPI_COMM_WORLD, stats, MPI_ERR_ARG, "stats is NULL");
  const transport::McastTransport& m = transport::mcast();
  const transport::McastStats& x = m.stats();
  stats->available = m.available() ? 1 : 0;
  stats->sent_packets = x.sentPackets;
  stats->sent_bytes = x.sentBytes;
  stats->recv_packets = x.recvPackets;
  stats->recv_bytes = x.recvBytes;
  stats->naks_sent = x.naksSent;
  stats->naks_received = x.naksReceived;
  stats->repair_bytes_sent = x.repairBytesSent;
  stats->repair_bytes_received = x.repairBytesReceived;
  stats->drop_foreign = x.dropForeign;
  stats->drop_auth = x.dropAuth;
  stats->drop_malformed = x.dropMalformed;
  stats->drop_stale = x.dropStale;
  stats->drop_duplicate = x.dropDuplicate;
  stats->drop_ahead = x.dropAhead;
  stats->drop_injected = x.dropInjected;
  stats->drop_other = x.dropOther;
  return MPI_SUCCESS;
}

extern "C" int MPIX_Comm_get_mcast_group(MPI_Comm comm, char* address, int* port) {
  CCMPI_API_BEGIN("MPIX_Comm_get_mcast_group");
  comm::Comm* c = comm::lookup(comm);
  CCMPI_CHECK(MPI_COMM_WORLD, c, MPI_ERR_COMM, "invalid communicator");
  CCMPI_CHECK(comm, address && port, MPI_ERR_ARG, "address or port is NULL");
  const auto* g = static_cast<const coll::McastGroup*>(c->mcastState.get());
  CCMPI_CHECK(comm, g && g->works(), MPI_ERR_OTHER,
              "the communicator has no multicast group (none used yet, or multicast does not "
              "work on it)");
  in_addr a{};
  a.s_addr = g->group;
  inet_ntop(AF_INET, &a, address, 16);
  *port = transport::mcast().port();
  return MPI_SUCCESS;
}

extern "C" int MPIX_Scatterv_open_group(const int sendcounts[], MPI_Datatype sendtype,
                                        int recvcount, MPI_Datatype recvtype, int root,
                                        MPI_Comm comm, MPIX_Mcast_group* group) {
  CCMPI_API_BEGIN("MPIX_Scatterv_open_group");
  comm::Comm* c = comm::lookup(comm);
  CCMPI_CHECK(MPI_COMM_WORLD, c, MPI_ERR_COMM, "invalid communicator");
  CCMPI_CHECK(comm, group, MPI_ERR_ARG, "group is NULL");
  *group = MPIX_MCAST_GROUP_NULL;
  CCMPI_CHECK(comm, root >= 0 && root < c->size, MPI_ERR_ROOT, "root %d is not a rank of the %d",
              root, c->size);
  std::vector<uint64_t> sizes;
  if (c->rank == root) {
    datatype::Datatype* st = datatype::lookup(sendtype);
    CCMPI_CHECK(comm, st && st->committed(), MPI_ERR_TYPE, "invalid or uncommitted sendtype");
    CCMPI_CHECK(comm, sendcounts, MPI_ERR_ARG, "sendcounts is NULL at the root");
    sizes.resize(static_cast<size_t>(c->size));
    for (int i = 0; i < c->size; ++i) {
      CCMPI_CHECK(comm, sendcounts[i] >= 0, MPI_ERR_COUNT, "sendcounts[%d] = %d is negative", i,
                  sendcounts[i]);
      sizes[static_cast<size_t>(i)] = static_cast<uint64_t>(sendcounts[i]) * st->size();
    }
  } else {
    datatype::Datatype* rt = datatype::lookup(recvtype);
    CCMPI_CHECK(comm, rt && rt->committed(), MPI_ERR_TYPE, "invalid or uncommitted recvtype");
    CCMPI_CHECK(comm, recvcount >= 0, MPI_ERR_COUNT, "recvcount %d is negative", recvcount);
  }
  auto g = std::make_unique<ccmpix_mcast_group>();
  const int rc = coll::subgroupOpen(*c, root, sizes.data(), &g->sub, true);
  if (rc) return api::raiseComm(comm, kFunc, rc);
  if (c->rank != root) {
    const uint64_t want = static_cast<uint64_t>(recvcount) * datatype::lookup(recvtype)->size();
    const uint64_t got = g->sub.sizes[static_cast<size_t>(c->rank)];
    if (got > want) {
      coll::subgroupClose(g->sub);
      return api::raiseCommf(
          comm, kFunc, MPI_ERR_TRUNCATE, "the root sends %llu bytes, the receive holds %llu",
          static_cast<unsigned long long>(got), static_cast<unsigned long long>(want));
    }
  }
  g->comm = comm;
  g->c = c;
  ++c->refs;
  *group = g.release();
  return MPI_SUCCESS;
}

extern "C" int MPIX_Scatterv_data_movement(const void* sendbuf, const int sendcounts[],
                                           const int displs[], MPI_Datatype sendtype, void* recvbuf,
                                           int recvcount, MPI_Datatype recvtype,
                                           MPIX_Mcast_group group) {
  CCMPI_API_BEGIN("MPIX_Scatterv_data_movement");
  CCMPI_CHECK(MPI_COMM_WORLD, group, MPI_ERR_ARG, "group is MPIX_MCAST_GROUP_NULL");
  coll::McastSubgroup& s = group->sub;
  comm::Comm& c = *group->c;
  const MPI_Comm comm = group->comm;
  if (c.rank == s.root) {
    datatype::Datatype* st = datatype::lookup(sendtype);
    CCMPI_CHECK(comm, st && st->committed(), MPI_ERR_TYPE, "invalid or uncommitted sendtype");
    CCMPI_CHECK(comm, sendcounts && displs, MPI_ERR_ARG, "sendcounts or displs is NULL");
    uint64_t total = 0;
    for (int i = 0; i < c.size; ++i) {
      const uint64_t n = static_cast<uint64_t>(sendcounts[i] < 0 ? 0 : sendcounts[i]) * st->size();
      CCMPI_CHECK(comm, sendcounts[i] >= 0 && n == s.sizes[static_cast<size_t>(i)], MPI_ERR_ARG,
                  "sendcounts[%d] gives %llu bytes, the group was opened for %llu", i,
                  static_cast<unsigned long long>(n),
                  static_cast<unsigned long long>(s.sizes[static_cast<size_t>(i)]));
      if (i != s.root) total += n;
    }
    if (!s.mcast || s.tcpData) {
      // By TCP: each member's block straight from the send buffer, all sends at once.
      const int rc = coll::scattervLinear(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                          recvtype, s.root, c);
      return rc ? api::raiseComm(comm, kFunc, rc) : MPI_SUCCESS;
    }
    std::vector<unsigned char> aggregate(total);
    uint64_t at = 0;
    for (int i : s.members) {
      st->pack(coll::elemAt(sendbuf, displs[i], *st), sendcounts[i], 0, aggregate.data() + at,
               s.sizes[static_cast<size_t>(i)]);
      at += s.sizes[static_cast<size_t>(i)];
    }
    if (recvbuf != MPI_IN_PLACE && sendcounts[s.root] > 0) {
      if (int rc = coll::copyLocal(coll::elemAt(sendbuf, displs[s.root], *st), sendcounts[s.root],
                                   sendtype, recvbuf, recvcount, recvtype))
        return api::raiseComm(comm, kFunc, rc);
    }
    const int rc = coll::subgroupScatter(s, &aggregate, nullptr, 0, MPI_BYTE);
    return rc ? api::raiseComm(comm, kFunc, rc) : MPI_SUCCESS;
  }
  if (!s.member) return MPI_SUCCESS;
  datatype::Datatype* rt = datatype::lookup(recvtype);
  CCMPI_CHECK(comm, rt && rt->committed(), MPI_ERR_TYPE, "invalid or uncommitted recvtype");
  const uint64_t got = s.sizes[static_cast<size_t>(c.rank)];
  CCMPI_CHECK(comm, recvcount >= 0 && static_cast<uint64_t>(recvcount) * rt->size() >= got,
              MPI_ERR_TRUNCATE, "the root sends %llu bytes, the receive holds %lld",
              static_cast<unsigned long long>(got),
              static_cast<long long>(recvcount) * static_cast<long long>(rt->size()));
  if (!s.mcast || s.tcpData) {
    const int rc = p2p::recv(recvbuf, recvcount, recvtype, s.root, coll::kTagScatterv, c,
                             MPI_STATUS_IGNORE, coll::kCtx);
    return rc ? api::raiseComm(comm, kFunc, rc) : MPI_SUCCESS;
  }
  const int rc = coll::subgroupScatter(s, nullptr, recvbuf, recvcount, recvtype);
  return rc ? api::raiseComm(comm, kFunc, rc) : MPI_SUCCESS;
}

extern "C" int MPIX_Scatterv_close_group(MPIX_Mcast_group* group) {
  CCMPI_API_BEGIN("MPIX_Scatterv_close_group");
  CCMPI_CHECK(MPI_COMM_WORLD, group && *group, MPI_ERR_ARG,
              "group is NULL or MPIX_MCAST_GROUP_NULL");
  coll::subgroupClose((*group)->sub);
  --(*group)->c->refs;
  delete *group;
  *group = MPIX_MCAST_GROUP_NULL;
  comm::sweepFreed();
  return MPI_SUCCESS;
}

extern "C" int MPIX_Link_get_rate(double* mbits, int* origin, char* how) {
  CCMPI_API_BEGIN("MPIX_Link_get_rate");
  CCMPI_CHECK(MPI_COMM_WORLD, mbits, MPI_ERR_ARG, "mbits is NULL");
  CCMPI_CHECK(MPI_COMM_WORLD, origin, MPI_ERR_ARG, "origin is NULL");
  *mbits = linkMbits();
  *origin = linkMbitsDeclared() ? MPIX_LINK_DECLARED
            : linkMbitsKnown()  ? MPIX_LINK_FOUND
                                : MPIX_LINK_ASSUMED;
  if (how) {
    const std::string o = linkOrigin();
    const size_t n = std::min<size_t>(o.size(), MPI_MAX_INFO_VAL);
    memcpy(how, o.data(), n);
    how[n] = '\0';
  }
  return MPI_SUCCESS;
}

namespace {
// The user's handler behind an internal one (p2p/am.h): kept until MPI_Finalize, as the
// registration is.
struct UserAm {
  MPIX_Am_handler* fn;
  void* state;
};
std::vector<std::unique_ptr<UserAm>> gUserAms;

void userAmTrampoline(int source, uint64_t, const void* payload, size_t len, void* state) {
  auto* u = static_cast<UserAm*>(state);
  u->fn(source, payload, static_cast<int>(len), u->state);
}
}  // namespace

extern "C" int MPIX_Am_register(MPI_Comm comm, MPIX_Am_handler* handler, void* extra_state,
                                int* id) {
  CCMPI_API_BEGIN("MPIX_Am_register");
  comm::Comm* c = comm::lookup(comm);
  if (!c) return api::raiseCommf(comm, kFunc, MPI_ERR_COMM, "invalid communicator");
  CCMPI_CHECK(comm, handler, MPI_ERR_ARG, "handler is NULL");
  CCMPI_CHECK(comm, id, MPI_ERR_ARG, "id is NULL");
  gUserAms.push_back(std::make_unique<UserAm>(UserAm{handler, extra_state}));
  if (int rc = p2p::amRegister(*c, userAmTrampoline, gUserAms.back().get(), id)) {
    gUserAms.pop_back();
    return api::raiseComm(comm, kFunc, rc);
  }
  return MPI_SUCCESS;
}

extern "C" int MPIX_Am_send(MPI_Comm comm, int dest, int id, const void* payload, int len) {
  CCMPI_API_BEGIN("MPIX_Am_send");
  comm::Comm* c = comm::lookup(comm);
  if (!c) return api::raiseCommf(comm, kFunc, MPI_ERR_COMM, "invalid communicator");
  if (dest < 0 || dest >= c->peerSize())
    return api::raiseCommf(comm, kFunc, MPI_ERR_RANK,
                           "dest %d is not a rank of a communicator of size %d", dest,
                           c->peerSize());
  if (len < 0) return api::raiseCommf(comm, kFunc, MPI_ERR_COUNT, "len %d is negative", len);
  CCMPI_CHECK(comm, payload || len == 0, MPI_ERR_BUFFER, "payload is NULL but len is %d", len);
  if (int rc = p2p::amSend(*c, dest, id, 0, payload, static_cast<size_t>(len)))
    return api::raiseComm(comm, kFunc, rc);
  return MPI_SUCCESS;
}

extern "C" int MPIX_Am_max_payload(int* len) {
  CCMPI_API_BEGIN("MPIX_Am_max_payload");
  CCMPI_CHECK(MPI_COMM_WORLD, len, MPI_ERR_ARG, "len is NULL");
  const size_t m = p2p::amMaxPayload();
  *len = m > 0x7fffffff ? 0x7fffffff : static_cast<int>(m);
  return MPI_SUCCESS;
}
