// ccmpi-sim's flow-level network (see network.h).
#include "sim/network.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace ccmpi::sim {

bool Topology::parseSharing(const std::string& text, std::string* why) {
  if (text == "max-min")
    sharing = Sharing::kMaxMin;
  else if (text == "per-link")
    sharing = Sharing::kPerLink;
  else
    *why = "unknown sharing '" + text + "' (max-min or per-link)";
  return text == "max-min" || text == "per-link";
}

bool Topology::parse(const std::string& text, std::string* why) {
  if (text == "one-switch") {
    kind = Kind::kOneSwitch;
    return true;
  }
  const std::string prefix = "fat-tree:";
  if (text.compare(0, prefix.size(), prefix) == 0) {
    const std::string rest = text.substr(prefix.size());
    const size_t colon = rest.find(':');
    char* end = nullptr;
    const long r = strtol(rest.c_str(), &end, 10);
    if (colon == std::string::npos || end != rest.c_str() + colon || r < 1) {
      *why = "fat-tree:RADIX:OVERSUB needs a positive RADIX";
      return false;
    }
    const double o = strtod(rest.c_str() + colon + 1, &end);
    if (*end != '\0' || !(o >= 1)) {
      *why = "fat-tree:RADIX:OVERSUB needs OVERSUB >= 1 (1 = non-blocking)";
      return false;
    }
    kind = Kind::kFatTree;
    radix = static_cast<int>(r);
    oversub = o;
    return true;
  }
  *why = "unknown topology '" + text + "' (one-switch or fat-tree:RADIX:OVERSUB)";
  return false;
}

Network::Network(const Topology& t) : t_(t) {
  hostLinks_ = t_.hosts * t_.rails * 2;
  const int leafLinks = t_.kind == Topology::Kind::kFatTree ? t_.leaves() * t_.rails * 2 : 0;
  links_.resize(static_cast<size_t>(hostLinks_ + leafLinks));
  for (int i = 0; i < hostLinks_; ++i) {
    links_[static_cast<size_t>(i)].cap = t_.rate;
    links_[static_cast<size_t>(i)].switchPort = i % 2 == 1;  // down: the switch's port
  }
  for (int i = hostLinks_; i < hostLinks_ + leafLinks; ++i) {
    Link& l = links_[static_cast<size_t>(i)];
    l.cap = t_.rate * t_.radix / t_.oversub;
    l.ports = std::max(1.0, t_.radix / t_.oversub);
    l.switchPort = true;  // up: the leaf's uplink ports; down: the spine's ports to the leaf
  }
  linkMark_.assign(links_.size(), 0);
  linkPos_.assign(links_.size(), 0);
}

std::vector<int> Network::path(int src, const std::vector<int>& dsts, int rail) const {
  std::vector<int> p{upLink(src, rail)};
  const int from = t_.leafOf(src);
  bool leftLeaf = false;
  for (int d : dsts) {
    const int to = t_.leafOf(d);
    if (to != from) {
      if (!leftLeaf) p.push_back(leafUp(from, rail));
      leftLeaf = true;
      const int down = leafDown(to, rail);
      if (std::find(p.begin(), p.end(), down) == p.end()) p.push_back(down);
    }
    p.push_back(downLink(d, rail));
  }
  return p;
}

double Network::tailDropCapacity(const Link& l) const {
  const double b = t_.portBuffer / Topology::kDropBuffer;
  const double excess = l.tcp / l.ports - t_.dropFlows * b;
  if (excess <= 0) return l.cap;
  const double width = (t_.dropFull - t_.dropFlows) * b;
  const double idle = t_.dropIdle * (width > 0 ? std::min(1.0, excess / width) : 1.0);
  // A port carries its bytes at cap / ports, plus the idle time per byte.
  return l.cap / (1 + l.cap / l.ports * idle);
}

int Network::hops(int src, int dst) const {
  return t_.leafOf(src) == t_.leafOf(dst) ? 1 : 3;
}

int Network::start(double now, int src, const std::vector<int>& dsts, int rail, double bytes,
                   uint64_t tag, bool tcp) {
  int id;
  if (!freeFlows_.empty()) {
    id = freeFlows_.back();
    freeFlows_.pop_back();
  } else {
    id = static_cast<int>(flows_.size());
    flows_.emplace_back();
    flowMark_.push_back(0);
  }
  Flow& f = flows_[static_cast<size_t>(id)];
  f.links = path(src, dsts, rail);
  f.left = bytes;
  f.rate = 0;
  f.since = now;
  f.tag = tag;
  f.live = true;
  f.tcp = tcp;
  ++f.version;
  for (int l : f.links) {
    links_[static_cast<size_t>(l)].flows.push_back(id);
    links_[static_cast<size_t>(l)].tcp += f.tcp;
  }
  ++active_;
  reshare(now, f.links);
  return id;
}

double Network::nextEnd() {
  while (!due_.empty()) {
    const Due& d = due_.top();
    const Flow& f = flows_[static_cast<size_t>(d.flow)];
    if (f.live && f.version == d.version) return d.t;
    due_.pop();
  }
  return std::numeric_limits<double>::infinity();
}

uint64_t Network::popEnded(double now) {
  nextEnd();  // drops stale entries
  const Due d = due_.top();
  due_.pop();
  Flow& f = flows_[static_cast<size_t>(d.flow)];
  for (int l : f.links) {
    auto& v = links_[static_cast<size_t>(l)].flows;
    v.erase(std::find(v.begin(), v.end(), d.flow));
    links_[static_cast<size_t>(l)].tcp -= f.tcp;
  }
  f.live = false;
  f.left = 0;
  --active_;
  freeFlows_.push_back(d.flow);
  reshare(now, f.links);
  return f.tag;
}

void Network::newMark() {
  if (++mark_ == 0) {  // wrapped: clear the old marks
    std::fill(linkMark_.begin(), linkMark_.end(), 0);
    std::fill(flowMark_.begin(), flowMark_.end(), 0);
    mark_ = 1;
  }
}

void Network::bringToNow(Flow& f, double now) {
  f.left -= std::min(f.left, std::max(0.0, f.rate * (now - f.since)));
  f.since = now;
}

void Network::reshareLocal(double now, const std::vector<int>& seedLinks) {
  // Only the flows on links whose flow count changed get a new rate: each its smallest
  // fair share, capacity / flows, over its links.
  newMark();
  for (int l : seedLinks)
    for (int fid : links_[static_cast<size_t>(l)].flows) {
      if (flowMark_[static_cast<size_t>(fid)] == mark_) continue;
      flowMark_[static_cast<size_t>(fid)] = mark_;
      Flow& f = flows_[static_cast<size_t>(fid)];
      bringToNow(f, now);
      double rate = std::numeric_limits<double>::infinity();
      for (int k : f.links) {
        const Link& link = links_[static_cast<size_t>(k)];
        rate = std::min(rate, capacityOf(link) / static_cast<double>(link.flows.size()));
      }
      f.rate = rate;
      ++f.version;
      due_.push({now + f.left / f.rate, fid, f.version});
    }
}

void Network::reshare(double now, const std::vector<int>& seedLinks) {
  if (t_.sharing == Topology::Sharing::kPerLink) {
    reshareLocal(now, seedLinks);
    return;
  }
  // The flows connected to the seed links through shared links.
  newMark();
  std::vector<int>& compLinks = compLinks_;
  std::vector<int>& compFlows = compFlows_;
  std::vector<int>& todo = todo_;
  compLinks.clear();
  compFlows.clear();
  todo.clear();
  for (int l : seedLinks)
    if (linkMark_[static_cast<size_t>(l)] != mark_) {
      linkMark_[static_cast<size_t>(l)] = mark_;
      todo.push_back(l);
    }
  while (!todo.empty()) {
    const int l = todo.back();
    todo.pop_back();
    compLinks.push_back(l);
    for (int fid : links_[static_cast<size_t>(l)].flows) {
      if (flowMark_[static_cast<size_t>(fid)] == mark_) continue;
      flowMark_[static_cast<size_t>(fid)] = mark_;
      compFlows.push_back(fid);
      for (int l2 : flows_[static_cast<size_t>(fid)].links)
        if (linkMark_[static_cast<size_t>(l2)] != mark_) {
          linkMark_[static_cast<size_t>(l2)] = mark_;
          todo.push_back(l2);
        }
    }
  }
  if (compFlows.empty()) return;
  for (int fid : compFlows) {
    Flow& f = flows_[static_cast<size_t>(fid)];
    bringToNow(f, now);
    f.rate = -1;  // not fixed yet
  }
  // Progressive filling: the link with the smallest fair share fixes its flows at that
  // share, which the other links of those flows then no longer have.
  auto& heap = heap_;
  heap.clear();
  std::vector<double>& rem = rem_;
  std::vector<int>& cnt = cnt_;
  rem.resize(compLinks.size());
  cnt.resize(compLinks.size());
  for (size_t i = 0; i < compLinks.size(); ++i)
    linkPos_[static_cast<size_t>(compLinks[i])] = static_cast<int>(i);
  auto pos = [this](int link) { return linkPos_[static_cast<size_t>(link)]; };
  const auto later = [](const Key& a, const Key& b) { return a.share > b.share; };
  auto pushKey = [&](Key k) {
    heap.push_back(k);
    std::push_heap(heap.begin(), heap.end(), later);
  };
  for (size_t i = 0; i < compLinks.size(); ++i) {
    const Link& l = links_[static_cast<size_t>(compLinks[i])];
    rem[i] = capacityOf(l);
    cnt[i] = static_cast<int>(l.flows.size());
    if (cnt[i] > 0) pushKey({rem[i] / cnt[i], static_cast<int>(i)});
  }
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const Key k = heap.back();
    heap.pop_back();
    const size_t i = static_cast<size_t>(k.link);
    if (cnt[i] == 0 || k.share != rem[i] / cnt[i]) continue;  // stale
    const double share = std::max(0.0, k.share);
    for (int fid : links_[static_cast<size_t>(compLinks[i])].flows) {
      Flow& f = flows_[static_cast<size_t>(fid)];
      if (f.rate >= 0) continue;
      f.rate = share;
      for (int l : f.links) {
        const size_t j = static_cast<size_t>(pos(l));
        rem[j] -= share;
        --cnt[j];
        if (j != i && cnt[j] > 0) pushKey({rem[j] / cnt[j], static_cast<int>(j)});
      }
    }
  }
  for (int fid : compFlows) {
    Flow& f = flows_[static_cast<size_t>(fid)];
    ++f.version;
    const double t = f.rate > 0 ? now + f.left / f.rate : std::numeric_limits<double>::infinity();
    due_.push({t, fid, f.version});
  }
}

}  // namespace ccmpi::sim
