// Multicast collectives as schedules (see mcast_sched.h).
#include "coll/mcast/mcast_sched.h"

#include "base/error.h"
#include "coll/util.h"
#include "p2p/p2p.h"
#include "progress/engine.h"
#include "transport/mcast.h"

namespace ccmpi::coll {
namespace {

// The state of one message round while it runs (reset at each start).
struct MsgRun {
  int phase = 0;  // 0 = not started, 1 = running
  bool viaMcast = false;
  transport::McastSendOp sop;
  transport::McastRecvOp rop;
  std::vector<p2p::Request*> reqs;  // unicast fallback
  bool root = false;

  void abort() {
    if (!viaMcast) {
      for (p2p::Request* r : reqs) {
        p2p::cancel(r);
        p2p::requestFree(r);
      }
    } else if (root) {
      transport::mcast().retire(sop.key);
    } else {
      transport::mcast().receiveCancel(&rop);
    }
    reqs.clear();
    phase = 0;
  }
};

int startUnicast(Schedule& s, const McastMsg& m, MsgRun& run) {
  comm::Comm& c = s.comm();
  auto part = [&m](size_t i) {
    return i < m.parts.size() ? m.parts[i] : std::pair<uint64_t, uint64_t>{0, m.bytes};
  };
  if (c.rank == m.root) {
    for (size_t i = 0; i < m.receivers.size(); ++i) {
      const auto [off, len] = part(i);
      p2p::Request* r = nullptr;
      if (int rc =
              p2p::isend(static_cast<const unsigned char*>(m.send) + off, static_cast<int64_t>(len),
                         MPI_BYTE, m.receivers[i], s.tag(), c, kCtx, p2p::SendMode::kStandard, &r))
        return rc;
      run.reqs.push_back(r);
    }
    return MPI_SUCCESS;
  }
  const auto [off, len] = part(0);
  p2p::Request* r = nullptr;
  if (int rc = p2p::irecv(static_cast<unsigned char*>(m.recv) + off, static_cast<int64_t>(len),
                          MPI_BYTE, m.root, s.tag(), c, kCtx, &r))
    return rc;
  run.reqs.push_back(r);
  return MPI_SUCCESS;
}

int pollMessage(Schedule& s, McastOp& op, const McastMsg& m, MsgRun& run, bool* done) {
  auto& t = transport::mcast();
  comm::Comm& c = s.comm();
  const bool root = c.rank == m.root;
  if (run.phase == 0) {
    run.phase = 1;
    run.root = root;
    run.viaMcast = op.mcast();
    if (!run.viaMcast) {
      if (int rc = startUnicast(s, m, run)) {
        run.abort();
        return rc;
      }
    } else {
      const transport::McastKey key{op.context, op.seq, c.worldRankOf(m.root), m.sub,
                                    op.agreed->epoch};
      const int rc = root ? t.sendStart(&run.sop, op.group, key, m.send, m.bytes,
                                        static_cast<int>(m.receivers.size()), op.agreed->laneSet())
                          : t.receiveStart(&run.rop, key, m.recv, m.bytes);
      if (rc) {
        run.phase = 0;
        return rc;
      }
    }
  }
  if (!run.viaMcast) {
    while (!run.reqs.empty()) {
      p2p::Request* r = run.reqs.back();
      if (!r->complete) return MPI_SUCCESS;
      run.reqs.pop_back();
      if (int rc = p2p::wait(r, MPI_STATUS_IGNORE)) {
        run.abort();
        return rc;
      }
    }
  } else {
    bool finished = false;
    int64_t wake = 0;
    const int rc =
        root ? t.sendSome(&run.sop, &finished, &wake) : t.receiveSome(&run.rop, &finished, &wake);
    if (rc) {
      run.abort();
      return rc;
    }
    if (!finished) {
      progress::engine().wakeBy(wake);
      return MPI_SUCCESS;
    }
  }
  run.phase = 0;
  *done = true;
  return MPI_SUCCESS;
}

}  // namespace

std::shared_ptr<McastOp> appendMcastStart(Schedule& s, comm::Comm& c) {
  auto op = std::make_shared<McastOp>();
  op->agreed = mcastGroupRecord(c);
  op->group = op->agreed->group;
  op->context = op->agreed->context;
  comm::Comm* cp = &c;
  const int tag = s.tag();
  s.onStart([o = op, cp, tag] {
    // In start order: the agreement (first multicast operation on the communicator)
    // takes its numbers before this operation does.
    mcastAgreeStart(*cp, *o->agreed, tag);
    o->seq = o->nextSeq ? o->nextSeq() : o->agreed->seq++;
  });
  // The agreement's schedule progresses on its own; this round waits for its outcome.
  s.poll([o = op](bool* done) {
    *done = o->agreed->decided();
    return MPI_SUCCESS;
  });
  s.endRound();
  return op;
}

void appendMcastMessage(Schedule& s, const std::shared_ptr<McastOp>& op,
                        const std::shared_ptr<McastMsg>& m) {
  auto run = std::make_shared<MsgRun>();
  Schedule* sp = &s;
  s.poll([sp, op, m, run](bool* done) { return pollMessage(*sp, *op, *m, *run, done); },
         [run] { run->abort(); });
  s.endRound();
}

void appendMcastDone(Schedule& s, const std::shared_ptr<McastOp>& op,
                     const std::shared_ptr<McastMsg>& m) {
  const int worldRoot = s.comm().worldRankOf(m->root);
  const uint16_t sub = m->sub;
  if (s.rank() == m->root) {
    // Released (a copy kept until the acknowledgements are in), or wait for them.
    auto waiting = std::make_shared<bool>(false);
    s.poll([op, worldRoot, sub, waiting](bool* done) {
      auto& t = transport::mcast();
      const transport::McastKey key{op->context, op->seq, worldRoot, sub, op->agreed->epoch};
      if (!op->mcast()) {
        *done = true;
      } else if (!*waiting) {
        *done = t.release(key);
        *waiting = !*done;
      } else if (t.acked(key)) {
        t.retire(key);
        *waiting = false;
        *done = true;
      }
      return MPI_SUCCESS;
    });
  } else {
    s.local([op, m, worldRoot, sub] {
      if (!op->mcast()) return MPI_SUCCESS;
      auto& t = transport::mcast();
      // (m->bytes as the round runs: a plan may learn the size at its first start)
      t.ack(transport::McastKey{op->context, op->seq, worldRoot, sub, op->agreed->epoch}, m->bytes);
      t.retireSeq(op->context, op->seq);
      return MPI_SUCCESS;
    });
  }
  s.endRound();
}

}  // namespace ccmpi::coll
