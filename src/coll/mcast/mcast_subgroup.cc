// Multicast to a group of only the receiving ranks (see mcast_subgroup.h).
#include "coll/mcast/mcast_subgroup.h"

#include "base/error.h"
#include "base/tunables.h"
#include "coll/algorithms.h"
#include "coll/mcast/mcast_coll.h"
#include "coll/util.h"
#include "p2p/p2p.h"
#include "transport/frame.h"
#include "transport/mcast.h"

namespace ccmpi::coll {
namespace {

constexpr int kTagSub = kTagScatterv;

Tunable<std::string> kData(
    "CCMPI_MPIX_SCATTERV_DATA", "auto",
    "how MPIX_Scatterv_data_movement moves the blocks: auto (one multicast message when "
    "that puts no more bytes on the root's cable than one TCP message per member, as for "
    "blocks of up to about 1 KiB; else TCP, since every member needs bytes of its own), "
    "mcast, tcp");

int zeroSend(comm::Comm& c, int to) {
  return p2p::send(nullptr, 0, MPI_BYTE, to, kTagSub, c, kCtx);
}
int zeroRecv(comm::Comm& c, int from) {
  return p2p::recv(nullptr, 0, MPI_BYTE, from, kTagSub, c, MPI_STATUS_IGNORE, kCtx);
}

int subgroupTcpCheaper(const std::vector<uint64_t>& sizes, int root, bool* tcp) {
  const std::string& mode = kData.get();
  if (mode == "mcast" || mode == "tcp") {
    *tcp = mode == "tcp";
    return MPI_SUCCESS;
  }
  if (mode != "auto")
    return setErrorCause(MPI_ERR_OTHER, "CCMPI_MPIX_SCATTERV_DATA=%s: expected auto, mcast or tcp",
                         mode.c_str());
  // Bytes on the root's cable. TCP: per member one frame (header + block) in segments of
  // MSS = MTU - 52, each with 52 bytes of TCP/IP (timestamps on) and 38 of Ethernet.
  const auto& m = transport::mcast();
  const uint64_t mss = m.mtu() - 52, hdr = sizeof(transport::FrameHeader);
  uint64_t total = 0, viaTcp = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (static_cast<int>(i) == root || sizes[i] == 0) continue;
    total += sizes[i];
    const uint64_t frame = hdr + sizes[i];
    viaTcp += frame + (frame + mss - 1) / mss * (52 + 38);
  }
  *tcp = viaTcp < m.wireBytes(total);
  return MPI_SUCCESS;
}

}  // namespace

int subgroupOpen(comm::Comm& c, int root, const uint64_t* sizesAtRoot, McastSubgroup* s,
                 bool chooseTransport) {
  *s = McastSubgroup{};
  s->comm = &c;
  s->root = root;
  s->sizes.assign(static_cast<size_t>(c.size), 0);
  if (c.rank == root) s->sizes.assign(sizesAtRoot, sizesAtRoot + c.size);
  McastGroup* g = mcastGroup(c);
  const uint32_t staticContext = g ? g->context : 0;
  int rc;
  if (g) {
    rc = mcastMessage(*g, c, root, s->sizes.data(), s->sizes.data(), s->sizes.size() * 8, 1);
    // A fresh context id for the group's datagrams, the same on every rank.
    s->context = 0x80000000u | (g->context << 8) | static_cast<uint32_t>(g->seq & 0xff);
    // The context repeats every 256 subgroups of a communicator: the epoch tells them apart
    // (and the communicator's incarnations).
    s->epoch = g->epoch ^ static_cast<uint32_t>((g->seq >> 8) * 0x9e3779b1u);
    s->lanes = g->laneSet();
    mcastRetire(*g);
  } else {
    rc = bcastBinomial(s->sizes.data(), c.size, MPI_UINT64_T, root, c);
  }
  if (rc != MPI_SUCCESS) return rc;
  for (int i = 0; i < c.size; ++i)
    if (i != root && s->sizes[static_cast<size_t>(i)] > 0) s->members.push_back(i);
  s->member = c.rank != root && s->sizes[static_cast<size_t>(c.rank)] > 0;
  s->mcast = g != nullptr;
  s->open = true;
  if (s->mcast && chooseTransport) {
    // Every rank decides alike: from the sizes all now hold and the job-wide settings.
    rc = subgroupTcpCheaper(s->sizes, root, &s->tcpData);
    if (rc != MPI_SUCCESS) return rc;
  }
  if (!s->mcast || s->tcpData || (c.rank != root && !s->member)) return MPI_SUCCESS;
  auto& m = transport::mcast();
  s->group = m.groupBeside(staticContext, s->context & 0xff);
  if (s->member) {
    // Join, then tell the root; a member that cannot join still says so and gets its
    // data by repair (correct, only slower).
    m.subscribe(s->context);
    m.join(s->group);
    return zeroSend(c, root);
  }
  for (int i : s->members)
    if (int e = zeroRecv(c, i)) return e;
  return MPI_SUCCESS;
}

int subgroupScatter(McastSubgroup& s, std::vector<unsigned char>* aggregate, void* recvbuf,
                    int64_t recvcount, MPI_Datatype recvtype) {
  comm::Comm& c = *s.comm;
  const bool isRoot = c.rank == s.root;
  if (!isRoot && !s.member) return MPI_SUCCESS;
  int rc = MPI_SUCCESS;
  uint64_t total = 0, myOffset = 0;
  for (int i : s.members) {
    if (i == c.rank) myOffset = total;
    total += s.sizes[static_cast<size_t>(i)];
  }
  auto& m = transport::mcast();
  const transport::McastKey key{s.context, s.seq, c.worldRankOf(s.root), 2, s.epoch};
  if (isRoot) {
    rc = m.sendComplete(s.group, key, aggregate->data(), total, static_cast<int>(s.members.size()),
                        aggregate, s.lanes);
  } else {
    std::vector<unsigned char> all(total);
    rc = m.receive(key, all.data(), total);
    if (rc == MPI_SUCCESS) {
      m.ack(key, total);
      typeOf(recvtype).unpack(recvbuf, recvcount, 0, all.data() + myOffset,
                              s.sizes[static_cast<size_t>(c.rank)]);
    }
  }
  m.retireSeq(s.context, s.seq);
  ++s.seq;
  return rc;
}

void subgroupClose(McastSubgroup& s) {
  if (!s.open) return;
  s.open = false;
  if (!s.mcast || s.tcpData) return;
  auto& m = transport::mcast();
  if (s.member) {
    m.leave(s.group);
    m.unsubscribe(s.context);
  }
}

}  // namespace ccmpi::coll
