// Finding and matching rails (see rails.h).
#include "transport/rails.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "transport/link_finder.h"

namespace ccmpi::transport {
namespace {

struct Addr {
  std::string iface;
  uint32_t ip = 0;  // host order
  int prefix = 0;
  bool up = false;
  bool loopback = false;
};

std::vector<Addr> addresses() {
  std::vector<Addr> out;
  ifaddrs* ifs = nullptr;
  if (getifaddrs(&ifs) != 0) return out;
  for (ifaddrs* i = ifs; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !i->ifa_netmask) continue;
    Addr a;
    a.iface = i->ifa_name;
    a.ip = ntohl(reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr);
    const uint32_t mask = ntohl(reinterpret_cast<sockaddr_in*>(i->ifa_netmask)->sin_addr.s_addr);
    a.prefix = __builtin_popcount(mask);
    a.up = (i->ifa_flags & IFF_UP) && (i->ifa_flags & IFF_RUNNING);
    a.loopback = i->ifa_flags & IFF_LOOPBACK;
    out.push_back(a);
  }
  freeifaddrs(ifs);
  return out;
}

uint32_t maskOf(int prefix) {
  return prefix <= 0 ? 0 : prefix >= 32 ? ~0u : ~0u << (32 - prefix);
}

bool sameSubnet(uint32_t a, int pa, uint32_t b, int pb) {
  const uint32_t m = maskOf(std::min(pa, pb));
  return (a & m) == (b & m);
}

std::string dotted(uint32_t ip) {
  in_addr a{};
  a.s_addr = htonl(ip);
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &a, buf, sizeof buf);
  return buf;
}

bool parseIp(const std::string& s, uint32_t* ip) {
  in_addr a{};
  if (inet_pton(AF_INET, s.c_str(), &a) != 1) return false;
  *ip = ntohl(a.s_addr);
  return true;
}

Rail railOf(const Addr& a) {
  Rail r;
  r.iface = a.iface;
  r.ip = dotted(a.ip);
  r.prefix = a.prefix;
  r.mbits = findInterfaceLink(a.iface).mbits;
  return r;
}

std::vector<std::string> names(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream in(list);
  std::string x;
  while (std::getline(in, x, ','))
    if (!x.empty()) out.push_back(x);
  return out;
}

}  // namespace

bool findRails(const std::string& list, const std::string& primary, std::vector<Rail>* out,
               std::string* why) {
  out->clear();
  const std::vector<Addr> all = addresses();
  const std::vector<std::string> wanted = names(list);
  auto conflicts = [&](const Addr& a) {
    for (const Rail& r : *out) {
      uint32_t ip = 0;
      if (parseIp(r.ip, &ip) && sameSubnet(ip, r.prefix, a.ip, a.prefix)) return true;
    }
    return false;
  };
  if (wanted.size() >= 2) {
    for (const std::string& n : wanted) {
      const Addr* found = nullptr;
      for (const Addr& a : all)
        if (a.iface == n) {
          found = &a;
          break;
        }
      if (!found) {
        *why = "interface " + n + " has no IPv4 address";
        return false;
      }
      if (conflicts(*found)) {
        *why = "interface " + n + " is on the subnet of an interface listed before it";
        return false;
      }
      out->push_back(railOf(*found));
    }
    return true;
  }
  uint32_t primaryIp = 0;
  parseIp(primary, &primaryIp);
  for (const Addr& a : all)
    if (a.ip == primaryIp) {
      out->push_back(railOf(a));
      break;
    }
  if (out->empty()) {
    Rail r;
    r.ip = primary;
    r.prefix = 32;
    out->push_back(r);
  }
  // Loopback joins no hosts: a job on loopback has rail 0 alone.
  if ((primaryIp >> 24) == 127) return true;
  for (const Addr& a : all) {
    if (!a.up || a.loopback || a.ip == primaryIp || conflicts(a)) continue;
    out->push_back(railOf(a));
  }
  return true;
}

bool railsMeet(const Rail& a, const Rail& b) {
  uint32_t x = 0, y = 0;
  if (!parseIp(a.ip, &x) || !parseIp(b.ip, &y) || x == y) return false;
  return sameSubnet(x, a.prefix, y, b.prefix);
}

std::vector<int> matchRails(const std::vector<Rail>& mine, const std::vector<Rail>& theirs) {
  std::vector<int> out(mine.size(), -1);
  if (out.empty()) return out;
  out[0] = 0;
  for (size_t i = 1; i < mine.size(); ++i)
    for (size_t j = 1; j < theirs.size(); ++j)
      if (railsMeet(mine[i], theirs[j])) {
        out[i] = static_cast<int>(j);
        break;
      }
  return out;
}

std::vector<StripeCut> stripeCuts(uint64_t bytes, const std::vector<double>& mbits) {
  std::vector<StripeCut> out;
  bool known = !mbits.empty();
  for (double x : mbits) known = known && x > 0 && std::isfinite(x);
  double sum = 0;
  for (double x : mbits) sum += known ? x : 1.0;
  uint64_t at = 0;
  for (size_t i = 0; i < mbits.size() && at < bytes; ++i) {
    uint64_t len = bytes - at;
    if (i + 1 < mbits.size()) {
      const double share = static_cast<double>(bytes) * (known ? mbits[i] : 1.0) / sum;
      len = std::min<uint64_t>(len, static_cast<uint64_t>(share) & ~uint64_t{4095});
    }
    if (len == 0) continue;
    out.push_back({at, at + len, i});
    at += len;
  }
  return out;
}

}  // namespace ccmpi::transport
