// ccmpi-sim's ranks and event loop (see sim.h).
#include "sim/sim.h"

#include <sys/mman.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <limits>
#include <sstream>

namespace ccmpi::sim {
namespace {

struct CostField {
  const char* name;
  double Costs::*field;
  const char* what;
};
constexpr CostField kCostFields[] = {
    {"send_post", &Costs::sendPost, "CPU seconds per send posted"},
    {"recv_post", &Costs::recvPost, "CPU seconds per receive posted"},
    {"recv_done", &Costs::recvDone, "CPU seconds per receive completed"},
    {"round_overhead", &Costs::roundOverhead, "seconds between two rounds of a schedule"},
    {"copy_rate", &Costs::copyRate, "bytes/s of a local copy"},
    {"reduce_rate", &Costs::reduceRate, "bytes/s of a local reduction"},
    {"eager_limit", &Costs::eagerLimit, "bytes; larger messages go by rendezvous"},
    {"frame_bytes", &Costs::frameBytes, "bytes of header per message"},
    {"shm_latency", &Costs::shmLatency, "seconds, one way within a host"},
    {"shm_rate", &Costs::shmRate, "bytes/s within a host"},
    {"stripe_min", &Costs::stripeMin, "bytes from which a message is striped over the rails"},
    {"rail_direct_min", &Costs::railDirectMin,
     "bytes from which a rail-aware collective's send takes its rail (by rendezvous)"},
    {"fifo_bytes", &Costs::fifoBytes,
     "bytes up to which messages leave a host in the order written (larger ones share)"},
    {"link_efficiency", &Costs::linkEfficiency,
     "share of the TCP payload rate a cable carries with traffic both ways"},
    {"wire_latency", &Costs::wireLatency,
     "seconds one way between hosts besides serialization (the network's latency)"},
    {"port_buffer", &Costs::portBuffer, "bytes of a switch port's queue (--tcp tail-drop)"},
    {"tail_drop_flows", &Costs::tailDropFlows,
     "TCP flows a port of 128 KiB carries without retransmission timeouts (--tcp tail-drop)"},
    {"tail_drop_full", &Costs::tailDropFull,
     "TCP flows on a 128 KiB port from which its idle time per byte stops growing"},
    {"tail_drop_idle", &Costs::tailDropIdle,
     "seconds a port idles per byte carried, from tail_drop_full flows on (linear from "
     "tail_drop_flows)"},
};

enum FlowKind : uint64_t { kData = 0, kRts = 1, kCts = 2, kMcast = 3 };
// Flow tags: the message, the rail (below 64) and what the flow carries.
uint64_t flowTag(int64_t msg, FlowKind k, int rail = 0) {
  return static_cast<uint64_t>(msg) << 8 | static_cast<uint64_t>(rail) << 2 | k;
}
constexpr double kOneFrame = 1448;   // TCP payload of one Ethernet frame
constexpr double kWireFrame = 1538;  // that frame on the wire (Topology::frameTime's)
constexpr double kWireHeaders = 90;  // TCP, IP, Ethernet headers, preamble and gap

}  // namespace

bool Costs::load(const std::string& path, std::string* why) {
  std::ifstream in(path);
  if (!in) {
    *why = "cannot read " + path;
    return false;
  }
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream ls(line);
    std::string name, value, extra;
    if (!(ls >> name)) continue;
    if (!(ls >> value) || (ls >> extra)) {
      *why = path + ":" + std::to_string(n) + ": want 'name value'";
      return false;
    }
    const CostField* f = nullptr;
    for (const CostField& c : kCostFields)
      if (name == c.name) f = &c;
    char* end = nullptr;
    const double v = strtod(value.c_str(), &end);
    if (!f || *end != '\0' || !(v >= 0) || std::isinf(v)) {
      *why = path + ":" + std::to_string(n) + ": " +
             (f ? "bad value '" + value + "'" : "unknown cost '" + name + "'");
      return false;
    }
    this->*(f->field) = v;
  }
  return true;
}

std::string Costs::describe() const {
  std::string s;
  char buf[160];
  for (const CostField& c : kCostFields) {
    snprintf(buf, sizeof buf, "%s %g  # %s\n", c.name, this->*(c.field), c.what);
    s += buf;
  }
  return s;
}

Simulator::Simulator(const Topology& t, const Costs& c, int ranks, int ranksPerHost)
    : topo_(t),
      costs_(c),
      ranks_(ranks),
      perHost_(ranksPerHost),
      net_(t),
      programs_(static_cast<size_t>(ranks)),
      state_(static_cast<size_t>(ranks)),
      openAt_(static_cast<size_t>(ranks)),
      connsOf_(static_cast<size_t>(ranks)),
      fifoFreeAt_(static_cast<size_t>((ranks + ranksPerHost - 1) / ranksPerHost), 0) {}

void Simulator::push(double t, Ev k, int32_t a, int64_t b) {
  heap_.push_back({t, seq_++, k, a, b});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<Event>());
}

template <typename T>
Simulator::BigArray<T>::~BigArray() {
  if (data_) munmap(data_, cap_ * sizeof(T));
}

template <typename T>
void Simulator::BigArray<T>::append(const T* v, size_t n) {
  if (n == 0) return;  // (an empty program's ops: v may be null)
  if (size_ + n > cap_) {
    // One reservation of address space, filled as it goes (no copies as it grows); only
    // the pages written take memory. 64 GiB of address space, or the smallest power of two
    // that holds what is asked beyond it.
    size_t cap = std::max<size_t>(cap_ * 2, (size_t{1} << 36) / sizeof(T));
    while (cap < size_ + n) cap *= 2;
    void* p = mmap(nullptr, cap * sizeof(T), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      fprintf(stderr, "ccmpi-sim: out of address space for the programs (%zu elements)\n",
              size_ + n);
      exit(1);
    }
    madvise(p, cap * sizeof(T), MADV_HUGEPAGE);  // a hint: fine if refused
    if (data_) {
      memcpy(p, data_, size_ * sizeof(T));
      munmap(data_, cap_ * sizeof(T));
    }
    data_ = static_cast<T*>(p);
    cap_ = cap;
  }
  memcpy(data_ + size_, v, n * sizeof(T));
  size_ += n;
}

template class Simulator::BigArray<Op>;
template class Simulator::BigArray<uint64_t>;

void Simulator::setProgram(int rank, const Program& p) {
  Placed& at = programs_[static_cast<size_t>(rank)];
  at.firstRound = roundStarts_.size();
  at.rounds = static_cast<uint32_t>(p.roundStart.size());
  const uint64_t base = ops_.size();
  for (uint32_t r : p.roundStart) {
    const uint64_t v = base + r;
    roundStarts_.append(&v, 1);
  }
  ops_.append(p.ops.data(), p.ops.size());
  at.opsEnd = ops_.size();
}

int32_t Simulator::newMsg() {
  if (!freeMsgs_.empty()) {
    const int32_t m = freeMsgs_.back();
    freeMsgs_.pop_back();
    msgs_[static_cast<size_t>(m)] = Msg{};
    return m;
  }
  msgs_.emplace_back();
  return static_cast<int32_t>(msgs_.size() - 1);
}

void Simulator::releaseMsg(int32_t m) {
  const Msg& msg = msgs_[static_cast<size_t>(m)];
  if (msg.sendDone && msg.recvDone) freeMsgs_.push_back(m);
}

int32_t Simulator::matchOrOpen(int src, int dst, bool isSend) {
  // Few pairs of a rank are open at a time: a short list per receiver.
  std::vector<OpenSlot>& v = openAt_[static_cast<size_t>(dst)];
  size_t i = 0;
  while (i < v.size() && v[i].peer != src) ++i;
  if (i < v.size() && v[i].q.sends != isSend) {
    Open& q = v[i].q;
    const int32_t m = q.ids[q.head++];
    if (q.head == q.ids.size()) {
      v[i] = std::move(v.back());
      v.pop_back();
    }
    return m;
  }
  const int32_t m = newMsg();
  if (i == v.size()) v.push_back({src, Open{isSend, 0, {}}});
  v[i].q.ids.push_back(m);
  return m;
}

// Starts `bytes` from rank src to rank dst: through shared memory within a host, else as
// flows (striped over the rails from stripeMin); `onArrive` is pushed when all arrived.
void Simulator::flowOrLocal(double now, int msg, double bytes, int src, int dst, Ev onArrive) {
  ++res_->messages;
  const int hs = hostOf(src), hd = hostOf(dst);
  if (hs == hd) {
    push(now + costs_.shmLatency + bytes / costs_.shmRate, onArrive, dst, msg);
    return;
  }
  res_->wireBytes += bytes;
  const FlowKind k = onArrive == Ev::kArrive ? kData : onArrive == Ev::kRtsArrive ? kRts : kCts;
  int parts = 1;
  const int rail = k == kData ? msgs_[static_cast<size_t>(msg)].rail : -1;
  if (k == kData && rail < 0 && topo_.rails > 1 && bytes >= costs_.stripeMin) parts = topo_.rails;
  if (k == kData) msgs_[static_cast<size_t>(msg)].partsLeft = parts;
  for (int p = 0; p < parts; ++p) {
    const int r = rail >= 0 ? rail : p;
    const Send piece{msg, bytes / parts, static_cast<uint8_t>(k)};
    if (piece.bytes + costs_.frameBytes <= kOneFrame) {
      // Control frames and one-frame messages go between the pieces of a long transfer
      // (ccmpi writes a connection's frames in pieces, and a clear-to-send does not wait
      // for the data ahead of it).
      transmit(now, src, dst, r, piece);
      continue;
    }
    // A connection with a slot is busy; its queue holds what waits behind.
    std::vector<ConnSlot>& busy = connsOf_[static_cast<size_t>(src)];
    size_t i = 0;
    while (i < busy.size() && (busy[i].dst != dst || busy[i].rail != r)) ++i;
    if (i < busy.size()) {
      busy[i].q.push_back(piece);
    } else {
      busy.push_back({dst, r, 0, {}});
      transmit(now, src, dst, r, piece);
    }
  }
}

// Puts one message (or its part on `rail`) on its connection, which is free.
void Simulator::transmit(double now, int src, int dst, int rail, const Send& piece) {
  const int hs = hostOf(src), hd = hostOf(dst);
  const FlowKind k = static_cast<FlowKind>(piece.kind);
  if (piece.bytes + costs_.frameBytes <= kOneFrame) {
    // One frame: its serialization on the first cable and at each switch, no share of the
    // cables' capacity taken (a flow per control message would double the events of a
    // phased exchange for a few hundred bytes of every megabyte).
    const double frame =
        topo_.frameTime * (piece.bytes + costs_.frameBytes + kWireHeaders) / kWireFrame;
    push(now + topo_.latency + (net_.hops(hs, hd) + 1) * frame, arrivalOf(k), dst, piece.msg);
    return;
  }
  if (k == kData && rail == 0 && piece.bytes == msgs_[static_cast<size_t>(piece.msg)].bytes &&
      piece.bytes + costs_.frameBytes <= costs_.fifoBytes) {
    // Behind the small messages written before it on this host's NIC queue (a whole
    // message, not a stripe: rail 0).
    double& freeAt = fifoFreeAt_[static_cast<size_t>(hs)];
    const double start = std::max(now, freeAt);
    freeAt = start + (piece.bytes + costs_.frameBytes) / topo_.rate;
    if (start > now) {
      push(start, Ev::kFifoStart, src, piece.msg);
      return;
    }
  }
  startFlow(now, src, dst, rail, piece);
}

void Simulator::startFlow(double now, int src, int dst, int rail, const Send& piece) {
  net_.start(now, hostOf(src), {hostOf(dst)}, rail, piece.bytes + costs_.frameBytes,
             flowTag(piece.msg, static_cast<FlowKind>(piece.kind), rail));
}

// The connection's message left it: the next one queued behind goes.
void Simulator::connFree(double now, int src, int dst, int rail) {
  std::vector<ConnSlot>& busy = connsOf_[static_cast<size_t>(src)];
  size_t i = 0;
  while (busy[i].dst != dst || busy[i].rail != rail) ++i;
  ConnSlot& c = busy[i];
  if (c.head == c.q.size()) {
    c = std::move(busy.back());
    busy.pop_back();
    return;
  }
  const Send next = c.q[c.head++];
  transmit(now, src, dst, rail, next);
}

void Simulator::runRound(int rank, double now) {
  RankState& st = state_[static_cast<size_t>(rank)];
  const Placed& p = programs_[static_cast<size_t>(rank)];
  if (st.round >= p.rounds) {
    st.finished = true;
    res_->rankEnd[static_cast<size_t>(rank)] = std::max(now, st.cpu);
    return;
  }
  double t = std::max(now, st.cpu);
  const uint64_t first = roundStarts_[p.firstRound + st.round];
  const uint64_t last =
      st.round + 1 < p.rounds ? roundStarts_[p.firstRound + st.round + 1] : p.opsEnd;
  st.pendingCur = 0;
  st.first = first;
  st.waiting.clear();
  st.done.clear();
  // Counted first, so a step that completes at once does not end the round early.
  for (uint64_t i = first; i < last; ++i) {
    const Op& o = ops_[i];
    if (o.kind == Op::Kind::kRecv && o.late)
      ++st.lateCur;
    else if (o.kind != Op::Kind::kLocalCopy && o.kind != Op::Kind::kLocalReduce)
      ++st.pendingCur;
  }
  for (uint64_t i = first; i < last; ++i) {
    const Op& o = ops_[i];
    switch (o.kind) {
      case Op::Kind::kLocalCopy:
        t += o.bytes / costs_.copyRate;
        break;
      case Op::Kind::kLocalReduce:
        if (o.after >= 0) {
          if (st.done.empty()) st.done.assign(last - first, 0);
          st.waiting.push_back(i);
          break;
        }
        t += o.bytes / costs_.reduceRate;
        break;
      case Op::Kind::kSend:
        if (o.after >= 0) {
          if (st.done.empty()) st.done.assign(last - first, 0);
          st.waiting.push_back(i);
          break;
        }
        t = postSend(rank, o, t);
        break;
      case Op::Kind::kRecv: {
        t += costs_.recvPost;
        const int32_t m = matchOrOpen(o.peer, rank, false);
        Msg& msg = msgs_[static_cast<size_t>(m)];
        msg.recvPosted = true;
        msg.recvLate = o.late;
        msg.recvRound = st.round;
        msg.recvOp = static_cast<int64_t>(i);
        if (msg.sendPosted) matched(t, static_cast<int>(m));
        break;
      }
      case Op::Kind::kMcastSend: {
        t += costs_.sendPost;
        const std::vector<int>& g = groups_[static_cast<size_t>(o.peer)];
        std::vector<int> hosts;  // the other hosts of the group, each once
        std::vector<char> seen(static_cast<size_t>(topo_.hosts), 0);
        seen[static_cast<size_t>(hostOf(rank))] = 1;
        for (int r : g)
          if (!seen[static_cast<size_t>(hostOf(r))]) {
            seen[static_cast<size_t>(hostOf(r))] = 1;
            hosts.push_back(hostOf(r));
          }
        ++res_->messages;
        if (hosts.empty()) {
          push(t + costs_.shmLatency + o.bytes / costs_.shmRate, Ev::kArrive, -1 - o.peer, 0);
        } else {
          res_->wireBytes += o.bytes;
          net_.start(t, hostOf(rank), hosts, 0, o.bytes + costs_.frameBytes,
                     flowTag(o.peer, kMcast), /*tcp=*/false);
        }
        break;
      }
      case Op::Kind::kMcastRecv:
        t += costs_.recvPost;
        if (mcastArrived_[static_cast<size_t>(o.peer)] < 0)
          mcastWaiting_[static_cast<size_t>(o.peer)].push_back(rank);
        else if (mcastArrived_[static_cast<size_t>(o.peer)] >= 0)
          push(std::max(t, mcastArrived_[static_cast<size_t>(o.peer)]) + costs_.recvDone,
               Ev::kMcastDone, rank);
        break;
    }
  }
  st.cpu = t;
  st.posted = true;
  if (st.pendingCur == 0 && st.latePrev == 0) endRound(rank, t);
}

// Posts a send at t (the rank's CPU free); returns when the CPU is free again.
double Simulator::postSend(int rank, const Op& o, double t) {
  t += costs_.sendPost;
  const int32_t m = matchOrOpen(rank, o.peer, true);
  Msg& msg = msgs_[static_cast<size_t>(m)];
  msg.src = rank;
  msg.dst = o.peer;
  msg.bytes = o.bytes;
  msg.sendPosted = true;
  // A rail other than the first from railDirectMin bytes, by rendezvous; rail 0 whole.
  msg.rail = -1;
  if (o.rail > 0 && o.rail < topo_.rails && o.bytes >= costs_.railDirectMin &&
      hostOf(rank) != hostOf(o.peer))
    msg.rail = o.rail;
  else if (o.rail >= 0 && topo_.rails > 1)
    msg.rail = 0;
  msg.rendezvous = o.bytes > costs_.eagerLimit || msg.rail > 0;
  if (msg.rendezvous) {
    flowOrLocal(t, static_cast<int>(m), 0, rank, o.peer, Ev::kRtsArrive);
  } else {
    flowOrLocal(t, static_cast<int>(m), o.bytes, rank, o.peer, Ev::kArrive);
    // An eager send completes once its bytes are in the connection's buffer.
    push(t + o.bytes / costs_.copyRate, Ev::kSendLocal, rank, m);
  }
  return t;
}

// Runs the rank's waiting ops whose op is done: reductions in order, each send after the
// earlier waiting sends to its peer (coll::Schedule::postWaiting).
void Simulator::postWaiting(int rank, double now) {
  RankState& st = state_[static_cast<size_t>(rank)];
  double t = std::max(now, st.cpu);
  std::vector<int32_t>& held = held_;  // scratch, reused: no allocation per receive
  held.clear();
  bool reduceHeld = false;
  size_t kept = 0;
  for (size_t w = 0; w < st.waiting.size(); ++w) {
    const uint64_t i = st.waiting[w];
    const Op& o = ops_[i];
    const bool isSend = o.kind == Op::Kind::kSend;
    const bool isHeld =
        isSend ? std::find(held.begin(), held.end(), o.peer) != held.end() : reduceHeld;
    if (isHeld || !st.done[static_cast<size_t>(o.after)]) {
      if (isSend && !isHeld) held.push_back(o.peer);
      if (!isSend) reduceHeld = true;
      st.waiting[kept++] = i;
      continue;
    }
    if (!isSend) {  // a reduction: done once run (a send after it may go in this pass)
      t += o.bytes / costs_.reduceRate;
      st.done[static_cast<size_t>(i - st.first)] = 1;
      continue;
    }
    t = postSend(rank, o, t);
  }
  st.cpu = t;
  st.waiting.resize(kept);
}

// The rank's current round is done at t: the late receives it posted become the next
// round's to await, and the next round starts after the round overhead.
void Simulator::endRound(int rank, double t) {
  RankState& st = state_[static_cast<size_t>(rank)];
  if (st.round < res_->roundEnd.size())
    res_->roundEnd[st.round] = std::max(res_->roundEnd[st.round], t);
  else
    res_->roundEnd.resize(st.round + 1, t);
  ++st.round;
  st.posted = false;
  st.latePrev = st.lateCur;
  st.lateCur = 0;
  if (st.round >= programs_[static_cast<size_t>(rank)].rounds && st.latePrev == 0) {
    st.finished = true;
    res_->rankEnd[static_cast<size_t>(rank)] = std::max(t, st.cpu);
    return;
  }
  push(std::max(t, st.cpu) + costs_.roundOverhead, Ev::kRankGo, rank);
}

// A send or (non-late or late) receive of `rank` completed at t.
void Simulator::opDone(int rank, double t, bool late, uint32_t lateRound) {
  RankState& st = state_[static_cast<size_t>(rank)];
  if (late) {
    if (lateRound == st.round)
      --st.lateCur;
    else
      --st.latePrev;
  } else {
    --st.pendingCur;
  }
  // Only a round that has been posted can end (a late receive of the round before may
  // complete between that round's end and the next one's start).
  if (st.posted && st.pendingCur == 0 && st.latePrev == 0) endRound(rank, t);
}

// Both sides posted.
void Simulator::matched(double now, int m) {
  Msg& msg = msgs_[static_cast<size_t>(m)];
  if (msg.rendezvous) {
    if (msg.rtsArrived && !msg.ctsSent) {
      msg.ctsSent = true;
      flowOrLocal(now, m, 0, msg.dst, msg.src, Ev::kCtsArrive);
    }
  } else if (msg.dataArrived) {
    deliver(now + msg.bytes / costs_.copyRate, m);  // taken out of the unexpected queue
  }
}

void Simulator::deliver(double now, int m) {
  const Msg& msg = msgs_[static_cast<size_t>(m)];
  push(now + costs_.recvDone, Ev::kRecvDone, msg.dst, m);
}

bool Simulator::run(Result* out, std::string* why) {
  res_ = out;
  *out = Result{};
  out->rankEnd.assign(static_cast<size_t>(ranks_), 0);
  mcastArrived_.assign(groups_.size(), -1);
  mcastWaiting_.assign(groups_.size(), {});
  for (int r = 0; r < ranks_; ++r) push(0, Ev::kRankGo, r);
  while (true) {
    const double tf = net_.nextEnd();
    const double te = heap_.empty() ? std::numeric_limits<double>::infinity() : heap_.front().t;
    if (std::isinf(tf) && std::isinf(te)) break;
    if (tf < te) {
      const uint64_t tag = net_.popEnded(tf);
      const int64_t m = static_cast<int64_t>(tag >> 8);
      const FlowKind k = static_cast<FlowKind>(tag & 3);
      const int rail = static_cast<int>(tag >> 2 & 63);
      const double lat = topo_.latency;  // first byte; the rest came at the rate
      if (k == kMcast) {
        push(tf + lat + topo_.frameTime, Ev::kArrive, static_cast<int32_t>(-1 - m), 0);
        continue;
      }
      const Msg& msg = msgs_[static_cast<size_t>(m)];
      const int from = k == kCts ? msg.dst : msg.src, to = k == kCts ? msg.src : msg.dst;
      // The last frame is stored and forwarded by every switch on the way.
      const double arrive = tf + lat + net_.hops(hostOf(from), hostOf(to)) * topo_.frameTime;
      push(arrive, arrivalOf(k), to, m);
      connFree(tf, from, to, rail);
      continue;
    }
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<Event>());
    const Event e = heap_.back();
    heap_.pop_back();
    switch (e.kind) {
      case Ev::kRankGo: {
        runRound(e.a, e.t);
        break;
      }
      case Ev::kArrive: {
        if (e.a < 0) {  // multicast data at every receiver; the root after the acks
          const size_t g = static_cast<size_t>(-1 - e.a);
          mcastArrived_[g] = e.t;
          for (int r : mcastWaiting_[g]) push(e.t + costs_.recvDone, Ev::kMcastDone, r);
          const int root = groups_[g].front();
          int hosts = 0;
          for (size_t i = 0; i < groups_[g].size(); ++i)
            if (i == 0 || hostOf(groups_[g][i]) != hostOf(groups_[g][i - 1])) ++hosts;
          const double acks = std::ceil(std::log2(std::max(2, hosts))) * topo_.latency;
          push(e.t + acks, Ev::kMcastDone, root);
          break;
        }
        Msg& msg = msgs_[static_cast<size_t>(e.b)];
        if (msg.partsLeft > 1) {
          --msg.partsLeft;
          break;
        }
        msg.dataArrived = true;
        const int src = msg.src;
        const bool posted = msg.recvPosted, rendezvous = msg.rendezvous;
        if (posted) deliver(e.t, static_cast<int>(e.b));
        if (rendezvous) {  // the send completes with its data's arrival
          msg.sendDone = true;
          releaseMsg(static_cast<int32_t>(e.b));
          opDone(src, e.t, false, 0);  // may post more: msg may move
        }
        break;
      }
      case Ev::kSendLocal: {
        Msg& msg = msgs_[static_cast<size_t>(e.b)];
        msg.sendDone = true;
        releaseMsg(static_cast<int32_t>(e.b));
        opDone(e.a, e.t, false, 0);
        break;
      }
      case Ev::kRtsArrive: {
        Msg& msg = msgs_[static_cast<size_t>(e.b)];
        msg.rtsArrived = true;
        if (msg.recvPosted) matched(e.t, static_cast<int>(e.b));
        break;
      }
      case Ev::kCtsArrive: {
        Msg& msg = msgs_[static_cast<size_t>(e.b)];
        flowOrLocal(e.t, static_cast<int>(e.b), msg.bytes, msg.src, msg.dst, Ev::kArrive);
        break;
      }
      case Ev::kMcastDone:
        opDone(e.a, e.t, false, 0);
        break;
      case Ev::kFifoStart: {
        const Msg& msg = msgs_[static_cast<size_t>(e.b)];
        startFlow(e.t, e.a, msg.dst, 0, {static_cast<int32_t>(e.b), msg.bytes, kData});
        break;
      }
      case Ev::kRecvDone: {
        Msg& msg = msgs_[static_cast<size_t>(e.b)];
        msg.recvDone = true;
        const bool late = msg.recvLate;
        const uint32_t round = msg.recvRound;
        const int64_t op = msg.recvOp;
        releaseMsg(static_cast<int32_t>(e.b));
        RankState& st = state_[static_cast<size_t>(e.a)];
        if (!st.waiting.empty() && !late && op >= 0 && static_cast<uint64_t>(op) >= st.first &&
            static_cast<uint64_t>(op) - st.first < st.done.size()) {
          st.done[static_cast<size_t>(static_cast<uint64_t>(op) - st.first)] = 1;
          postWaiting(e.a, e.t);
        }
        opDone(e.a, e.t, late, round);
        break;
      }
    }
  }
  for (int r = 0; r < ranks_; ++r) {
    const RankState& st = state_[static_cast<size_t>(r)];
    if (!st.finished) {
      *why = "rank " + std::to_string(r) + " never finished (round " + std::to_string(st.round) +
             " of " + std::to_string(programs_[static_cast<size_t>(r)].rounds) + ", " +
             std::to_string(st.pendingCur) + " sends and receives and " +
             std::to_string(st.latePrev) + " late receives open" +
             "): its program and its peers' do not match";
      return false;
    }
    out->time = std::max(out->time, out->rankEnd[static_cast<size_t>(r)]);
  }
  return true;
}

}  // namespace ccmpi::sim
