// Packet-train measurement of a link's rate (see link_probe.h).
#include "transport/link_probe.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

#include "transport/link_finder.h"

namespace ccmpi::transport {
namespace {

// A datagram starts with the magic, its sequence number and the train's nonce (16 bytes).
constexpr uint32_t kMagic = 0x4c4b5052;  // "LKPR"

int64_t monotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

size_t mtuPayload(const std::string& address) {
  const std::string iface = interfaceOf(address);
  long mtu = 1500;
  if (!iface.empty() && iface.find('/') == std::string::npos) {
    const std::string path = "/sys/class/net/" + iface + "/mtu";
    if (FILE* f = fopen(path.c_str(), "r")) {
      if (fscanf(f, "%ld", &mtu) != 1) mtu = 1500;
      fclose(f);
    }
  }
  // IPv4 and UDP headers take 28 bytes of the MTU.
  return static_cast<size_t>(std::clamp<long>(mtu, 576, 9000) - 28);
}

bool parseEndpoint(const std::string& s, sockaddr_in* out) {
  const size_t colon = s.rfind(':');
  if (colon == std::string::npos) return false;
  const std::string host = s.substr(0, colon);
  char* end = nullptr;
  const long port = strtol(s.c_str() + colon + 1, &end, 10);
  if (*end != '\0' || port <= 0 || port > 65535) return false;
  *out = sockaddr_in{};
  out->sin_family = AF_INET;
  out->sin_port = htons(static_cast<uint16_t>(port));
  return inet_pton(AF_INET, host.c_str(), &out->sin_addr) == 1;
}

}  // namespace

LinkProbe::~LinkProbe() {
  close();
}

void LinkProbe::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool LinkProbe::open(const std::string& address, uint16_t port, std::string* why) {
  close();
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(port);
  if (inet_pton(AF_INET, address.c_str(), &sa.sin_addr) != 1) {
    *why = "not an IPv4 address: " + address;
    return false;
  }
  fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    *why = std::string("socket: ") + strerror(errno);
    return false;
  }
  const int one = 1, pmtu = IP_PMTUDISC_DO;
  // A whole train waits in the receive buffer if the receiver looks late.
  const int buf = 4 << 20;
  setsockopt(fd_, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
  setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
  setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf);
  setsockopt(fd_, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu, sizeof pmtu);
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&sa), sizeof sa) != 0) {
    *why = "bind " + address + ":" + std::to_string(port) + ": " + strerror(errno);
    close();
    return false;
  }
  payload_ = mtuPayload(address);
  return true;
}

double LinkProbe::wireBits(size_t payload) {
  // UDP 8 + IPv4 20, Ethernet header 14 + FCS 4, preamble 8 and inter-frame gap 12.
  return static_cast<double>(payload + 28 + 38) * 8;
}

double LinkProbe::trainMbits(const int64_t* arrivals, int n, size_t payload, std::string* why) {
  char b[160];
  if (n < 16) {
    snprintf(b, sizeof b, "%d probe packets arrived, too few", n);
    *why = b;
    return 0;
  }
  auto rate = [&](int from, int to) {
    const int64_t dt = arrivals[to] - arrivals[from];
    return dt > 0 ? (to - from) * wireBits(payload) / static_cast<double>(dt) * 1e3 : 0.0;
  };
  const int half = n / 2, threeQuarters = n * 3 / 4;
  const double q3 = rate(half, threeQuarters), q4 = rate(threeQuarters, n - 1);
  const double all = rate(half, n - 1);
  if (q3 <= 0 || q4 <= 0 || std::abs(q3 - q4) > 0.15 * std::max(q3, q4)) {
    snprintf(b, sizeof b, "the packet train arrived unevenly (%.4g and %.4g Mbit/s): not trusted",
             q3, q4);
    *why = b;
    return 0;
  }
  return all;
}

bool LinkProbe::sendTrain(const std::string& to, uint64_t nonce, int packets, std::string* why) {
  sockaddr_in dst{};
  if (fd_ < 0) {
    *why = "probe socket not open";
    return false;
  }
  if (!parseEndpoint(to, &dst)) {
    *why = "bad probe address " + to;
    return false;
  }
  std::vector<unsigned char> pkt(payload_, 0);
  const int64_t deadline = monotonicNs() + 500'000'000;
  for (int i = 0; i < packets;) {
    const uint32_t seq = static_cast<uint32_t>(i);
    memcpy(pkt.data(), &kMagic, 4);
    memcpy(pkt.data() + 4, &seq, 4);
    memcpy(pkt.data() + 8, &nonce, 8);
    const ssize_t n = ::sendto(fd_, pkt.data(), pkt.size(), MSG_NOSIGNAL,
                               reinterpret_cast<const sockaddr*>(&dst), sizeof dst);
    if (n == static_cast<ssize_t>(pkt.size())) {
      ++i;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == ENOBUFS || errno == EINTR) &&
        monotonicNs() < deadline) {
      pollfd p{fd_, POLLOUT, 0};
      (void)::poll(&p, 1, 1);
      continue;
    }
    *why = std::string("sendto ") + to + ": " + (n < 0 ? strerror(errno) : "short send");
    return false;
  }
  return true;
}

double LinkProbe::receiveTrain(uint64_t nonce, int packets, int64_t timeoutNs, std::string* why,
                               int* arrived) {
  if (arrived) *arrived = 0;
  if (fd_ < 0) {
    *why = "probe socket not open";
    return 0;
  }
  std::vector<int64_t> arrivals;
  arrivals.reserve(static_cast<size_t>(packets));
  std::vector<unsigned char> buf(65536);
  const int64_t start = monotonicNs();
  int64_t lastSeen = 0;
  size_t payload = 0;
  // The train takes a few milliseconds on fast links and up to a second at 1 Mbit/s; once
  // it has started, 200 ms without a packet ends it.
  while (static_cast<int>(arrivals.size()) < packets) {
    const int64_t now = monotonicNs();
    if (now - start >= timeoutNs) break;
    if (lastSeen != 0 && now - lastSeen > 200'000'000) break;
    pollfd p{fd_, POLLIN, 0};
    const int64_t left = std::min<int64_t>(timeoutNs - (now - start), 50'000'000);
    if (::poll(&p, 1, static_cast<int>(std::max<int64_t>(left / 1'000'000, 1))) <= 0) continue;
    for (;;) {
      iovec iov{buf.data(), buf.size()};
      alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(timespec))];
      msghdr m{};
      m.msg_iov = &iov;
      m.msg_iovlen = 1;
      m.msg_control = ctl;
      m.msg_controllen = sizeof ctl;
      const ssize_t n = ::recvmsg(fd_, &m, MSG_DONTWAIT);
      if (n < 0) break;
      uint32_t magic = 0;
      uint64_t got = 0;
      if (n < 16) continue;
      memcpy(&magic, buf.data(), 4);
      memcpy(&got, buf.data() + 8, 8);
      if (magic != kMagic || got != nonce) continue;  // a stray datagram
      int64_t at = -1;
      for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
          timespec ts;
          memcpy(&ts, CMSG_DATA(c), sizeof ts);
          at = static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
        }
      }
      if (at < 0) {
        *why = "no kernel receive timestamps";
        return 0;
      }
      payload = static_cast<size_t>(n);
      arrivals.push_back(at);
      lastSeen = monotonicNs();
      if (static_cast<int>(arrivals.size()) == packets) break;
    }
  }
  if (arrived) *arrived = static_cast<int>(arrivals.size());
  std::sort(arrivals.begin(), arrivals.end());
  return trainMbits(arrivals.data(), static_cast<int>(arrivals.size()), payload, why);
}

}  // namespace ccmpi::transport
