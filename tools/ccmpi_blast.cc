// ccmpi-blast: a minimal TCP throughput meter, used by `ccmpi-cluster check` to measure the
// links of an emulated cluster (nothing outside this project is needed).
//
//   ccmpi-blast recv [--bind ADDR] [--port P] [--streams N] [--seconds T] [--warmup W]
//                    [--timeout S]
//   ccmpi-blast send --to ADDR [--port P] [--timeout S]
//   ccmpi-blast qdiscs [--seconds T] [--warmup W] [--overhead BYTES] NETNS...
//
// recv listens, accepts N connections and reads everything they send. Once all N are
// connected it prints `connected streams=N`, lets W seconds pass (slow start, queues
// filling), then counts the bytes that arrive on each stream during T seconds, closes
// every connection (which stops the senders) and prints, one line each,
//   stream peer=ADDR:PORT bytes=B seconds=T goodput_bps=G wire_bps=L mss=M
//   total streams=N bytes=B seconds=T goodput_bps=G wire_bps=L
// goodput is payload bits per second; wire_bps is the Ethernet line rate that payload
// occupies when segments are full sized: each MSS bytes of payload travel in a frame of
// MSS + TCP/IP headers (40, plus 12 with timestamps) + 38 (Ethernet header 14, FCS 4,
// preamble 8, inter-frame gap 12). The port of the receiver is what a link shaper counts.
//
// send connects to ADDR (retrying while the receiver is not yet listening) and writes
// until the receiver closes the connection. Both sides give up after S seconds (default
// 30) and then exit non-zero, so a broken network never hangs the caller.
//
// qdiscs reads the counters of the root qdisc of every interface (but lo) in the named
// network namespaces (names under /run/netns, or paths; needs root) after W seconds and
// again T seconds later, timing both reads itself, and prints
//   qdisc NETNS DEV line_bps=L bytes=B packets=P seconds=T
// where L counts every frame sent with BYTES more (default 24: preamble, FCS, inter-frame
// gap; the qdisc counts frames without FCS, and a GSO packet as its segments). On an
// emulated cluster the qdiscs are the shapers of both directions of every cable.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fcntl.h>
#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sched.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string mode;
  std::string address;  // --bind for recv, --to for send
  int port = 5201;
  int streams = 1;
  double seconds = 2.0;
  double warmup = 0.5;
  double timeout = 30.0;
  double overhead = 24.0;
  std::vector<std::string> namespaces;  // qdiscs
};

int usage() {
  std::fprintf(
      stderr,
      "usage: ccmpi-blast recv [--bind ADDR] [--port P] [--streams N] [--seconds T]"
      " [--warmup W] [--timeout S]\n"
      "       ccmpi-blast send --to ADDR [--port P] [--timeout S]\n"
      "       ccmpi-blast qdiscs [--seconds T] [--warmup W] [--overhead BYTES] NETNS...\n");
  return 2;
}

bool parseOptions(int argc, char** argv, Options* o) {
  if (argc < 2) return false;
  o->mode = argv[1];
  if (o->mode != "recv" && o->mode != "send" && o->mode != "qdiscs") return false;
  for (int i = 2; i < argc; ++i) {
    const std::string name = argv[i];
    if (o->mode == "qdiscs" && name.rfind("--", 0) != 0) {
      o->namespaces.push_back(name);
      continue;
    }
    if (i + 1 >= argc) return false;
    const char* v = argv[++i];
    char* end = nullptr;
    if (name == "--bind" || name == "--to") {
      o->address = v;
    } else if (name == "--port") {
      o->port = static_cast<int>(std::strtol(v, &end, 10));
    } else if (name == "--streams") {
      o->streams = static_cast<int>(std::strtol(v, &end, 10));
    } else if (name == "--seconds") {
      o->seconds = std::strtod(v, &end);
    } else if (name == "--warmup") {
      o->warmup = std::strtod(v, &end);
    } else if (name == "--timeout") {
      o->timeout = std::strtod(v, &end);
    } else if (name == "--overhead") {
      o->overhead = std::strtod(v, &end);
    } else {
      return false;
    }
    if (end && *end != '\0') return false;
  }
  if (o->port <= 0 || o->port > 65535 || o->streams < 1 || o->seconds <= 0 || o->warmup < 0 ||
      o->timeout <= 0 || o->overhead < 0)
    return false;
  if (o->mode == "qdiscs") return !o->namespaces.empty();
  return o->mode != "send" || !o->address.empty();
}

bool toSockaddr(const std::string& address, int port, sockaddr_in* sa) {
  std::memset(sa, 0, sizeof *sa);
  sa->sin_family = AF_INET;
  sa->sin_port = htons(static_cast<uint16_t>(port));
  if (address.empty()) {
    sa->sin_addr.s_addr = htonl(INADDR_ANY);
    return true;
  }
  return inet_pton(AF_INET, address.c_str(), &sa->sin_addr) == 1;
}

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Stream {
  int fd = -1;
  std::string peer;
  int mss = 0;
  int headerBytes = 0;  // TCP/IP headers of a full segment
  uint64_t bytes = 0;   // all bytes read so far
  uint64_t atStart = 0;
  uint64_t atEnd = 0;
};

void describeStream(int fd, const sockaddr_in& peer, Stream* s) {
  char text[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &peer.sin_addr, text, sizeof text);
  s->peer = std::string(text) + ":" + std::to_string(ntohs(peer.sin_port));
  socklen_t len = sizeof s->mss;
  if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &s->mss, &len) < 0) s->mss = 0;
  tcp_info info{};
  len = sizeof info;
  const bool timestamps = getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) == 0 &&
                          (info.tcpi_options & TCPI_OPT_TIMESTAMPS) != 0;
  s->headerBytes = 40 + (timestamps ? 12 : 0);
}

double wireFactor(const Stream& s) {
  constexpr int kEthernetBytes = 14 + 4 + 8 + 12;
  if (s.mss <= 0) return 1.0;
  return static_cast<double>(s.mss + s.headerBytes + kEthernetBytes) / s.mss;
}

int runReceiver(const Options& o) {
  sockaddr_in sa;
  if (!toSockaddr(o.address, o.port, &sa)) {
    std::fprintf(stderr, "ccmpi-blast: bad address %s\n", o.address.c_str());
    return 2;
  }
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0 ||
      listen(listener, o.streams + 8) < 0) {
    std::fprintf(stderr, "ccmpi-blast: cannot listen on %s:%d: %s\n",
                 o.address.empty() ? "*" : o.address.c_str(), o.port, std::strerror(errno));
    return 1;
  }
  const auto begin = Clock::now();
  std::vector<Stream> streams;
  std::vector<char> buffer(1 << 18);
  Clock::time_point windowStart{}, windowEnd{};
  bool counting = false;
  while (true) {
    const bool allConnected = static_cast<int>(streams.size()) == o.streams;
    if (!allConnected && secondsSince(begin) > o.timeout) {
      std::fprintf(stderr, "ccmpi-blast: only %zu of %d streams connected within %.0f s\n",
                   streams.size(), o.streams, o.timeout);
      return 1;
    }
    if (allConnected && windowStart == Clock::time_point{}) {
      std::printf("connected streams=%d\n", o.streams);
      std::fflush(stdout);
      windowStart = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(o.warmup));
      windowEnd = windowStart + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(o.seconds));
    }
    if (allConnected && !counting && Clock::now() >= windowStart) {
      for (auto& s : streams) s.atStart = s.bytes;
      windowStart = Clock::now();
      counting = true;
    }
    if (counting && Clock::now() >= windowEnd) {
      for (auto& s : streams) s.atEnd = s.bytes;
      windowEnd = Clock::now();
      break;
    }
    std::vector<pollfd> fds;
    fds.push_back({allConnected ? -1 : listener, POLLIN, 0});
    for (const auto& s : streams) fds.push_back({s.fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 10) < 0 && errno != EINTR) {
      std::perror("ccmpi-blast: poll");
      return 1;
    }
    if (fds[0].revents & POLLIN) {
      sockaddr_in peer;
      socklen_t len = sizeof peer;
      const int fd = accept4(listener, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
      if (fd >= 0) {
        Stream s;
        s.fd = fd;
        describeStream(fd, peer, &s);
        streams.push_back(s);
      }
    }
    // The streams polled (one accepted just now has no entry in fds yet).
    for (std::size_t i = 0; i + 1 < fds.size(); ++i) {
      if (!(fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = recv(streams[i].fd, buffer.data(), buffer.size(), MSG_DONTWAIT);
      if (n > 0) {
        streams[i].bytes += static_cast<uint64_t>(n);
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        std::fprintf(stderr, "ccmpi-blast: stream from %s ended early\n", streams[i].peer.c_str());
        return 1;
      }
    }
  }
  const double seconds = std::chrono::duration<double>(windowEnd - windowStart).count();
  for (auto& s : streams) ::close(s.fd);
  ::close(listener);
  uint64_t total = 0;
  double totalWire = 0;
  for (const auto& s : streams) {
    const uint64_t b = s.atEnd - s.atStart;
    const double goodput = 8.0 * static_cast<double>(b) / seconds;
    total += b;
    totalWire += goodput * wireFactor(s);
    std::printf("stream peer=%s bytes=%llu seconds=%.3f goodput_bps=%.0f wire_bps=%.0f mss=%d\n",
                s.peer.c_str(), static_cast<unsigned long long>(b), seconds, goodput,
                goodput * wireFactor(s), s.mss);
  }
  std::printf("total streams=%zu bytes=%llu seconds=%.3f goodput_bps=%.0f wire_bps=%.0f\n",
              streams.size(), static_cast<unsigned long long>(total), seconds,
              8.0 * static_cast<double>(total) / seconds, totalWire);
  return 0;
}

int runSender(const Options& o) {
  sockaddr_in sa;
  if (!toSockaddr(o.address, o.port, &sa)) {
    std::fprintf(stderr, "ccmpi-blast: bad address %s\n", o.address.c_str());
    return 2;
  }
  const auto begin = Clock::now();
  int fd = -1;
  while (true) {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      std::perror("ccmpi-blast: socket");
      return 1;
    }
    if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) == 0) break;
    const int error = errno;
    ::close(fd);
    if (secondsSince(begin) > o.timeout || (error != ECONNREFUSED && error != EINTR)) {
      std::fprintf(stderr, "ccmpi-blast: cannot connect to %s:%d: %s\n", o.address.c_str(), o.port,
                   std::strerror(error));
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const timeval tv{1, 0};  // wake up now and then to check the deadline
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  std::vector<char> buffer(1 << 16, 'x');
  uint64_t sent = 0;
  while (secondsSince(begin) < o.timeout) {
    const ssize_t n = send(fd, buffer.data(), buffer.size(), MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<uint64_t>(n);
    } else if (errno != EAGAIN && errno != EINTR) {
      break;  // the receiver closed the connection: done
    }
  }
  ::close(fd);
  if (secondsSince(begin) >= o.timeout) {
    std::fprintf(stderr, "ccmpi-blast: receiver %s:%d did not finish within %.0f s\n",
                 o.address.c_str(), o.port, o.timeout);
    return 1;
  }
  return sent > 0 ? 0 : 1;
}

// One root qdisc's counters. The kernel counts a GSO packet as its segments, with their
// headers, so bytes + overhead * packets is the line occupancy of the frames sent.
struct QdiscCounters {
  std::string where;  // "NETNS DEV"
  uint64_t bytes = 0;
  uint64_t packets = 0;
};

struct Namespace {
  std::string name;
  int socket = -1;                   // NETLINK_ROUTE socket created inside the namespace
  std::vector<std::string> devices;  // by ifindex
};

bool openNamespace(const std::string& name, Namespace* ns) {
  const std::string path = name.find('/') == std::string::npos ? "/run/netns/" + name : name;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || setns(fd, CLONE_NEWNET) < 0) {
    std::fprintf(stderr, "ccmpi-blast: cannot enter network namespace %s: %s\n", name.c_str(),
                 std::strerror(errno));
    if (fd >= 0) ::close(fd);
    return false;
  }
  ::close(fd);
  ns->name = name;
  ns->socket = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
  if (ns->socket < 0) {
    std::perror("ccmpi-blast: netlink socket");
    return false;
  }
  // The interface names, while we are in the namespace.
  struct if_nameindex* names = if_nameindex();
  for (struct if_nameindex* i = names; i && i->if_index != 0; ++i) {
    if (ns->devices.size() <= i->if_index) ns->devices.resize(i->if_index + 1);
    ns->devices[i->if_index] = i->if_name;
  }
  if (names) if_freenameindex(names);
  return true;
}

// Dumps the root qdiscs of one namespace (except loopback's) into *out.
bool dumpQdiscs(const Namespace& ns, std::vector<QdiscCounters>* out) {
  struct {
    nlmsghdr header;
    tcmsg tc;
  } request{};
  request.header.nlmsg_len = sizeof request;
  request.header.nlmsg_type = RTM_GETQDISC;
  request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  request.header.nlmsg_seq = 1;
  request.tc.tcm_family = AF_UNSPEC;
  if (send(ns.socket, &request, sizeof request, 0) < 0) return false;
  std::vector<char> buffer(1 << 16);
  while (true) {
    const ssize_t n = recv(ns.socket, buffer.data(), buffer.size(), 0);
    if (n <= 0) return false;
    int left = static_cast<int>(n);
    for (auto* h = reinterpret_cast<nlmsghdr*>(buffer.data()); NLMSG_OK(h, left);
         h = NLMSG_NEXT(h, left)) {
      if (h->nlmsg_type == NLMSG_DONE) return true;
      if (h->nlmsg_type == NLMSG_ERROR) return false;
      if (h->nlmsg_type != RTM_NEWQDISC) continue;
      const auto* tc = static_cast<const tcmsg*>(NLMSG_DATA(h));
      if (tc->tcm_parent != TC_H_ROOT || tc->tcm_ifindex <= 0) continue;
      const auto index = static_cast<std::size_t>(tc->tcm_ifindex);
      const std::string device = index < ns.devices.size() ? ns.devices[index] : "";
      if (device.empty() || device == "lo") continue;
      QdiscCounters q;
      q.where = ns.name + " " + device;
      int attrLength = static_cast<int>(h->nlmsg_len - NLMSG_LENGTH(sizeof(tcmsg)));
      for (auto* a = reinterpret_cast<rtattr*>(reinterpret_cast<char*>(NLMSG_DATA(h)) +
                                               NLMSG_ALIGN(sizeof(tcmsg)));
           RTA_OK(a, attrLength); a = RTA_NEXT(a, attrLength)) {
        if (a->rta_type != TCA_STATS2) continue;
        int nestedLength = static_cast<int>(RTA_PAYLOAD(a));
        for (auto* b = static_cast<rtattr*>(RTA_DATA(a)); RTA_OK(b, nestedLength);
             b = RTA_NEXT(b, nestedLength)) {
          if (b->rta_type == TCA_STATS_BASIC && RTA_PAYLOAD(b) >= sizeof(gnet_stats_basic)) {
            gnet_stats_basic basic;
            std::memcpy(&basic, RTA_DATA(b), sizeof basic);
            q.bytes = basic.bytes;
            if (q.packets == 0) q.packets = basic.packets;
          } else if (b->rta_type == TCA_STATS_PKT64 && RTA_PAYLOAD(b) >= sizeof(uint64_t)) {
            std::memcpy(&q.packets, RTA_DATA(b), sizeof(uint64_t));
          }
        }
      }
      out->push_back(q);
    }
  }
}

int runQdiscs(const Options& o, const std::vector<std::string>& names) {
  std::vector<Namespace> spaces(names.size());
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!openNamespace(names[i], &spaces[i])) return 1;
  const auto toDuration = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  const auto snapshot = [&](std::vector<QdiscCounters>* out, Clock::time_point* at) {
    const auto t0 = Clock::now();
    for (const auto& ns : spaces) {
      if (!dumpQdiscs(ns, out)) {
        std::fprintf(stderr, "ccmpi-blast: cannot read the qdiscs of %s\n", ns.name.c_str());
        return false;
      }
    }
    *at = t0 + (Clock::now() - t0) / 2;  // dated at the middle of the reads
    return true;
  };
  std::this_thread::sleep_for(toDuration(o.warmup));
  std::vector<QdiscCounters> before, after;
  Clock::time_point t0, t1;
  if (!snapshot(&before, &t0)) return 1;
  std::this_thread::sleep_until(t0 + toDuration(o.seconds));
  if (!snapshot(&after, &t1)) return 1;
  const double seconds = std::chrono::duration<double>(t1 - t0).count();
  for (const auto& b : before) {
    for (const auto& a : after) {
      if (a.where != b.where) continue;
      const double bytes = static_cast<double>(a.bytes - b.bytes);
      const double packets = static_cast<double>(a.packets - b.packets);
      std::printf("qdisc %s line_bps=%.0f bytes=%.0f packets=%.0f seconds=%.4f\n", a.where.c_str(),
                  8 * (bytes + o.overhead * packets) / seconds, bytes, packets, seconds);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parseOptions(argc, argv, &o)) return usage();
  if (o.mode == "qdiscs") return runQdiscs(o, o.namespaces);
  return o.mode == "recv" ? runReceiver(o) : runSender(o);
}
