// DRS_N (the CM-5 seed, Wang, Lin and Ranka, section 4 and Figure 5): distributed random
// scheduling that avoids node contention, with no schedule table. Every rank has a busy
// lock, free at the start. Before it sends a message a rank asks the destination with an
// active message (test-and-set, InternalAm::kDrsN): a free destination takes the lock for
// the asker and answers "granted", a locked one answers "busy" and the asker tries another
// of its destinations (a random order), coming back to the busy one after a back-off
// (CCMPI_DRS_BACKOFF_US, doubling per refusal up to 16 times that). So every rank receives
// at most one message at a time, and no rank waits for a global step.
//
// Differences from the paper, each for a reason:
//  - A destination frees its lock itself when the holder's message has arrived (the
//    paper's sender sends a second active message "upon completion"): a send that completes
//    locally (an eager message) has not arrived, and the receiver is the one that knows.
//  - A rank asks its next destination while its current message is still going out, so
//    the answer's round trip overlaps the transfer; it holds at most one grant and sends
//    one message at a time.
//  - Receives are posted at the start for every source with a non-empty block (the paper's
//    "pre-allocate receiving buffers according to recvl"): MPI_Alltoallv's receive counts
//    are the receiving vector, so no Generate_Recv is needed here.
//
// Handlers run inside the progress engine of whatever call the rank is in; a destination
// that computes answers at its next MPI call (or at once with a progress thread). Messages
// for a call a rank has not entered yet (a faster rank's inquiry) wait for it. Replies and
// data of one call never reach another: a rank leaves only after every inquiry it sent has
// been answered and every message it sent or expects has completed, and a rank asks a
// destination only while that destination still expects its message.
//
// `adaptive` is DRS_N for large messages only: a message smaller than
// CCMPI_ALLTOALLV_LOCK_MIN bytes goes at once, without an inquiry (the paper's AC, best for
// small messages, where the inquiry's round trip would cost more than any contention it
// avoids), a larger one takes the destination's lock first. The sender and the receiver of
// a message both know its size (MPI_Alltoallv's send and receive counts of a pair describe
// the same bytes), so every pair agrees on each message's way with no communication: the
// choice needs no agreement over the pattern, which on a sparse call costs more than the
// exchange.
//
// CCMPI_DRS_STATS=1 prints each rank's messages, inquiries and refusals at exit.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <vector>

#include "base/tunables.h"
#include "coll/algorithms.h"
#include "coll/util.h"
#include "p2p/am.h"
#include "p2p/request.h"
#include "progress/engine.h"

namespace ccmpi::coll {
namespace {

Tunable<uint64_t> kBackoffUs(
    "CCMPI_DRS_BACKOFF_US", 20,
    "Alltoallv drs_n: microseconds a rank waits before it asks a destination that answered "
    "busy again (doubling with each refusal, up to 16 times this; it asks other "
    "destinations meanwhile)");
Tunable<uint64_t> kLockMin(
    "CCMPI_ALLTOALLV_LOCK_MIN", 8 * 1024,
    "Alltoallv adaptive: smallest message (bytes) that takes its destination's receive lock "
    "first (drs_n); smaller ones are sent at once (linear)");
Tunable<bool> kDrsStats("CCMPI_DRS_STATS", false,
                        "print each rank's drs_n messages, inquiries and busy answers at exit");

enum Kind : uint64_t { kInquire = 0, kGranted = 1, kBusy = 2 };
constexpr uint64_t word(uint64_t seq, Kind k) {
  return seq << 2 | k;
}

struct Stats {
  uint64_t calls = 0, messages = 0, inquiries = 0, refused = 0, direct = 0;
};
Stats& stats() {
  static Stats* s = [] {
    auto* st = new Stats;
    if (kDrsStats.get())
      atexit([] {
        const Stats& x = stats();
        if (x.calls == 0) return;
        fprintf(stderr,
                "ccmpi: alltoallv drs_n (pid %d): %llu calls, %llu messages, %llu inquiries "
                "(%.2f per message), %llu answered busy; %llu small messages sent at once "
                "(adaptive)\n",
                static_cast<int>(getpid()), static_cast<unsigned long long>(x.calls),
                static_cast<unsigned long long>(x.messages),
                static_cast<unsigned long long>(x.inquiries),
                x.messages ? static_cast<double>(x.inquiries) / x.messages : 0.0,
                static_cast<unsigned long long>(x.refused),
                static_cast<unsigned long long>(x.direct));
      });
    return st;
  }();
  return *s;
}

// One rank's part of one call.
struct Call {
  comm::Comm* c = nullptr;
  uint32_t context = 0;
  uint64_t seq = 0;
  // Receiving side: the lock and its holder (a rank of c), and the posted receives.
  bool busy = false;
  int holder = -1;
  std::vector<p2p::Request*> recvFrom;  // by source; null: nothing expected
  // Sending side: the answer to the inquiry in flight (0: none yet).
  uint64_t answer = 0;
  bool changed = false;  // a handler ran for this call
};

struct Early {
  uint32_t context;
  int world;
  uint64_t word;
};

std::vector<Call*> gCalls;  // calls in progress on this rank (one per communicator)
std::deque<Early> gEarly;   // messages for calls not entered yet

void handle(Call& k, int world, uint64_t w) {
  const int src = k.c->peerRankOfWorld(world);
  k.changed = true;
  if ((w & 3) == kInquire) {
    const bool free = !k.busy;
    if (free) {
      k.busy = true;
      k.holder = src;
    }
    p2p::amSendInternal(*k.c, src, p2p::InternalAm::kDrsN, word(k.seq, free ? kGranted : kBusy),
                        nullptr, 0);
  } else {
    k.answer = w & 3;
  }
}

void onMessage(uint32_t context, int world, uint64_t w, const void*, size_t) {
  for (Call* k : gCalls)
    if (k->context == context && k->seq == (w >> 2)) return handle(*k, world, w);
  gEarly.push_back(Early{context, world, w});
}

const bool kRegistered = [] {
  p2p::amSetInternal(p2p::InternalAm::kDrsN, onMessage);
  return true;
}();

// DRS_N for the messages of at least lockMin bytes; smaller ones go at once.
int drs(const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
        void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype,
        comm::Comm& c, uint64_t lockMin) {
  (void)kRegistered;
  const int n = c.size, r = c.rank;
  const datatype::Datatype& rt = typeOf(recvtype);
  if (sendbuf == MPI_IN_PLACE) {
    return exchangeInPlace(c, kTagAlltoallv, [&](int p) {
      return Block{elemAt(recvbuf, rdispls[p], rt), recvcounts[p], recvtype};
    });
  }
  const datatype::Datatype& st = typeOf(sendtype);
  Stats& stat = stats();
  ++stat.calls;
  Call k;
  k.c = &c;
  k.context = c.contextId;
  k.seq = c.collSeq;
  k.recvFrom.assign(n, nullptr);
  int err = MPI_SUCCESS;
  for (int i = 1; i < n && !err; ++i) {
    const int from = (r - i + n) % n;
    if (dataBytes(recvcounts[from], recvtype) == 0) continue;
    err = p2p::irecv(elemAt(recvbuf, rdispls[from], rt), recvcounts[from], recvtype, from,
                     kTagAlltoallv, c, kCtx, &k.recvFrom[from]);
  }
  // A holder's lock is only ever taken for a message of lockMin bytes or more: the
  // receiver's count of that pair says which (a small one is just received).
  std::vector<int> pending;
  std::vector<p2p::Request*> direct;
  for (int p = 0; p < n && !err; ++p) {
    const uint64_t bytes = p == r ? 0 : dataBytes(sendcounts[p], sendtype);
    if (bytes == 0) continue;
    if (bytes >= lockMin) {
      pending.push_back(p);
      continue;
    }
    direct.push_back(nullptr);
    err = p2p::isend(elemAt(sendbuf, sdispls[p], st), sendcounts[p], sendtype, p, kTagAlltoallv, c,
                     kCtx, p2p::SendMode::kStandard, &direct.back());
    ++stat.direct;
  }
  std::mt19937_64 rng(k.seq * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(r));
  std::shuffle(pending.begin(), pending.end(), rng);
  if (!err)
    err = copyLocal(elemAt(sendbuf, sdispls[r], st), sendcounts[r], sendtype,
                    elemAt(recvbuf, rdispls[r], rt), recvcounts[r], recvtype);

  // Enter: messages that came before this call started are this call's now.
  gCalls.push_back(&k);
  {
    std::deque<Early> keep;
    while (!gEarly.empty()) {
      const Early e = gEarly.front();
      gEarly.pop_front();
      if (e.context == k.context && (e.word >> 2) == k.seq)
        handle(k, e.world, e.word);
      else
        keep.push_back(e);
    }
    gEarly.swap(keep);
  }

  const int64_t backoffNs = static_cast<int64_t>(kBackoffUs.get()) * 1000;
  std::vector<int64_t> retryAt(n, 0);
  std::vector<int> refusals(n, 0);
  int asking = -1;   // destination whose answer is awaited
  int granted = -1;  // destination whose lock this rank holds, message not started
  p2p::Request* sending = nullptr;
  // The holder's message is in (or none was expected: an erroneous program).
  auto holderDone = [&]() {
    return k.busy && k.holder >= 0 &&
           (k.recvFrom[k.holder] == nullptr || k.recvFrom[k.holder]->complete);
  };
  auto progress = [&]() {
    bool moved = false;
    // The receiving side: the lock is free again.
    if (holderDone()) {
      k.busy = false;
      k.holder = -1;
      moved = true;
    }
    if (sending && sending->complete) {
      const int rc = p2p::wait(sending, MPI_STATUS_IGNORE);
      if (!err) err = rc;
      sending = nullptr;
      moved = true;
    }
    if (asking >= 0 && k.answer != 0) {
      if (k.answer == kGranted) {
        granted = asking;
        pending.erase(std::find(pending.begin(), pending.end(), asking));
      } else {
        ++stat.refused;
        const int shift = std::min(refusals[asking]++, 4);
        retryAt[asking] = progress::Engine::nowNs() + (backoffNs << shift);
        // To the back: the others are asked first.
        pending.erase(std::find(pending.begin(), pending.end(), asking));
        pending.push_back(asking);
      }
      asking = -1;
      k.answer = 0;
      moved = true;
    }
    if (granted >= 0 && err) granted = -1;
    if (granted >= 0 && !sending) {
      err = p2p::isend(elemAt(sendbuf, sdispls[granted], st), sendcounts[granted], sendtype,
                       granted, kTagAlltoallv, c, kCtx, p2p::SendMode::kStandard, &sending);
      ++stat.messages;
      granted = -1;
      moved = true;
    }
    if (asking < 0 && granted < 0 && !err) {
      const int64_t now = pending.empty() ? 0 : progress::Engine::nowNs();
      for (int p : pending)
        if (retryAt[p] <= now) {
          asking = p;
          ++stat.inquiries;
          p2p::amSendInternal(c, p, p2p::InternalAm::kDrsN, word(k.seq, kInquire), nullptr, 0);
          moved = true;
          break;
        }
    }
    return moved;
  };
  auto finished = [&]() {
    if (asking >= 0 || granted >= 0 || sending) return false;
    if (!pending.empty() && !err) return false;
    for (p2p::Request* q : k.recvFrom)
      if (q && !q->complete) return false;
    return true;
  };
  while (!finished()) {
    if (progress()) continue;
    // Nothing to do until a handler runs, a request completes or a back-off ends.
    int64_t wake = 0;
    if (asking < 0 && granted < 0 && !pending.empty() && !err)
      for (int p : pending)
        if (wake == 0 || retryAt[p] < wake) wake = retryAt[p];
    k.changed = false;
    p2p::waitUntil([&]() {
      if (wake != 0) {
        if (progress::Engine::nowNs() >= wake) return true;
        progress::engine().wakeBy(wake);
      }
      return k.changed || (sending && sending->complete) || holderDone() || finished();
    });
  }
  gCalls.erase(std::find(gCalls.begin(), gCalls.end(), &k));
  for (p2p::Request* q : direct)
    if (q) {
      const int rc = p2p::wait(q, MPI_STATUS_IGNORE);
      if (!err) err = rc;
    }
  for (p2p::Request*& q : k.recvFrom)
    if (q) {
      const int rc = p2p::wait(q, MPI_STATUS_IGNORE);
      if (!err) err = rc;
    }
  return err;
}

}  // namespace

int alltoallvDrsN(const void* sendbuf, const int* sendcounts, const int* sdispls,
                  MPI_Datatype sendtype, void* recvbuf, const int* recvcounts, const int* rdispls,
                  MPI_Datatype recvtype, comm::Comm& c) {
  return drs(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, c, 0);
}

int alltoallvAdaptive(const void* sendbuf, const int* sendcounts, const int* sdispls,
                      MPI_Datatype sendtype, void* recvbuf, const int* recvcounts,
                      const int* rdispls, MPI_Datatype recvtype, comm::Comm& c) {
  return drs(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, c,
             std::max<uint64_t>(kLockMin.get(), 1));
}

}  // namespace ccmpi::coll
