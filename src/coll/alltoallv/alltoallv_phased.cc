// Phased alltoallv (CC-MPI section 4.2, "Level 1" compiled communication): each rank
// knows only its own counts, so the ranks first allgather every rank's send sizes (a
// Bruck allgather of n byte counts each), then every rank runs the same scheduler on the
// same global pattern (coll/phased/phased.h: the cheaper of greedy and all-to-all based),
// and the data moves in contention-free phases (host-level where ranks share hosts:
// coll/phased/phased.h). When the largest message of the pattern
// is below CCMPI_PHASED_MIN bytes (default 8192), phases cost more than they save and the
// blocks move in one linear round instead; that decision, too, is taken from the gathered
// pattern, which every rank holds.
//
// The blocking MPI_Alltoallv adds a pattern cache ("compiled communication without a
// compiler"): a communicator keeps the last few patterns with their schedules. Each rank
// compares its own send sizes with those of every cached pattern (its row of the global
// pattern) and one dissemination allreduce of two numbers (the largest local message,
// max; a bit per cached pattern this rank's row differs from, or) tells every rank the
// same thing: the largest message of the whole pattern and which cached patterns are
// unchanged on every rank. A hit replays the cached schedule (Level 3: only data moves);
// small patterns go linear without gathering anything; a miss gathers, schedules and
// caches. Every rank updates its cache from agreed facts only, so the caches stay
// identical. A call that follows one whose messages were all small skips the agreement
// (addLinearWithTrailer): its linear round carries every rank's largest message, which is
// the agreed fact the next call starts from, unless some rank sent to fewer than half of
// its peers (a bit in both the agreement and the trailers): trailers go to every peer, so
// sparse patterns keep the agreement. The nonblocking and persistent forms do not use the
// cache: two of them may be in flight at once and finish in different orders on different ranks.
//
// CCMPI_PHASED_STATS=1 prints each rank's cache figures at exit.
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "base/log.h"
#include "base/tunables.h"
#include "coll/nb_algorithms.h"
#include "coll/phased/phased.h"
#include "transport/tcp.h"

namespace ccmpi::coll {
namespace {

constexpr size_t kCacheEntries = 4;

Tunable<uint64_t> kPhasedMin(
    "CCMPI_PHASED_MIN", 8192,
    "Alltoallv (automatic and phased): below this largest message of the pattern (bytes), "
    "one linear round replaces the phases");
Tunable<double> kPhasedDense(
    "CCMPI_PHASED_DENSE", 0.75,
    "Alltoallv (automatic and phased): phases only when every rank sends to at least this "
    "share of its peers; a sparser pattern goes in one linear round (0 = always phases)");
Tunable<uint64_t> kPhasedReagree(
    "CCMPI_PHASED_REAGREE", 8,
    "Alltoallv (automatic and phased): after an agreement found a sparse pattern of small "
    "messages or a thin one (both go linear), this many calls in all go linear without "
    "agreeing again (1 = agree at every such call)");
Tunable<bool> kPhasedStats(
    "CCMPI_PHASED_STATS", false,
    "print each rank's Alltoallv pattern-cache calls, hits, misses and their costs at exit");

int64_t phasedMin() {
  static const int64_t v = static_cast<int64_t>(kPhasedMin.get());
  return v;
}

double nowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Stats {
  uint64_t calls = 0, small = 0, hits = 0, misses = 0, trailer = 0, thin = 0, skipped = 0;
  double agreeSeconds = 0, missSeconds = 0;
};

Stats& stats() {
  static Stats* s = [] {
    auto* st = new Stats;
    if (kPhasedStats.get())
      atexit([] {
        const Stats& x = stats();
        if (x.calls == 0) return;
        fprintf(stderr,
                "ccmpi: alltoallv pattern cache (pid %d): %llu calls: %llu small after a "
                "small one (linear with trailers, no agreement), %llu small (linear), "
                "%llu hits, %llu misses, %llu thin (linear), %llu linear as the last agreed "
                "(no agreement); agreement %.3f ms per agreed call, a miss adds %.3f ms "
                "(allgather of the pattern + scheduling)\n",
                static_cast<int>(getpid()), static_cast<unsigned long long>(x.calls),
                static_cast<unsigned long long>(x.trailer),
                static_cast<unsigned long long>(x.small), static_cast<unsigned long long>(x.hits),
                static_cast<unsigned long long>(x.misses), static_cast<unsigned long long>(x.thin),
                static_cast<unsigned long long>(x.skipped),
                x.calls > x.trailer + x.skipped
                    ? 1e3 * x.agreeSeconds / static_cast<double>(x.calls - x.trailer - x.skipped)
                    : 0.0,
                x.misses ? 1e3 * x.missSeconds / x.misses : 0.0);
      });
    return st;
  }();
  return *s;
}

struct CacheEntry {
  std::vector<int64_t> row;  // this rank's send sizes (bytes) per peer, own entry 0
  RankPhases phases;
  PhaseSync sync = PhaseSync::kReady;  // phaseSyncFor(the pattern)
  uint64_t lastUse = 0;
};

struct PatternCache {
  std::vector<CacheEntry> entries;
  uint64_t clock = 0;
  // The largest message of the last blocking call on the communicator, as every rank
  // learned it (the agreement, or the trailers below); -1 before the first.
  int64_t lastMax = -1;
  // Whether some rank of the last call sent to fewer than half of its peers (learned with
  // lastMax). Trailers go to every peer, so a sparse pattern agrees instead (24 hosts,
  // 4 peers each, 1 KiB: trailers 5.3 ms, agreement + linear 2.99).
  bool lastSparse = false;
  // Calls since the last agreement concluded "linear" for a sparse or thin pattern (0: it
  // did not). Such a call and the next CCMPI_PHASED_REAGREE - 1 skip the agreement and go
  // linear; the one after agrees again. Every rank counts the same calls.
  uint64_t linearStreak = 0;
};

// What a rank tells the others about its row: its largest message, in bit 62 (messages
// stay below 2^62) whether it is sparse: sent to fewer than half of its peers, and in bit
// 61 whether it is thin: sent to fewer than CCMPI_PHASED_DENSE of them. The word goes out
// as the trailer, and split into the agreement's max and OR words.
//
// Phases pay off where every rank sends to most others: with a few destinations each, the
// receivers are seldom contended, and each phase boundary only adds waiting. Measured on
// 32 emulated hosts at 10 Mbit/s (a new pattern each call, d random destinations per rank,
// one run, ms): d = 4, 16 KiB: phased 117, linear 79; 128 KiB: 816 / 622; d = 16 (half of
// the peers), 16 KiB: 220 / 162; 128 KiB: 1741 / 1304.
constexpr int64_t kSparseBit = int64_t{1} << 62;
constexpr int64_t kThinBit = int64_t{1} << 61;
bool thin(size_t destinations, size_t peers) {
  static const double share = std::clamp(kPhasedDense.get(), 0.0, 1.0);
  return static_cast<double>(destinations) < share * static_cast<double>(peers);
}
int64_t rowSummary(const std::vector<int64_t>& row, int self) {
  const size_t peers = row.empty() ? 0 : row.size() - 1;
  size_t nonzero = 0;
  int64_t largest = 0;
  for (size_t p = 0; p < row.size(); ++p) {
    nonzero += row[p] > 0 && static_cast<int>(p) != self ? 1 : 0;
    largest = std::max(largest, row[p]);
  }
  return largest | (2 * nonzero < peers ? kSparseBit : 0) | (thin(nonzero, peers) ? kThinBit : 0);
}
constexpr int64_t kFlagBits = kSparseBit | kThinBit;

PatternCache& cacheOf(comm::Comm& c) {
  if (!c.collState) c.collState = std::make_shared<PatternCache>();
  return *static_cast<PatternCache*>(c.collState.get());
}

// The agreement's words and the time (the phased algorithms' own part of the call).
struct Call : AlltoallvCall {
  using AlltoallvCall::AlltoallvCall;
  std::vector<int64_t> row;  // send sizes in bytes (own entry 0)
  int64_t agreed[2] = {0, 0}, incoming[2] = {0, 0};
  double t0 = 0;
};

std::shared_ptr<Call> makeCall(const Plan& p) {
  auto call = std::make_shared<Call>(p.args);
  call->row = call->ownRow(p.comm.size, p.comm.rank);
  return call;
}

void addLinear(Schedule& s, const std::shared_ptr<Call>& call) {
  addAlltoallLinear(
      s, call->inPlace, [call](int i) { return call->sendBlock(i); },
      [call](int i) { return call->recvBlock(i); });
}

void addPhased(Schedule& s, const std::shared_ptr<Call>& call, const RankPhases& rp,
               PhaseSync sync) {
  addPhasedAlltoallv(s, rp, sync, call);
}

// A call after one whose messages were all small: no agreement; every pair exchanges its
// block (packed) followed by an 8-byte trailer, the sender's largest message, in one
// linear round or pairwise (below). Every rank receives every other rank's trailer, so all of them
// learn this call's largest message alike and the next call may go phased (agreement) again. The
// round costs n - 1 messages per rank where the agreement costs ceil(log2 n) rounds of latency (16
// hosts, 2 KiB a pair: about 1.3 ms). The blocks are packed into and unpacked from temporaries, so
// MPI_IN_PLACE needs nothing more. Below kTrailerPairwiseMin bytes (the last call's largest
// message) every message goes in one round; from it on, in n - 1 pairwise rounds (16 hosts,
// 2026-11-25: 2 KiB a pair linear 4.17 ms, pairwise 4.66; 4 KiB linear 11.3, pairwise 9.75).
// On a lossy network (transport::lossSeen()) a rank sends in one round whatever the size:
// each of the n - 1 rounds can wait for a retransmission (8 emulated hosts at 2% loss,
// bench/reliability, 40 iterations, drafts: Alltoallv 3.2-4.0 s in rounds, 1.1-2.3 s in
// one). Schedules match by their one tag, not by rounds, so ranks may choose differently.
constexpr int64_t kTrailerPairwiseMin = 4096;

void addLinearWithTrailer(Schedule& s, const std::shared_ptr<Call>& call, PatternCache* cache) {
  const int n = s.size(), r = s.rank();
  bool pairwise = cache->lastMax >= kTrailerPairwiseMin;
  if (pairwise && transport::lossSeen()) {
    pairwise = false;
    if (log::verbosity() >= 3) log::debug("alltoallv: one round (loss seen)");
  }
  const int64_t trailer = rowSummary(call->row, r);
  // One buffer for every outgoing message and one for every incoming one (block + 8),
  // laid out by peer.
  std::vector<std::pair<unsigned char*, int64_t>> outgoing(n, {nullptr, 0}),
      incoming(n, {nullptr, 0});
  int64_t outTotal = 0, inTotal = 0;
  for (int p = 0; p < n; ++p) {
    if (p == r) continue;
    const Block sb = call->inPlace ? call->recvBlock(p) : call->sendBlock(p);
    const Block rb = call->recvBlock(p);
    outgoing[p].second = dataBytes(sb.count, sb.type);
    incoming[p].second = dataBytes(rb.count, rb.type);
    outTotal += outgoing[p].second + 8;
    inTotal += incoming[p].second + 8;
  }
  auto* out = static_cast<unsigned char*>(s.tempBytes(outTotal));
  auto* in = static_cast<unsigned char*>(s.tempBytes(inTotal));
  if (!out || !in) return;  // buildError() is set
  for (int p = 0; p < n; ++p) {
    if (p == r) continue;
    outgoing[p].first = out;
    incoming[p].first = in;
    out += outgoing[p].second + 8;
    in += incoming[p].second + 8;
  }
  // Every outgoing block is packed before anything is received (MPI_IN_PLACE).
  for (int p = 0; p < n; ++p) {
    if (p == r) continue;
    const Block b = call->inPlace ? call->recvBlock(p) : call->sendBlock(p);
    const auto [t, bytes] = outgoing[p];
    if (bytes > 0) s.copy(b.addr, b.count, b.type, t, bytes, MPI_BYTE);
    memcpy(t + bytes, &trailer, 8);
  }
  if (!call->inPlace) {
    const Block from = call->sendBlock(r), to = call->recvBlock(r);
    s.copy(from.addr, from.count, from.type, to.addr, to.count, to.type);
  }
  for (int i = 1; i < n; ++i) {
    const int to = (r + i) % n, from = (r - i + n) % n;
    s.recv(incoming[from].first, incoming[from].second + 8, MPI_BYTE, from);
    s.send(outgoing[to].first, outgoing[to].second + 8, MPI_BYTE, to);
    if (pairwise) s.endRound();
  }
  s.endRound();
  for (int from = 0; from < n; ++from) {
    if (from == r) continue;
    const Block b = call->recvBlock(from);
    const auto [t, bytes] = incoming[from];
    if (bytes > 0) s.copy(t, bytes, MPI_BYTE, b.addr, b.count, b.type);
  }
  s.local([incoming, trailer, cache, n, r]() {
    int64_t m = trailer & ~kFlagBits;
    bool sparse = (trailer & kSparseBit) != 0;
    for (int from = 0; from < n; ++from) {
      if (from == r) continue;
      int64_t v = 0;
      memcpy(&v, incoming[from].first + incoming[from].second, 8);
      sparse = sparse || (v & kSparseBit) != 0;
      m = std::max(m, v & ~kFlagBits);
    }
    cache->lastMax = m;
    cache->lastSparse = sparse;
    return MPI_SUCCESS;
  });
  s.endRound();
}

}  // namespace

AlltoallvCall::AlltoallvCall(const CollArgs& a) : args(a), inPlace(a.sendbuf == MPI_IN_PLACE) {}

Block AlltoallvCall::sendBlock(int i) const {
  return alltoallvSendBlock(args, i);
}

Block AlltoallvCall::recvBlock(int i) const {
  return alltoallvRecvBlock(args, i);
}

std::vector<int64_t> AlltoallvCall::ownRow(int n, int r) const {
  std::vector<int64_t> row(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i)
    if (i != r) {
      const Block b = inPlace ? recvBlock(i) : sendBlock(i);
      row[static_cast<size_t>(i)] = dataBytes(b.count, b.type);
    }
  return row;
}

void AlltoallvCall::addGatherRows(Schedule& s, const std::vector<int64_t>& row) {
  const int n = s.size();
  gathered.assign(static_cast<size_t>(n) * n, 0);
  std::copy(row.begin(), row.end(), gathered.begin());
  addAllgatherRows(s, gathered.data());
}

sched::Pattern AlltoallvCall::gatheredPattern(int n, int r) const {
  sched::Pattern pattern;
  for (int src = 0; src < n; ++src) {
    const int64_t* row = gathered.data() + static_cast<size_t>((src - r + n) % n) * n;
    for (int dst = 0; dst < n; ++dst)
      if (dst != src && row[dst] > 0) pattern.push_back({src, dst, row[dst]});
  }
  return pattern;
}

void addPhasedAlltoallv(Schedule& s, const RankPhases& rp, PhaseSync sync,
                        const std::shared_ptr<const AlltoallvCall>& call) {
  addPhasedAlltoall(
      s, rp, sync, call->inPlace, [call](int i) { return call->sendBlock(i); },
      [call](int i) { return call->recvBlock(i); });
}

void addAllgatherRows(Schedule& s, int64_t* rows) {
  const int n = s.size(), r = s.rank();
  for (int k = 1; k < n; k <<= 1) {
    const int blocks = std::min(k, n - k);
    s.recv(rows + static_cast<size_t>(k) * n, int64_t{blocks} * n, MPI_INT64_T, (r + k) % n);
    s.send(rows, int64_t{blocks} * n, MPI_INT64_T, (r - k + n) % n);
    s.endRound();
  }
}

// Level 1 at every call (nonblocking and persistent forms): gather, then schedule or go
// linear.
int alltoallvPhasedSchedule(Plan& p) {
  p.algorithm = "phased";
  Schedule& s = *p.schedule;
  auto call = makeCall(p);
  call->addGatherRows(s, call->row);
  addDeferredPhase(s, [call](Schedule& inner) {
    const int n = inner.size(), r = inner.rank();
    const sched::Pattern pattern = call->gatheredPattern(n, r);
    int64_t largest = 0;
    std::vector<size_t> destinations(static_cast<size_t>(n), 0);
    for (const sched::Message& m : pattern) {
      largest = std::max(largest, m.bytes);
      if (m.bytes > 0 && m.src != m.dst) ++destinations[static_cast<size_t>(m.src)];
    }
    if (largest < phasedMin()) return addLinear(inner, call);
    for (size_t d : destinations)
      if (thin(d, static_cast<size_t>(n - 1))) return addLinear(inner, call);
    addPhased(inner, call, scheduleRankPhases(inner.comm(), pattern, r), phaseSyncFor(pattern));
  });
  return MPI_SUCCESS;
}

// The blocking form: agreement, then the cached schedule, linear, or Level 1 and caching.
int alltoallvPhasedCachedSchedule(Plan& p) {
  p.algorithm = "phased";
  Schedule& s = *p.schedule;
  const int n = s.size(), r = s.rank();
  auto call = makeCall(p);
  PatternCache* cache = &cacheOf(p.comm);
  if (n > 1 && cache->lastMax >= 0 && cache->lastMax < phasedMin() && !cache->lastSparse) {
    ++stats().calls;
    ++stats().trailer;
    addLinearWithTrailer(s, call, cache);
    return MPI_SUCCESS;
  }
  static const uint64_t reagree = std::max<uint64_t>(kPhasedReagree.get(), 1);
  if (n > 1 && cache->linearStreak > 0 && cache->linearStreak < reagree) {
    ++cache->linearStreak;
    ++stats().calls;
    ++stats().skipped;
    addLinear(s, call);
    return MPI_SUCCESS;
  }
  const int64_t summary = rowSummary(call->row, r);
  int64_t differs = 0;
  for (size_t j = 0; j < kCacheEntries; ++j)
    if (j >= cache->entries.size() || cache->entries[j].row != call->row)
      differs |= int64_t{1} << j;
  call->agreed[0] = summary & ~kFlagBits;
  call->agreed[1] = differs | (summary & kFlagBits);
  ++stats().calls;
  s.local([call]() {
    call->t0 = nowSeconds();
    return MPI_SUCCESS;
  });
  // Dissemination allreduce: max and or are idempotent, so after ceil(log2 n) rounds of
  // "combine what (r - k) sent" every rank holds both over all ranks, for any n.
  for (int k = 1; k < n; k <<= 1) {
    if (k > 1)
      s.local([call]() {
        call->agreed[0] = std::max(call->agreed[0], call->incoming[0]);
        call->agreed[1] |= call->incoming[1];
        return MPI_SUCCESS;
      });
    s.recv(call->incoming, 2, MPI_INT64_T, (r - k + n) % n);
    s.send(call->agreed, 2, MPI_INT64_T, (r + k) % n);
    s.endRound();
  }
  if (n > 1)
    s.local([call]() {
      call->agreed[0] = std::max(call->agreed[0], call->incoming[0]);
      call->agreed[1] |= call->incoming[1];
      return MPI_SUCCESS;
    });
  // Deferred phases do not nest (their completion signals would cross), so a miss
  // gathers in the first one and schedules in the second, which is empty otherwise.
  auto miss = std::make_shared<bool>(false);
  addDeferredPhase(s, [call, cache, miss](Schedule& inner) {
    Stats& st = stats();
    *miss = false;
    const double t1 = nowSeconds();
    st.agreeSeconds += t1 - call->t0;
    call->t0 = t1;
    cache->lastMax = call->agreed[0];
    cache->lastSparse = (call->agreed[1] & kSparseBit) != 0;
    cache->linearStreak = 0;
    if (call->agreed[0] < phasedMin()) {
      ++st.small;
      // A dense small pattern goes on with trailers (above); a sparse one skips the
      // agreement for a while.
      if (cache->lastSparse) cache->linearStreak = 1;
      return addLinear(inner, call);
    }
    if (call->agreed[1] & kThinBit) {
      ++st.thin;
      cache->linearStreak = 1;
      return addLinear(inner, call);
    }
    for (size_t j = 0; j < cache->entries.size(); ++j)
      if (!(call->agreed[1] & (int64_t{1} << j))) {
        ++st.hits;
        cache->entries[j].lastUse = ++cache->clock;
        return addPhased(inner, call, cache->entries[j].phases, cache->entries[j].sync);
      }
    ++st.misses;
    *miss = true;
    call->addGatherRows(inner, call->row);
  });
  addDeferredPhase(s, [call, cache, miss](Schedule& inner) {
    if (!*miss) return;
    const int n2 = inner.size(), r2 = inner.rank();
    CacheEntry e;
    e.row = call->row;
    const sched::Pattern pattern = call->gatheredPattern(n2, r2);
    e.phases = scheduleRankPhases(inner.comm(), pattern, r2);
    e.sync = phaseSyncFor(pattern);
    e.lastUse = ++cache->clock;
    stats().missSeconds += nowSeconds() - call->t0;
    addPhased(inner, call, e.phases, e.sync);
    if (cache->entries.size() < kCacheEntries) {
      cache->entries.push_back(std::move(e));
    } else {
      size_t oldest = 0;
      for (size_t j = 1; j < cache->entries.size(); ++j)
        if (cache->entries[j].lastUse < cache->entries[oldest].lastUse) oldest = j;
      cache->entries[oldest] = std::move(e);
    }
  });
  return MPI_SUCCESS;
}

}  // namespace ccmpi::coll
