// Finding a link's rate (see link_finder.h).
#include "transport/link_finder.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "base/tunables.h"

#ifdef CCMPI_HAVE_LIBNL
#include <linux/pkt_sched.h>
#include <netlink/netlink.h>
#include <netlink/route/class.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/htb.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/tc.h>
#endif

namespace ccmpi::transport {
namespace {
Tunable<std::string> kFind("CCMPI_LINK_FIND", "shaper,nic,probe",
                           "where MPI_Init looks for the link rate when CCMPI_LINK_MBITS is "
                           "unset or 0, comma-separated: shaper (a tbf/htb qdisc on the "
                           "interface), nic (the speed its driver reports), probe (a packet "
                           "train between hosts, only when no host found a rate otherwise); "
                           "none = look nowhere (100 assumed)");
constexpr const char* kSources[] = {"shaper", "nic", "probe", "none"};

bool listed(const std::string& list, const std::string& item) {
  std::stringstream in(list);
  std::string x;
  while (std::getline(in, x, ','))
    if (x == item) return true;
  return false;
}
}  // namespace

bool linkSourceEnabled(const char* source) {
  return listed(kFind.get(), source);
}

bool linkSourcesValid(std::string* why) {
  std::stringstream in(kFind.get());
  std::string x;
  while (std::getline(in, x, ',')) {
    bool known = false;
    for (const char* k : kSources) known |= x == k;
    if (!known) {
      *why = "CCMPI_LINK_FIND=" + kFind.get() + ": '" + x + "' is not shaper, nic, probe or none";
      return false;
    }
  }
  return true;
}

std::string interfaceOf(const std::string& address) {
  in_addr want{};
  if (inet_pton(AF_INET, address.c_str(), &want) != 1) return "";
  ifaddrs* ifs = nullptr;
  if (getifaddrs(&ifs) != 0) return "";
  std::string out;
  for (ifaddrs* i = ifs; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
    if (reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr != want.s_addr) continue;
    out = i->ifa_name;
    break;
  }
  freeifaddrs(ifs);
  return out;
}

double nicSpeedMbits(const std::string& iface) {
  if (iface.empty() || iface.find('/') != std::string::npos) return 0;
  const std::string path = "/sys/class/net/" + iface + "/speed";
  FILE* f = fopen(path.c_str(), "r");
  if (!f) return 0;
  char buf[32] = {};
  // Reading fails (EINVAL) where the driver knows no speed; -1 means the same.
  const bool ok = fgets(buf, sizeof buf, f) != nullptr;
  fclose(f);
  if (!ok) return 0;
  const long v = strtol(buf, nullptr, 10);
  return v > 0 ? static_cast<double>(v) : 0;
}

#ifdef CCMPI_HAVE_LIBNL
namespace {

struct NlSocket {
  nl_sock* sock = nl_socket_alloc();
  ~NlSocket() {
    if (sock) nl_socket_free(sock);
  }
};

struct Cache {
  nl_cache* cache = nullptr;
  ~Cache() {
    if (cache) nl_cache_free(cache);
  }
};

// The fastest ceiling among the top-level classes of the htb qdisc `handle`: what one flow
// can get at most (a site's shaper gives the whole link to one class; ccmpi-cluster adds a
// near-zero class for random loss beside it).
double htbCeilingMbits(nl_sock* sock, int ifindex, uint32_t handle) {
  Cache classes;
  if (rtnl_class_alloc_cache(sock, ifindex, &classes.cache) != 0) return 0;
  double best = 0;
  for (nl_object* o = nl_cache_get_first(classes.cache); o; o = nl_cache_get_next(o)) {
    rtnl_tc* tc = TC_CAST(o);
    // A top-level class: the kernel reports its parent as the root (some versions as the
    // qdisc's handle).
    const uint32_t parent = rtnl_tc_get_parent(tc);
    if (parent != TC_H_ROOT && parent != handle) continue;
    const char* kind = rtnl_tc_get_kind(tc);
    if (!kind || std::string(kind) != "htb") continue;
    rtnl_class* cls = reinterpret_cast<rtnl_class*>(o);
    uint64_t ceil = 0;
    if (rtnl_htb_get_ceil64(cls, &ceil) != 0 || ceil == 0) ceil = rtnl_htb_get_ceil(cls);
    best = std::max(best, static_cast<double>(ceil) * 8 / 1e6);
  }
  return best;
}

}  // namespace

bool shapersReadable() {
  return true;
}

bool shaperMbits(const std::string& iface, double* mbits, std::string* kind, std::string* why) {
  *mbits = 0;
  kind->clear();
  const int ifindex = static_cast<int>(if_nametoindex(iface.c_str()));
  if (ifindex == 0) {
    *why = "no interface " + iface;
    return false;
  }
  NlSocket s;
  if (!s.sock || nl_connect(s.sock, NETLINK_ROUTE) != 0) {
    *why = "cannot open a netlink socket";
    return false;
  }
  Cache qdiscs;
  if (rtnl_qdisc_alloc_cache(s.sock, &qdiscs.cache) != 0) {
    *why = "cannot list the qdiscs";
    return false;
  }
  rtnl_qdisc* root = rtnl_qdisc_get_by_parent(qdiscs.cache, ifindex, TC_H_ROOT);
  if (!root) return true;  // no root qdisc: not shaped
  rtnl_tc* tc = TC_CAST(root);
  const char* k = rtnl_tc_get_kind(tc);
  const std::string rootKind = k ? k : "";
  if (rootKind == "tbf") {
    const int rate = rtnl_qdisc_tbf_get_rate(root);  // bytes per second
    if (rate > 0) {
      *mbits = static_cast<double>(rate) * 8 / 1e6;
      *kind = "tbf";
    }
  } else if (rootKind == "htb") {
    *mbits = htbCeilingMbits(s.sock, ifindex, rtnl_tc_get_handle(tc));
    if (*mbits > 0) *kind = "htb";
  }
  rtnl_qdisc_put(root);
  return true;
}

#else

bool shapersReadable() {
  return false;
}

bool shaperMbits(const std::string&, double* mbits, std::string* kind, std::string* why) {
  *mbits = 0;
  kind->clear();
  *why = "traffic shapers not read (ccmpi was built without libnl-route-3)";
  return false;
}

#endif

LinkFinding findInterfaceLink(const std::string& iface) {
  LinkFinding f;
  if (iface.empty()) {
    f.how = "no interface";
    return f;
  }
  if (iface == "lo") {
    f.how = "loopback (no link)";
    return f;
  }
  const double nic = linkSourceEnabled("nic") ? nicSpeedMbits(iface) : 0;
  double shaped = 0;
  std::string kind, why;
  const bool read = linkSourceEnabled("shaper") ? shaperMbits(iface, &shaped, &kind, &why) : true;
  char buf[160];
  if (shaped > 0 && (nic <= 0 || shaped <= nic)) {
    f.mbits = shaped;
    if (nic > 0)
      snprintf(buf, sizeof buf, "%s qdisc on %s (its NIC reports %g Mbit/s)", kind.c_str(),
               iface.c_str(), nic);
    else
      snprintf(buf, sizeof buf, "%s qdisc on %s", kind.c_str(), iface.c_str());
  } else if (nic > 0) {
    f.mbits = nic;
    snprintf(buf, sizeof buf, "NIC speed of %s", iface.c_str());
  } else if (linkSourceEnabled("nic") && linkSourceEnabled("shaper")) {
    snprintf(buf, sizeof buf, "%s reports no speed and has no rate-limiting qdisc", iface.c_str());
  } else {
    snprintf(buf, sizeof buf, "%s: nothing found where CCMPI_LINK_FIND=%s looks", iface.c_str(),
             kFind.get().c_str());
  }
  f.how = buf;
  if (!read && f.mbits > 0) f.how += "; " + why;
  if (!read && f.mbits <= 0) f.how = iface + ": no speed reported; " + why;
  return f;
}

LinkFinding findLink(const std::string& address) {
  if (address.rfind("127.", 0) == 0) return LinkFinding{0, "loopback (no link)"};
  const std::string iface = interfaceOf(address);
  if (iface.empty()) return LinkFinding{0, "no interface holds " + address};
  return findInterfaceLink(iface);
}

}  // namespace ccmpi::transport
